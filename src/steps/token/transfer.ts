/**
 * token.transfer — send one amount to one receiver, exactly once. It is a distribution of one recipient: the
 * same deterministic command id, the same metadata on the ledger, the same reading of the ledger after a crash
 * or a lost answer, so a second run finds the offer (or its settlement) and sends nothing.
 */
import { positiveAmountProblem } from '../../clients/amount.js';
import type { FromSchema } from 'json-schema-to-ts';
import { StepError } from '../../errors.js';
import { defineStep, type Outputs, type StaticFinding, type StepContext } from '../../engine/step.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  observeDistribution,
  planRecipient,
  reconcileTransfer,
  recipientItems,
  sendRecipient,
  closeReceipts,
  reportRecipient,
  verifyRecipients,
  openDistribution,
  closeDistribution,
  distributionPlanState,
  type DistributeWith,
  type DistributionSession,
  type DistributionState,
} from './distribute.js';
import { RESENDABLE } from './distribution.js';
import type { Recipient } from './recipients.js';
import {
  actingPartyId,
  amountSchema,
  checkActingParty,
  partyNameSchema,
  partyRefFinding,
  resolvePartyRef,
} from './common.js';

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

type With = FromSchema<typeof withSchema>;

/** The distribution of one that this transfer is. */
function asDistribution(w: With, ctx: Pick<StepContext, 'target'>): DistributeWith {
  const receiver = resolvePartyRef(ctx.target, w.receiver);
  if (receiver === undefined) {
    const finding = partyRefFinding(w.receiver, ctx.target, '/receiver');
    throw new StepError(`with.receiver: ${finding.message}`, { hint: finding.hint });
  }
  return {
    sender: w.sender,
    recipients: [
      { receiver, amount: w.amount, ...(w.reference === undefined ? {} : { reference: w.reference }) },
    ],
    ...(w.reason === undefined ? {} : { reason: w.reason }),
    ...(w.expires === undefined ? {} : { expires: w.expires }),
    ...(w.id === undefined ? {} : { distribution: w.id }),
    ...(w.pay_again === undefined ? {} : { pay_again: w.pay_again }),
    ...(w.resend === undefined ? {} : { resend: w.resend }),
    consolidate: false,
  };
}

export const tokenTransfer = defineStep<With, DistributionState, Recipient, DistributionSession>({
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
  session: { open: openDistribution, close: closeDistribution },
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
  items: (w, ctx) => recipientItems(asDistribution(w, ctx), ctx),
  observe: (ctx, w) => observeDistribution(ctx, asDistribution(w, ctx)),
  planState: distributionPlanState,
  // a transfer's receiver is its distribution's only recipient
  verify: async (ctx, w) =>
    (await verifyRecipients(ctx, asDistribution(w, ctx))).map((f) => ({ ...f, pointer: '/receiver' })),
  plan: (w, state, item) => planRecipient(w, state, item.value),
  apply: (ctx, w, item, _plan, state) => sendRecipient(ctx, asDistribution(w, ctx), state, item.value),
  reconcile: (ctx, w, item, intents) => reconcileTransfer(ctx, asDistribution(w, ctx), item.value, intents),
  combine(w, results) {
    const [result] = results;
    return result === undefined
      ? {}
      : { receiver: result.key, reference: w.reference ?? null, ...result.outputs };
  },
  onItem: (ctx, w, item, result) => reportRecipient(ctx, asDistribution(w, ctx), item, result),
  finish: (ctx, w) => transferOutputs(ctx, w),
  preview: (ctx, w) => transferOutputs(ctx, w),
});

/** The transfer's receipt, written and returned as the step's outputs. */
async function transferOutputs(ctx: StepContext<DistributionSession>, w: With): Promise<Outputs> {
  const { last } = await closeReceipts(ctx, asDistribution(w, ctx));
  if (last === undefined) return {};
  const {
    distribution: _distribution,
    line: _line,
    sender: _sender,
    instrument: _instrument,
    ...receipt
  } = last;
  return { ...receipt };
}
