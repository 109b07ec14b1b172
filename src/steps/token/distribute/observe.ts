/**
 * Observing a distribution: the sender's holdings, what the ledger shows the distribution did (and the receipts of
 * earlier runs add), the refusals before anything is sent, and each recipient's plan.
 */
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { amountValue, sumAmounts } from '../../../clients/amount.js';
import type { ItemPlan } from '../../contract.js';
import type { Diagnostic } from '../../../diagnostics.js';
import {
  catchUp,
  compare,
  describeElsewhere,
  describePayment,
  distributionId,
  readDistribution,
  type DistributionView,
  type Payment,
  type ReceiptStatus,
} from '../distribution.js';
import type { PoolHolding } from '../holding-pool.js';
import type { Receipt } from '../receipts.js';
import type { Recipient } from '../recipients.js';
import { instrumentOf, short } from '../common.js';
import { refuse } from './recipients.js';
import { MAX_LANES, type With } from './schema.js';
import {
  type Ctx,
  type DistributionSession,
  type Observed,
  plural,
  receiptOutputs,
  recipientsOf,
  resendOf,
  toSend,
  viewOf,
} from './session.js';

export async function observeDistribution(ctx: Ctx, w: With): Promise<Observed> {
  const session = ctx.session;
  if (session.observed === undefined) {
    session.observed = firstObservation(ctx, w, session);
    session.observed.catch(() => (session.observed = undefined));
  }
  const observed = await session.observed;
  if (session.pool.stale) await refreshHoldings(ctx, w, session);
  return observed;
}

/** Reads the sender's spendable holdings into the pool again; one read at a time, shared by who asks meanwhile. */
export function refreshHoldings(ctx: Ctx, w: With, session: DistributionSession): Promise<void> {
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
export async function catchUpView(
  ctx: Ctx,
  w: With,
  session: DistributionSession,
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

async function firstObservation(ctx: Ctx, w: With, session: DistributionSession): Promise<Observed> {
  const sender = ctx.clients.party(w.sender);
  const instrument = instrumentOf(ctx);
  const distribution = distributionId({
    label: w.distribution,
    playbook: ctx.playbookName,
    step: ctx.stepId,
    sender: sender.party,
    instrument,
  });
  session.distribution = distribution;
  session.sender = sender.party;
  const holdings = await sender.holdings(instrument, { signal: ctx.signal, withLocked: false });
  session.pool.reset(poolHoldings(holdings.unlocked));
  const recipients = recipientsOf(session);
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
function reportEnded(ctx: Ctx, w: With, session: DistributionSession): void {
  const view = viewOf(session);
  const resend = resendOf(w);
  const ended = new Map<ReceiptStatus, Payment[]>();
  for (const r of recipientsOf(session).recipients) {
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
async function fromEarlierReceipts(ctx: Ctx, w: With, view: DistributionView): Promise<void> {
  const earlier = await earlierReceipts(ctx, w, view.distribution);
  for (const receipt of earlier.values()) {
    const payment = view.payment(receipt.receiver);
    if (payment === undefined || payment.update !== null) continue;
    if (payment.offer !== null && payment.offer !== receipt.offer) continue;
    view.record({ ...payment, offer: receipt.offer, update: receipt.update });
  }
}

/** The receipts of earlier runs of this step and distribution that sent an offer, by receiver (latest wins). */
async function earlierReceipts(ctx: Ctx, w: With, distribution: string): Promise<Map<string, Receipt>> {
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

async function receiptFiles(ctx: Ctx, w: With): Promise<string[]> {
  if (w.receipts !== undefined) return [runReceiptsPath(ctx, w)];
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

/** The receipts file a run writes (and a rerun reads as an earlier run's). */
function runReceiptsPath(ctx: Ctx, w: With): string {
  if (w.receipts !== undefined) return isAbsolute(w.receipts) ? w.receipts : resolve(ctx.baseDir, w.receipts);
  return join(ctx.outputDir, `receipts-${ctx.runId}.jsonl`);
}

/**
 * Where this invocation writes its receipts: a run's file, or, in a plan, the preview every plan replaces (the
 * same name each time, so that a saved plan planned again resolves the later steps' `with` alike; never a run's).
 */
export function receiptsPath(ctx: Ctx, w: With): string {
  return ctx.mode === 'plan' ? join(ctx.outputDir, 'plan-preview.jsonl') : runReceiptsPath(ctx, w);
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
