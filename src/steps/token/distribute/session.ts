/**
 * What one execution of token.distribute shares between its items: the session the engine opens, passes as
 * `ctx.session` and closes, and the small facts of a payment every part reads.
 */
import { randomUUID } from 'node:crypto';
import { StepError } from '../../../errors.js';
import type { Intent, ItemContext, Outputs, StepContext } from '../../contract.js';
import type { DistributionView, Payment, ReceiptStatus } from '../distribution.js';
import { HoldingPool } from '../holding-pool.js';
import type { Receipt, ReceiptsWriter } from '../receipts.js';
import type { SelfTransferContext } from '../merge-split.js';
import type { Recipients } from '../recipients.js';
import type { With } from './schema.js';

/** The intent of one recipient's transfer (the item is the receiver; the command id names the distribution). */
export interface TransferIntent extends Intent {
  action: 'transfer';
  commandId: string;
  amount: string;
  /** an offset before the submission: its completion comes after it */
  offset: number;
  // a re-offer also has `replaces`: the offer (or transaction) it replaces (see replacesOf)
}

/** The offer (or transaction) a re-offer's intent replaces; undefined for a first offer. */
export function replacesOf(intent: TransferIntent): string | undefined {
  const value = intent['replaces'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What one execution of the step knows, shared by its items: the engine opens it (openDistribution), passes it as
 * `ctx.session` and closes it when the step ends (closeDistribution).
 */
export interface DistributionSession {
  /** read by items() */
  recipients: Recipients | undefined;
  distribution: string | undefined;
  sender: string | undefined;
  /** what the ledger shows the distribution did, kept up to date as transfers land and as it is read again */
  view: DistributionView | undefined;
  /** reads of what happened on the ledger since the view's offset: one at a time, shared by who asks meanwhile */
  catchingUp: Promise<void> | undefined;
  /** this invocation's own submission id: a completion or a duplicate naming it was sent by this run */
  submissionId: string;
  /** receivers whose transfer this run sent, and those it found sent by another submission */
  sentBy: Map<string, 'this-run' | 'another'>;
  pool: HoldingPool;
  lanes: number;
  /** an offset no later than any transfer this execution makes */
  offset: number;
  /** the offset of the first read of the distribution: what landed after it was sent while this run worked */
  snapshotOffset: number;
  /** command ids the ledger refused (definitely, in this process): nothing of them to settle */
  refused: Set<string>;
  observed: Promise<Observed> | undefined;
  split: Promise<void> | undefined;
  splitDone: boolean;
  splitTries: number;
  /** a read of the holdings under way */
  refreshing: Promise<void> | undefined;
  /** the offset of the first attempt of each item in flight (its intent stays the same across attempts) */
  firstOffset: Map<string, number>;
  /** the receipts file, written as items finish */
  receipts: ReceiptsWriter | undefined;
  lastReceipt: Receipt | undefined;
}

export interface Observed {
  session: DistributionSession;
  /** the amount still to pay */
  remaining: string;
  spendable: string;
}

/**
 * What decides a distribution's plan, for a saved plan's digest: the session holds a submission id of its own
 * and in-memory bookkeeping that differ on every look; each recipient's change is compared item by item anyway.
 */
export function distributionPlanState({ session, remaining, spendable }: Observed): unknown {
  return { distribution: session.distribution ?? null, remaining, spendable };
}

export type Ctx = StepContext<DistributionSession>;
export type ItemCtx = ItemContext<DistributionSession>;

/** A new execution's session: nothing read yet. */
export function openDistribution(): DistributionSession {
  return {
    recipients: undefined,
    distribution: undefined,
    sender: undefined,
    view: undefined,
    catchingUp: undefined,
    submissionId: `ledgerbook-${randomUUID()}`,
    sentBy: new Map(),
    pool: new HoldingPool(),
    lanes: 1,
    offset: 0,
    snapshotOffset: 0,
    refused: new Set(),
    observed: undefined,
    split: undefined,
    splitDone: false,
    splitTries: 0,
    refreshing: undefined,
    firstOffset: new Map(),
    receipts: undefined,
    lastReceipt: undefined,
  };
}

/** The step ended without putting its receipts in place (a failure, an interruption): the partial file goes. */
export async function closeDistribution(session: DistributionSession): Promise<void> {
  const receipts = session.receipts;
  session.receipts = undefined;
  await receipts?.discard();
}

/** The recipients items() read. */
export function recipientsOf(session: DistributionSession): Recipients {
  if (session.recipients === undefined)
    throw new StepError('token.distribute: the recipients were not read yet');
  return session.recipients;
}

export function viewOf(session: DistributionSession): DistributionView {
  if (session.view === undefined) throw new StepError('token.distribute: the ledger was not read yet');
  return session.view;
}

/** A self-transfer's command id: the step's, not one item's (item ""), whichever item splits or merges. */
export function selfTransferId(ctx: Ctx): SelfTransferContext['commandId'] {
  return (purpose, inputs) => ctx.commandId(purpose, inputs, '');
}

/** The statuses the playbook asks to offer again (`resend:`). */
export function resendOf(w: Pick<With, 'resend'>): ReadonlySet<ReceiptStatus> {
  return new Set<ReceiptStatus>(w.resend ?? []);
}

/** What still needs a transfer: a receiver the distribution never sent to, or one whose offer `resend` names. */
export function toSend(w: Pick<With, 'resend'>, payment: Payment | undefined): boolean {
  return payment === undefined || resendOf(w).has(payment.status);
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * An item's outputs: what the ledger says of its transfer (the journal keeps one per item, so only what the
 * recipients file does not say: the receiver is the item's key, the line and reference are in the file).
 */
export function receiptOutputs(
  payment: Payment,
  extra: { by?: 'this-run' | 'another' | undefined; replaced?: string | undefined } = {},
): Outputs {
  return {
    amount: payment.amount,
    status: payment.status,
    offer: payment.offer,
    update: payment.update,
    // only when it says something: one item record per recipient in the journal
    ...(extra.by === 'another' ? { found: true } : {}),
    ...(extra.replaced === undefined ? {} : { replaced: extra.replaced }),
  };
}
