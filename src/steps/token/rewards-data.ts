/**
 * The figures of rewards.report: the service's days over the whole date range (a day it did not report is a day
 * without figures, not a zero), the terminal table, the CSV, and the reconciliation of the service's transfer
 * counts with the receipts token.distribute wrote. Pure.
 */
import { readFileSync } from 'node:fs';
import type { DailyRewards, DayRewards } from '../../clients/rewards.js';

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
  /** of those, by the status the receipt gives: offered (pending), settled (accepted), returned */
  byStatus: { offered: number; settled: number; returned: number };
  /** transfers that settled at once (a preapproved receiver): no offer, nothing the service counts */
  direct: number;
  /** recipients named more than once across the files (counted once) */
  repeated: number;
  files: number;
}

const STATUSES = ['offered', 'settled', 'returned'] as const;
type Status = (typeof STATUSES)[number];

function receiptProblem(file: string, line: number, what: string): SyntaxError {
  return new SyntaxError(`${file}:${line}: ${what}`);
}

/**
 * Counts what token.distribute's receipts (JSON lines `{receiver, amount, reference, line, status, offer, update,
 * command, distribution}`, docs/architecture.md "Distributing tokens") say was sent: each recipient of a
 * distribution once, however many files name it (each run of a distribution writes a whole file). A transfer made
 * an offer when the receipt names one or says `offered` or `returned` (an offer the receiver rejected was made all
 * the same); a `settled` receipt without an offer settled at once and created none. Receipts carry no time: the
 * count is compared with the service's over the whole period. A line that is not a receipt is an error naming its
 * file and line.
 */
export function countReceipts(texts: ReadonlyArray<{ file: string; text: string }>): ReceiptCounts {
  const counts: ReceiptCounts = {
    offers: 0,
    byStatus: { offered: 0, settled: 0, returned: 0 },
    direct: 0,
    repeated: 0,
    files: texts.length,
  };
  const seen = new Set<string>();
  for (const { file, text } of texts) {
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw Object.assign(receiptProblem(file, index + 1, 'not a JSON receipt'), { cause: error });
      }
      const r = (typeof record === 'object' && record !== null ? record : {}) as Record<string, unknown>;
      const { receiver, status, offer, distribution } = r;
      if (typeof receiver !== 'string' || !STATUSES.includes(status as Status))
        throw receiptProblem(
          file,
          index + 1,
          'not a receipt of token.distribute (it has a receiver and a status offered, settled or returned)',
        );
      const key = `${typeof distribution === 'string' ? distribution : ''}\u0000${receiver}`;
      if (seen.has(key)) {
        counts.repeated++;
        return;
      }
      seen.add(key);
      if (status === 'settled' && (offer === null || offer === undefined)) {
        counts.direct++;
        return;
      }
      counts.offers++;
      counts.byStatus[status as Status]++;
    });
  }
  return counts;
}

export function readReceipts(paths: readonly string[]): ReceiptCounts {
  return countReceipts(paths.map((file) => ({ file, text: readFileSync(file, 'utf8') })));
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
  const text = String(value);
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
