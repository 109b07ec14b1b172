/**
 * token.distribute — pay many receivers from one party, each exactly once, as fast as the network allows.
 *
 * Recipients (a CSV file read as a stream, or an inline list) are checked completely before anything is sent.
 * Each recipient is an item of the engine (key: the receiver), checkpointed on its own; its transfer is submitted
 * under a deterministic command id after its intent is durable, and carries the distribution's id in its
 * metadata, so the ledger itself says who was paid: a second run, a resumed one, or one after a crash, a timeout
 * or a lost answer reads the sender's offers and the registry's records of settled transfers (and, for a
 * submission in doubt, its completion) and never sends a second offer.
 *
 * Speed: the sender's holdings are split into lanes first (within the 10-holding limit), each the head of a chain
 * of transfers whose change feeds the lane's next transfer, several lanes in flight at once; the engine's pacer
 * narrows the lanes in use when the network pushes back and widens them when it clears; the lanes are merged
 * again at the end. docs/architecture.md "Distributing tokens" has the whole design.
 */
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import { AmountDecimal, amountValue, sumAmounts } from '../../clients/amount.js';
import { isLedgerError } from '../../clients/ledger-errors.js';
import type { Completion, Transaction } from '../../clients/ledger-wire.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import { transferOf } from '../../clients/token-commands.js';
import { sendTransfer } from '../../clients/token-flows.js';
import { transferInstructionResult } from '../../clients/token-results.js';
import { TOKEN_CHOICES } from '../../clients/token-wire.js';
import { LedgerbookError, StepError, ValidationError } from '../../errors.js';
import { commandIdOf } from '../../engine/command-id.js';
import {
  defineStep,
  type Intent,
  type Item,
  type ItemContext,
  type ItemPlan,
  type ItemResult,
  type JsonValue,
  type Outputs,
  type StaticFinding,
  type StepContext,
} from '../../engine/step.js';
import type { Diagnostic } from '../../playbook/diagnostics.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  compare,
  describePayment,
  distributionId,
  readPayments,
  transferMeta,
  type Payment,
  type ReceiptStatus,
} from './distribution.js';
import { DataFileError, displayPath } from '../../data-file.js';
import { HoldingPool, splitRound, type PoolHolding } from './holding-pool.js';
import { ReceiptsWriter, type Receipt, type ReceiptTotals } from './receipts.js';
import { selfTransfer, type SelfTransferContext } from './merge-split.js';
import {
  inlineRecipients,
  readRecipients,
  readRecipientsSync,
  recipientDiagnostics,
  type Recipient,
  type Recipients,
} from './recipients.js';
import {
  actingPartyId,
  amountSchema,
  checkActingParty,
  durationMs,
  instrumentOf,
  partyNameSchema,
  short,
} from './common.js';

/** Lanes at most: one holding each, and the sender stays within the 10-holding limit (wrapped-api.md §5.4). */
export const MAX_LANES = 9;
const DEFAULT_LANES = 8;
const DEFAULT_EXPIRY = '168h';

const recipientSchema = {
  type: 'object',
  properties: {
    receiver: { type: 'string', description: 'The receiving party id, `<hint>::1220<64 hex>`.' },
    amount: amountSchema,
    reference: { type: 'string', description: 'Recorded as the transfer’s `splice…/reference` metadata.' },
  },
  required: ['receiver', 'amount'],
  additionalProperties: false,
} as const;

const withSchema = {
  type: 'object',
  description:
    'Pay many receivers from one party, each exactly once: recipients checked completely before anything is sent, one checkpoint and one deterministic command id per recipient, several chains of holdings in flight at once, paced to what the network accepts, a receipt per recipient.',
  properties: {
    sender: {
      ...partyNameSchema,
      description:
        'The party that pays: a name under the target’s `parties:` written `{party, node}`. Its spendable holdings of the target’s instrument must cover every recipient still to pay.',
    },
    recipients: {
      description:
        'A CSV file (relative to the playbook) with the header `receiver,amount` and optionally `reference`, LF line ends, UTF-8 without a byte-order mark; or a list of `{receiver, amount, reference?}`. Receivers are party ids, each listed once; amounts are > 0 with at most 10 fraction digits.',
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: recipientSchema, minItems: 1 },
      ],
    },
    reason: {
      type: 'string',
      maxLength: 1024,
      description: 'The `splice.lfdecentralizedtrust.org/reason` metadata of every transfer (default empty).',
    },
    distribution: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$',
      description:
        'The distribution’s id on the ledger (every transfer carries it). Default: derived from the playbook name, the step id, the sender and the instrument, so a rerun finds what it paid. A new label starts a new distribution that pays the same receivers again.',
    },
    expires: {
      ...durationSchema,
      description: 'How long each offer stays open for its receiver (`executeBefore`); default 168h.',
    },
    consolidate: {
      type: 'boolean',
      description: 'Merge the sender’s spendable holdings into one at the end (default true).',
    },
    receipts: {
      type: 'string',
      minLength: 1,
      description:
        'Where to write the receipts (JSON lines), relative to the playbook. Default: `steps/<step id>/receipts-<run>.jsonl` beside the journal.',
    },
  },
  required: ['sender', 'recipients'],
  additionalProperties: false,
} as const;

export type DistributeWith = FromSchema<typeof withSchema>;
type With = DistributeWith;

/** The intent of one recipient's transfer (the item is the receiver; the command id names the distribution). */
interface TransferIntent extends Intent {
  action: 'transfer';
  commandId: string;
  amount: string;
  /** an offset before the submission: its completion comes after it */
  offset: number;
}

/** What one execution of the step knows, shared by its items (the engine's state holds a reference to it). */
interface Session {
  recipients: Recipients;
  distribution: string | undefined;
  sender: string | undefined;
  /** paid, by receiver: from the ledger, then kept up to date as transfers land */
  payments: Map<string, Payment>;
  pool: HoldingPool;
  lanes: number;
  /** an offset no later than any transfer this execution makes */
  offset: number;
  /** command ids the ledger refused (definitely, in this process): nothing of them to settle */
  refused: Set<string>;
  /** command ids the participant refused as duplicates, and the offset it said the first one landed at */
  duplicateAt: Map<string, number>;
  /** the offset of the ledger read that found what was paid */
  snapshotOffset: number;
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

interface Observed {
  session: Session;
  /** the amount still to pay */
  remaining: string;
  spendable: string;
}

/** Per execution of a step (run and step id): the recipients read by items(), the lanes, what was paid. */
const sessions = new Map<string, Session>();

function sessionKey(ctx: StepContext): string {
  return `${ctx.runId}\u0000${ctx.stepId}`;
}

function sessionOf(ctx: StepContext): Session {
  const session = sessions.get(sessionKey(ctx));
  if (session === undefined)
    throw new StepError(`token.distribute: step '${ctx.stepId}' has no recipients read`);
  return session;
}

function scopeOf(ctx: StepContext): SelfTransferContext['scope'] {
  return { playbook: ctx.playbookName, target: ctx.targetName, step: ctx.stepId };
}

// --- reading the recipients --------------------------------------------------------------------------------------

const PATH_HINT = 'the path is relative to the playbook';

function recipientsPath(w: With, baseDir: string): string | undefined {
  return typeof w.recipients === 'string' ? resolve(baseDir, w.recipients) : undefined;
}

async function loadRecipients(w: With, ctx: StepContext): Promise<Recipients> {
  const sender = actingPartyId(ctx.target, w.sender);
  const path = recipientsPath(w, ctx.baseDir);
  if (path === undefined)
    return inlineRecipients(w.recipients as Exclude<With['recipients'], string>, { sender });
  try {
    return await readRecipients(path, displayPath(path), { sender }, ctx.signal);
  } catch (error) {
    const why = unreadable(error);
    if (why === undefined) throw error;
    throw new ValidationError('LB_INPUT_INVALID', [
      {
        file: displayPath(path),
        line: 1,
        col: 1,
        pointer: '',
        message: `cannot read the recipients file: ${why.message}`,
        hint: why.hint,
        rule: 'recipients',
      },
    ]);
  }
}

/** Why the recipients file could not be read (a DataFileError, or an error of the file system while reading). */
function unreadable(error: unknown): { message: string; hint: string } | undefined {
  if (error instanceof DataFileError)
    return {
      message: error.message,
      hint: error.hint === undefined || error.hint === 'check the path' ? PATH_HINT : error.hint,
    };
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? undefined : { message: code, hint: PATH_HINT };
}

function refuse(diagnostics: Diagnostic[]): never {
  throw new ValidationError('LB_INPUT_INVALID', diagnostics);
}

// --- observing ----------------------------------------------------------------------------------------------------

async function observeDistribution(ctx: StepContext, w: With): Promise<Observed> {
  const session = sessionOf(ctx);
  if (session.observed === undefined) {
    session.observed = firstObservation(ctx, w, session);
    session.observed.catch(() => (session.observed = undefined));
  }
  const observed = await session.observed;
  if (session.pool.stale) await refreshHoldings(ctx, w, session);
  return observed;
}

/** Reads the sender's spendable holdings into the pool again; one read at a time, shared by who asks meanwhile. */
function refreshHoldings(ctx: StepContext, w: With, session: Session): Promise<void> {
  session.refreshing ??= (async () => {
    try {
      const holdings = await ctx.clients
        .party(w.sender)
        .holdings(instrumentOf(ctx), { signal: ctx.signal, withLocked: false });
      session.pool.reset(poolHoldings(holdings.unlocked));
      session.offset = Math.max(session.offset, holdings.activeAtOffset);
    } finally {
      session.refreshing = undefined;
    }
  })();
  return session.refreshing;
}

function poolHoldings(holdings: ReadonlyArray<{ contractId: string; amount: string }>): PoolHolding[] {
  return holdings.map((h) => ({ cid: h.contractId, amount: amountValue(h.amount) }));
}

async function firstObservation(ctx: StepContext, w: With, session: Session): Promise<Observed> {
  const sender = ctx.clients.party(w.sender);
  const instrument = instrumentOf(ctx);
  const distribution = distributionId({
    label: w.distribution,
    playbook: scopeOf(ctx).playbook,
    step: ctx.stepId,
    sender: sender.party,
    instrument,
  });
  session.distribution = distribution;
  session.sender = sender.party;
  const holdings = await sender.holdings(instrument, { signal: ctx.signal, withLocked: false });
  session.pool.reset(poolHoldings(holdings.unlocked));
  const { payments, offset } = await readPayments(sender, instrument, distribution, ctx.signal);
  session.payments = payments;
  session.offset = offset;
  session.snapshotOffset = offset;
  await findReturned(ctx, w, session, sender);

  const recipients = session.recipients;
  const { conflicts, removed } = compare(recipients.recipients, payments);
  if (conflicts.length > 0) {
    refuse(
      conflicts.map(({ recipient, payment }) => ({
        file: recipients.source,
        line: recipient.line,
        col: 1,
        pointer: '',
        message: `${short(recipient.receiver)} was already paid ${describePayment(payment)} by this distribution; the line now says ${recipient.amount}${recipient.reference === null ? '' : `, reference ${JSON.stringify(recipient.reference)}`}`,
        hint: `a distribution pays each receiver once and never takes a payment back: restore the line to finish this distribution, or pay the difference with another one (a new \`distribution:\` label)`,
        rule: 'recipients-changed',
      })),
    );
  }
  if (removed.length > 0) {
    const some = removed.slice(0, 5).map((p) => `${short(p.receiver)} ${describePayment(p)}`);
    ctx.log(
      'warn',
      `${removed.length} receiver${removed.length === 1 ? '' : 's'} this distribution paid ${removed.length === 1 ? 'is' : 'are'} no longer in ${recipients.source}: ${some.join('; ')}${removed.length > 5 ? '; …' : ''}. Nothing is taken back; token.cancel-offers withdraws offers still pending.`,
    );
  }
  const unpaid = recipients.recipients.filter((r) => !payments.has(r.receiver));
  const remaining = sumAmounts(unpaid.map((r) => r.amount));
  if (unpaid.length > 0 && payments.size > 0) {
    ctx.log(
      'info',
      `${payments.size} receiver${payments.size === 1 ? ' was' : 's were'} paid by this distribution before; ${unpaid.length} to go`,
    );
  }
  const spendable = holdings.unlockedTotal;
  if (amountValue(remaining).greaterThan(amountValue(spendable))) {
    refuse([
      {
        file: recipients.source,
        line: 1,
        col: 1,
        pointer: '',
        message: `the ${unpaid.length} recipient${unpaid.length === 1 ? '' : 's'} still to pay need ${remaining}, but ${w.sender} (${short(sender.party)}) can spend ${spendable}${holdings.lockedTotal === '0' ? '' : ` (${holdings.lockedTotal} more is locked in pending offers)`}`,
        hint: 'fund the sender first (a mint, a transfer), or pay fewer recipients in this run',
        rule: 'recipients-balance',
      },
    ]);
  }
  session.lanes = Math.max(1, Math.min(ctx.concurrency, MAX_LANES, unpaid.length));
  return { session, remaining, spendable };
}

/**
 * What the distribution's earlier receipts add to the ledger's picture: the update and command id of transfers a
 * later run only finds on the ledger, and the receivers whose offer is gone without a settlement — rejected or
 * withdrawn. Those count as paid-and-returned; a second offer is the operator's decision.
 */
async function findReturned(ctx: StepContext, w: With, session: Session, sender: PartyLedger): Promise<void> {
  const listed = new Set(session.recipients.recipients.map((r) => r.receiver));
  const earlier = await earlierReceipts(ctx, w, session.distribution ?? '');
  for (const receipt of earlier.values()) {
    if (!listed.has(receipt.receiver)) continue;
    const payment = session.payments.get(receipt.receiver);
    if (payment !== undefined) {
      if (payment.update === null && (payment.offer === null || payment.offer === receipt.offer)) {
        payment.update = receipt.update;
        payment.offer ??= receipt.offer;
      }
      continue;
    }
    if (receipt.offer === null) continue;
    const events = await sender.ledger.eventsByContractId(receipt.offer, [sender.party], {
      signal: ctx.signal,
    });
    if (events?.archived === undefined) continue;
    session.payments.set(receipt.receiver, {
      receiver: receipt.receiver,
      amount: receipt.amount,
      reference: receipt.reference,
      line: receipt.line,
      status: 'returned',
      offer: receipt.offer,
      settlement: null,
      update: receipt.update,
    });
  }
}

/** The receipts of earlier runs of this step and distribution that sent an offer, by receiver (latest wins). */
async function earlierReceipts(
  ctx: StepContext,
  w: With,
  distribution: string,
): Promise<Map<string, Receipt>> {
  const found = new Map<string, Receipt>();
  const files = await receiptFiles(ctx, w);
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const receipt = parseReceipt(line);
      if (receipt !== undefined && receipt.distribution === distribution && receipt.offer !== null)
        found.set(receipt.receiver, receipt);
    }
  }
  return found;
}

async function receiptFiles(ctx: StepContext, w: With): Promise<string[]> {
  if (w.receipts !== undefined) return [receiptsPath(ctx, w)];
  const names = await readdir(ctx.outputDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return names
    .filter((n) => n.startsWith('receipts-') && n.endsWith('.jsonl'))
    .sort()
    .map((n) => join(ctx.outputDir, n));
}

function parseReceipt(line: string): (Receipt & { distribution: string }) | undefined {
  try {
    const value = JSON.parse(line) as Partial<Receipt & { distribution: string }>;
    if (typeof value.receiver !== 'string' || typeof value.amount !== 'string') return undefined;
    return {
      receiver: value.receiver,
      amount: value.amount,
      reference: value.reference ?? null,
      line: value.line ?? 0,
      status: value.status ?? 'offered',
      offer: value.offer ?? null,
      update: value.update ?? null,
      command: value.command ?? null,
      distribution: value.distribution ?? '',
      sender: value.sender ?? null,
      instrument: value.instrument ?? null,
    };
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

// --- sending ------------------------------------------------------------------------------------------------------

/**
 * An item's outputs: what the ledger says of its transfer (the journal keeps one per item, so only what the
 * recipients file does not say: the receiver is the item's key, the line and reference are in the file).
 */
function receiptOutputs(payment: Payment): Outputs {
  return { amount: payment.amount, status: payment.status, offer: payment.offer, update: payment.update };
}

/** Failed splits before the lanes are given up (the distribution then runs on the holdings it has). */
const SPLIT_TRIES = 3;

/**
 * Splits the sender's holdings into the session's lanes, once, before the first transfers. While one item splits,
 * the others wait; when a split fails, its item's attempt fails (the engine retries it) and the others go on with
 * the holdings there are: lanes make a distribution fast, never correct.
 */
async function ensureLanes(ctx: ItemContext, w: With, session: Session): Promise<void> {
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

async function splitIntoLanes(ctx: ItemContext, w: With, session: Session): Promise<void> {
  const self: SelfTransferContext = {
    sender: ctx.clients.party(w.sender),
    registry: ctx.clients.registry(),
    instrument: instrumentOf(ctx),
    clock: ctx.clock,
    signal: ctx.signal,
    scope: scopeOf(ctx),
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

async function sendOne(ctx: ItemContext, w: With, session: Session, recipient: Recipient): Promise<Outputs> {
  await ensureLanes(ctx, w, session);
  const sender = ctx.clients.party(w.sender);
  const registry = ctx.clients.registry();
  const instrument = instrumentOf(ctx);
  const distribution = session.distribution ?? '';
  const amount = amountValue(recipient.amount);
  const commandId = ctx.commandId('transfer', transferInputs(distribution, recipient));
  const inputs = await session.pool.take(amount, ctx.signal, () => refreshHoldings(ctx, w, session));
  // the same intent on every attempt of the item, so that a retry after a refusal needs no new durable write
  const offset = session.firstOffset.get(recipient.receiver) ?? session.offset;
  session.firstOffset.set(recipient.receiver, offset);
  const intent: TransferIntent = { action: 'transfer', commandId, amount: recipient.amount, offset };
  let transaction: Transaction;
  try {
    await ctx.record(intent);
    const now = ctx.clock.now();
    const sent = await sendTransfer(
      sender,
      registry,
      transferOf({
        sender: sender.party,
        receiver: recipient.receiver,
        amount: recipient.amount,
        instrument,
        requestedAt: new Date(now),
        executeBefore: new Date(now + durationMs(asText(w.expires), DEFAULT_EXPIRY)),
        inputHoldingCids: inputs.map((h) => h.cid),
        meta: transferMeta(distribution, recipient, w.reason),
      }),
      { commandId, signal: ctx.signal },
    );
    transaction = sent.transaction;
  } catch (error) {
    throw settleFailure(session, inputs, commandId, error);
  }
  session.firstOffset.delete(recipient.receiver);
  return landed(session, recipient, inputs, transaction);
}

/**
 * What a failed submission leaves: its inputs back in the pool (the ledger refused it) or out of it until the
 * holdings are read again (an input was archived, or the outcome is unknown), and the error the engine acts on —
 * a lost answer made transient, so that the engine reconciles the intent before any new attempt.
 */
function settleFailure(
  session: Session,
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
  if (isLedgerError(error, 'duplicate-command') && commandId !== undefined) {
    const at = Number(error.canton?.context?.['completion_offset']);
    if (Number.isSafeInteger(at) && at > 0) session.duplicateAt.set(commandId, at);
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

/** A transfer landed: its change goes back to its lane, its receipt is the item's outputs. */
function landed(
  session: Session,
  recipient: Recipient,
  inputs: readonly PoolHolding[],
  transaction: Transaction,
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
  return receiptOutputs(paymentOf(recipient, transaction));
}

function paymentOf(recipient: Recipient, transaction: Transaction): Payment {
  const outcome = transferInstructionResult(transaction, TOKEN_CHOICES.transfer)?.outcome;
  return {
    receiver: recipient.receiver,
    amount: recipient.amount,
    reference: recipient.reference,
    line: recipient.line,
    status: outcome?.status === 'pending' ? 'offered' : outcome?.status === 'failed' ? 'returned' : 'settled',
    offer: outcome?.status === 'pending' ? outcome.transferInstructionCid : null,
    settlement: null,
    update: transaction.updateId,
  };
}

function asText(value: With['expires']): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** What defines one recipient's transfer, for its command id. */
function transferInputs(distribution: string, recipient: Recipient): JsonValue {
  return {
    distribution,
    receiver: recipient.receiver,
    amount: recipient.amount,
    reference: recipient.reference,
  };
}

/** The command id a recipient's transfer is sent under (what `ctx.commandId` gives its item). */
export function transferCommandId(ctx: StepContext, distribution: string, recipient: Recipient): string {
  return commandIdOf({
    playbook: ctx.playbookName,
    target: ctx.targetName,
    step: ctx.stepId,
    item: recipient.receiver,
    purpose: 'transfer',
    inputs: transferInputs(distribution, recipient),
  });
}

// --- reconciling --------------------------------------------------------------------------------------------------

function isTransferIntent(intent: Intent): intent is TransferIntent {
  return (
    intent.action === 'transfer' &&
    typeof intent['commandId'] === 'string' &&
    typeof intent['offset'] === 'number'
  );
}

async function reconcileTransfer(
  ctx: ItemContext,
  w: With,
  recipient: Recipient,
  intents: readonly Intent[],
): Promise<{ status: 'done'; outputs: Outputs } | { status: 'not-done'; note: string }> {
  const transfers = intents.filter(isTransferIntent);
  if (transfers.length === 0) return { status: 'not-done', note: 'no transfer was started' };
  const { session } = await observeDistribution(ctx, w);
  const payment = session.payments.get(recipient.receiver);
  const last = transfers.at(-1) as TransferIntent;
  const sender = ctx.clients.party(w.sender);
  if (payment !== undefined) {
    if (payment.update === null && !session.refused.has(last.commandId)) {
      const completion = await completionOf(sender, last, ctx.signal);
      if (completion !== undefined && (completion.status?.code ?? 0) === 0)
        payment.update = completion.updateId ?? null;
    }
    return { status: 'done', outputs: receiptOutputs(payment) };
  }
  for (const intent of [...transfers].reverse()) {
    if (session.refused.has(intent.commandId)) continue;
    const landing = await landingOf(sender, session, intent, ctx.signal);
    if (landing === undefined) continue;
    const at = landing.offset;
    const transactions = await sender.ledger.transactions(
      {
        parties: [sender.party],
        beginExclusive: at === undefined ? intent.offset : Math.max(0, at - 1),
        ...(at === undefined ? {} : { endInclusive: at }),
      },
      { signal: ctx.signal },
    );
    const transaction = transactions.find((t) => t.commandId === intent.commandId);
    // landed before the ledger was read for this run, and not among what it showed: its offer is gone since
    const gone = at !== undefined && at <= session.snapshotOffset;
    if (transaction === undefined) {
      const returned: Payment = {
        receiver: recipient.receiver,
        amount: intent.amount,
        reference: recipient.reference,
        line: recipient.line,
        status: 'returned',
        offer: null,
        settlement: null,
        update: landing.updateId ?? null,
      };
      session.payments.set(recipient.receiver, returned);
      return { status: 'done', outputs: receiptOutputs(returned) };
    }
    session.pool.stale = true; // its inputs are spent and its change is new: read the holdings again
    const paid = paymentOf(recipient, transaction);
    if (gone && paid.status === 'offered') paid.status = 'returned';
    session.payments.set(recipient.receiver, paid);
    return { status: 'done', outputs: receiptOutputs(paid) };
  }
  return {
    status: 'not-done',
    note: `command ${last.commandId} did not land (no completion after offset ${last.offset}); sending it again under the same id`,
  };
}

/**
 * Where a command landed, if it did: at the offset the participant named when it refused the id as a duplicate,
 * else at its completion after the intent's offset.
 */
async function landingOf(
  sender: PartyLedger,
  session: Session,
  intent: TransferIntent,
  signal: AbortSignal,
): Promise<{ offset: number | undefined; updateId: string | undefined } | undefined> {
  const duplicate = session.duplicateAt.get(intent.commandId);
  if (duplicate !== undefined) return { offset: duplicate, updateId: undefined };
  const completion = await completionOf(sender, intent, signal);
  if (completion === undefined || (completion.status?.code ?? 0) !== 0) return undefined;
  return { offset: completion.offset, updateId: completion.updateId };
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

// --- finishing ----------------------------------------------------------------------------------------------------

function receiptsPath(ctx: StepContext, w: With): string {
  if (w.receipts !== undefined) return isAbsolute(w.receipts) ? w.receipts : resolve(ctx.baseDir, w.receipts);
  return join(ctx.outputDir, `receipts-${ctx.runId}.jsonl`);
}

/** Merges the sender's spendable holdings into one (the lanes' last changes, and anything else spendable). */
async function consolidate(ctx: StepContext, w: With): Promise<number> {
  const sender = ctx.clients.party(w.sender);
  const instrument = instrumentOf(ctx);
  const holdings = await sender.holdings(instrument, { signal: ctx.signal, withLocked: false });
  if (holdings.unlocked.length <= 1) return holdings.unlocked.length;
  ctx.progress(`merging ${holdings.unlocked.length} holdings into one`);
  await selfTransfer(
    {
      sender,
      registry: ctx.clients.registry(),
      instrument,
      clock: ctx.clock,
      signal: ctx.signal,
      scope: scopeOf(ctx),
    },
    holdings.unlocked.map((h) => h.contractId),
    holdings.unlockedTotal,
    'ledgerbook: merge the lanes of a distribution',
  );
  return 1;
}

// --- the parts token.transfer shares (a transfer is a distribution of one) -----------------------------------------

export async function recipientItems(
  w: With,
  ctx: StepContext,
): Promise<Array<{ key: string; value: Recipient }>> {
  const recipients = await loadRecipients(w, ctx);
  if (recipients.problems.length > 0) refuse(recipientDiagnostics(recipients));
  sessions.set(sessionKey(ctx), {
    recipients,
    distribution: undefined,
    sender: undefined,
    payments: new Map(),
    pool: new HoldingPool(),
    lanes: 1,
    offset: 0,
    refused: new Set(),
    duplicateAt: new Map(),
    snapshotOffset: 0,
    observed: undefined,
    split: undefined,
    splitDone: false,
    splitTries: 0,
    refreshing: undefined,
    firstOffset: new Map(),
    receipts: undefined,
    lastReceipt: undefined,
  });
  return recipients.recipients.map((r) => ({ key: r.receiver, value: r }));
}

export function planRecipient(state: Observed, recipient: Recipient): ItemPlan {
  const payment = state.session.payments.get(recipient.receiver);
  if (payment !== undefined) return { changes: [], outputs: receiptOutputs(payment) };
  return {
    changes: [
      {
        action: 'create',
        // the item is the receiver: its key names it
        summary: `send ${recipient.amount} (line ${recipient.line}${recipient.reference === null ? '' : `, reference ${JSON.stringify(recipient.reference)}`})`,
        details: {
          receiver: recipient.receiver,
          amount: recipient.amount,
          line: recipient.line,
          reference: recipient.reference,
        },
      },
    ],
  };
}

export const sendRecipient = (
  ctx: ItemContext,
  w: With,
  state: Observed,
  recipient: Recipient,
): Promise<Outputs> => sendOne(ctx, w, state.session, recipient);

export { observeDistribution, reconcileTransfer };

/** Forgets the step's session (its recipients, lanes and what it paid) once the step is over. */
export function endSession(ctx: StepContext): void {
  sessions.delete(sessionKey(ctx));
}

export type { Observed as DistributionState };

/** The distribution's id (known to the session once the ledger was read; computed when no item needed it). */
function distributionFor(ctx: StepContext, w: With, session: Session): string {
  session.distribution ??= distributionId({
    label: w.distribution,
    playbook: scopeOf(ctx).playbook,
    step: ctx.stepId,
    sender: ctx.clients.party(w.sender).party,
    instrument: instrumentOf(ctx),
  });
  return session.distribution;
}

/** Each recipient's receipt, as its item finishes: a line of the receipts file, and the totals. */
export function reportRecipient(ctx: StepContext, w: With, item: Item<Recipient>, result: ItemResult): void {
  const session = sessionOf(ctx);
  const distribution = distributionFor(ctx, w, session);
  session.receipts ??= new ReceiptsWriter(receiptsPath(ctx, w));
  const recipient = item.value;
  const o = result.outputs;
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const receipt: Receipt = {
    receiver: recipient.receiver,
    amount: text(o['amount']) ?? recipient.amount,
    reference: recipient.reference,
    line: recipient.line,
    status: (text(o['status']) as ReceiptStatus | null) ?? 'offered',
    offer: text(o['offer']),
    update: text(o['update']),
    command: transferCommandId(ctx, distribution, recipient),
    distribution,
    sender: ctx.clients.party(w.sender).party,
    instrument: instrumentOf(ctx),
  };
  session.receipts.add(receipt, result.status === 'applied');
  session.lastReceipt = receipt;
}

/** Puts the receipts file in place and ends the session: the step's report. */
export async function closeReceipts(
  ctx: StepContext,
  w: With,
): Promise<{ distribution: string; path: string; totals: ReceiptTotals; last: Receipt | undefined }> {
  const session = sessionOf(ctx);
  const distribution = distributionFor(ctx, w, session);
  const writer = session.receipts ?? new ReceiptsWriter(receiptsPath(ctx, w));
  await writer.close();
  endSession(ctx);
  return { distribution, path: writer.path, totals: writer.totals, last: session.lastReceipt };
}

// --- the step -------------------------------------------------------------------------------------------------------

export const tokenDistribute = defineStep<With, Observed, Recipient>({
  kind: 'token.distribute',
  summary:
    'Pay many receivers from one party exactly once, at network speed: recipients from a CSV file or a list, a receipt per recipient.',
  withSchema,
  outputs: {
    distribution: 'the distribution’s id, which every transfer of it carries in its metadata',
    receipts:
      'the receipts file (JSON lines, one per recipient: receiver, amount, reference, line, status offered|settled|returned, offer, update, command, distribution)',
    totals:
      '{recipients, amount, sent, sent_amount, offered, settled, returned}: sent and sent_amount count this run’s transfers; the statuses are what the ledger showed for each recipient',
  },
  needsTarget: true,
  concurrency: DEFAULT_LANES,
  check(w, target, baseDir) {
    const findings: StaticFinding[] = checkActingParty(w.sender, target, '/sender');
    if (Array.isArray(w.recipients)) {
      const result = inlineRecipients(w.recipients, { sender: actingPartyId(target, w.sender) });
      for (const p of result.problems)
        findings.push({
          pointer: `/recipients${p.pointer ?? ''}`,
          message: p.message,
          ...(p.hint ? { hint: p.hint } : {}),
        });
    } else if (typeof w.recipients === 'string' && !hasExpression(w.recipients)) {
      const path = recipientsPath(w, baseDir) as string;
      let result: Recipients;
      try {
        result = readRecipientsSync(path, displayPath(path), {
          sender: actingPartyId(target, w.sender),
          keep: false,
        });
      } catch (error) {
        const why = unreadable(error);
        if (why === undefined) throw error;
        return [
          ...findings,
          { pointer: '/recipients', message: `cannot read ${w.recipients}: ${why.message}`, hint: why.hint },
        ];
      }
      for (const d of recipientDiagnostics(result))
        findings.push({
          pointer: '/recipients',
          message: d.message,
          ...(d.hint ? { hint: d.hint } : {}),
          at: { file: d.file, line: d.line, col: d.col },
        });
    }
    return findings;
  },
  items: recipientItems,
  observe: observeDistribution,
  plan: (_w, state, item) => planRecipient(state, item.value),
  apply: (ctx, w, item, _plan, state) => sendOne(ctx, w, state.session, item.value),
  reconcile: (ctx, w, item, intents) => reconcileTransfer(ctx, w, item.value, intents),
  onItem: reportRecipient,
  async finish(ctx, w) {
    if (w.consolidate !== false) await consolidate(ctx, w);
    const { distribution, path, totals } = await closeReceipts(ctx, w);
    return { distribution, receipts: path, totals: { ...totals } };
  },
});
