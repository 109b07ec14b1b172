/**
 * Sending a distribution: the sender's holdings split into lanes, one transfer per recipient under the engine's
 * command id after its intent is durable, a taken command id settled from the ledger, and reconcile after a crash.
 */
import { AmountDecimal, amountValue } from '../../../clients/amount.js';
import { isLedgerError, type LedgerError } from '../../../clients/ledger-errors.js';
import type { Completion, Transaction } from '../../../clients/ledger-wire.js';
import type { PartyLedger } from '../../../clients/party-ledger.js';
import { transferOf } from '../../../clients/token-commands.js';
import { sendTransfer } from '../../../clients/token-flows.js';
import { transferInstructionResult } from '../../../clients/token-results.js';
import { TOKEN_CHOICES } from '../../../clients/token-wire.js';
import { LedgerbookError, StepError } from '../../../errors.js';
import type { Intent, JsonValue, Outputs } from '../../contract.js';
import { transferMeta, type Payment } from '../distribution.js';
import { splitRound, type PoolHolding } from '../holding-pool.js';
import { selfTransfer, type SelfTransferContext } from '../merge-split.js';
import type { Recipient } from '../recipients.js';
import { durationMs, instrumentOf, short } from '../common.js';
import { catchUpView, observeDistribution, refreshHoldings } from './observe.js';
import { DEFAULT_EXPIRY, type With } from './schema.js';
import {
  type Ctx,
  type DistributionSession,
  type ItemCtx,
  type Observed,
  type TransferIntent,
  receiptOutputs,
  replacesOf,
  resendOf,
  selfTransferId,
  toSend,
  viewOf,
} from './session.js';

/** Failed splits before the lanes are given up (the distribution then runs on the holdings it has). */
const SPLIT_TRIES = 3;

/**
 * Splits the sender's holdings into the session's lanes, once, before the first transfers. While one item splits,
 * the others wait; when a split fails, its item's attempt fails (the engine retries it) and the others go on with
 * the holdings there are: lanes make a distribution fast, never correct.
 */
async function ensureLanes(ctx: ItemCtx, w: With, session: DistributionSession): Promise<void> {
  if (session.splitDone) return;
  if (session.split !== undefined) {
    await session.split.catch(() => undefined);
    return;
  }
  session.split = splitIntoLanes(ctx, w, session);
  try {
    await session.split;
    session.splitDone = true;
  } catch (error) {
    session.splitTries++;
    if (session.splitTries >= SPLIT_TRIES) {
      session.splitDone = true;
      ctx.log(
        'warn',
        `the sender's holdings could not be split into lanes (${error instanceof Error ? error.message : String(error)}): going on with the ${session.pool.size} there are`,
      );
    }
    throw error;
  } finally {
    session.split = undefined;
  }
}

async function splitIntoLanes(ctx: ItemCtx, w: With, session: DistributionSession): Promise<void> {
  const self: SelfTransferContext = {
    sender: ctx.clients.party(w.sender),
    registry: ctx.clients.registry(),
    instrument: instrumentOf(ctx),
    clock: ctx.clock,
    signal: ctx.signal,
    commandId: selfTransferId(ctx),
  };
  for (let round = 0; round < 8; round++) {
    const splits = splitRound(session.pool.freeHoldings, session.lanes);
    if (splits.length === 0) return;
    ctx.progress(
      `splitting ${splits.length} holding${splits.length === 1 ? '' : 's'} into ${session.lanes} lanes`,
    );
    const outcomes = await Promise.allSettled(
      splits.map(async ({ holding, amount }) => {
        const inputs = session.pool.claim([holding]);
        if (inputs.length === 0) return;
        let done;
        try {
          done = await selfTransfer(
            self,
            inputs.map((h) => h.cid),
            amount,
            'ledgerbook: split into lanes',
          );
        } catch (error) {
          throw settleFailure(session, inputs, undefined, error);
        }
        const [change] = done.change;
        session.pool.settle(inputs, [
          { cid: done.holding, amount: amountValue(amount) },
          ...(change === undefined ? [] : [{ cid: change, amount: holding.amount.minus(amount) }]),
        ]);
        if (done.change.length > 1) session.pool.stale = true;
      }),
    );
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    if (session.pool.stale) await refreshHoldings(ctx, w, session);
  }
}

export async function sendOne(
  ctx: ItemCtx,
  w: With,
  session: DistributionSession,
  recipient: Recipient,
): Promise<Outputs> {
  await ensureLanes(ctx, w, session);
  const sender = ctx.clients.party(w.sender);
  const registry = ctx.clients.registry();
  const instrument = instrumentOf(ctx);
  const distribution = session.distribution ?? '';
  const amount = amountValue(recipient.amount);
  // what another runner sent since the last read is not sent again: with a participant that deduplicates little
  // or nothing, only this read tells (a submission of it still in flight is refused as such, and waited for)
  const now = (await catchUpView(ctx, w, session, 'any')).payment(recipient.receiver);
  if (now !== undefined && !toSend(w, now)) {
    const by = session.sentBy.get(recipient.receiver) ?? 'another';
    session.sentBy.set(recipient.receiver, by);
    return receiptOutputs(now, { by });
  }
  const replaces = replacedBy(w, now);
  const commandId = ctx.commandId('transfer', transferInputs(distribution, recipient, replaces));
  const inputs = await session.pool.take(amount, ctx.signal, () => refreshHoldings(ctx, w, session));
  // the same intent on every attempt of the item, so that a retry after a refusal needs no new durable write
  const offset = session.firstOffset.get(recipient.receiver) ?? session.offset;
  session.firstOffset.set(recipient.receiver, offset);
  const intent: TransferIntent = {
    action: 'transfer',
    commandId,
    amount: recipient.amount,
    offset,
    ...(replaces === undefined ? {} : { replaces }),
  };
  const requestedAt = ctx.clock.now();
  const executeBefore = new Date(requestedAt + durationMs(asText(w.expires), DEFAULT_EXPIRY));
  let transaction: Transaction;
  try {
    await ctx.record(intent);
    const sent = await sendTransfer(
      sender,
      registry,
      transferOf({
        sender: sender.party,
        receiver: recipient.receiver,
        amount: recipient.amount,
        instrument,
        requestedAt: new Date(requestedAt),
        executeBefore,
        inputHoldingCids: inputs.map((h) => h.cid),
        meta: transferMeta(distribution, recipient, w.reason),
      }),
      { commandId, signal: ctx.signal, submissionId: session.submissionId },
    );
    transaction = sent.transaction;
  } catch (error) {
    if (isLedgerError(error, 'duplicate-command') || isLedgerError(error, 'in-flight')) {
      // refused before it used anything: the command id is another submission's, which is settled instead
      session.pool.restore(inputs);
      return settleOriginal(ctx, w, session, recipient, intent, error);
    }
    throw settleFailure(session, inputs, commandId, error);
  }
  session.firstOffset.delete(recipient.receiver);
  session.sentBy.set(recipient.receiver, 'this-run');
  return landed(session, recipient, inputs, transaction, {
    expiresAt: executeBefore.toISOString(),
    replaces,
  });
}

/** A re-offer's `replaces`: the earlier offer (or its transaction) of a receiver whose status `resend` names. */
function replacedBy(w: With, payment: Payment | undefined): string | undefined {
  if (payment === undefined || !resendOf(w).has(payment.status)) return undefined;
  return payment.offer ?? payment.update ?? `${payment.status}:${payment.amount}`;
}

/** Whether `payment` is the transfer `intent` sent (for a re-offer: not the offer it replaces). */
function sentFor(payment: Payment | undefined, intent: TransferIntent): payment is Payment {
  if (payment === undefined) return false;
  const replaces = replacesOf(intent);
  return replaces === undefined || (payment.offer !== replaces && payment.update !== replaces);
}

/** How long the original of a taken command id is waited for, a read of the ledger after each pause. */
const ORIGINAL_POLLS_MS = [0, 250, 500, 1000, 2000, 4000, 8000, 15000];

/**
 * The participant refused the submission because its command id is taken: an earlier attempt, or another runner,
 * sent this very transfer, and it landed (DUPLICATE_COMMAND) or is landing (SUBMISSION_ALREADY_IN_FLIGHT). Settled
 * by waiting for that original — reading what the distribution did since, until the ledger shows its transfer —
 * never by sending under another id. Which submission it was says who sent it: this run, or another.
 */
async function settleOriginal(
  ctx: ItemCtx,
  w: With,
  session: DistributionSession,
  recipient: Recipient,
  intent: TransferIntent,
  error: LedgerError,
): Promise<Outputs> {
  const sender = ctx.clients.party(w.sender);
  const existing = error.canton?.context?.['existing_submission_id'];
  let waited = 0;
  for (const pause of ORIGINAL_POLLS_MS) {
    if (pause > 0) await ctx.clock.sleep(pause, ctx.signal);
    waited += pause;
    const payment = (await catchUpView(ctx, w, session)).payment(recipient.receiver);
    if (sentFor(payment, intent)) {
      const by =
        existing === session.submissionId ? 'this-run' : await whoSent(sender, session, intent, ctx.signal);
      session.firstOffset.delete(recipient.receiver);
      session.sentBy.set(recipient.receiver, by);
      if (by === 'another')
        ctx.log(
          'info',
          `${short(recipient.receiver)}: found its transfer sent by another run (${error.cantonCode})`,
        );
      return receiptOutputs(payment, { by, replaced: replacesOf(intent) });
    }
    const completion = await completionOf(sender, intent, ctx.signal);
    if (completion !== undefined && (completion.status?.code ?? 0) !== 0)
      throw new StepError(
        `the first submission of command ${intent.commandId} was rejected (${completion.status?.message ?? `code ${completion.status?.code}`}): sending it again under the same id`,
        { retryability: 'transient' },
      );
  }
  throw new StepError(
    `command ${intent.commandId} is ${error.kind === 'in-flight' ? 'still in flight' : 'taken'} (${error.cantonCode}) and its transfer does not show on the ledger after ${Math.round(waited / 1000)} s`,
    {
      retryability: 'transient',
      cause: error,
      hint: 'the ledger is read again before anything is sent; the transfer is never sent under another id',
    },
  );
}

/** Whether this run's own submission landed the intent's command (its completion names this run's submission id). */
async function whoSent(
  sender: PartyLedger,
  session: DistributionSession,
  intent: TransferIntent,
  signal: AbortSignal,
): Promise<'this-run' | 'another'> {
  const completion = await completionOf(sender, intent, signal);
  return completion?.submissionId === session.submissionId && (completion.status?.code ?? 0) === 0
    ? 'this-run'
    : 'another';
}

/**
 * What a failed submission leaves: its inputs back in the pool (the ledger refused it) or out of it until the
 * holdings are read again (an input was archived, or the outcome is unknown), and the error the engine acts on —
 * a lost answer made transient, so that the engine reconciles the intent before any new attempt.
 */
function settleFailure(
  session: DistributionSession,
  inputs: readonly PoolHolding[],
  commandId: string | undefined,
  error: unknown,
): unknown {
  if (!(error instanceof LedgerbookError)) {
    session.pool.drop(inputs);
    return error;
  }
  if (isLedgerError(error, 'contract-not-found')) {
    // an input was archived since it was read (spent elsewhere): nothing landed; read the holdings again
    if (commandId !== undefined) session.refused.add(commandId);
    session.pool.drop(inputs);
    return new StepError(`an input holding was archived since it was read: reading the holdings again`, {
      retryability: 'transient',
      cause: error,
      hint: error.hint,
    });
  }
  if (error.retryability === 'ambiguous') {
    // the answer was lost (or the id was already used): the engine reconciles the intent before any new attempt
    session.pool.drop(inputs);
    return new StepError(
      `${error.message}: the ledger is read for command ${commandId} before anything is sent again`,
      {
        retryability: 'transient',
        cause: error,
        hint: 'an answer that does not say whether the transfer landed is settled from the ledger, never by a second offer',
      },
    );
  }
  if (commandId !== undefined) session.refused.add(commandId);
  session.pool.restore(inputs);
  return error;
}

/** A transfer landed: its change goes back to its lane, the view records it, its receipt is the item's outputs. */
export function landed(
  session: DistributionSession,
  recipient: Recipient,
  inputs: readonly PoolHolding[],
  transaction: Transaction,
  sent: { expiresAt: string; replaces: string | undefined },
): Outputs {
  const result = transferInstructionResult(transaction, TOKEN_CHOICES.transfer);
  const change = result?.senderChangeCids ?? [];
  const spent = inputs.reduce((sum, h) => sum.plus(h.amount), new AmountDecimal(0));
  const rest = spent.minus(amountValue(recipient.amount));
  if (change.length === 1 && change[0] !== undefined)
    session.pool.settle(inputs, [{ cid: change[0], amount: rest }]);
  else {
    session.pool.settle(inputs, []);
    if (change.length > 1 || (change.length === 0 && rest.greaterThan(0))) session.pool.stale = true;
  }
  session.offset = Math.max(session.offset, transaction.offset);
  const payment = paymentOf(recipient, transaction, sent.expiresAt);
  viewOf(session).record(payment);
  return receiptOutputs(payment, { replaced: sent.replaces });
}

function paymentOf(recipient: Recipient, transaction: Transaction, expiresAt: string): Payment {
  const outcome = transferInstructionResult(transaction, TOKEN_CHOICES.transfer)?.outcome;
  const pending = outcome?.status === 'pending';
  return {
    receiver: recipient.receiver,
    amount: recipient.amount,
    reference: recipient.reference,
    line: recipient.line,
    status: pending ? 'offered' : outcome?.status === 'failed' ? 'rejected' : 'settled',
    offer: pending ? outcome.transferInstructionCid : null,
    settlement: null,
    update: transaction.updateId,
    offset: transaction.offset,
    expiresAt: pending ? expiresAt : null,
  };
}

function asText(value: With['expires']): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** What defines one recipient's transfer, for its command id: a re-offer names the offer it replaces. */
function transferInputs(distribution: string, recipient: Recipient, replaces?: string): JsonValue {
  return {
    distribution,
    receiver: recipient.receiver,
    amount: recipient.amount,
    reference: recipient.reference,
    ...(replaces === undefined ? {} : { replaces }),
  };
}

/** The command id a recipient's transfer is sent under (what `ctx.commandId` gives its item). */
export function transferCommandId(
  ctx: Ctx,
  distribution: string,
  recipient: Recipient,
  replaces?: string,
): string {
  return ctx.commandId('transfer', transferInputs(distribution, recipient, replaces), recipient.receiver);
}

function isTransferIntent(intent: Intent): intent is TransferIntent {
  return (
    intent.action === 'transfer' &&
    typeof intent['commandId'] === 'string' &&
    typeof intent['offset'] === 'number'
  );
}

/**
 * After a crash, a lost answer or a refusal: did the item's transfer land? The ledger says, whoever sent it: what
 * the distribution did since the view was read (every offer made or settled since, by this run or another). When
 * it shows nothing for the receiver the item is sent again — under the same command id, so a submission still in
 * flight is refused and waited for, not paid twice.
 */
export async function reconcileTransfer(
  ctx: ItemCtx,
  w: With,
  recipient: Recipient,
  intents: readonly Intent[],
): Promise<{ status: 'done'; outputs: Outputs } | { status: 'not-done'; note: string }> {
  const transfers = intents.filter(isTransferIntent);
  if (transfers.length === 0) return { status: 'not-done', note: 'no transfer was started' };
  const { session } = await observeDistribution(ctx, w);
  const last = transfers.at(-1) as TransferIntent;
  const payment = (await catchUpView(ctx, w, session)).payment(recipient.receiver);
  if (sentFor(payment, last)) {
    // its inputs are spent and its change is new: read the holdings again
    session.pool.stale = true;
    const by = session.refused.has(last.commandId)
      ? 'another'
      : await whoSent(ctx.clients.party(w.sender), session, last, ctx.signal);
    session.sentBy.set(recipient.receiver, by);
    return { status: 'done', outputs: receiptOutputs(payment, { by, replaced: replacesOf(last) }) };
  }
  return {
    status: 'not-done',
    note: `the ledger shows no transfer of command ${last.commandId} (read up to offset ${session.offset}); sending it again under the same id`,
  };
}

/** The participant answers at most this many completions per list (Canton's `http-list-max-elements-limit`). */
const COMPLETIONS_PAGE = 200;

/** The completion of an intent's command after its offset, read a page at a time; undefined when there is none. */
async function completionOf(
  sender: PartyLedger,
  intent: TransferIntent,
  signal: AbortSignal,
): Promise<Completion | undefined> {
  let from = intent.offset;
  for (;;) {
    const page = await sender.ledger.completions(
      { parties: [sender.party], beginExclusive: from },
      { signal, limit: COMPLETIONS_PAGE },
    );
    const found = page.find((c) => c.commandId === intent.commandId);
    if (found !== undefined) return found;
    const last = Math.max(from, ...page.map((c) => c.offset ?? from));
    if (page.length < COMPLETIONS_PAGE || last <= from) return undefined;
    from = last;
  }
}

export const sendRecipient = (
  ctx: ItemCtx,
  w: With,
  state: Observed,
  recipient: Recipient,
): Promise<Outputs> => sendOne(ctx, w, state.session, recipient);
