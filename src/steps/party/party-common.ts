/**
 * What the party topology steps share beyond the workflow mechanics (workflow-runs.ts, workflow-waits.ts,
 * workflow-lifecycle.ts): `with` schema fragments, static checks against the target (run again at observe time on
 * the resolved `with`), node and participant names for messages, membership comparisons, and the operators' rules
 * for an earlier run of the same change (adopt it, retry it only when that is safe, or stop and say who declined
 * and how to clear it).
 */
import type { DecentralizedParty, WorkflowRun } from '../../clients/dpm-wire.js';
import { ServiceError, StepError } from '../../errors.js';
import type { StaticFinding, StepContext } from '../../engine/step.js';
import { didYouMean } from '../../playbook/closest.js';
import { parseDuration } from '../../playbook/duration.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import type { Target } from '../../playbook/target.js';
import { describeRun, namerOf, type Namer } from './workflow-runs.js';
import { readParty } from './workflow-waits.js';

export type { Namer } from './workflow-runs.js';

// ---------------------------------------------------------------------------------------------------------
// Schema fragments

export const NODE_NAME_PATTERN = '^[a-z][a-z0-9_-]*$';
const CANTON_ID = /^[^:]+::[0-9a-fA-F]{68}$/;

export function nodeNameSchema(description: string) {
  return { type: 'string', pattern: NODE_NAME_PATTERN, description } as const;
}

export function nodeListSchema(description: string) {
  return {
    type: 'array',
    items: { type: 'string', pattern: NODE_NAME_PATTERN },
    minItems: 1,
    uniqueItems: true,
    description,
  } as const;
}

export const partyRefSchema = {
  type: 'string',
  minLength: 1,
  description:
    'The decentralized party: its id `<prefix>::<namespace>`, or its prefix (looked up on the coordinator, e.g. `${{ steps.onboard.outputs.party_id }}` or `alpha`).',
} as const;

export const thresholdSchema = (description: string) =>
  ({ type: 'integer', minimum: 1, maximum: 2147483647, description }) as const;

export function timeoutSchema(fallback: string, what: string) {
  return {
    ...durationSchema,
    description: `How long to wait for ${what} (default ${fallback}). A wait that times out leaves the run alone: the next run adopts it.`,
  } as const;
}

// ---------------------------------------------------------------------------------------------------------
// Static checks (before anything is sent)

/** A value the playbook computes at run time (`${{ … }}`): a static check cannot see it yet. */
export function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${{');
}

export function isParticipantId(value: string): boolean {
  return CANTON_ID.test(value);
}

/** Collects findings with pointers relative to `with`. */
export class Findings {
  readonly list: StaticFinding[] = [];

  constructor(private readonly target: Target | undefined) {}

  add(pointer: string, message: string, hint?: string, expected?: string): void {
    this.list.push({
      pointer,
      message,
      ...(hint === undefined ? {} : { hint }),
      ...(expected === undefined ? {} : { expected }),
    });
  }

  nodeNames(): string[] {
    return Object.keys(this.target?.nodes ?? {});
  }

  /** the node exists in the target; false when it does not (or cannot be told yet: an expression, no target) */
  node(pointer: string, name: unknown): name is string {
    if (typeof name !== 'string' || isExpression(name) || this.target === undefined) return false;
    const names = this.nodeNames();
    if (names.includes(name)) return true;
    this.add(
      pointer,
      `the target has no node '${name}'`,
      didYouMean(name, names) ?? `nodes of this target: ${names.join(', ') || 'none'}`,
      'a node name of the target',
    );
    return false;
  }

  /** every element of a node list exists; returns the names that can be checked further */
  nodes(pointer: string, names: unknown): string[] {
    if (!Array.isArray(names)) return [];
    return names.filter((name, i): name is string => this.node(`${pointer}/${i}`, name));
  }

  /** the node may be written to by this target */
  controlled(pointer: string, name: string, why: string): void {
    if (this.target?.nodes?.[name]?.controlled === false) {
      this.add(
        pointer,
        `${name} is not controlled by this target (controlled: false), but ${why}`,
        `choose a node this target controls, or let ${name}'s operator run this step`,
      );
    }
  }

  /** a node name of the target or a participant id */
  member(pointer: string, value: unknown): void {
    if (typeof value !== 'string' || isExpression(value) || isParticipantId(value)) return;
    this.node(pointer, value);
  }
}

/** Runs a kind's static checks again on the resolved `with` (expressions are values now): fails before anything is sent. */
export function enforceChecks<W>(
  ctx: StepContext,
  w: W,
  check: (w: W, target: Target | undefined) => StaticFinding[],
): void {
  const findings = check(w, ctx.target);
  if (findings.length === 0) return;
  const lines = findings.map((f) => `with${f.pointer}: ${f.message}${f.hint ? ` (${f.hint})` : ''}`);
  throw new StepError(`step '${ctx.stepId}': ${lines.join('; ')}`, {
    hint: 'fix the step’s `with` (or the inputs it uses); nothing was sent',
  });
}

// ---------------------------------------------------------------------------------------------------------
// Time

export function durationMs(value: string | number | undefined, fallback: string): number {
  return parseDuration(value ?? fallback);
}

/** One time budget shared by the phases of an item (start, accept, wait, verify). */
export class Deadline {
  private readonly end: number;

  constructor(
    private readonly ctx: StepContext,
    readonly totalMs: number,
  ) {
    this.end = ctx.clock.now() + totalMs;
  }

  /** what is left, at least one poll so that a phase looks once more before it gives up */
  remaining(): number {
    return Math.max(1, this.end - this.ctx.clock.now());
  }
}

// ---------------------------------------------------------------------------------------------------------
// Names

/** The nodes a step names, or by default every node of the target this target controls. */
export function nodesOrControlled(nodes: string[] | undefined, target: Target | undefined): string[] {
  return (
    nodes ??
    Object.entries(target?.nodes ?? {})
      .filter(([, n]) => n.controlled !== false)
      .map(([name]) => name)
  );
}

export function nameOf(ctx: StepContext, participantId: string): string {
  return namerOf(ctx)(participantId);
}

export function namesOf(ctx: StepContext, participantIds: readonly string[]): string {
  return participantIds.map((p) => nameOf(ctx, p)).join(', ') || 'none';
}

/** A node name or a participant id, as a participant id. */
export function participantRef(ctx: StepContext, ref: string): string {
  if (isParticipantId(ref)) return ref;
  const node = ctx.target?.nodes?.[ref];
  if (!node) {
    throw new StepError(`the target has no node '${ref}' (and it is not a participant id)`, {
      hint: `nodes of this target: ${Object.keys(ctx.target?.nodes ?? {}).join(', ') || 'none'}`,
    });
  }
  return node.participantId;
}

// ---------------------------------------------------------------------------------------------------------
// Parties

export function membersOf(party: DecentralizedParty): string[] {
  return party.participants.map((p) => p.participant_uid);
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}

/** Every member's owner key is known: only cached reads carry the other members' keys (dpm-api.md §4). */
export function hasOwnerKeys(party: DecentralizedParty): boolean {
  return party.participants.every((p) => typeof p.owner_key === 'string' && p.owner_key !== '');
}

export function describeParty(ctx: StepContext, party: DecentralizedParty): string {
  const members = membersOf(party);
  return `${party.party_id} (members ${namesOf(ctx, members)}; threshold ${party.threshold} of ${members.length})`;
}

/** A party id as given, or the id of the party with that prefix as the node sees it (live). */
export async function resolveParty(ctx: StepContext, node: string, ref: string): Promise<string> {
  if (ref.includes('::')) return ref;
  const party = await readParty(ctx, node, { prefix: ref }, true);
  if (!party) {
    throw new StepError(`${node} knows no decentralized party with the prefix '${ref}'`, {
      hint: `GET /decentralized-parties?prefix=${ref}&refresh=true on ${node} lists nothing: is ${node} a member, and is the prefix right?`,
    });
  }
  return party.party_id;
}

// ---------------------------------------------------------------------------------------------------------
// Earlier runs of the same change

const DECLINED = /^Peer (\S+) declined the invitation/;
const COORDINATOR_FAILED = 'Coordinator workflow failed: ';

/** The participant that declined the run, if that is why it failed. */
export function declinedBy(run: WorkflowRun): string | undefined {
  return run.status === 'failed' ? DECLINED.exec(run.error ?? '')?.[1] : undefined;
}

/**
 * A failed coordinator run is safe to retry only when the coordinator's own (Canton) work failed: the retry
 * resumes at the failed step and revives the peers (dpm-api.md §6, §7.3). Never a declined run, a peer row, or a
 * run whose stored configuration could not be read back.
 */
export function retrySafe(run: WorkflowRun): boolean {
  const error = run.error ?? '';
  return (
    run.role === 'Coordinator' &&
    run.status === 'failed' &&
    error.startsWith(COORDINATOR_FAILED) &&
    !error.startsWith(`${COORDINATOR_FAILED}Resume failed`)
  );
}

/** What to do with the newest earlier run of the change a step declares. */
export type EarlierRun =
  | { verdict: 'none' }
  | { verdict: 'adopt'; run: WorkflowRun }
  | { verdict: 'retry'; run: WorkflowRun }
  | { verdict: 'blocked'; run: WorkflowRun; error: StepError };

/**
 * The operators' rules for the newest matching coordinator run: in progress → adopt and wait; failed and safe →
 * retry; declined or failed otherwise → stop with who/what and how to clear it; completed or cancelled → none
 * (the step decides from the party itself).
 */
export function earlierRun(name: Namer, node: string, run: WorkflowRun | undefined): EarlierRun {
  if (!run) return { verdict: 'none' };
  if (run.status === 'inprogress') return { verdict: 'adopt', run };
  if (run.status !== 'failed') return { verdict: 'none' };
  if (retrySafe(run)) return { verdict: 'retry', run };
  return { verdict: 'blocked', run, error: failedRunError(name, node, run) };
}

/** Why a failed run stops the step, and how an operator clears it. */
export function failedRunError(name: Namer, node: string, run: WorkflowRun): StepError {
  const clear = (cancelFirst: boolean): string =>
    `${cancelFirst ? `cancel it (it still idles on ${node}) and ` : ''}dismiss it with a dpm.workflow step ` +
    `({ node: ${node}, instance: ${run.instance_name}, action: ${cancelFirst ? 'cancel' : 'dismiss'} }` +
    `${cancelFirst ? ', then action: dismiss' : ''}), then run this playbook again`;
  const decliner = declinedBy(run);
  if (decliner !== undefined) {
    const who = name(decliner);
    return new StepError(
      `the ${run.kind} run ${run.instance_name} on ${node} failed: ${who}${who === decliner ? '' : ` (${decliner})`} declined the invitation`,
      {
        hint: `nothing is retried after a decline. Ask ${who}'s operator why; to start over once they agree, ${clear(true)}`,
      },
    );
  }
  return new StepError(`${describeRun(run)} on ${node}; it is not safe to retry`, {
    hint: `only a coordinator's own failure ("Coordinator workflow failed: …") is retried. To start over, ${clear(false)}`,
  });
}

/**
 * Adds the playbook-level context to a refusal of the DPM, keeping its text, hint and retryability (a start refused
 * because the coordinator's party cache was being rewritten clears up by itself: the engine tries again).
 */
export function refused(what: string, error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.status === undefined || error.status >= 500) return error;
  return new StepError(`${what}: ${error.serviceMessage ?? error.message}`, {
    cause: error,
    retryability: error.retryability === 'transient' ? 'transient' : 'permanent',
    hint: error.hint ?? 'nothing was started; fix the cause and run again',
  });
}
