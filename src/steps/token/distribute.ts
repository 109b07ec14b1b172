/**
 * token.distribute — pay many receivers from one party, each exactly once, as fast as the network allows.
 *
 * Recipients (a CSV file read as a stream, or an inline list) are checked completely before anything is sent —
 * their form, and with the participant's party lookup that the network knows every receiver. Each recipient is an
 * item of the engine (key: the receiver), checkpointed on its own; its transfer is submitted under a deterministic
 * command id after its intent is durable, and carries the distribution's id in its metadata, so the ledger itself
 * says who was paid and how each offer ended: a second run, a resumed one, one after the state was lost, or one
 * racing another runner reads the sender's offers, the registry's records of settled transfers and the history of
 * the offers, and never sends a second offer — nor a first one to a (receiver, reference) the sender paid under
 * another distribution, unless the playbook says so.
 *
 * Speed: the sender's holdings are split into lanes first (within the 10-holding limit), each the head of a chain
 * of transfers whose change feeds the lane's next transfer, several lanes in flight at once; the engine's pacer
 * narrows the lanes in use when the network pushes back and widens them when it clears; the lanes are merged
 * again at the end. docs/architecture.md "Distributing tokens" has the whole design.
 */
import { defineStep } from '../contract.js';
import { tokenDistributeDeclaration } from './distribute.declaration.js';
import { closeReceipts, consolidate, reportRecipient, withdrawSuperseded } from './distribute/finish.js';
import { observeDistribution, planRecipient } from './distribute/observe.js';
import { recipientItems, verifyRecipients } from './distribute/recipients.js';
import { DEFAULT_LANES, type With } from './distribute/schema.js';
import { reconcileTransfer, sendOne } from './distribute/send.js';
import {
  closeDistribution,
  distributionPlanState,
  openDistribution,
  type DistributionSession,
  type Observed,
} from './distribute/session.js';
import type { Recipient } from './recipients.js';

// what token.transfer shares (a transfer is a distribution of one)
export { closeReceipts, reportRecipient } from './distribute/finish.js';
export { observeDistribution, planRecipient } from './distribute/observe.js';
export { recipientItems, verifyRecipients } from './distribute/recipients.js';
export { MAX_LANES, type DistributeWith } from './distribute/schema.js';
export { reconcileTransfer, sendRecipient } from './distribute/send.js';
export {
  closeDistribution,
  distributionPlanState,
  openDistribution,
  type DistributionSession,
  type Observed as DistributionState,
} from './distribute/session.js';

export const tokenDistribute = defineStep<With, Observed, Recipient, DistributionSession>({
  ...tokenDistributeDeclaration,
  concurrency: DEFAULT_LANES,
  session: { open: openDistribution, close: closeDistribution },
  verify: verifyRecipients,
  items: recipientItems,
  observe: observeDistribution,
  planState: distributionPlanState,
  plan: (w, state, item) => planRecipient(w, state, item.value),
  apply: (ctx, w, item, _plan, state) => sendOne(ctx, w, state.session, item.value),
  reconcile: (ctx, w, item, intents) => reconcileTransfer(ctx, w, item.value, intents),
  onItem: reportRecipient,
  async finish(ctx, w, results) {
    await withdrawSuperseded(ctx, w);
    // a run that found every recipient in sync sent nothing: it leaves the holdings as they are
    if (w.consolidate !== false && results.some((r) => r.status !== 'in-sync')) await consolidate(ctx, w);
    const { distribution, path, totals } = await closeReceipts(ctx, w);
    return { distribution, receipts: path, totals: { ...totals } };
  },
  async preview(ctx, w) {
    const { distribution, path, totals } = await closeReceipts(ctx, w);
    return { distribution, receipts: path, totals: { ...totals } };
  },
});
