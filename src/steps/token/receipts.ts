/**
 * A distribution's receipts file, written as its items finish: one JSON line per recipient, appended to a
 * partial file in chunks and renamed into place (after an fsync) when the step ends, so the file is there whole or
 * not at all and the receipts never sit in memory. A partial file left by a killed process is removed by the
 * next writer of the same file; each invocation of a run writes the whole file again (the items an earlier
 * invocation finished come back from the journal).
 */
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AmountDecimal, amountValue, formatAmount } from '../../clients/amount.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { StepError } from '../../errors.js';
import type { ReceiptStatus } from './distribution.js';

/** One recipient's receipt, as the file has it. */
export interface Receipt {
  receiver: string;
  amount: string;
  reference: string | null;
  line: number;
  status: ReceiptStatus;
  offer: string | null;
  update: string | null;
  command: string | null;
  distribution: string;
  /** the sending party's id, and the instrument sent (null in receipts written before they were recorded) */
  sender: string | null;
  instrument: InstrumentId | null;
}

/**
 * Totals of a distribution's receipts (a step's `totals` output): `sent` and `sent_amount` are this run's
 * transfers, `found` the transfers this run was about to send and found sent by another (a second runner, or an
 * earlier process whose answer was lost); the statuses count what the ledger showed for each recipient.
 */
export interface ReceiptTotals {
  recipients: number;
  amount: string;
  sent: number;
  sent_amount: string;
  found: number;
  offered: number;
  expired: number;
  settled: number;
  rejected: number;
  withdrawn: number;
  /** only when receipts of an earlier version said so (rejected or withdrawn, not told apart) */
  returned?: number;
}

const CHUNK = 1 << 16;

export class ReceiptsWriter {
  private buffer = '';
  private writing: Promise<void> = Promise.resolve();
  private handle: FileHandle | undefined;
  private failure: unknown;
  private readonly partial: string;
  private readonly counts: Record<'recipients' | 'sent' | 'found' | ReceiptStatus, number> = {
    recipients: 0,
    sent: 0,
    found: 0,
    offered: 0,
    expired: 0,
    settled: 0,
    rejected: 0,
    withdrawn: 0,
    returned: 0,
  };
  private amount = new AmountDecimal(0);
  private sentAmount = new AmountDecimal(0);

  constructor(readonly path: string) {
    this.partial = `${path}.partial-${process.pid}`;
    this.writing = this.start();
  }

  /** One recipient's receipt; `by` says whether this run sent its transfer or found it sent by another. */
  add(receipt: Receipt, by: 'this-run' | 'another' | undefined): void {
    this.counts.recipients++;
    this.counts[receipt.status]++;
    const value = amountValue(receipt.amount);
    this.amount = this.amount.plus(value);
    if (by === 'this-run') {
      this.counts.sent++;
      this.sentAmount = this.sentAmount.plus(value);
    } else if (by === 'another') this.counts.found++;
    this.buffer += `${JSON.stringify(receipt)}\n`;
    if (this.buffer.length >= CHUNK) this.flush();
  }

  get totals(): ReceiptTotals {
    return {
      recipients: this.counts.recipients,
      amount: formatAmount(this.amount),
      sent: this.counts.sent,
      sent_amount: formatAmount(this.sentAmount),
      found: this.counts.found,
      offered: this.counts.offered,
      expired: this.counts.expired,
      settled: this.counts.settled,
      rejected: this.counts.rejected,
      withdrawn: this.counts.withdrawn,
      ...(this.counts.returned > 0 ? { returned: this.counts.returned } : {}),
    };
  }

  /** Writes what is left, makes it durable and puts the file in place. */
  async close(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failure !== undefined) {
      const failure = this.failure as NodeJS.ErrnoException;
      const code = failure.code ?? failure.message;
      throw new StepError(`cannot write the receipts file ${this.path} (${code})`, {
        hint: 'check the free space and the permissions of its folder (the state directory, or `receipts:`)',
        cause: this.failure,
      });
    }
    const handle = this.handle;
    if (handle === undefined) throw new Error(`the receipts file ${this.partial} was never opened`);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(this.partial, this.path);
  }

  /** Gives the file up (its step did not finish): the partial file is closed and removed, nothing put in place. */
  async discard(): Promise<void> {
    this.buffer = '';
    await this.writing;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
    await rm(this.partial, { force: true });
  }

  private flush(): void {
    const text = this.buffer;
    this.buffer = '';
    if (text === '') return;
    this.writing = this.writing.then(async () => {
      if (this.failure !== undefined || this.handle === undefined) return;
      try {
        await this.handle.write(text);
      } catch (error) {
        this.failure = error;
      }
    });
  }

  /** Opens the partial file after removing the partial files a killed process left beside it. */
  private async start(): Promise<void> {
    try {
      const dir = dirname(this.path);
      await mkdir(dir, { recursive: true });
      const stale = `${basename(this.path)}.partial-`;
      for (const name of await readdir(dir))
        if (name.startsWith(stale)) await rm(join(dir, name), { force: true });
      this.handle = await open(this.partial, 'w', 0o600);
    } catch (error) {
      this.failure = error;
    }
  }
}
