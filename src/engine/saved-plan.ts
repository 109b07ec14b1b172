/**
 * Saved plans (`ledgerbook plan --out plan.json`, `ledgerbook run plan.json`, `ledgerbook show plan.json`).
 *
 * A saved plan carries what it applies and records what a run of it must find unchanged: the playbook's text
 * and the target's (secrets by name only), the inputs (as given) and their digest, the digest of each data file
 * its steps read (plan-files.ts), the state's last run, and for each step its status, the digest of its resolved
 * `with`, the digest of the live state it observed, and its planned changes per item; with a key, a signature
 * over all of it (plan-signature.ts). Digests are taken of masked values, so that nothing in the file is a
 * secret or derived from one.
 *
 * `run plan.json` takes the lock, plans again without side effects and compares (`diffPlans`): any difference
 * refuses the run (exit 1) with one line per difference. While it applies, `PlanGuard` holds each item to its
 * saved changes until the run has changed something; after that, a later step observes what the earlier ones
 * did, which the plan could not know, and is planned again at apply time. Steps that were "known after apply"
 * (they read outputs of steps that would change) are planned at apply time, as the plan said.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { PlanStaleError } from '../errors.js';
import { digestOf, sha256 } from '../digest.js';
import type { JournalRecord } from './journal.js';
import { shellWord } from './state-command.js';
import type { Change } from '../steps/contract.js';

export const PLAN_FORMAT = 'ledgerbook-plan';
/** 2: the plan carries its playbook and target, pins its data files, and may be signed */
export const PLAN_VERSION = 2;

const digest = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

const change = {
  type: 'object',
  properties: {
    action: { type: 'string' },
    summary: { type: 'string' },
    details: { type: 'object' },
  },
  required: ['action', 'summary'],
  additionalProperties: false,
} as const;

const plannedStep = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    uses: { type: 'string' },
    status: {
      enum: ['in-sync', 'changes', 'skipped', 'known-after-apply'],
      description:
        '`known-after-apply`: the step reads outputs of steps that would change; it is planned when the run reaches it',
    },
    dependsOn: {
      type: 'array',
      items: { type: 'string' },
      description:
        'for known-after-apply: the steps it waits for, and in an untrusted plan the `secrets.NAME` (or `vars.NAME` reading them) it was not given',
    },
    itemKeys: {
      type: 'array',
      items: { type: 'string' },
      description:
        'for known-after-apply, a fan-out step whose items do not depend on what is unknown: the keys of its items',
    },
    withDigest: { ...digest, description: 'sha256 of the resolved `with` (masked) and the item keys' },
    stateDigest: { ...digest, description: 'sha256 of the live state the step observed (masked)' },
    changes: { type: 'integer', minimum: 0 },
    items: {
      type: 'array',
      description: 'the items that would change (in-sync items are left out)',
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, changes: { type: 'array', items: change, minItems: 1 } },
        required: ['key', 'changes'],
        additionalProperties: false,
      },
    },
  },
  required: ['id', 'uses', 'status', 'changes', 'items'],
  additionalProperties: false,
} as const;

export const planSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://ledgerbook.dev/schemas/plan.schema.json',
  title: 'ledgerbook saved plan',
  description:
    'Written by `ledgerbook plan --out FILE`; applied by `ledgerbook run FILE`, rendered by `ledgerbook show FILE`. Never holds a secret.',
  type: 'object',
  properties: {
    format: { const: PLAN_FORMAT },
    version: { const: PLAN_VERSION },
    ledgerbook: { type: 'string', description: 'the version that wrote it' },
    createdAt: { type: 'string' },
    untrusted: {
      const: true,
      description:
        'made by `plan --untrusted` (a change nobody reviewed yet): no command ran; for review, never applied',
    },
    playbook: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        file: { type: 'string', description: 'as the command line named it: the playbook that is applied' },
        digest: { ...digest, description: 'sha256 of `text`' },
        text: { type: 'string', description: 'the playbook, as parsed: what `run` applies' },
      },
      required: ['name', 'file', 'digest', 'text'],
      additionalProperties: false,
    },
    inputs: {
      type: 'object',
      properties: {
        given: { type: 'array', items: { type: 'string' }, description: 'the --input flags, name=value' },
        digest: { ...digest, description: 'sha256 of the resolved inputs, defaults included' },
      },
      required: ['given', 'digest'],
      additionalProperties: false,
    },
    target: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        spec: { type: 'string', description: 'as --target took it: a target file, or `sandbox`' },
        digest: { ...digest, description: 'sha256 of `text` (of `sandbox` for the built-in target)' },
        text: {
          type: 'string',
          description: 'the target file, as parsed (secrets by name only); absent for the built-in target',
        },
      },
      required: ['name', 'spec', 'digest'],
      additionalProperties: false,
    },
    files: {
      type: 'array',
      description:
        'the data files the steps read when the plan was made (recipients, package lists, DARs, receipts): `run` refuses one that differs',
      items: {
        type: 'object',
        properties: {
          path: {
            type: 'string',
            minLength: 1,
            pattern: '^(?!/)',
            description: "relative to the playbook's folder",
          },
          sha256: digest,
          bytes: { type: 'integer', minimum: 0 },
        },
        required: ['path', 'sha256', 'bytes'],
        additionalProperties: false,
      },
    },
    state: {
      type: 'object',
      properties: {
        where: { type: 'string', description: 'the state dir, or the database (password masked)' },
        lastRun: {
          type: 'object',
          properties: { run: { type: 'string' }, at: { type: 'string' } },
          required: ['run', 'at'],
          additionalProperties: false,
          description:
            'the last run record of the journal when the plan was made: a run since makes it stale',
        },
      },
      required: ['where'],
      additionalProperties: false,
    },
    changes: { type: 'integer', minimum: 0 },
    steps: { type: 'array', items: plannedStep },
    signature: {
      type: 'object',
      description:
        'with LEDGERBOOK_PLAN_KEY: HMAC-SHA-256 of the rest of the plan (canonical JSON), and an id of the key',
      properties: {
        alg: { const: 'HMAC-SHA256' },
        key: { type: 'string', pattern: '^[0-9a-f]{16}$' },
        value: digest,
      },
      required: ['alg', 'key', 'value'],
      additionalProperties: false,
    },
  },
  required: [
    'format',
    'version',
    'ledgerbook',
    'createdAt',
    'playbook',
    'inputs',
    'target',
    'files',
    'state',
    'changes',
    'steps',
  ],
  additionalProperties: false,
} as const;

export type SavedPlan = FromSchema<typeof planSchema>;
export type UnsignedPlan = Omit<SavedPlan, 'signature'>;
export type PlannedStep = FromSchema<typeof plannedStep>;
export type PlannedChange = FromSchema<typeof change>;

/** The last `run` record of a journal: the state's "serial" that a saved plan was made against. */
export function lastRunMark(records: readonly JournalRecord[]): { run: string; at: string } | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as JournalRecord;
    if (record.t === 'run') return { run: record.run, at: record.at };
  }
  return undefined;
}

export function changesDigest(changes: readonly (Change | PlannedChange)[]): string {
  return digestOf(changes.map((c) => ({ action: c.action, summary: c.summary, details: c.details ?? null })));
}

const short = (d: string | undefined): string => (d === undefined ? 'none' : d.slice(0, 12));

/**
 * What differs between a saved plan and the plan made now, one line each, naming the step and what changed.
 * Empty when the plan still holds.
 */
export function diffPlans(
  saved: SavedPlan,
  now: Pick<SavedPlan, 'playbook' | 'inputs' | 'target' | 'steps'>,
): string[] {
  const lines: string[] = [];
  if (saved.playbook.digest !== now.playbook.digest)
    lines.push(
      `the playbook ${now.playbook.file} changed (sha256 ${short(saved.playbook.digest)} → ${short(now.playbook.digest)})`,
    );
  if (saved.inputs.digest !== now.inputs.digest)
    lines.push(
      `the inputs changed (sha256 ${short(saved.inputs.digest)} → ${short(now.inputs.digest)}), defaults included`,
    );
  if (saved.target.digest !== now.target.digest)
    lines.push(
      `the target ${saved.target.spec} changed (sha256 ${short(saved.target.digest)} → ${short(now.target.digest)})`,
    );
  const before = new Map(saved.steps.map((s) => [s.id, s]));
  const after = new Map(now.steps.map((s) => [s.id, s]));
  for (const step of saved.steps)
    if (!after.has(step.id)) lines.push(`step '${step.id}': no longer in the playbook`);
  for (const step of now.steps) {
    const old = before.get(step.id);
    if (!old) {
      lines.push(`step '${step.id}': new, not in the saved plan`);
      continue;
    }
    lines.push(...diffStep(old, step));
  }
  return lines;
}

function diffStep(old: PlannedStep, now: PlannedStep): string[] {
  const at = `step '${now.id}'`;
  if (old.status !== now.status) return [`${at}: was ${describe(old)}, now ${describe(now)}`];
  if (digestOf(old.itemKeys ?? null) !== digestOf(now.itemKeys ?? null))
    return [`${at}: its items were ${describeKeys(old.itemKeys)}, now ${describeKeys(now.itemKeys)}`];
  const lines: string[] = [];
  if (old.withDigest !== now.withDigest) lines.push(`${at}: its resolved \`with\` changed`);
  if (old.stateDigest !== now.stateDigest)
    lines.push(
      `${at}: the live state it observes changed (sha256 ${short(old.stateDigest)} → ${short(now.stateDigest)})`,
    );
  const oldItems = new Map(old.items.map((i) => [i.key, i.changes]));
  const newItems = new Map(now.items.map((i) => [i.key, i.changes]));
  const name = (key: string): string => (key === '' ? at : `${at} item '${key}'`);
  for (const [key, changes] of oldItems) {
    const current = newItems.get(key);
    if (current === undefined) lines.push(`${name(key)}: planned ${summaries(changes)}, now in sync`);
    else if (changesDigest(current) !== changesDigest(changes))
      lines.push(`${name(key)}: planned ${summaries(changes)}, now ${summaries(current)}`);
  }
  for (const [key, changes] of newItems)
    if (!oldItems.has(key)) lines.push(`${name(key)}: was in sync, now ${summaries(changes)}`);
  return lines;
}

function describe(step: PlannedStep): string {
  switch (step.status) {
    case 'changes':
      return `${step.changes} change${step.changes === 1 ? '' : 's'}`;
    case 'known-after-apply':
      return 'known after apply';
    default:
      return step.status;
  }
}

function describeKeys(keys: readonly string[] | undefined): string {
  if (keys === undefined) return 'known after apply';
  const shown = keys.slice(0, 5).map((k) => `'${k}'`);
  return keys.length > 5 ? `${shown.join(', ')} and ${keys.length - 5} more` : shown.join(', ') || 'none';
}

function summaries(changes: readonly PlannedChange[]): string {
  const shown = changes.slice(0, 3).map((c) => `"${c.summary}"`);
  return changes.length > 3 ? `${shown.join(', ')} and ${changes.length - 3} more` : shown.join(', ');
}

/** The command that makes the plan again, with its target and inputs, quoted to be pasted into a shell. */
export function planCommand(
  plan: Pick<SavedPlan, 'playbook' | 'target' | 'inputs' | 'untrusted'>,
  file: string,
): string {
  return [
    'ledgerbook',
    'plan',
    plan.playbook.file,
    ...(plan.target.text === undefined ? [] : ['--target', plan.target.spec]),
    ...plan.inputs.given.flatMap((flag) => ['--input', flag]),
    ...(plan.untrusted ? ['--untrusted'] : []),
    '--out',
    file,
  ]
    .map(shellWord)
    .join(' ');
}

/** A diff as the error `run plan.json` stops with (exit 1). */
export function staleError(
  file: string,
  plan: SavedPlan,
  lines: readonly string[],
  applied = false,
): PlanStaleError {
  const shown = lines.slice(0, 50).map((l) => `  - ${l}`);
  if (lines.length > 50) shown.push(`  - … and ${lines.length - 50} more`);
  return new PlanStaleError(
    `the saved plan ${file} no longer holds; ${applied ? 'the run stopped there' : 'nothing was applied'}:\n${shown.join('\n')}`,
    `make a new plan (${planCommand(plan, file)}), review it, and run that`,
  );
}

/**
 * What is wrong with the texts a plan carries: each must be the text its digest names, and only the built-in
 * target (`builtin`) comes without one. A plan edited by hand, or damaged, fails here.
 */
export function carriedTextProblems(plan: SavedPlan, builtin: string): string[] {
  const problems: string[] = [];
  if (sha256(plan.playbook.text) !== plan.playbook.digest)
    problems.push('/playbook/text: its sha256 is not /playbook/digest');
  if (plan.target.text === undefined) {
    if (plan.target.spec !== builtin)
      problems.push(`/target/text: missing; only the built-in target \`${builtin}\` has none`);
    else if (plan.target.digest !== sha256(builtin))
      problems.push(`/target/digest: not the digest of the built-in target`);
  } else if (sha256(plan.target.text) !== plan.target.digest) {
    problems.push('/target/text: its sha256 is not /target/digest');
  }
  return problems;
}

/**
 * Holds a run to a saved plan, item by item, as it applies: strictly until the run has changed something (the
 * live state should be what the check found a moment before); after that, a step's differences are what the
 * earlier steps of this run did, and are reported instead of refused.
 */
export class PlanGuard {
  private readonly steps: Map<string, PlannedStep>;
  private readonly items = new Map<string, Map<string, string>>();
  private readonly replanned = new Set<string>();

  constructor(
    readonly plan: SavedPlan,
    readonly file: string,
  ) {
    this.steps = new Map(plan.steps.map((s) => [s.id, s]));
    for (const step of plan.steps)
      this.items.set(step.id, new Map(step.items.map((i) => [i.key, changesDigest(i.changes)])));
  }

  /** known after apply in the saved plan: planned only now */
  knownAfterApply(stepId: string): boolean {
    return this.steps.get(stepId)?.status === 'known-after-apply';
  }

  /**
   * Compares an item's changes at apply time with the saved ones. Returns a note when they differ after the run
   * changed something (once per step); throws PlanStaleError when they differ before it did.
   */
  checkItem(
    stepId: string,
    itemKey: string,
    changes: readonly Change[],
    runChangedSomething: boolean,
  ): string | undefined {
    if (this.knownAfterApply(stepId)) return undefined;
    const saved = this.items.get(stepId)?.get(itemKey);
    const now = changes.length === 0 ? undefined : changesDigest(changes);
    if (saved === now) return undefined;
    const at = `step '${stepId}'${itemKey === '' ? '' : ` item '${itemKey}'`}`;
    if (!runChangedSomething) {
      const what =
        saved === undefined
          ? 'was in sync in the plan, now would change'
          : now === undefined
            ? 'had changes in the plan, now is in sync'
            : 'now would make other changes than planned';
      throw staleError(
        this.file,
        this.plan,
        [`${at} ${what}: the live state changed as the run started`],
        true,
      );
    }
    if (this.replanned.has(stepId)) return undefined;
    this.replanned.add(stepId);
    return `${at} differs from the saved plan after the earlier changes of this run: planned at apply time`;
  }
}
