/**
 * The runs of DPM workflows as the member nodes list them, told apart (dpm-api.md §5, §12a): which run carries the
 * change a step declares, which one concerns the same thing and stands in its way (a rival), and, while a run is
 * waited for, which one competes with it. Also the target's nodes as the party steps name them, and the bounded
 * parallel reads every party step uses.
 */
import { ServiceError, StepError } from '../../errors.js';
import type { WorkflowKind, WorkflowRun } from '../../clients/dpm-wire.js';
import { pool } from '../../pool.js';
import type { ItemContext, StepContext } from '../contract.js';
import type { TargetNode } from '../../playbook/target-schema.js';

/** How often a step polls a DPM node while it waits. */
export const POLL_MS = 500;
/** Clock skew tolerated between this machine and a DPM node when matching runs to an intent. */
const SKEW_SECONDS = 5;
/** While a run is waited for, the other member nodes are looked at this often for a competing run. */
export const COMPETITOR_CHECK_MS = 2_000;
/** GETs a step sends at once, across nodes (each node's independent reads go together on top). */
export const READS_AT_ONCE = 8;
/** Kinds whose runs concern one decentralized party: the DPM lets one of them run per party and node (§5). */
const PARTY_KINDS: readonly WorkflowKind[] = ['Kick', 'AddParty', 'ChangeThreshold', 'Contracts'];

export interface RunMatch {
  kind: WorkflowKind;
  /** onboarding: the party prefix */
  prefix?: string;
  /** kick / add-party / change-threshold / contracts: the decentralized party id */
  party?: string;
  /** dars: the file names of the distribution */
  darFilenames?: readonly string[];
  /** the run (listed by `node`) carries this very change (a threshold, the members, the contracts); default: any */
  same?: (run: WorkflowRun, node: string) => boolean;
}

/** A coordinator run and the node that lists it. */
export interface NodeRun {
  node: string;
  run: WorkflowRun;
}

// ---------------------------------------------------------------------------------------------------------
// Target nodes

export function targetNode(ctx: StepContext, name: string): TargetNode {
  const node = ctx.target?.nodes?.[name];
  if (!node) {
    throw new StepError(`the target has no node '${name}'`, {
      hint: `nodes of this target: ${Object.keys(ctx.target?.nodes ?? {}).join(', ') || 'none'}`,
    });
  }
  return node;
}

/** Nodes this target may act on (accept invitations, write configuration); `controlled: false` nodes are watched only. */
export function isControlled(ctx: StepContext, name: string): boolean {
  return targetNode(ctx, name).controlled !== false;
}

export function participantOf(ctx: StepContext, name: string): string {
  return targetNode(ctx, name).participantId;
}

export function nodeOfParticipant(ctx: StepContext, participantId: string): string | undefined {
  return Object.entries(ctx.target?.nodes ?? {}).find(([, n]) => n.participantId === participantId)?.[0];
}

/** `read` for each unit at once, at most READS_AT_ONCE at a time; results in order, the first error thrown. */
export function readEach<U, R>(
  ctx: StepContext,
  units: readonly U[],
  read: (unit: U) => Promise<R>,
): Promise<R[]> {
  return pool(units, READS_AT_ONCE, ctx.signal, () => undefined, read);
}

/**
 * The tasks at once, each with a context whose signal also aborts as soon as another one failed, so that a wait
 * which can no longer succeed stops instead of polling on after the step failed. The first failure is thrown
 * once every task settled.
 */
export async function allOrNone<T>(
  ctx: ItemContext,
  tasks: ReadonlyArray<(ctx: ItemContext) => Promise<T>>,
): Promise<T[]> {
  const failed = new AbortController();
  const child: ItemContext = { ...ctx, signal: AbortSignal.any([ctx.signal, failed.signal]) };
  const settled = await Promise.allSettled(
    tasks.map((task) =>
      task(child).catch((error: unknown) => {
        if (!failed.signal.aborted) failed.abort(error);
        throw error;
      }),
    ),
  );
  if (failed.signal.aborted) throw failed.signal.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/**
 * A read made while waiting: a node that restarts mid-run (the DPM answers nothing for a moment) or a passing
 * 5xx is an expected event of a long wait, not a failure. Undefined on a transient error (reported as
 * progress); anything else is thrown.
 */
export async function whileWaiting<T>(
  ctx: StepContext,
  node: string,
  read: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ServiceError) || error.retryability !== 'transient' || ctx.signal.aborted)
      throw error;
    ctx.progress(`${node} did not answer (${error.serviceMessage ?? error.message}); still waiting`);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Runs

function matches(run: WorkflowRun, match: RunMatch): boolean {
  if (run.role !== 'Coordinator' || run.kind !== match.kind) return false;
  if (match.prefix !== undefined && run.prefix !== match.prefix) return false;
  if (match.party !== undefined && run.dec_party_id !== match.party) return false;
  if (match.darFilenames !== undefined) {
    const names = [...(run.dar_filenames ?? [])].sort();
    const wanted = [...match.darFilenames].sort();
    if (names.length !== wanted.length || names.some((n, i) => n !== wanted[i])) return false;
  }
  return true;
}

/**
 * The coordinator run concerns what `match` is about: its party (any kind the DPM counts against the party), its
 * onboarding prefix, or its DAR files.
 */
export function concerns(run: WorkflowRun, match: RunMatch): boolean {
  if (match.party !== undefined)
    return run.role === 'Coordinator' && run.dec_party_id === match.party && PARTY_KINDS.includes(run.kind);
  return matches(run, match);
}

/** The run, listed by `node`, carries the very change `match` declares. */
export function carries({ node, run }: NodeRun, match: RunMatch): boolean {
  return matches(run, match) && (match.same?.(run, node) ?? true);
}

/** Coordinator runs on the node that match, newest first (GET /workflows lists non-dismissed runs). */
export async function findRuns(
  ctx: StepContext,
  node: string,
  match: RunMatch,
  since?: number,
): Promise<WorkflowRun[]> {
  const { runs } = await ctx.clients.dpm(node).workflows({ signal: ctx.signal });
  return runs
    .filter((r) => matches(r, match) && (since === undefined || r.created_at >= since - SKEW_SECONDS))
    .sort((a, b) => b.created_at - a.created_at);
}

/**
 * Every run (either role) on the coordinator and the other member nodes, read at once, newest first. The
 * coordinator must answer; another node that cannot be read is left out with a warning (once per node in
 * `warned`), since a run it coordinates then goes unseen.
 */
export async function listRuns(
  ctx: StepContext,
  coordinator: string,
  others: readonly string[],
  warned: Set<string> = new Set(),
): Promise<NodeRun[]> {
  const nodes = [coordinator, ...others.filter((n) => n !== coordinator)];
  const lists = await readEach(ctx, nodes, async (node) => {
    try {
      const { runs } = await ctx.clients.dpm(node).workflows({ signal: ctx.signal });
      return runs.map((run) => ({ node, run }));
    } catch (error) {
      if (node === coordinator || !(error instanceof ServiceError) || ctx.signal.aborted) throw error;
      if (!warned.has(node)) {
        warned.add(node);
        ctx.log(
          'warn',
          `could not read the runs of ${node} (${error.message}): a run it coordinates is not seen`,
        );
      }
      return [];
    }
  });
  return lists.flat().sort((a, b) => b.run.created_at - a.run.created_at);
}

/** The coordinator runs that concern `match` on the coordinator and the other member nodes (see listRuns). */
export async function runsAround(
  ctx: StepContext,
  coordinator: string,
  others: readonly string[],
  match: RunMatch,
  warned?: Set<string>,
): Promise<NodeRun[]> {
  return (await listRuns(ctx, coordinator, others, warned)).filter((r) => concerns(r.run, match));
}

export function describeRun(run: WorkflowRun): string {
  const where = `${run.current_step} (${run.step_index + 1}/${run.step_total})`;
  return `${run.kind} run ${run.instance_name}: ${run.status} at ${where}${run.error ? `: ${run.error}` : ''}`;
}

/** How messages name a participant: its node name when the target has it. */
export type Namer = (participantId: string) => string;

export function namerOf(ctx: StepContext): Namer {
  return (participantId) => nodeOfParticipant(ctx, participantId) ?? participantId;
}

/** What a run changes, in words: `threshold → 3`, `remove node3, threshold → 2`, `create governance-core`. */
export function changeOf(run: WorkflowRun, namer: Namer): string {
  const name = (p: string | null | undefined): string => (p ? namer(p) : '?');
  const threshold = typeof run.new_threshold === 'number' ? [`threshold → ${run.new_threshold}`] : [];
  switch (run.kind) {
    case 'Kick':
      return [`remove ${name(run.kicked_participant)}`, ...threshold].join(', ');
    case 'AddParty':
      return [`add ${name(run.added_participant)}`, ...threshold].join(', ');
    case 'ChangeThreshold':
      return threshold.join('') || 'change the threshold';
    case 'Contracts':
      return `create ${(run.package_names ?? []).join(', ') || 'contracts'}`;
    case 'Dars':
      return `distribute ${(run.dar_filenames ?? []).join(', ')} to ${run.expected_peers.map(name).join(', ')}`;
    case 'Onboarding':
      return `onboard '${run.prefix ?? '?'}' with ${run.expected_peers.map(name).join(', ')}`;
  }
}

function subjectOf(match: RunMatch): string {
  if (match.party !== undefined) return `party ${match.party}`;
  if (match.prefix !== undefined) return `the onboarding of '${match.prefix}'`;
  return `the distribution of ${(match.darFilenames ?? []).join(', ')}`;
}

export const keyOf = ({ node, run }: NodeRun): string => `${node}/${run.instance_name}`;

function cancelHint(at: NodeRun): string {
  return `dpm.workflow { node: ${at.node}, instance: ${at.run.instance_name}, action: cancel }`;
}

/**
 * Among the runs around, one that stands in the way of starting `match`: another change of the same thing in
 * progress, or, with `observed` (the runs around when the state was observed), one that finished since.
 */
export function rivalOf(
  around: readonly NodeRun[],
  match: RunMatch,
  observed?: readonly NodeRun[],
): NodeRun | undefined {
  const finishedBefore = new Set((observed ?? []).filter((r) => r.run.status !== 'inprogress').map(keyOf));
  return around.find(
    (r) =>
      concerns(r.run, match) &&
      !carries(r, match) &&
      (r.run.status === 'inprogress' ||
        (observed !== undefined && r.run.status === 'completed' && !finishedBefore.has(keyOf(r)))),
  );
}

/** Why a start is refused because of `rival` (see rivalOf), and how to go on; `lead` opens the message. */
export function rivalError(
  match: RunMatch,
  rival: NodeRun,
  namer: Namer,
  lead = 'refusing to start',
): StepError {
  const { run } = rival;
  const what = `${describeRun(run)} (${changeOf(run, namer)})`;
  return run.status === 'inprogress'
    ? new StepError(`${lead}: ${rival.node} is already changing ${subjectOf(match)}: ${what}`, {
        hint: `one change at a time: two coordinators changing one party race each other, and the last to submit wins. Wait for it and run this playbook again, or agree to cancel it (${cancelHint(rival)})`,
      })
    : new StepError(
        `${lead}: ${rival.node} changed ${subjectOf(match)} since this step looked at it: ${what}`,
        { hint: 'nothing was started: run this playbook again to plan from what is there now' },
      );
}

/** A run of this very change in progress around: on the coordinator first. */
export function pendingOf(
  around: readonly NodeRun[],
  match: RunMatch,
  coordinator: string,
): NodeRun | undefined {
  const pending = around.filter((r) => r.run.status === 'inprogress' && carries(r, match));
  return pending.find((r) => r.node === coordinator) ?? pending[0];
}

/**
 * While a run is waited for, the other runs that concern the same thing on the member nodes: a run in progress
 * beside ours, or one that finished since ours started and was not there before, competes with ours (two
 * coordinators changing one party at once: whichever submits last wins). Read at most every few seconds.
 */
export class Competitors {
  private nextCheck = 0;
  private known: Set<string> | undefined;
  private readonly warned = new Set<string>();

  /** `known`: the runs seen before ours started (default: those finished at the first check) */
  constructor(
    private readonly match: RunMatch,
    private readonly nodes: readonly string[],
    readonly ours: NodeRun,
    known?: Iterable<string>,
  ) {
    this.known = known === undefined ? undefined : new Set(known);
  }

  /** Throws a StepError naming the competing run and how to settle it, when there is one. */
  async check(ctx: StepContext): Promise<void> {
    if (ctx.clock.now() < this.nextCheck) return;
    this.nextCheck = ctx.clock.now() + COMPETITOR_CHECK_MS;
    const around = await whileWaiting(ctx, this.ours.node, () =>
      runsAround(ctx, this.ours.node, this.nodes, this.match, this.warned),
    );
    if (around === undefined) return;
    this.known ??= new Set(around.filter((r) => r.run.status !== 'inprogress').map(keyOf));
    const known = this.known;
    const rival = around.find(
      (r) =>
        keyOf(r) !== keyOf(this.ours) &&
        (r.run.status === 'inprogress' || (r.run.status === 'completed' && !known.has(keyOf(r)))),
    );
    if (!rival) return;
    const ours = this.ours.run;
    const name = namerOf(ctx);
    throw new StepError(
      `${rival.node} ${rival.run.status === 'inprogress' ? 'is changing' : 'changed'} ${subjectOf(this.match)} at the same time as the ${ours.kind} run ${ours.instance_name} on ${this.ours.node} (${changeOf(ours, name)}): ${describeRun(rival.run)} (${changeOf(rival.run, name)})`,
      {
        hint: `two coordinators changing one thing at once race each other, and the last to submit wins; nothing was cancelled. Agree on one change and cancel the other on its coordinator (${cancelHint(rival)}, or ${cancelHint(this.ours)}), then run this playbook again`,
      },
    );
  }
}
