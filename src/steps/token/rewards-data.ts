/**
 * The figures of rewards.report: the service's days over the whole date range (a day it did not report is a day
 * without figures, not a zero), the terminal table, the CSV, and the reconciliation of the service's transfer
 * counts with the receipts token.distribute wrote. Pure.
 */
import { readFileSync } from 'node:fs';
import type { DailyRewards, DayRewards } from '../../clients/rewards.js';

export interface ReportDay extends DayRewards {
  /** transfers our receipts say were sent that day; null when no receipts were given or they carry no time */
  ours: number | null;
}

/** Every date from start to end inclusive (UTC, YYYY-MM-DD). */
export function datesBetween(start: string, end: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000)
    dates.push(new Date(t).toISOString().slice(0, 10));
  return dates;
}

export function reportDays(
  rewards: DailyRewards,
  start: string,
  end: string,
  ours: ReadonlyMap<string, number> | undefined,
): ReportDay[] {
  const byDate = new Map(rewards.days.map((d) => [d.date, d]));
  return datesBetween(start, end).map((date) => ({
    date,
    transferCreationCount: byDate.get(date)?.transferCreationCount ?? null,
    acceptedTransferCount: byDate.get(date)?.acceptedTransferCount ?? null,
    totalReward: byDate.get(date)?.totalReward ?? null,
    clientReward: byDate.get(date)?.clientReward ?? null,
    ours: ours === undefined ? null : (ours.get(date) ?? 0),
  }));
}

// --- receipts ----------------------------------------------------------------------------------------------------

export interface ReceiptCounts {
  /** transfers sent per UTC day (receipts with a time) */
  byDay: Map<string, number>;
  /** every receipt of a transfer that was sent */
  sent: number;
  /** receipts without a time (counted in the total only) */
  undated: number;
  files: number;
}

const FAILED = new Set(['failed', 'error', 'rejected', 'skipped', 'invalid']);
const TIME_KEYS = ['at', 'time', 'timestamp', 'sent_at', 'sentAt', 'created_at', 'createdAt', 'record_time'];

function str(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Counts the transfer offers token.distribute's receipts (JSON lines: receiver, amount, reference, line, status,
 * offer, update, command) say were made: a receipt naming an offer whose status is not a failure (an offer the
 * receiver rejected or the sender withdrew since was made all the same). A line that is not JSON is an error
 * naming the file and line.
 */
export function countReceipts(texts: ReadonlyArray<{ file: string; text: string }>): ReceiptCounts {
  const counts: ReceiptCounts = { byDay: new Map(), sent: 0, undated: 0, files: texts.length };
  for (const { file, text } of texts) {
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw new SyntaxError(`${file}:${index + 1}: not a JSON receipt`, { cause: error });
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) return;
      const r = record as Record<string, unknown>;
      if (r['type'] !== undefined && r['type'] !== 'receipt') return; // a totals line
      const status = str(r, ['status'])?.toLowerCase();
      const id = str(r, [
        'update_id',
        'updateId',
        'offer_cid',
        'offer_contract_id',
        'offerContractId',
        'offer',
      ]);
      if (id === undefined || (status !== undefined && FAILED.has(status))) return;
      counts.sent++;
      const time = str(r, TIME_KEYS);
      const date =
        time !== undefined && !Number.isNaN(Date.parse(time))
          ? new Date(time).toISOString().slice(0, 10)
          : undefined;
      if (date === undefined) counts.undated++;
      else counts.byDay.set(date, (counts.byDay.get(date) ?? 0) + 1);
    });
  }
  return counts;
}

export function readReceipts(paths: readonly string[]): ReceiptCounts {
  return countReceipts(paths.map((file) => ({ file, text: readFileSync(file, 'utf8') })));
}

/** Where the service's count of transfers created differs from our receipts (per day when they carry times). */
export function differences(days: readonly ReportDay[], receipts: ReceiptCounts | undefined): string[] {
  if (receipts === undefined) return [];
  const found: string[] = [];
  if (receipts.undated === 0) {
    for (const day of days) {
      const theirs = day.transferCreationCount ?? 0;
      const ours = day.ours ?? 0;
      if (theirs !== ours)
        found.push(
          `${day.date}: the service counts ${theirs} transfer${theirs === 1 ? '' : 's'} created, our receipts ${ours}`,
        );
    }
    return found;
  }
  const theirs = days.reduce((n, d) => n + (d.transferCreationCount ?? 0), 0);
  if (theirs !== receipts.sent)
    found.push(
      `the service counts ${theirs} transfers created in the period, our receipts ${receipts.sent} (receipts carry no dates)`,
    );
  return found;
}

// --- table and CSV -----------------------------------------------------------------------------------------------

const dash = (v: string | number | null): string => (v === null ? '–' : String(v));

export function formatTable(days: readonly ReportDay[], rewards: DailyRewards, withOurs: boolean): string {
  const header = [
    'date',
    'created',
    'accepted',
    'total reward',
    'client reward',
    ...(withOurs ? ['our receipts'] : []),
  ];
  const rows = days.map((d) => [
    d.date,
    dash(d.transferCreationCount),
    dash(d.acceptedTransferCount),
    dash(d.totalReward),
    dash(d.clientReward),
    ...(withOurs ? [dash(d.ours)] : []),
  ]);
  const created = days.reduce((n, d) => n + (d.transferCreationCount ?? 0), 0);
  rows.push([
    'total',
    String(created),
    dash(rewards.totalAcceptedTransferCount),
    dash(rewards.totalReward),
    dash(rewards.clientReward),
    ...(withOurs ? [String(days.reduce((n, d) => n + (d.ours ?? 0), 0))] : []),
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

export function formatCsv(days: readonly ReportDay[], withOurs: boolean): string {
  const header = [
    'date',
    'transfer_creation_count',
    'accepted_transfer_count',
    'total_reward',
    'client_reward',
    ...(withOurs ? ['our_transfers'] : []),
  ];
  const rows = days.map((d) =>
    [
      d.date,
      d.transferCreationCount,
      d.acceptedTransferCount,
      d.totalReward,
      d.clientReward,
      ...(withOurs ? [d.ours] : []),
    ]
      .map(csvCell)
      .join(','),
  );
  return `${[header.join(','), ...rows].join('\n')}\n`;
}
