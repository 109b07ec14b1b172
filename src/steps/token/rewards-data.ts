/**
 * The figures of rewards.report: the service's days over the whole date range (a day it did not report is a day
 * without figures, not a zero), the terminal table, the CSV, and the reconciliation of the service's transfer
 * counts with the receipts token.distribute wrote. Pure.
 */
import { closeSync, readSync } from 'node:fs';
import type { DailyRewards, DayRewards } from '../../clients/rewards.js';
import { openDataFile } from '../../data-file.js';

/** Every date from start to end inclusive (UTC, YYYY-MM-DD). */
export function datesBetween(start: string, end: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000)
    dates.push(new Date(t).toISOString().slice(0, 10));
  return dates;
}

export function reportDays(rewards: DailyRewards, start: string, end: string): DayRewards[] {
  const byDate = new Map(rewards.days.map((d) => [d.date, d]));
  return datesBetween(start, end).map((date) => ({
    date,
    transferCreationCount: byDate.get(date)?.transferCreationCount ?? null,
    acceptedTransferCount: byDate.get(date)?.acceptedTransferCount ?? null,
    totalReward: byDate.get(date)?.totalReward ?? null,
    clientReward: byDate.get(date)?.clientReward ?? null,
  }));
}

// --- receipts ----------------------------------------------------------------------------------------------------

export interface ReceiptCounts {
  /** receipts of transfers that created an offer (what the service counts as transfers created) */
  offers: number;
  /**
   * of those, by the status the receipt gives: offered (pending), expired, settled (accepted), rejected, withdrawn,
   * returned (rejected or withdrawn, in receipts written before the two were told apart)
   */
  byStatus: Record<Status, number>;
  /** transfers that settled at once (a preapproved receiver): no offer, nothing the service counts */
  direct: number;
  /** recipients named more than once across the files (counted once) */
  repeated: number;
  files: number;
  /** the senders the receipts name (receipts written before senders were recorded name none) */
  senders: string[];
}

const STATUSES = ['offered', 'expired', 'settled', 'rejected', 'withdrawn', 'returned'] as const;
type Status = (typeof STATUSES)[number];

/** A receipts file's problem at a line; `file:line: what`. */
export class ReceiptsError extends SyntaxError {
  constructor(
    readonly file: string,
    readonly line: number,
    what: string,
  ) {
    super(`${file}:${line}: ${what}`);
  }
}

/** A receipt line is a few hundred characters (a reference is at most 1 KiB): a far longer one is no receipt. */
export const MAX_RECEIPT_LINE = 64 * 1024;

/** Counts receipts line by line, each recipient of a distribution once (see countReceipts). */
class ReceiptCounter {
  readonly counts: ReceiptCounts = {
    offers: 0,
    byStatus: { offered: 0, expired: 0, settled: 0, rejected: 0, withdrawn: 0, returned: 0 },
    direct: 0,
    repeated: 0,
    files: 0,
    senders: [],
  };
  private readonly seen = new Set<string>();
  private readonly senders = new Set<string>();

  line(file: string, number: number, line: string): void {
    if (line.trim() === '') return;
    if (line.length > MAX_RECEIPT_LINE)
      throw new ReceiptsError(
        file,
        number,
        `the line is longer than ${MAX_RECEIPT_LINE} characters: not a receipt`,
      );
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw Object.assign(new ReceiptsError(file, number, 'not a JSON receipt'), { cause: error });
    }
    const r = (
      typeof record === 'object' && record !== null && !Array.isArray(record) ? record : {}
    ) as Record<string, unknown>;
    const { receiver, status, offer, distribution, sender } = r;
    if (typeof receiver !== 'string' || !STATUSES.includes(status as Status))
      throw new ReceiptsError(
        file,
        number,
        `not a receipt of token.distribute (it has a receiver and a status ${STATUSES.join(', ')})`,
      );
    if (typeof sender === 'string' && !this.senders.has(sender)) {
      this.senders.add(sender);
      this.counts.senders.push(sender);
    }
    const key = `${typeof distribution === 'string' ? distribution : ''}\u0000${receiver}`;
    if (this.seen.has(key)) {
      this.counts.repeated++;
      return;
    }
    this.seen.add(key);
    if (status === 'settled' && (offer === null || offer === undefined)) {
      this.counts.direct++;
      return;
    }
    this.counts.offers++;
    this.counts.byStatus[status as Status]++;
  }
}

/**
 * Counts what token.distribute's receipts (JSON lines `{receiver, amount, reference, line, status, offer, update,
 * command, distribution, sender, instrument}`, docs/architecture.md "Distributing tokens") say was sent: each recipient of a
 * distribution once, however many files name it (each run of a distribution writes a whole file). A transfer made
 * an offer when the receipt names one or says anything but `settled` (an offer the receiver rejected, or that
 * expired, was made all the same); a `settled` receipt without an offer settled at once and created none. Receipts carry no time: the
 * count is compared with the service's over the whole period. A line that is not a receipt is a ReceiptsError
 * naming its file and line.
 */
export function countReceipts(texts: ReadonlyArray<{ file: string; text: string }>): ReceiptCounts {
  const counter = new ReceiptCounter();
  for (const { file, text } of texts) {
    counter.counts.files++;
    text.split('\n').forEach((line, index) => counter.line(file, index + 1, line));
  }
  return counter.counts;
}

const CHUNK = 64 * 1024;

/**
 * Counts the receipts of files, read as a stream of lines: a file that is not a regular file throws a
 * DataFileError; text that is not UTF-8, a line too long to be a receipt or a line that is no receipt a
 * ReceiptsError at its line. Memory stays bounded by the recipients, whatever the files hold.
 */
export function readReceipts(
  paths: readonly string[],
  display: (path: string) => string = (p) => p,
): ReceiptCounts {
  const counter = new ReceiptCounter();
  for (const path of paths) {
    const file = display(path);
    counter.counts.files++;
    const { fd } = openDataFile(path, Number.MAX_SAFE_INTEGER);
    try {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const buffer = Buffer.alloc(CHUNK);
      let pending = '';
      let line = 1;
      const take = (text: string): void => {
        pending += text;
        for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
          counter.line(file, line++, pending.slice(0, end));
          pending = pending.slice(end + 1);
        }
        if (pending.length > MAX_RECEIPT_LINE)
          throw new ReceiptsError(
            file,
            line,
            `the line is longer than ${MAX_RECEIPT_LINE} characters: not a receipt`,
          );
      };
      const decode = (bytes?: Uint8Array): string => {
        try {
          return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true });
        } catch (error) {
          if (!(error instanceof TypeError)) throw error;
          // the line of the first byte that is not UTF-8 (`pending` holds no line end)
          const lossy = bytes === undefined ? '' : Buffer.from(bytes).toString('utf8');
          const before = lossy.slice(0, Math.max(0, lossy.indexOf('\uFFFD')));
          throw new ReceiptsError(file, line + before.split('\n').length - 1, 'the file is not UTF-8 text');
        }
      };
      for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) take(decode(buffer.subarray(0, n)));
      take(decode());
      counter.line(file, line, pending);
    } finally {
      closeSync(fd);
    }
  }
  return counter.counts;
}

/**
 * Where the service's figures differ from the receipts: the transfers it counts as created in the period against
 * the offers the receipts name, and its acceptances against the offers the receipts saw accepted (the service
 * cannot count fewer; it may count more, when the parties sent other transfers too).
 */
export function differences(
  days: readonly DayRewards[],
  receipts: ReceiptCounts | undefined,
  accepted: number | null,
): string[] {
  if (receipts === undefined) return [];
  const found: string[] = [];
  const created = days.reduce((n, d) => n + (d.transferCreationCount ?? 0), 0);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (created !== receipts.offers)
    found.push(
      `the service counts ${plural(created, 'transfer')} created in the period, the receipts ${plural(receipts.offers, 'offer')}`,
    );
  if (accepted !== null && accepted < receipts.byStatus.settled)
    found.push(
      `the service counts ${plural(accepted, 'accepted transfer')}, the receipts ${receipts.byStatus.settled} offers settled`,
    );
  return found;
}

// --- table and CSV -----------------------------------------------------------------------------------------------

const dash = (v: string | number | null): string => (v === null ? '–' : String(v));

export function formatTable(days: readonly DayRewards[], rewards: DailyRewards): string {
  const header = ['date', 'created', 'accepted', 'total reward', 'client reward'];
  const rows = days.map((d) => [
    d.date,
    dash(d.transferCreationCount),
    dash(d.acceptedTransferCount),
    dash(d.totalReward),
    dash(d.clientReward),
  ]);
  const created = days.reduce((n, d) => n + (d.transferCreationCount ?? 0), 0);
  rows.push([
    'total',
    String(created),
    dash(rewards.totalAcceptedTransferCount),
    dash(rewards.totalReward),
    dash(rewards.clientReward),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    line(header),
    ...rows.slice(0, -1).map(line),
    widths.map((w) => '─'.repeat(w)).join('  '),
    line(rows.at(-1) ?? []),
  ].join('\n');
}

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  // a cell a spreadsheet would run as a formula (the service's text could be one) is kept as text
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function formatCsv(days: readonly DayRewards[]): string {
  const header = [
    'date',
    'transfer_creation_count',
    'accepted_transfer_count',
    'total_reward',
    'client_reward',
  ];
  const rows = days.map((d) =>
    [d.date, d.transferCreationCount, d.acceptedTransferCount, d.totalReward, d.clientReward]
      .map(csvCell)
      .join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
