/**
 * What the party topology steps share beyond the workflow mechanics (workflow-runs.ts, workflow-waits.ts,
 * workflow-lifecycle.ts): `with` schema fragments, static checks against the target (run again at observe time on
 * the resolved `with`), node and participant names for messages, membership comparisons, and the operators' rules
 * for an earlier run of the same change (adopt it, retry it only when that is safe, or stop and say who declined
 * and how to clear it).
 */
import type { DecentralizedParty, WorkflowRun } from '../../clients/dpm-wire.js';
import type { StaticFinding } from '../../playbook/step-declaration.js';
import type { StepContext } from '../contract.js';
import { ServiceError, StepError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';
import type { Target } from '../../playbook/target.js';
import { isParticipantId } from './party-common.declaration.js';
import { describeRun, namerOf, type Namer } from './workflow-runs.js';
import { readParty } from './workflow-waits.js';

export type { Namer } from './workflow-runs.js';

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
