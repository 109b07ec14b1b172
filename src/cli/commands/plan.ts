/**
 * Saved plan files for the CLI: `plan --out FILE` writes one, `run FILE` recognises and checks one, `show FILE`
 * reads one. What a plan holds and how two plans are compared is src/engine/saved-plan.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { FileArgumentError, UsageError } from '../../errors.js';
import { sha256 } from '../../engine/digest.js';
import type { JournalRecord } from '../../engine/journal.js';
import type { Masker } from '../../engine/masker.js';
import type { EngineResult } from '../../engine/run.js';
import {
  PLAN_FORMAT,
  PLAN_VERSION,
  PlanGuard,
  diffPlans,
  planSchema,
  staleError,
  type PlannedStep,
  type SavedPlan,
} from '../../engine/saved-plan.js';
import { checkSchema, genericWhere } from '../../playbook/schema-check.js';
import type { Prepared } from '../prepare.js';
import { BUILTIN_TARGET } from '../prepare.js';
import { VERSION } from '../version.js';

/** The start of a file tells a saved plan (JSON with its format marker) from a playbook (YAML). */
export async function isSavedPlanFile(file: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    // A missing or unreadable file is reported where the playbook is loaded, as before.
    if (error instanceof Error && 'code' in error) return false;
    throw error;
  }
  if (!text.trimStart().startsWith('{') || !text.includes(PLAN_FORMAT)) return false;
  try {
    const value = JSON.parse(text) as { format?: unknown };
    return value.format === PLAN_FORMAT;
  } catch (error) {
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

/** Reads and checks a saved plan; a damaged, hand-edited or newer file is refused with what is wrong. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const why =
      error instanceof SyntaxError
        ? 'not valid JSON'
        : ((error as NodeJS.ErrnoException).code ?? String(error));
    throw new FileArgumentError(
      `${file}: cannot read the saved plan (${why})`,
      'give a file written by `ledgerbook plan --out`',
    );
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > PLAN_VERSION) {
    throw new FileArgumentError(
      `${file}: a saved plan of format version ${version}; this ledgerbook reads version ${PLAN_VERSION}`,
      'apply it with the ledgerbook version that made it, or make a new plan with this one',
    );
  }
  const findings = checkSchema(planSchema, value, { where: genericWhere });
  if (findings.length > 0) {
    const lines = findings
      .slice(0, 10)
      .map((f) => `  ${f.pointer || '/'}: ${f.message}${f.expected ? ` (expected ${f.expected})` : ''}`);
    throw new FileArgumentError(
      `${file} is not a ledgerbook saved plan (edited or damaged):\n${lines.join('\n')}`,
      'make a new plan with `ledgerbook plan <playbook> --out FILE`; a saved plan is not meant to be edited',
    );
  }
  return value as SavedPlan;
}

/** The target's digest: of the target file's text, or of the built-in target's name. */
async function targetDigest(spec: string): Promise<string> {
  return sha256(spec === BUILTIN_TARGET ? BUILTIN_TARGET : await readFile(spec, 'utf8'));
}

/** What the plan records of what it was made from (everything but the steps). */
async function origin(
  prepared: Prepared,
  targetSpec: string,
  given: string[],
  masker: Masker,
): Promise<Pick<SavedPlan, 'playbook' | 'inputs' | 'target'>> {
  return {
    playbook: {
      name: prepared.playbook.name,
      file: prepared.playbook.file,
      digest: prepared.playbook.digest,
    },
    inputs: { given: given.map((flag) => masker.mask(flag)), digest: prepared.inputsDigest },
    target: { name: prepared.targetName, spec: targetSpec, digest: await targetDigest(targetSpec) },
  };
}

/** Writes the saved plan of a `plan` run. Every string passes through the masker first. */
export async function writeSavedPlan(
  file: string,
  result: EngineResult,
  context: { prepared: Prepared; targetSpec: string; given: string[]; stateWhere: string },
): Promise<SavedPlan> {
  const { prepared } = context;
  const plan: SavedPlan = {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    ledgerbook: VERSION,
    createdAt: new Date().toISOString(),
    ...(await origin(prepared, context.targetSpec, context.given, prepared.masker)),
    state: { where: context.stateWhere, ...(result.lastRun ? { lastRun: result.lastRun } : {}) },
    changes: result.changes,
    steps: result.planned ?? [],
  };
  const masked = prepared.masker.maskDeep(plan);
  await writeFile(file, `${JSON.stringify(masked, null, 2)}\n`);
  return masked;
}

/**
 * What `run plan.json` gives the engine: a check of the plan made again under the lock (any difference, or a
 * run recorded since, refuses the run with the list) and the guard that holds each item to the plan.
 */
export async function savedPlanCheck(
  plan: SavedPlan,
  file: string,
  prepared: Prepared,
): Promise<{ guard: PlanGuard; verify(planned: PlannedStep[], records: readonly JournalRecord[]): void }> {
  const now = await origin(prepared, plan.target.spec, plan.inputs.given, prepared.masker);
  return {
    guard: new PlanGuard(plan, file),
    verify(planned, records) {
      const lines = diffPlans(plan, { ...now, steps: planned });
      const since = runsSince(records, plan.state.lastRun);
      if (since) lines.unshift(since);
      if (lines.length > 0) throw staleError(file, plan, lines);
    },
  };
}

/** A line naming the run recorded since the plan was made, or undefined when there was none. */
function runsSince(
  records: readonly JournalRecord[],
  mark: SavedPlan['state']['lastRun'],
): string | undefined {
  let last: Extract<JournalRecord, { t: 'run' }> | undefined;
  for (let i = records.length - 1; i >= 0 && !last; i--) {
    const record = records[i] as JournalRecord;
    if (record.t === 'run') last = record;
  }
  if (last === undefined || (mark !== undefined && last.run === mark.run && last.at === mark.at))
    return undefined;
  // `user` may already name the host (`alice@build-7`): say it once
  const who = last.user.endsWith(`@${last.host}`) ? last.user : `${last.user} on ${last.host}`;
  return `the state changed: run ${last.run} by ${who} (${last.at}) ran after the plan was made`;
}

/** Options that a saved plan fixes itself: giving them with one is a usage error. */
export function refuseOverrides(
  file: string,
  given: { input: boolean; target: boolean; fresh: boolean },
): void {
  const flags = [given.input && '--input', given.target && '--target', given.fresh && '--fresh'].filter(
    Boolean,
  );
  if (flags.length > 0) {
    throw new UsageError(
      `${flags.join(', ')} cannot be given with a saved plan (${file}): it applies the playbook, inputs and target it was made with`,
      'drop them, or make a new plan with them: ledgerbook plan <playbook> … --out FILE',
    );
  }
}
