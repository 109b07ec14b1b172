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
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import { AmountDecimal, amountValue, sumAmounts } from '../../clients/amount.js';
import { isLedgerError, type LedgerError } from '../../clients/ledger-errors.js';
import type { Completion, Transaction } from '../../clients/ledger-wire.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import { transferInstructionCommand, transferOf } from '../../clients/token-commands.js';
import { sendTransfer } from '../../clients/token-flows.js';
import { transferInstructionResult } from '../../clients/token-results.js';
import { TOKEN_CHOICES } from '../../clients/token-wire.js';
import { LedgerbookError, ServiceError, StepError, ValidationError } from '../../errors.js';
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
import type { Diagnostic } from '../../diagnostics.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  RESENDABLE,
  catchUp,
  compare,
  describeElsewhere,
  describePayment,
  distributionId,
  readDistribution,
  transferMeta,
  type DistributionView,
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
  nodeOf,
  partyNameSchema,
  short,
  unknownParties,
  unknownPartyMessage,
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
    'Pay many receivers from one party, each exactly once: recipients checked completely before anything is sent (and with the party lookup, that the network knows each one), one checkpoint and one deterministic command id per recipient, several chains of holdings in flight at once, paced to what the network accepts, a receipt per recipient. A distribution is identified by its id (`distribution:`, or derived from the playbook name, the step id, the sender and the instrument), which every transfer carries on the ledger; a (receiver, reference) the sender already paid under another id is refused unless `pay_again: true`.',
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
        'The distribution’s id on the ledger (every transfer carries it in its metadata, `ledgerbook.dev/distribution`): what a rerun reads to find whom it paid. Default: derived from the playbook’s `name:`, the step id, the sender and the instrument — not the file or the target’s name — so renaming the playbook or the step starts another distribution. A new id does not pay again a (receiver, reference) the sender paid under another id, unless `pay_again: true`.',
    },
    pay_again: {
      type: 'boolean',
      description:
        'Pay a (receiver, reference) of the file that this sender already paid under another distribution (a renamed playbook, another `distribution:`; two lines without a reference count as the same). Default false: the run refuses (exit 65) and lists who would be paid twice.',
    },
    resend: {
      type: 'array',
      items: { enum: [...RESENDABLE] },
      uniqueItems: true,
      description:
        'Offer again, under a new command id, to receivers whose offer in this distribution ended unpaid: `expired` (past `executeBefore`; the old offer is withdrawn at the end, its amount back with the sender), `rejected`, `withdrawn`. Default: none — they are reported, not offered again.',
    },
    expires: {
      ...durationSchema,
      description: 'How long each offer stays open for its receiver (`executeBefore`); default 168h.',
    },
    consolidate: {
      type: 'boolean',
      description:
        'Merge the sender’s spendable holdings into one at the end of a run that sent something (default true).',
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
  // a re-offer also has `replaces`: the offer (or transaction) it replaces (see replacesOf)
}

/** The offer (or transaction) a re-offer's intent replaces; undefined for a first offer. */
function replacesOf(intent: TransferIntent): string | undefined {
  const value = intent['replaces'];
  return typeof value === 'string' ? value : undefined;
}

/** What one execution of the step knows, shared by its items (the engine's state holds a reference to it). */
interface Session {
  recipients: Recipients;
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

function viewOf(session: Session): DistributionView {
  if (session.view === undefined) throw new StepError('token.distribute: the ledger was not read yet');
  return session.view;
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

/**
 * `verify`: the recipients as `items` reads them, and every receiver looked up on the network (the participant's
 * party lookup, from the sender's node): one it does not know is refused at its line before anything is sent —
 * not half-way, when the ledger refuses its transfer (`UNKNOWN_INFORMEES`) after the lines before it were paid.
 */
export async function verifyRecipients(ctx: StepContext, w: With): Promise<StaticFinding[]> {
  const recipients = await loadRecipients(w, ctx);
  if (recipients.problems.length > 0)
    return recipientDiagnostics(recipients).map((d) => ({
      pointer: '/recipients',
      message: d.message,
      ...(d.hint ? { hint: d.hint } : {}),
      at: { file: d.file, line: d.line, col: d.col },
    }));
  const unknown = await unknownParties(
    ctx,
    w.sender,
    recipients.recipients.map((r) => r.receiver),
  );
  const node = nodeOf(ctx.target, w.sender);
  const inline = typeof w.recipients !== 'string';
  const where = (r: Recipient) =>
    inline
      ? { pointer: `/recipients/${r.line - 1}/receiver` }
      : { pointer: '/recipients', at: { file: recipients.source, line: r.line, col: 1 } };
  const findings: StaticFinding[] = [];
  let more = 0;
  let last: Recipient | undefined;
  for (const r of recipients.recipients) {
    if (!unknown.has(r.receiver)) continue;
    // as many as a file's problems are listed; the rest counted
    if (findings.length >= MAX_FINDINGS) more++;
    else findings.push({ ...unknownPartyMessage(r.receiver, node), ...where(r) });
    last = r;
  }
  if (more > 0 && last !== undefined)
    findings.push({
      ...where(last),
      message: `and ${more} more receiver${more === 1 ? '' : 's'} the network does not know`,
    });
  return findings;
}

/** Findings listed at most (a file's problems are kept as many). */
const MAX_FINDINGS = 1000;

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

/**
 * Reads what happened to the distribution since the view's offset (offers made by another runner, offers that
 * ended); one read at a time, shared by who asks meanwhile. `after: 'now'` (waiting for a landing): a read that
 * started before the caller asked is waited for, then one more is made, so the caller sees the ledger as it was
 * when it asked or later; `after: 'any'` (before a send) joins a read under way.
 */
async function catchUpView(
  ctx: StepContext,
  w: With,
  session: Session,
  after: 'now' | 'any' = 'now',
): Promise<DistributionView> {
  const view = viewOf(session);
  if (after === 'any' && session.catchingUp !== undefined) {
    await session.catchingUp;
    return view;
  }
  if (session.catchingUp !== undefined) await session.catchingUp.catch(() => undefined);
  session.catchingUp ??= (async () => {
    try {
      await catchUp(view, ctx.clients.party(w.sender), instrumentOf(ctx), ctx.signal);
      session.offset = Math.max(session.offset, view.offset);
    } finally {
      session.catchingUp = undefined;
    }
  })();
  await session.catchingUp;
  return view;
}

function poolHoldings(holdings: ReadonlyArray<{ contractId: string; amount: string }>): PoolHolding[] {
  return holdings.map((h) => ({ cid: h.contractId, amount: amountValue(h.amount) }));
}

/** The statuses the playbook asks to offer again (`resend:`). */
function resendOf(w: Pick<With, 'resend'>): ReadonlySet<ReceiptStatus> {
  return new Set<ReceiptStatus>(w.resend ?? []);
}

/** What still needs a transfer: a receiver the distribution never sent to, or one whose offer `resend` names. */
function toSend(w: Pick<With, 'resend'>, payment: Payment | undefined): boolean {
  return payment === undefined || resendOf(w).has(payment.status);
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

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
  const recipients = session.recipients;
  const view = await readDistribution({
    sender,
    instrument,
    distribution,
    receivers: new Set(recipients.recipients.map((r) => r.receiver)),
    now: () => ctx.clock.now(),
    signal: ctx.signal,
  });
  session.view = view;
  session.offset = view.offset;
  session.snapshotOffset = view.offset;
  await fromEarlierReceipts(ctx, w, view);

  const { conflicts, removed, elsewhere } = compare(recipients.recipients, view);
  const refusals: Diagnostic[] = conflicts.map(({ recipient, payment }) => ({
    file: recipients.source,
    line: recipient.line,
    col: 1,
    pointer: '',
    message: `${short(recipient.receiver)} was already sent ${describePayment(payment)} by this distribution; the line now says ${recipient.amount}${recipient.reference === null ? '' : `, reference ${JSON.stringify(recipient.reference)}`}`,
    hint: `a distribution pays each receiver once and never takes a payment back: restore the line to finish this distribution, or pay the difference with another one (a new \`distribution:\` label)`,
    rule: 'recipients-changed',
  }));
  if (w.pay_again !== true)
    refusals.push(
      ...elsewhere.map(({ recipient, paid }) => ({
        file: recipients.source,
        line: recipient.line,
        col: 1,
        pointer: '',
        message: `${recipient.receiver} would be paid twice: ${w.sender} already paid it ${describeElsewhere(paid)}`,
        hint: `a (receiver, reference) is paid once by a sender, whatever the distribution (this one is ${JSON.stringify(distribution)}; renaming the playbook or the step starts another): if this is a new payment, give the line a reference of its own, or set \`pay_again: true\` on the step to pay the listed receivers again`,
        rule: 'paid-elsewhere',
      })),
    );
  if (refusals.length > 0) refuse(refusals);
  if (removed.length > 0) {
    const some = removed.slice(0, 5).map((p) => `${short(p.receiver)} ${describePayment(p)}`);
    ctx.log(
      'warn',
      `${removed.length} receiver${removed.length === 1 ? '' : 's'} this distribution sent to ${removed.length === 1 ? 'is' : 'are'} no longer in ${recipients.source}: ${some.join('; ')}${removed.length > 5 ? '; …' : ''}. Nothing is taken back; token.cancel-offers withdraws offers still pending.`,
    );
  }
  reportEnded(ctx, w, session);

  const unpaid = recipients.recipients.filter((r) => toSend(w, view.payment(r.receiver)));
  const remaining = sumAmounts(unpaid.map((r) => r.amount));
  const before = recipients.recipients.length - unpaid.length;
  if (unpaid.length > 0 && before > 0)
    ctx.log(
      'info',
      `${plural(before, 'receiver was', 'receivers were')} sent to by this distribution before; ${unpaid.length} to go`,
    );
  if (unpaid.length > 0 && view.prunedBefore > 0)
    ctx.log(
      'warn',
      `the participant pruned its history up to offset ${view.prunedBefore}: an offer of this distribution that ended (rejected, withdrawn) before it cannot be seen, and its receiver is among the ${unpaid.length} to send to; check the receipts of earlier runs if the distribution is older than that`,
    );
  const spendable = holdings.unlockedTotal;
  if (amountValue(remaining).greaterThan(amountValue(spendable))) {
    refuse([
      {
        file: recipients.source,
        line: 1,
        col: 1,
        pointer: '',
        message: `the ${unpaid.length} recipient${unpaid.length === 1 ? '' : 's'} still to pay need ${remaining}, but ${w.sender} (${short(sender.party)}) can spend ${spendable}${holdings.lockedTotal === '0' ? '' : ` (${holdings.lockedTotal} more is locked in pending offers)`}`,
        hint: 'fund the sender first (a mint, a transfer), or pay fewer recipients in this run (expired offers give their amounts back once withdrawn: token.cancel-offers with expired: true)',
        rule: 'recipients-balance',
      },
    ]);
  }
  session.lanes = Math.max(1, Math.min(ctx.concurrency, MAX_LANES, unpaid.length));
  return { session, remaining, spendable };
}

/** Says which receivers' offers ended unpaid (or can no longer be accepted), and what the run does about them. */
function reportEnded(ctx: StepContext, w: With, session: Session): void {
  const view = viewOf(session);
  const resend = resendOf(w);
  const ended = new Map<ReceiptStatus, Payment[]>();
  for (const r of session.recipients.recipients) {
    const payment = view.payment(r.receiver);
    if (payment === undefined || payment.status === 'offered' || payment.status === 'settled') continue;
    const list = ended.get(payment.status);
    if (list === undefined) ended.set(payment.status, [payment]);
    else list.push(payment);
  }
  for (const [status, payments] of ended) {
    const some = payments
      .slice(0, 5)
      .map((p) => `${short(p.receiver)} (line ${p.line ?? '?'})`)
      .join(', ');
    const what =
      status === 'expired'
        ? 'an expired offer: it can no longer be accepted, and its amount stays locked until it is withdrawn'
        : `an offer that was ${status === 'returned' ? 'rejected or withdrawn' : status}`;
    ctx.log(
      resend.has(status) ? 'info' : 'warn',
      `${plural(payments.length, 'receiver has', 'receivers have')} ${what}: ${some}${payments.length > 5 ? ', …' : ''}; ${
        resend.has(status)
          ? 'offered again (resend)'
          : `not offered again: add \`resend: [${status === 'returned' ? 'rejected, withdrawn' : status}]\` to the step to offer ${payments.length === 1 ? 'it' : 'them'} again`
      }`,
    );
  }
}

/**
 * What the receipts of earlier runs add to the ledger's picture: the update and offer of transfers a later read
 * only found as settlements, so that the receipts keep naming them.
 */
async function fromEarlierReceipts(ctx: StepContext, w: With, view: DistributionView): Promise<void> {
  const earlier = await earlierReceipts(ctx, w, view.distribution);
  for (const receipt of earlier.values()) {
    const payment = view.payment(receipt.receiver);
    if (payment === undefined || payment.update !== null) continue;
    if (payment.offer !== null && payment.offer !== receipt.offer) continue;
    view.record({ ...payment, offer: receipt.offer, update: receipt.update });
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
function receiptOutputs(
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
  ctx: ItemContext,
  w: With,
  session: Session,
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
  session: Session,
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
function landed(
  session: Session,
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
  ctx: StepContext,
  distribution: string,
  recipient: Recipient,
  replaces?: string,
): string {
  return commandIdOf({
    playbook: ctx.playbookName,
    target: ctx.targetName,
    step: ctx.stepId,
    item: recipient.receiver,
    purpose: 'transfer',
    inputs: transferInputs(distribution, recipient, replaces),
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

/**
 * After a crash, a lost answer or a refusal: did the item's transfer land? The ledger says, whoever sent it: what
 * the distribution did since the view was read (every offer made or settled since, by this run or another). When
 * it shows nothing for the receiver the item is sent again — under the same command id, so a submission still in
 * flight is refused and waited for, not paid twice.
 */
async function reconcileTransfer(
  ctx: ItemContext,
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

// --- finishing ----------------------------------------------------------------------------------------------------

function receiptsPath(ctx: StepContext, w: With): string {
  if (w.receipts !== undefined) return isAbsolute(w.receipts) ? w.receipts : resolve(ctx.baseDir, w.receipts);
  return join(ctx.outputDir, `receipts-${ctx.runId}.jsonl`);
}

/**
 * Withdraws the distribution's pending offers that another offer to the same receiver superseded — an expired offer
 * a re-offer replaced, or a second offer two runners raced to send — so that their amounts come back to the
 * sender. Each under a command id of its own offer; one that another runner withdrew (or the receiver accepted)
 * meanwhile is passed over. Safe to repeat: what is withdrawn is gone from the next read.
 */
async function withdrawSuperseded(ctx: StepContext, w: With): Promise<void> {
  const session = sessionOf(ctx);
  if (session.view === undefined) await observeDistribution(ctx, w);
  const superseded = (await catchUpView(ctx, w, session)).superseded();
  if (superseded.length === 0) return;
  const sender = ctx.clients.party(w.sender);
  const registry = ctx.clients.registry();
  const withdrawn: string[] = [];
  for (const payment of superseded) {
    const offer = payment.offer as string;
    ctx.progress(`withdrawing the superseded offer ${short(offer)} to ${short(payment.receiver)}`);
    const commandId = commandIdOf({
      ...scopeOf(ctx),
      item: payment.receiver,
      purpose: 'withdraw',
      inputs: { offer },
    });
    try {
      const context = await registry.transferInstructionContext(offer, 'withdraw', { signal: ctx.signal });
      await sender.submit(commandId, transferInstructionCommand('withdraw', offer, context), {
        signal: ctx.signal,
      });
      withdrawn.push(`${short(payment.receiver)} (${payment.status}, offer ${short(offer)})`);
    } catch (error) {
      // gone already: withdrawn by another runner, or accepted
      const gone =
        isLedgerError(error, 'contract-not-found') ||
        isLedgerError(error, 'duplicate-command') ||
        isLedgerError(error, 'in-flight') ||
        (error instanceof ServiceError && error.service === 'registry' && error.status === 404);
      if (!gone) throw error;
    }
  }
  if (withdrawn.length > 0)
    ctx.log(
      'info',
      `withdrew ${plural(withdrawn.length, 'offer')} that a later offer to the same receiver superseded, their amounts back with the sender: ${withdrawn.slice(0, 5).join(', ')}${withdrawn.length > 5 ? ', …' : ''}`,
    );
}

/** Merges the sender's spendable holdings into one (the lanes' last changes, and anything else spendable). */
async function consolidate(ctx: StepContext, w: With): Promise<number> {
  const sender = ctx.clients.party(w.sender);
  const instrument = instrumentOf(ctx);
  const holdings = await sender.holdings(instrument, { signal: ctx.signal, withLocked: false });
  if (holdings.unlocked.length <= 1) return holdings.unlocked.length;
  ctx.progress(`merging ${holdings.unlocked.length} holdings into one`);
  try {
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
  } catch (error) {
    // another runner merges the same holdings (the same command id): the holdings are read again and merged
    // once more if it left more than one
    if (isLedgerError(error, 'duplicate-command') || isLedgerError(error, 'in-flight'))
      throw new StepError(
        `another run is merging the same holdings (${error.cantonCode}): reading them again`,
        {
          retryability: 'transient',
          cause: error,
        },
      );
    throw error;
  }
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
  });
  return recipients.recipients.map((r) => ({ key: r.receiver, value: r }));
}

export function planRecipient(w: Pick<With, 'resend'>, state: Observed, recipient: Recipient): ItemPlan {
  const { session } = state;
  const payment = viewOf(session).payment(recipient.receiver);
  if (payment !== undefined && !toSend(w, payment)) {
    // planned again after a failed attempt: sent meanwhile, by this run or by another
    const landedSince = payment.offset !== null && payment.offset > session.snapshotOffset;
    const by = session.sentBy.get(recipient.receiver) ?? (landedSince ? 'another' : undefined);
    return { changes: [], outputs: receiptOutputs(payment, { by }) };
  }
  const again =
    payment === undefined
      ? ''
      : `; offered again: its offer ${short(payment.offer ?? '?')} ${payment.status === 'expired' ? 'expired' : `was ${payment.status}`}`;
  return {
    changes: [
      {
        action: 'create',
        // the item is the receiver: its key names it
        summary: `send ${recipient.amount} (line ${recipient.line}${recipient.reference === null ? '' : `, reference ${JSON.stringify(recipient.reference)}`}${again})`,
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
    command: transferCommandId(ctx, distribution, recipient, text(o['replaced']) ?? undefined),
    distribution,
    sender: ctx.clients.party(w.sender).party,
    instrument: instrumentOf(ctx),
  };
  // sent by this invocation, or found sent by another while this one was about to send it
  const by = result.status === 'applied' ? (o['found'] === true ? 'another' : 'this-run') : undefined;
  session.receipts.add(receipt, by);
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
      'the receipts file (JSON lines, one per recipient: receiver, amount, reference, line, status offered|expired|settled|rejected|withdrawn, offer, update, command, distribution)',
    totals:
      '{recipients, amount, sent, sent_amount, found, offered, expired, settled, rejected, withdrawn}: sent and sent_amount count this run’s transfers, found the transfers this run was to send and found sent by another run; the statuses are what the ledger showed for each recipient',
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
  verify: verifyRecipients,
  items: recipientItems,
  observe: observeDistribution,
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
});
