/**
 * Saved plan files for the CLI: `plan --out FILE` writes one (signed with LEDGERBOOK_PLAN_KEY when it is set),
 * `run FILE` recognises one and trusts it only once checked, `show FILE` reads one. What a plan holds and how
 * two plans are compared is src/engine/saved-plan.ts; its files, src/engine/plan-files.ts; its signature,
 * src/engine/plan-signature.ts.
 *
 * `run plan.json` checks, in this order, before it reads anything the plan names for use, opens a connection or
 * runs a command: the plan itself (format, version, schema, the texts it carries against their digests), that
 * it is not a review-only plan, its signature (required while a key is set), then the files on disk against
 * it (the playbook, the target, every data file: read only to be digested). The playbook and target are then
 * parsed from the plan's own text.
 */
import { writeFile } from 'node:fs/promises';
import { DataFileError, readDataBytes } from '../../data-file.js';
import { FileArgumentError, PlanRefusedError, UsageError, ValidationError } from '../../errors.js';
import { sha256 } from '../../digest.js';
import type { JournalRecord } from '../../engine/journal.js';
import type { Masker } from '../../engine/masker.js';
import { PlanFiles, changedFiles } from '../../engine/plan-files.js';
import { PlanKey } from '../../engine/plan-signature.js';
import { PLAN_KEY_ENV } from '../../environment.js';
import type { EngineResult } from '../../engine/run.js';
import {
  PLAN_FORMAT,
  PLAN_VERSION,
  PlanGuard,
  carriedTextProblems,
  diffPlans,
  planSchema,
  staleError,
  type PlannedStep,
  type SavedPlan,
  type UnsignedPlan,
} from '../../engine/saved-plan.js';
import type { Diagnostic } from '../../diagnostics.js';
import { decodeUtf8 } from '../../input-limits.js';
import { MAX_SOURCE_BYTES } from '../../validation/load.js';
import { checkSchema, genericWhere } from '../../playbook/schema-check.js';
import type { Prepared } from '../prepare.js';
import { BUILTIN_TARGET } from '../prepare.js';
import { VERSION } from '../version.js';

/** What `plan` and `run` work from: the playbook and target, read once, or the saved plan, checked. */
export interface CommandSources {
  /** `run` of a saved plan: the plan, trusted (every check passed) */
  savedPlan: SavedPlan | undefined;
  /** where plans are signed (`plan --out`) or verified (`run` of a plan) and LEDGERBOOK_PLAN_KEY is set */
  key: PlanKey | undefined;
  /** the file source the command reads through (install it with `useFileSource`) */
  files: PlanFiles;
  targetSpec: string;
  /** the target file's text as parsed; undefined for the built-in target and a file that cannot be read */
  targetText: string | undefined;
  given: string[];
}

/**
 * The sources of a `plan` or `run`. A saved plan (`run plan.json`) is trusted only once checked, in order: the
 * file (parseSavedPlan), what it is for and who signed it (refuseUntrusted), the files on disk (holdToPlan);
 * nothing it names is read for use before. Otherwise the playbook and target are read once and carried, and with
 * `--out` every data file a step reads is recorded.
 */
export async function commandSources(
  mode: 'plan' | 'run',
  playbookFile: string,
  options: {
    target: string;
    input: string[];
    out?: string | undefined;
    untrusted: boolean;
    targetGiven?: boolean | undefined;
    fresh?: boolean | undefined;
  },
  keyText: string | undefined,
  warn: (text: string) => void,
): Promise<CommandSources> {
  if (options.untrusted && keyText) {
    throw new UsageError(
      `${PLAN_KEY_ENV} is set: a job that plans an untrusted change must not hold the key that makes plans applicable`,
      `remove ${PLAN_KEY_ENV} from this job's environment; only the jobs that plan and apply reviewed changes get it`,
    );
  }
  // the file named on the command line, read once: a saved plan, or the playbook
  const argument = await readArgument(playbookFile);
  if (mode === 'run' && argument !== undefined && isSavedPlan(argument)) {
    refuseOverrides(playbookFile, {
      input: options.input.length > 0,
      target: options.targetGiven === true,
      fresh: options.fresh === true,
    });
    const key = PlanKey.fromEnv(keyText);
    const plan = parseSavedPlan(playbookFile, argument);
    refuseUntrusted(plan, playbookFile, key, warn);
    const files = await holdToPlan(plan, playbookFile);
    return {
      savedPlan: plan,
      key,
      files,
      targetSpec: plan.target.spec,
      targetText: plan.target.text,
      given: plan.inputs.given,
    };
  }
  const signs = mode === 'plan' && options.out !== undefined && !options.untrusted;
  const files =
    options.out === undefined ? PlanFiles.carrying(playbookFile) : PlanFiles.recording(playbookFile);
  if (argument !== undefined) files.carry(playbookFile, argument);
  // the target file, read once too: what is parsed is what a saved plan carries
  const target = await readTarget(options.target);
  if (target !== undefined) files.carry(options.target, target);
  return {
    savedPlan: undefined,
    key: signs ? PlanKey.fromEnv(keyText) : undefined,
    files,
    targetSpec: options.target,
    targetText: target === undefined ? undefined : decodeUtf8(options.target, target).text,
    given: options.input,
  };
}

/** The bytes of a target file; undefined for the built-in target and a file that cannot be read (prepare says why). */
async function readTarget(spec: string): Promise<Buffer | undefined> {
  if (spec === BUILTIN_TARGET) return undefined;
  try {
    return await readDataBytes(spec, MAX_SOURCE_BYTES, { pipes: true });
  } catch (error) {
    if (error instanceof DataFileError) return undefined;
    throw error;
  }
}

/** A plan lists every item that would change, a few hundred bytes each: a large distribution's runs to tens of MiB. */
const MAX_PLAN_BYTES = 256 * 1024 * 1024;

/**
 * The bytes of the file `run` and `plan` were given, read once (a `<(command)` is a pipe: read twice, it would
 * be empty the second time); undefined when it cannot be read, which the playbook's loader then reports.
 */
async function readArgument(file: string): Promise<Buffer | undefined> {
  try {
    return await readDataBytes(file, MAX_PLAN_BYTES, { pipes: true });
  } catch (error) {
    if (error instanceof DataFileError) return undefined;
    throw error;
  }
}

/** A saved plan is JSON with its format marker; a playbook is YAML. */
function isSavedPlan(bytes: Buffer): boolean {
  const text = bytes.toString('utf8');
  if (!text.trimStart().startsWith('{') || !text.includes(PLAN_FORMAT)) return false;
  try {
    return (JSON.parse(text) as { format?: unknown } | null)?.format === PLAN_FORMAT;
  } catch (error) {
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

const REMAKE =
  'make a new plan with `ledgerbook plan <playbook> --out FILE`; a saved plan is not meant to be edited';

/**
 * A saved plan from its bytes, checked as a file: a damaged, hand-edited, older or newer file is refused with
 * what is wrong (exit 65); a file that is no saved plan at all is a usage error (exit 64).
 */
function parseSavedPlan(file: string, bytes: Buffer): SavedPlan {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new FileArgumentError(
      `${file}: cannot read the saved plan (not valid JSON)`,
      'give a file written by `ledgerbook plan --out`',
    );
  }
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > PLAN_VERSION) {
    throw new PlanRefusedError(
      `${file}: a saved plan of format version ${version}; this ledgerbook reads version ${PLAN_VERSION}`,
      'apply it with the ledgerbook version that made it, or make a new plan with this one',
    );
  }
  if (typeof version === 'number' && version < PLAN_VERSION) {
    throw new PlanRefusedError(
      `${file}: a saved plan of format version ${version}, made by an older ledgerbook: it names its playbook and target instead of carrying them, and cannot be signed, so it is not applied`,
      `make a new plan with this ledgerbook (ledgerbook plan <playbook> --out ${file}) and review it`,
    );
  }
  const findings = checkSchema(planSchema, value, { where: genericWhere });
  const lines = findings
    .slice(0, 10)
    .map((f) => `${f.pointer || '/'}: ${f.message}${f.expected ? ` (expected ${f.expected})` : ''}`);
  if (lines.length === 0) lines.push(...carriedTextProblems(value as SavedPlan, BUILTIN_TARGET));
  if (lines.length > 0) {
    throw new PlanRefusedError(
      `${file} is not a ledgerbook saved plan (edited or damaged):\n${lines.map((l) => `  ${l}`).join('\n')}`,
      REMAKE,
    );
  }
  return value as SavedPlan;
}

/** Reads and checks a saved plan (for `show`). */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let bytes: Buffer;
  try {
    bytes = await readDataBytes(file, MAX_PLAN_BYTES, { pipes: true });
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    throw new FileArgumentError(`${file}: cannot read the saved plan (${error.message})`, error.hint);
  }
  return parseSavedPlan(file, bytes);
}

/** What a plan's signature is worth to this job. */
export type Trust =
  | { signed: false; key: boolean }
  | { signed: true; key: 'none' | 'valid' | 'other-key' | 'invalid'; keyId: string };

export function trustOf(plan: SavedPlan, key: PlanKey | undefined): Trust {
  if (plan.signature === undefined) return { signed: false, key: key !== undefined };
  const keyId = plan.signature.key;
  return { signed: true, keyId, key: key === undefined ? 'none' : key.verify(plan, plan.signature) };
}

/**
 * Refuses a plan this job must not apply: a review-only plan, an unsigned one while a key is set, one whose
 * signature does not verify. Warns of a signed plan it cannot check (no key here).
 */
function refuseUntrusted(
  plan: SavedPlan,
  file: string,
  key: PlanKey | undefined,
  warn: (text: string) => void,
): void {
  if (plan.untrusted) {
    throw new PlanRefusedError(
      `${file} was made by \`plan --untrusted\`, for review: its commands were not run and it is never applied`,
      'plan the reviewed change again where it is trusted (after the merge), and apply that plan',
    );
  }
  const trust = trustOf(plan, key);
  if (!trust.signed) {
    if (trust.key)
      throw new PlanRefusedError(
        `${file} is not signed, and ${PLAN_KEY_ENV} is set: this job applies signed plans only`,
        `make the plan with the same ${PLAN_KEY_ENV} in the environment of \`ledgerbook plan --out\`, which signs it`,
      );
    return;
  }
  switch (trust.key) {
    case 'valid':
      return;
    case 'none':
      warn(`warning: ${file} is signed, but ${PLAN_KEY_ENV} is not set here: its signature is not checked\n`);
      return;
    case 'other-key':
      throw new PlanRefusedError(
        `${file} was signed with another key (id ${trust.keyId}) than this job's ${PLAN_KEY_ENV}`,
        'give the job the key that signs the plans, or make the plan again with this one',
      );
    case 'invalid':
      throw new PlanRefusedError(
        `the signature of ${file} does not verify: the plan was changed after it was signed`,
        'nothing was read, contacted or run; make a new plan, review it, and apply that one',
      );
  }
}

/**
 * The plan's playbook and target files, and the data files it pinned, compared with what is on disk now (read
 * only to be digested): any difference refuses the run (exit 1). Then the file source that parses the playbook
 * and target from the plan's own text and holds every data file to its digest.
 */
async function holdToPlan(plan: SavedPlan, file: string): Promise<PlanFiles> {
  const lines = [await sourceChange('playbook', plan.playbook.file, plan.playbook.digest)];
  if (plan.target.text !== undefined)
    lines.push(await sourceChange('target', plan.target.spec, plan.target.digest));
  const changed = [
    ...lines.filter((l): l is string => l !== undefined),
    ...changedFiles(plan.playbook.file, plan.files),
  ];
  if (changed.length > 0) throw staleError(file, plan, changed);
  const files = PlanFiles.holding(plan.playbook.file, plan.files);
  files.carry(plan.playbook.file, Buffer.from(plan.playbook.text, 'utf8'));
  if (plan.target.text !== undefined) files.carry(plan.target.spec, Buffer.from(plan.target.text, 'utf8'));
  return files;
}

/** A line saying how the file at `path` differs from the text a plan carries, or undefined when it does not. */
async function sourceChange(what: string, path: string, digest: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readDataBytes(path, MAX_SOURCE_BYTES);
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    return `the ${what} ${path}: ${error.message}`;
  }
  const decoded = decodeUtf8(path, bytes);
  const problem = decoded.diagnostics[0];
  if (problem !== undefined) return `the ${what} ${path}: ${problem.message}`;
  const now = sha256(decoded.text);
  return now === digest
    ? undefined
    : `the ${what} ${path} changed (sha256 ${digest.slice(0, 12)} → ${now.slice(0, 12)})`;
}

/**
 * `plan --out`: a plan can hold no secret, so a value that would be masked in it is refused now, before
 * anything is planned (exit 65): an input given a secret's value would be recorded as `***` and the plan could
 * never be applied; a playbook or target that spells out a secret's value is the same.
 */
export function refuseSecretsInPlan(
  prepared: Prepared,
  given: readonly string[],
  targetText: string | undefined,
): void {
  const { masker } = prepared;
  const problems: Diagnostic[] = [];
  for (const flag of given) {
    if (masker.mask(flag) === flag) continue;
    const name = flag.slice(0, Math.max(0, flag.indexOf('=')));
    problems.push({
      file: `--input ${name}=…`,
      line: 1,
      col: 1,
      pointer: `/inputs/${name}`,
      rule: 'secret-in-plan',
      message: `input '${name}' holds the value of a secret: a saved plan records it as *** and could never be applied`,
      hint: 'read the secret in the playbook as ${{ secrets.NAME }} instead of passing it as an input; a plan names secrets, never holds them',
    });
  }
  const texts: Array<[string, string | undefined]> = [
    [prepared.playbook.file, prepared.playbook.source.text],
    [prepared.target?.file ?? '', targetText],
  ];
  for (const [path, text] of texts) {
    if (text === undefined || masker.mask(text) === text) continue;
    problems.push({
      file: path,
      ...firstMasked(text, masker),
      pointer: '',
      rule: 'secret-in-plan',
      message:
        'the file spells out the value of a secret: a saved plan carries this file and can hold no secret',
      hint: 'name the secret (${{ secrets.NAME }} in a playbook, `secret: NAME` in a target) instead of writing its value',
    });
  }
  if (problems.length > 0) throw new ValidationError('LB_INPUT_INVALID', problems);
}

/** The line and column of the first character that masking changes. */
function firstMasked(text: string, masker: Masker): { line: number; col: number } {
  const masked = masker.mask(text);
  let i = 0;
  while (i < text.length && text[i] === masked[i]) i++;
  const before = text.slice(0, i).split('\n');
  return { line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
}

/** What a plan is made from, besides its steps. */
export interface PlanOrigin {
  prepared: Prepared;
  targetSpec: string;
  /** the target file's text as parsed; undefined for the built-in target */
  targetText: string | undefined;
  given: string[];
  stateWhere: string;
  files: PlanFiles;
  untrusted: boolean;
}

/** What the plan records of what it was made from (everything but the steps). */
function origin(
  o: Pick<PlanOrigin, 'prepared' | 'targetSpec' | 'targetText' | 'given'>,
): Pick<SavedPlan, 'playbook' | 'inputs' | 'target'> {
  const { prepared, targetText } = o;
  return {
    playbook: {
      name: prepared.playbook.name,
      file: prepared.playbook.file,
      digest: prepared.playbook.digest,
      text: prepared.playbook.source.text,
    },
    inputs: { given: o.given.map((flag) => prepared.masker.mask(flag)), digest: prepared.inputsDigest },
    target: {
      name: prepared.targetName,
      spec: o.targetSpec,
      digest: sha256(targetText ?? BUILTIN_TARGET),
      ...(targetText === undefined ? {} : { text: targetText }),
    },
  };
}

/** Writes the saved plan of a `plan` run, signed when there is a key. Every string passes the masker first. */
export async function writeSavedPlan(
  file: string,
  result: EngineResult,
  o: PlanOrigin,
  key: PlanKey | undefined,
): Promise<SavedPlan> {
  const plan: UnsignedPlan = {
    format: PLAN_FORMAT,
    version: PLAN_VERSION,
    ledgerbook: VERSION,
    createdAt: new Date().toISOString(),
    ...(o.untrusted ? { untrusted: true as const } : {}),
    ...origin(o),
    files: o.files.recorded(),
    state: { where: o.stateWhere, ...(result.lastRun ? { lastRun: result.lastRun } : {}) },
    changes: result.changes,
    steps: result.planned ?? [],
  };
  const masked = o.prepared.masker.maskDeep(plan);
  // `plan --untrusted` is never signed: it is made where the key must not be (refused before it runs)
  const signed: SavedPlan = key && !o.untrusted ? { ...masked, signature: key.sign(masked) } : masked;
  await writeFile(file, `${JSON.stringify(signed, null, 2)}\n`);
  return signed;
}

/**
 * What `run plan.json` gives the engine: a check of the plan made again under the lock (any difference, or a
 * run recorded since, refuses the run with the list) and the guard that holds each item to the plan.
 */
export function savedPlanCheck(
  plan: SavedPlan,
  file: string,
  prepared: Prepared,
): { guard: PlanGuard; verify(planned: PlannedStep[], records: readonly JournalRecord[]): void } {
  const now = origin({
    prepared,
    targetSpec: plan.target.spec,
    targetText: plan.target.text,
    given: plan.inputs.given,
  });
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
  if (last === undefined) {
    // the plan was made against a state with runs; this one has none: another state, or a reset one
    return mark === undefined
      ? undefined
      : `the state has no record of run ${mark.run} (${mark.at}), which the plan was made after: it is another state, or was reset`;
  }
  if (mark !== undefined && last.run === mark.run && last.at === mark.at) return undefined;
  // `user` may already name the host (`alice@build-7`): say it once
  const who = last.user.endsWith(`@${last.host}`) ? last.user : `${last.user} on ${last.host}`;
  return `the state changed: run ${last.run} by ${who} (${last.at}) ran after the plan was made`;
}

/** Options that a saved plan fixes itself: giving them with one is a usage error. */
function refuseOverrides(file: string, given: { input: boolean; target: boolean; fresh: boolean }): void {
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
