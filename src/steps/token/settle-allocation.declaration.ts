import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import type { Target } from '../../playbook/target.js';
import { checkActingParty, checkPartyRef, partyNameSchema, partyRefSchema } from './common.declaration.js';

export function checkSameNode(w: With, target: Target | undefined): StaticFinding[] {
  if (target === undefined || typeof w.party !== 'string' || hasExpression(w.party)) return [];
  const own = target.parties?.[w.party];
  if (typeof own !== 'object') return [];
  const findings: StaticFinding[] = [];
  (Array.isArray(w.act_as) ? w.act_as : []).forEach((ref, i) => {
    if (typeof ref !== 'string' || hasExpression(ref)) return;
    const other = target.parties?.[ref];
    if (typeof other === 'object' && other.node !== own.node) {
      findings.push({
        pointer: `/act_as/${i}`,
        message: `${ref} is hosted on ${other.node}, not on ${own.node} where ${w.party} submits`,
        hint: 'a submission acts only as parties its participant hosts: every act_as party must be on one node',
      });
    }
  });
  return findings;
}

const withSchema = {
  type: 'object',
  description:
    'Settle one DvP leg’s allocation (wrapped-api.md §7.4): execute the transfer (`Allocation_ExecuteTransfer`), give the funds back to the sender (`Allocation_Withdraw`), or cancel it (`Allocation_Cancel`). Once: an allocation that is no longer active is settled.',
  properties: {
    party: {
      ...partyNameSchema,
      description: 'The party that submits: the executor (execute, cancel) or the sender (withdraw).',
    },
    act_as: {
      type: 'array',
      items: partyRefSchema,
      minItems: 1,
      description:
        'Every party the choice needs (the token standard: executor, sender and receiver to execute or cancel; the sender to withdraw), submitted together through `party`’s node; each must be hosted there with the right to act (default: `party` alone).',
    },
    action: { enum: ['execute', 'withdraw', 'cancel'], description: 'What to do with the allocation.' },
    allocation_cid: {
      type: 'string',
      minLength: 1,
      description: 'The allocation, e.g. `${{ steps.allocate.outputs.allocation_cid }}`.',
    },
    settlement_id: {
      type: 'string',
      minLength: 1,
      description: 'Instead of `allocation_cid`: the settlement id, with `leg_id`.',
    },
    leg_id: { type: 'string', minLength: 1, description: 'With `settlement_id`: the leg.' },
  },
  required: ['party', 'action'],
  oneOf: [{ required: ['allocation_cid'] }, { required: ['settlement_id', 'leg_id'] }],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.settle-allocation`; its run-time code is ./settle-allocation.ts. */
export const tokenSettleAllocationDeclaration = declareStep<With>({
  kind: 'token.settle-allocation',
  summary: 'Settle a DvP allocation: execute the transfer, withdraw it, or cancel it (once).',
  withSchema,
  outputs: {
    action: 'what was done (null when the allocation was found settled already)',
    allocation_cid: 'the allocation',
    update_id: 'the ledger transaction',
    receiver_holding_cids: 'holdings the receiver got (execute)',
    sender_holding_cids: 'holdings returned to the sender (withdraw, cancel)',
  },
  needsTarget: true,
  check(w, target) {
    return [
      ...checkActingParty(w.party, target, '/party'),
      ...(Array.isArray(w.act_as) ? w.act_as : []).flatMap((ref, i) =>
        checkPartyRef(ref, target, `/act_as/${i}`),
      ),
      ...checkSameNode(w, target),
    ];
  },
});
