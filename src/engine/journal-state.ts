/**
 * What the journal says about each run: where it stands, which steps finished, which items are done, and which
 * items have intents recorded after their last `done` (those go through the step's `reconcile` on resume).
 * One pass over the records with Maps, so a 10,000-item journal folds in milliseconds.
 */
import type { JournalRecord } from './journal-record.js';
import type { Intent, Outputs } from '../steps/contract.js';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'paused' | 'ambiguous' | 'interrupted';

export interface RunState {
  run: string;
  startedAt: string;
  playbook: string;
  file: string;
  target: string;
  digest: string;
  inputsDigest: string;
  /** the process that carries the run on now (its latest `run` record) */
  pid: number;
  host: string;
  user: string;
  /** when that process took the run up (its latest `run` record) */
  invokedAt: string;
  /** the playbook's path as every checkout names it (the latest `run` record's), when recorded */
  path?: string;
  /** 'running' = no end record: either alive, or crashed (the lock tells which) */
  status: RunStatus;
  endedAt?: string;
  exitCode?: number;
  error?: { code: string; message: string };
  steps: Map<string, StepState>;
}

export interface StepState {
  step: string;
  withDigest?: string;
  items: number;
  /** item key → result */
  done: Map<string, { status: string; outputs: Outputs }>;
  /** items with intents recorded after their last `done` (or never done) */
  pending: Map<string, Intent[]>;
  finished?: { status: 'applied' | 'in-sync' | 'skipped'; outputs: Outputs; withDigest: string };
}

type RunRecord = Extract<JournalRecord, { t: 'run' }>;

function newRun(record: RunRecord): RunState {
  return {
    run: record.run,
    startedAt: record.at,
    playbook: record.playbook,
    file: record.file,
    target: record.target,
    digest: record.digest,
    inputsDigest: record.inputsDigest,
    pid: record.pid,
    host: record.host,
    user: record.user,
    invokedAt: record.at,
    ...(record.path === undefined ? {} : { path: record.path }),
    status: 'running',
    steps: new Map(),
  };
}

function stepOf(run: RunState, step: string): StepState {
  let state = run.steps.get(step);
  if (!state) {
    state = { step, items: 0, done: new Map(), pending: new Map() };
    run.steps.set(step, state);
  }
  return state;
}

/**
 * Folds records into runs, in the order their first `run` record appears. A second `run` record with a known
 * id is a resumed invocation of that run: its state carries on, with the new pid and no end.
 */
function fold(records: readonly JournalRecord[], only?: string): RunState[] {
  const runs = new Map<string, RunState>();
  for (const record of records) {
    if (only !== undefined && record.run !== only) continue;
    if (record.t === 'run') {
      const known = runs.get(record.run);
      if (!known) {
        runs.set(record.run, newRun(record));
      } else {
        known.pid = record.pid;
        known.host = record.host;
        known.user = record.user;
        known.invokedAt = record.at;
        if (record.path !== undefined) known.path = record.path;
        known.status = 'running';
        delete known.endedAt;
        delete known.exitCode;
        delete known.error;
      }
      continue;
    }
    const run = runs.get(record.run);
    // Journal.open refuses a journal with such records; a hand-made record list may still have them.
    if (!run) continue;
    switch (record.t) {
      case 'step': {
        const step = stepOf(run, record.step);
        step.withDigest = record.withDigest;
        step.items = record.items;
        break;
      }
      case 'intent': {
        const pending = stepOf(run, record.step).pending;
        const intents = pending.get(record.item);
        if (intents) intents.push(record.intent);
        else pending.set(record.item, [record.intent]);
        break;
      }
      case 'done': {
        const step = stepOf(run, record.step);
        step.done.set(record.item, { status: record.status, outputs: record.outputs });
        step.pending.delete(record.item);
        break;
      }
      case 'step-done':
        stepOf(run, record.step).finished = {
          status: record.status,
          outputs: record.outputs,
          withDigest: record.withDigest,
        };
        break;
      case 'failed':
        stepOf(run, record.step).pending.delete(record.item);
        break;
      case 'resolve': {
        const step = stepOf(run, record.step);
        step.pending.delete(record.item);
        if (record.as === 'done') step.done.set(record.item, { status: 'resolved', outputs: {} });
        break;
      }
      case 'end':
        run.status = record.status;
        run.endedAt = record.at;
        run.exitCode = record.exitCode;
        if (record.error) run.error = record.error;
        else delete run.error;
        break;
    }
  }
  return [...runs.values()];
}

/** Every run in the journal, oldest first. */
export function allRuns(records: readonly JournalRecord[]): RunState[] {
  return fold(records);
}

/** The run of the last `run` record, or undefined for an empty journal. */
export function lastRun(records: readonly JournalRecord[]): RunState | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as JournalRecord;
    if (record.t === 'run') return fold(records, record.run)[0];
  }
  return undefined;
}

/**
 * Across all runs, the latest `step-done` of `stepId` with this `withDigest` and status applied or in-sync:
 * the only memory of a step that has no live state to observe (core.shell without guards). A run started with
 * `--fresh` is a horizon: nothing before its `run` record counts.
 */
export function lastFinishedStep(
  records: readonly JournalRecord[],
  stepId: string,
  withDigest: string,
): { outputs: Outputs } | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as JournalRecord;
    if (
      record.t === 'step-done' &&
      record.step === stepId &&
      record.withDigest === withDigest &&
      (record.status === 'applied' || record.status === 'in-sync')
    ) {
      return { outputs: record.outputs };
    }
    if (record.t === 'run' && record.fresh === true) break;
  }
  return undefined;
}

/** A run in plain data (for `ledgerbook status` and its --json). */
export interface RunSummary {
  run: string;
  playbook: string;
  target: string;
  status: RunStatus;
  startedAt: string;
  endedAt?: string;
  exitCode?: number;
  error?: { code: string; message: string };
  steps: Array<{
    step: string;
    status: 'applied' | 'in-sync' | 'skipped' | 'unfinished';
    items: number;
    done: number;
    /** keys of items with an intent but no `done` after it */
    pending: string[];
  }>;
}

export function summarizeRun(run: RunState): RunSummary {
  const summary: RunSummary = {
    run: run.run,
    playbook: run.playbook,
    target: run.target,
    status: run.status,
    startedAt: run.startedAt,
    steps: [...run.steps.values()].map((step) => ({
      step: step.step,
      status: step.finished?.status ?? 'unfinished',
      items: step.items,
      done: step.done.size,
      pending: [...step.pending.keys()],
    })),
  };
  if (run.endedAt !== undefined) summary.endedAt = run.endedAt;
  if (run.exitCode !== undefined) summary.exitCode = run.exitCode;
  if (run.error !== undefined) summary.error = run.error;
  return summary;
}

/**
 * The records a journal can be rewritten to without changing anything the engine reads from it: every record
 * of the last run (its resume state, its status), and, from earlier runs after the last `--fresh` horizon, the
 * latest applied or in-sync `step-done` of each (step, with digest) — the memory `lastFinishedStep` reads —
 * each with its run's first `run` record. A no-op rerun appends a full set of records; compacting when the
 * journal is opened for the next run keeps its size, and the cost of reading it, flat over any number of runs.
 * Returns undefined when there is nothing to drop.
 */
export function compactRecords(records: readonly JournalRecord[]): JournalRecord[] | undefined {
  let lastRunId: string | undefined;
  let horizon = 0;
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as JournalRecord;
    if (record.t !== 'run') continue;
    lastRunId ??= record.run;
    if (record.fresh === true) {
      horizon = i;
      break;
    }
  }
  if (lastRunId === undefined) return undefined;
  const keep = new Set<number>();
  const memory = new Set<string>();
  const firstRunRecord = new Map<string, number>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as JournalRecord;
    if (record.t === 'run' && !firstRunRecord.has(record.run)) firstRunRecord.set(record.run, i);
  }
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as JournalRecord;
    const mine = record.run === lastRunId;
    if (mine) keep.add(i);
    if (i < horizon || record.t !== 'step-done') continue;
    if (record.status !== 'applied' && record.status !== 'in-sync') continue;
    // Only the latest step-done of a (step, with digest) is ever read.
    const slot = `${record.step}\n${record.withDigest}`;
    if (memory.has(slot)) continue;
    memory.add(slot);
    if (!mine) {
      keep.add(i);
      keep.add(firstRunRecord.get(record.run) as number);
    }
  }
  // The last run's first `run` record may precede the horizon only if it was resumed after a fresh run: kept.
  if (keep.size === records.length) return undefined;
  return records.filter((_, i) => keep.has(i));
}
