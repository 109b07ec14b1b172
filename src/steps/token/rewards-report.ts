import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { DailyRewards, DayRewards } from '../../clients/rewards.js';
import { displayPath, outputPathProblem } from '../../data-file.js';
import { defineStep, type Change, type Outputs } from '../contract.js';
import { StepError } from '../../errors.js';
import { partyIdOf, short } from './common.js';
import { rewardsChartSvg } from './rewards-chart.js';
import {
  differences,
  formatCsv,
  formatTable,
  readReceipts,
  reportDays,
  type ReceiptCounts,
} from './rewards-data.js';
import {
  OUTPUT_HINT,
  RECEIPTS_HINT,
  receiptsFinding,
  rewardsReportDeclaration,
  type With,
} from './rewards-report.declaration.js';

interface RenderedFile {
  path: string;
  content: string;
  /** the file holds this content already */
  current: boolean;
}

interface Observed {
  start: string;
  end: string;
  rewards: DailyRewards;
  days: DayRewards[];
  receipts: ReceiptCounts | undefined;
  differences: string[];
  files: RenderedFile[];
}

function dateRange(w: With, now: number): { start: string; end: string } {
  if (w.start_date !== undefined && w.end_date !== undefined) {
    for (const [field, value] of [
      ['start_date', w.start_date],
      ['end_date', w.end_date],
    ] as const) {
      if (
        Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
        new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
      )
        throw new StepError(`with.${field}: ${value} is not a calendar date`);
    }
    if (w.start_date > w.end_date)
      throw new StepError(`with.start_date ${w.start_date} is after end_date ${w.end_date}`);
    return { start: w.start_date, end: w.end_date };
  }
  const end = new Date(now).toISOString().slice(0, 10);
  const start = new Date(Date.parse(`${end}T00:00:00Z`) - ((w.days ?? 7) - 1) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  return { start, end };
}

function describeReceipts(r: ReceiptCounts): string {
  const { offered, settled, ...ended } = r.byStatus;
  const others = Object.entries(ended)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `, ${n} ${status}`)
    .join('');
  return `${r.offers} offer${r.offers === 1 ? '' : 's'} (${offered} pending, ${settled} accepted${others})${r.direct > 0 ? `, ${r.direct} settled at once without one` : ''}`;
}

async function rendered(path: string, content: string, field: 'csv' | 'svg'): Promise<RenderedFile> {
  const problem = outputPathProblem(path);
  if (problem !== undefined)
    throw new StepError(`with.${field}: cannot write ${path}: ${problem}`, { hint: OUTPUT_HINT });
  const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return { path, content, current: existing === content };
}

function outputs(state: Observed): Outputs {
  const created = state.days.reduce((n, d) => n + (d.transferCreationCount ?? 0), 0);
  return {
    start_date: state.start,
    end_date: state.end,
    total_reward: state.rewards.totalReward,
    client_reward: state.rewards.clientReward,
    created_transfers: created,
    accepted_transfers: state.rewards.totalAcceptedTransferCount,
    days_without_figures: state.days.filter((d) => d.totalReward === null).map((d) => d.date),
    receipt_offers: state.receipts?.offers ?? null,
    agrees: state.receipts === undefined ? null : state.differences.length === 0,
    differences: state.differences,
    files: state.files.map((f) => f.path),
  };
}

/**
 * rewards.report: asks the rewards service once for the parties and dates, fills the days it did not report,
 * prints the table, and renders the CSV and the SVG chart; with receipts, compares the transfers the service
 * counts in the period with the offers the receipts name (rewards-data.ts). In sync when the files hold what it would write; it
 * writes only files, never to a service.
 */
export const rewardsReport = defineStep<With, Observed>({
  ...rewardsReportDeclaration,
  async observe(ctx, w) {
    const parties = [...new Set(w.parties.map((ref) => partyIdOf(ctx, ref)))];
    const { start, end } = dateRange(w, ctx.clock.now());
    let receipts: ReceiptCounts | undefined;
    const receiptFiles = typeof w.receipts === 'string' ? [w.receipts] : (w.receipts ?? []);
    if (receiptFiles.length > 0) {
      try {
        // relative to the working directory, as token.distribute's `receipts` output names its file
        receipts = readReceipts(
          receiptFiles.map((p) => resolve(p)),
          displayPath,
        );
      } catch (error) {
        const finding = receiptsFinding(error, '');
        if (finding === undefined) throw error;
        throw new StepError(
          finding.at ? `${finding.at.file}:${finding.at.line}: ${finding.message}` : finding.message,
          { hint: finding.hint ?? RECEIPTS_HINT, cause: error },
        );
      }
    }
    const others = receipts?.senders.filter((sender) => !parties.includes(sender)) ?? [];
    if (others.length > 0) {
      throw new StepError(
        `the receipts name transfers sent by ${others.join(', ')}, whose rewards this report does not ask for: their offers would be compared with the counts of ${parties.join(', ')}`,
        { hint: 'add the sender to `parties`, or leave the receipts of its distributions out' },
      );
    }
    ctx.progress(
      `asking the rewards service for ${parties.length} part${parties.length === 1 ? 'y' : 'ies'}, ${start} to ${end} (this can take minutes)`,
    );
    const rewards = await ctx.clients
      .rewards()
      .dailyRewards({ parties, startDate: start, endDate: end }, { signal: ctx.signal });
    const days = reportDays(rewards, start, end);
    const found = differences(days, receipts, rewards.totalAcceptedTransferCount);
    const who = parties.map(short).join(', ');
    const table = formatTable(days, rewards)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n');
    ctx.log('info', `daily rewards of ${who}, ${start} to ${end}:\n${table}`);
    if (receipts !== undefined) {
      ctx.log(
        found.length === 0 ? 'info' : 'warn',
        found.length === 0
          ? `the service's transfer counts agree with the receipts: ${describeReceipts(receipts)}`
          : `the service and the receipts differ (${describeReceipts(receipts)}):\n  ${found.join('\n  ')}`,
      );
    }
    const files: RenderedFile[] = [];
    if (w.csv !== undefined) files.push(await rendered(resolve(ctx.baseDir, w.csv), formatCsv(days), 'csv'));
    if (w.svg !== undefined) {
      const svg = rewardsChartSvg(
        days.map((d) => ({ date: d.date, total: d.totalReward, client: d.clientReward })),
        { title: w.title ?? 'Daily rewards', subtitle: `${who} · ${start} to ${end} (UTC)` },
      );
      files.push(await rendered(resolve(ctx.baseDir, w.svg), svg, 'svg'));
    }
    return { start, end, rewards, days, receipts, differences: found, files };
  },
  plan(w, state) {
    if (w.on_difference === 'fail' && state.differences.length > 0) {
      throw new StepError(`the rewards service and the receipts differ: ${state.differences.join('; ')}`, {
        hint: 'the service may not have caught up yet (run again later), or transfers were sent outside these receipts',
      });
    }
    const changes: Change[] = state.files
      .filter((f) => !f.current)
      .map((f) => ({ action: 'create', summary: `write ${f.path}`, details: { path: f.path } }));
    return changes.length === 0 ? { changes, outputs: outputs(state) } : { changes };
  },
  async apply(ctx, _w, _item, _plan, state) {
    for (const file of state.files.filter((f) => !f.current)) {
      // a file written is a change the run counts (the engine counts only items that recorded a side effect)
      await ctx.record({ action: 'write-file', path: file.path });
      await mkdir(dirname(file.path), { recursive: true });
      await writeFile(file.path, file.content);
    }
    return outputs(state);
  },
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
