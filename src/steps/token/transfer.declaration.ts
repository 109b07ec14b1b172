import type { FromSchema } from 'json-schema-to-ts';
import { positiveAmountProblem } from '../../clients/amount-text.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import {
  actingPartyId,
  amountSchema,
  checkActingParty,
  partyNameSchema,
  partyRefFinding,
  resolvePartyRef,
} from './common.declaration.js';
import { RESENDABLE } from './distribution.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'Send one amount to one receiver, exactly once: an offer the receiver accepts (or a transfer that settles at once when it pre-approved the instrument).',
  properties: {
    sender: { ...partyNameSchema, description: 'The party that pays (a party the target acts as).' },
    receiver: {
      type: 'string',
      minLength: 1,
      description: 'Who receives: a party id, or a name under the target’s `parties:`.',
    },
    amount: amountSchema,
    reference: { type: 'string', description: 'The transfer’s `splice.lfdecentralizedtrust.org/reference`.' },
    reason: {
      type: 'string',
      maxLength: 1024,
      description: 'The transfer’s `splice…/reason` (default empty).',
    },
    expires: {
      ...durationSchema,
      description: 'How long the offer stays open for the receiver (`executeBefore`); default 168h.',
    },
    id: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$',
      description:
        'The transfer’s id on the ledger (its metadata carries it, as a distribution’s id). Default: derived from the playbook’s `name:`, the step, the sender and the instrument. A new id does not send again to a receiver and reference the sender already paid, unless `pay_again: true`.',
    },
    pay_again: {
      type: 'boolean',
      description:
        'Send even when the sender already paid this receiver with this reference under another id (default false: refused, exit 65).',
    },
    resend: {
      type: 'array',
      items: { enum: [...RESENDABLE] },
      uniqueItems: true,
      description:
        'Offer again, under a new command id, when this transfer’s offer ended unpaid: `expired`, `rejected`, `withdrawn` (default: reported, not sent again).',
    },
  },
  required: ['sender', 'receiver', 'amount'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.transfer`; its run-time code is ./transfer.ts. */
export const tokenTransferDeclaration = declareStep<With>({
  kind: 'token.transfer',
  summary: 'Send one amount to one receiver, exactly once (an offer, or a direct settlement).',
  withSchema,
  outputs: {
    status:
      '`offered` (the receiver has an offer to accept), `expired` (it can no longer accept it), `settled` (it holds the amount), `rejected` or `withdrawn`',
    offer: 'the offer’s contract id (null once settled at once)',
    update: 'the update id of the transaction that sent it (null when a later run only found it)',
    receiver: 'the receiving party id',
    amount: 'the amount',
    reference: 'the reference, or null',
    command: 'the command id it is sent under',
  },
  needsTarget: true,
  check(w, target) {
    const findings: StaticFinding[] = checkActingParty(w.sender, target, '/sender');
    if (typeof w.receiver === 'string' && !hasExpression(w.receiver) && target !== undefined) {
      const receiver = resolvePartyRef(target, w.receiver);
      if (receiver === undefined) findings.push(partyRefFinding(w.receiver, target, '/receiver'));
      else if (receiver === actingPartyId(target, w.sender))
        findings.push({ pointer: '/receiver', message: 'the receiver is the sender itself' });
    }
    if (typeof w.amount === 'string' && !hasExpression(w.amount)) {
      const problem = positiveAmountProblem(w.amount);
      if (problem !== undefined) findings.push({ pointer: '/amount', message: problem });
    }
    return findings;
  },
});
