import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import {
  amountSchema,
  checkActingParty,
  checkAmount,
  checkPartyRef,
  partyNameSchema,
  partyRefSchema,
} from './common.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'One leg of a delivery-versus-payment settlement (wrapped-api.md §7.4): the sender’s tokens locked in an allocation that the settlement’s executor settles (token.settle-allocation). Identified by the settlement id and the leg id: allocated once.',
  properties: {
    party: { ...partyNameSchema, description: 'The leg’s sender, a party the target acts as.' },
    receiver: { ...partyRefSchema, description: 'Who receives the tokens when the settlement executes.' },
    executor: { ...partyRefSchema, description: 'Who executes the settlement (a venue, an operator).' },
    amount: amountSchema,
    settlement_id: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'The settlement’s reference id, shared by all its legs.',
    },
    leg_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'This leg’s id within the settlement.',
    },
    allocate_before: {
      ...durationSchema,
      description: 'How long from now the legs may be allocated (default 1h).',
    },
    settle_before: {
      ...durationSchema,
      description:
        'How long from now the settlement may execute (default 24h); after it the sender may withdraw.',
    },
  },
  required: ['party', 'receiver', 'executor', 'amount', 'settlement_id', 'leg_id'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.allocate`; its run-time code is ./allocate.ts. */
export const tokenAllocateDeclaration = declareStep<With>({
  kind: 'token.allocate',
  summary: 'Allocate one DvP leg: lock the sender’s tokens for the settlement’s executor (once).',
  withSchema,
  outputs: {
    allocation_cid: 'the allocation (settle it with token.settle-allocation)',
    settlement_id: 'the settlement reference',
    leg_id: 'the leg id',
    amount: 'the amount locked',
    sender: 'the sender',
    receiver: 'the receiver',
    executor: 'the executor',
    settle_before: 'when the settlement must execute by',
  },
  needsTarget: true,
  check: (w, target) => [
    ...checkActingParty(w.party, target, '/party'),
    ...checkPartyRef(w.receiver, target, '/receiver'),
    ...checkPartyRef(w.executor, target, '/executor'),
    ...checkAmount(w.amount, '/amount'),
  ],
});
