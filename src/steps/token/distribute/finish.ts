/**
 * Finishing a distribution: superseded offers withdrawn, the lanes merged again, a receipt per recipient.
 */
import { isLedgerError } from '../../../clients/ledger-errors.js';
import { transferInstructionCommand } from '../../../clients/token-commands.js';
import { ServiceError, StepError } from '../../../errors.js';
import type { Item, ItemResult } from '../../contract.js';
import { distributionId, type ReceiptStatus } from '../distribution.js';
import { ReceiptsWriter, type Receipt, type ReceiptTotals } from '../receipts.js';
import { selfTransfer } from '../merge-split.js';
import type { Recipient } from '../recipients.js';
import { instrumentOf, short } from '../common.js';
import { catchUpView, observeDistribution, receiptsPath } from './observe.js';
import type { With } from './schema.js';
import { transferCommandId } from './send.js';
import { type Ctx, type DistributionSession, plural, selfTransferId } from './session.js';

/**
 * Withdraws the distribution's pending offers that another offer to the same receiver superseded — an expired offer
 * a re-offer replaced, or a second offer two runners raced to send — so that their amounts come back to the
 * sender. Each under a command id of its own offer; one that another runner withdrew (or the receiver accepted)
 * meanwhile is passed over. Safe to repeat: what is withdrawn is gone from the next read.
 */
export async function withdrawSuperseded(ctx: Ctx, w: With): Promise<void> {
  const session = ctx.session;
  if (session.view === undefined) await observeDistribution(ctx, w);
  const superseded = (await catchUpView(ctx, w, session)).superseded();
  if (superseded.length === 0) return;
  const sender = ctx.clients.party(w.sender);
  const registry = ctx.clients.registry();
  const withdrawn: string[] = [];
  for (const payment of superseded) {
    const offer = payment.offer as string;
    ctx.progress(`withdrawing the superseded offer ${short(offer)} to ${short(payment.receiver)}`);
    const commandId = ctx.commandId('withdraw', { offer }, payment.receiver);
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
export async function consolidate(ctx: Ctx, w: With): Promise<number> {
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
        commandId: selfTransferId(ctx),
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

/** The distribution's id (known to the session once the ledger was read; computed when no item needed it). */
function distributionFor(ctx: Ctx, w: With, session: DistributionSession): string {
  session.distribution ??= distributionId({
    label: w.distribution,
    playbook: ctx.playbookName,
    step: ctx.stepId,
    sender: ctx.clients.party(w.sender).party,
    instrument: instrumentOf(ctx),
  });
  return session.distribution;
}

/** Each recipient's receipt, as its item finishes: a line of the receipts file, and the totals. */
export function reportRecipient(ctx: Ctx, w: With, item: Item<Recipient>, result: ItemResult): void {
  const session = ctx.session;
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

/** Puts the receipts file in place: the step's report. */
export async function closeReceipts(
  ctx: Ctx,
  w: With,
): Promise<{ distribution: string; path: string; totals: ReceiptTotals; last: Receipt | undefined }> {
  const session = ctx.session;
  const distribution = distributionFor(ctx, w, session);
  const writer = session.receipts ?? new ReceiptsWriter(receiptsPath(ctx, w));
  session.receipts = undefined;
  await writer.close();
  return { distribution, path: writer.path, totals: writer.totals, last: session.lastReceipt };
}
