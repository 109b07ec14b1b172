import type { FromSchema } from 'json-schema-to-ts';
import { resolve } from 'node:path';
import { DataFileError, displayPath, outputPathProblem } from '../../data-file.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { checkPartyRef, partyRefSchema } from './common.declaration.js';
import { readReceipts, ReceiptsError } from './rewards-data.js';

export const RECEIPTS_HINT =
  'name the receipt files token.distribute wrote (its `receipts` output), relative to the working directory';

export const OUTPUT_HINT = 'give a file path in a folder this user can write to (relative to the playbook)';

export function receiptsFinding(error: unknown, pointer: string): StaticFinding | undefined {
  if (error instanceof ReceiptsError)
    return {
      pointer,
      message: error.message.slice(`${error.file}:${error.line}: `.length),
      hint: RECEIPTS_HINT,
      at: { file: error.file, line: error.line, col: 1 },
    };
  if (error instanceof DataFileError)
    return {
      pointer,
      message: `cannot read the receipts: ${error.message}`,
      hint: error.hint ?? RECEIPTS_HINT,
    };
  return undefined;
}

export const dateSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'A date, YYYY-MM-DD (UTC).',
} as const;

/** Static checks of the files the step reads and writes, when the playbook names them literally. */
export function fileFindings(w: With, baseDir: string): StaticFinding[] {
  const findings: StaticFinding[] = [];
  for (const field of ['csv', 'svg'] as const) {
    const path = w[field];
    if (typeof path !== 'string' || hasExpression(path)) continue;
    if (!path.endsWith(`.${field}`))
      findings.push({ pointer: `/${field}`, message: `${path} does not end in .${field}` });
    const problem = outputPathProblem(resolve(baseDir, path));
    if (problem !== undefined)
      findings.push({ pointer: `/${field}`, message: `cannot write ${path}: ${problem}`, hint: OUTPUT_HINT });
  }
  const receipts =
    typeof w.receipts === 'string' ? [w.receipts] : Array.isArray(w.receipts) ? w.receipts : [];
  receipts.forEach((path, i) => {
    if (typeof path !== 'string' || hasExpression(path)) return;
    const pointer = Array.isArray(w.receipts) ? `/receipts/${i}` : '/receipts';
    try {
      readReceipts([resolve(path)], displayPath);
    } catch (error) {
      // a file not there yet may be the one a step before this one writes: read when the step runs
      if (error instanceof DataFileError && error.code === 'ENOENT') return;
      const finding = receiptsFinding(error, pointer);
      if (finding === undefined) throw error;
      findings.push(finding);
    }
  });
  return findings;
}

const withSchema = {
  type: 'object',
  description:
    'The daily rewards of parties (the Activity Tracker’s `POST /api/v1/analytics/daily-rewards`, wrapped-api.md §7.6): a table on the terminal, a CSV and an SVG chart, and the service’s transfer counts reconciled with token.distribute’s receipts. Reads only; the answer can take minutes (the client waits up to 180 s).',
  properties: {
    parties: {
      type: 'array',
      items: partyRefSchema,
      minItems: 1,
      maxItems: 100,
      description:
        'The parties whose transfers earn the rewards (senders): names under the target’s `parties:` or party ids.',
    },
    start_date: { ...dateSchema, description: 'First day, YYYY-MM-DD (UTC). With `end_date`.' },
    end_date: { ...dateSchema, description: 'Last day, YYYY-MM-DD (UTC), inclusive.' },
    days: {
      type: 'integer',
      minimum: 1,
      maximum: 366,
      description: 'Instead of the dates: this many days up to today (UTC). Default 7.',
    },
    csv: {
      type: 'string',
      minLength: 1,
      description: 'Write the table here as CSV (relative to the playbook).',
    },
    svg: {
      type: 'string',
      minLength: 1,
      description: 'Write the chart here as SVG (relative to the playbook): both reward series per day.',
    },
    receipts: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: { type: 'string', minLength: 1 } },
      ],
      description:
        'The receipts file token.distribute wrote (its `receipts` output, e.g. `${{ steps.distribute.outputs.receipts }}`), or a list of them, relative to the working directory: the transfers the service counts as created in the period are compared with the offers the receipts name (each recipient of a distribution once), and its acceptances with the offers they saw accepted.',
    },
    on_difference: {
      enum: ['warn', 'fail'],
      description: 'When the service and the receipts differ: `warn` (default) or fail the step.',
    },
    title: { type: 'string', minLength: 1, description: 'The chart’s title (default: "Daily rewards").' },
  },
  required: ['parties'],
  dependentRequired: { start_date: ['end_date'], end_date: ['start_date'] },
  not: { required: ['days', 'start_date'] },
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `rewards.report`; its run-time code is ./rewards-report.ts. */
export const rewardsReportDeclaration = declareStep<With>({
  kind: 'rewards.report',
  summary:
    'Daily rewards of parties: a table, a CSV and an SVG chart, reconciled with distribution receipts.',
  withSchema,
  outputs: {
    start_date: 'first day reported',
    end_date: 'last day reported',
    total_reward: 'the service’s total (estimated) reward for the period, or null',
    client_reward: 'the client’s share, or null',
    created_transfers: 'transfers created in the period, by the service’s count',
    accepted_transfers: 'transfers accepted, by the service’s count',
    days_without_figures: 'days the service reported no reward for',
    receipt_offers: 'transfer offers the receipts name (null without receipts)',
    agrees: 'whether the service’s counts match the receipts (null without receipts)',
    differences: 'where they differ, one line each',
    files: 'the files written (CSV, SVG)',
  },
  needsTarget: true,
  check(w, target, baseDir) {
    return [
      ...(Array.isArray(w.parties) ? w.parties : []).flatMap((ref, i) =>
        checkPartyRef(ref, target, `/parties/${i}`),
      ),
      ...fileFindings(w, baseDir),
    ];
  },
});
