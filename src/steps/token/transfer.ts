/**
 * token.transfer — send one amount to one receiver, exactly once. It is a distribution of one recipient: the
 * same deterministic command id, the same metadata on the ledger, the same reading of the ledger after a crash
 * or a lost answer, so a second run finds the offer (or its settlement) and sends nothing.
 */
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { partyRefFinding, resolvePartyRef } from './common.declaration.js';
import {
  closeDistribution,
  closeReceipts,
  distributionPlanState,
  observeDistribution,
  openDistribution,
  planRecipient,
  recipientItems,
  reconcileTransfer,
  reportRecipient,
  sendRecipient,
  verifyRecipients,
  type DistributeWith,
  type DistributionSession,
  type DistributionState,
} from './distribute.js';
import type { Recipient } from './recipients.js';
import { tokenTransferDeclaration, type With } from './transfer.declaration.js';

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
  ...tokenTransferDeclaration,
  session: { open: openDistribution, close: closeDistribution },
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
