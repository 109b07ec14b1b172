/**
 * How every DPM workflow step starts, finds, joins and waits for a workflow run — the operators' safe-retry
 * rules in one place (DESIGN.md principle 3, dpm-api.md §12a):
 * - a start POST has no idempotency key: its intent is journalled first, and an answer that is lost is settled by
 *   looking for the run in GET /workflows (kind, prefix or party, created after the intent), never by a second
 *   start;
 * - runs are looked for on every member node the target names, not only on the coordinator: the same change in
 *   progress anywhere is followed (adopted) and waited for, never started twice; another change of the same
 *   thing in progress is refused with who makes it;
 * - right before a start, the runs and the declared end state are read again: an end state reached meanwhile
 *   starts nothing, a run of the same change that appeared meanwhile is followed, another change that appeared
 *   (or finished) meanwhile is refused;
 * - while a run is waited for, the other member nodes are watched for a competing run, which stops the wait with
 *   what was seen;
 * - invitations are accepted only for the run this step started (or adopted), on nodes the target controls.
 * What remains open (docs/architecture.md "Several operators"): two starts on different coordinators whose
 * re-observation and POST overlap in time both go ahead; the watch then reports each to the other.
 */
import { AmbiguousOutcomeError, PausedError, ServiceError, StepError } from '../../errors.js';
import type { DpmClient } from '../../clients/dpm.js';
import type {
  DecentralizedParty,
  PendingInvitation,
  WorkflowKind,
  WorkflowResponse,
  WorkflowRun,
} from '../../clients/dpm-wire.js';
import { pool } from '../../engine/pool.js';
import type { Intent, ItemContext, StepContext } from '../../engine/step.js';
import type { TargetNode } from '../../playbook/target-schema.js';

/** How often a step polls a DPM node while it waits. */
export const POLL_MS = 500;
/** While waiting for a party, a live read (`refresh=true`) at most this often; cached reads in between. */
const LIVE_READ_EVERY_MS = 5_000;
/** Clock skew tolerated between this machine and a DPM node when matching runs to an intent. */
const SKEW_SECONDS = 5;
/** While a run is waited for, the other member nodes are looked at this often for a competing run. */
const COMPETITOR_CHECK_MS = 2_000;
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
async function whileWaiting<T>(
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

const keyOf = ({ node, run }: NodeRun): string => `${node}/${run.instance_name}`;

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

export interface StartIntent extends Intent {
  action: 'start-workflow';
  node: string;
  kind: WorkflowKind;
  /** unix seconds on this machine when the start was decided */
  at: number;
}

function intentFor(node: string, match: RunMatch, at: number): StartIntent {
  return {
    action: 'start-workflow',
    node,
    kind: match.kind,
    at,
    ...(match.prefix !== undefined ? { prefix: match.prefix } : {}),
    ...(match.party !== undefined ? { party: match.party } : {}),
    ...(match.darFilenames !== undefined ? { dars: [...match.darFilenames] } : {}),
  };
}

function matchOf(intent: Intent): RunMatch {
  return {
    kind: intent['kind'] as WorkflowKind,
    ...(typeof intent['prefix'] === 'string' ? { prefix: intent['prefix'] } : {}),
    ...(typeof intent['party'] === 'string' ? { party: intent['party'] } : {}),
    ...(Array.isArray(intent['dars']) ? { darFilenames: intent['dars'] as string[] } : {}),
  };
}

/** The run a start refused with 409 names as in flight on the node (§5 same-party guard, duplicate instance). */
export function inFlightRun(error: unknown): string | undefined {
  if (!(error instanceof ServiceError) || error.status !== 409) return undefined;
  const text = error.serviceMessage ?? '';
  return (
    /already has an? \w+ workflow in flight \(run ([^)]+)\)/.exec(text)?.[1] ??
    /^A workflow with instance (\S+) is already running/.exec(text)?.[1]
  );
}

export interface StartRequest {
  /** the coordinator: the node the run starts on */
  node: string;
  match: RunMatch;
  /** the runs around (see runsAround) when the state the start was planned from was observed */
  observed: readonly NodeRun[];
  /** the other member nodes the target names: read (GET only) for runs of the same thing */
  watch: readonly string[];
  /** reads the declared end state again: true when it is reached already */
  reached(): Promise<boolean>;
  start(client: DpmClient): Promise<WorkflowResponse>;
  /**
   * How long to wait, when the coordinator is not controlled by this target, for its operator to start the
   * change (default 10 minutes); then the run pauses (exit 3).
   */
  waitMs?: number;
}

export type StartOutcome =
  { outcome: 'reached' } | { outcome: 'started' | 'following'; at: NodeRun; competitors: Competitors };

/**
 * Start a workflow once. Right before the POST the runs of the coordinator and every other member node, and the
 * declared end state, are read again: an end state reached meanwhile starts nothing; a run of the same change in
 * progress (on any of them) is followed; another change of the same thing, in progress or finished since the
 * observation, is refused with who makes it. The intent is journalled before the POST; an ambiguous answer is
 * settled by GET /workflows; a 409 naming a run of the same change in flight follows that run.
 */
export async function startWorkflow(ctx: ItemContext, request: StartRequest): Promise<StartOutcome> {
  const { node, match } = request;
  // another operator's coordinator: nothing is started here, and a coordinator that does not answer for a while
  // (it restarts) is waited for, as its peers' DPMs wait for it
  if (!isControlled(ctx, node)) return coordinatorsRun(ctx, request);
  const nodes = [node, ...request.watch];
  const [around, reached] = await Promise.all([
    runsAround(ctx, node, request.watch, match),
    request.reached(),
  ]);
  const known = around.map(keyOf);
  const following = (at: NodeRun): StartOutcome => {
    ctx.progress(`following ${describeRun(at.run)} on ${at.node} instead of starting another`);
    return { outcome: 'following', at, competitors: new Competitors(match, nodes, at, known) };
  };
  const started = (run: WorkflowRun): StartOutcome => {
    const at = { node, run };
    return { outcome: 'started', at, competitors: new Competitors(match, nodes, at, known) };
  };
  // a run of the change still in flight is followed even when its effect shows already (it lingers at Complete):
  // done means done, and its invitations on this target's nodes are answered
  const pending = pendingOf(around, match, node);
  if (pending) return following(pending);
  if (reached) return { outcome: 'reached' };
  const rival = rivalOf(around, match, request.observed);
  if (rival) throw rivalError(match, rival, namerOf(ctx));

  const at = Math.floor(ctx.clock.now() / 1000);
  await ctx.record(intentFor(node, match, at));
  let instance: string;
  try {
    instance = (await request.start(ctx.clients.dpm(node))).instance_name;
  } catch (error) {
    if (error instanceof ServiceError && error.retryability === 'ambiguous') {
      const found = await findRuns(ctx, node, match, at);
      if (found[0]) return started(found[0]);
      throw new AmbiguousOutcomeError(
        `the ${match.kind} start on ${node} got no answer, and GET /workflows does not show a run started since then`,
        `${error.message}; no ${match.kind} run on ${node} created after ${new Date(at * 1000).toISOString()}`,
        'the run may still appear: run the playbook again to look once more, or check the node',
      );
    }
    // the coordinator started the same change in the moment between the re-observation and this POST
    const busy = inFlightRun(error);
    if (busy === undefined) throw error;
    const same = await busyRun(ctx, node, busy);
    if (same && same.status === 'inprogress' && carries({ node, run: same }, match))
      return following({ node, run: same });
    if (same === undefined) {
      // the node says the run is there, but does not list it: another start is still in its checks
      throw new StepError(
        `${node} refused the ${match.kind} start: run ${busy} is starting there, but GET /workflows does not list it after ${Math.round(BUSY_RUN_WAIT_MS / 1000)} s`,
        {
          cause: error,
          retryability: 'transient',
          hint: 'nothing was started here: the step looks again and follows that run once it is listed',
        },
      );
    }
    throw error;
  }
  const run = (await findRuns(ctx, node, match, at)).find((r) => r.instance_name === instance);
  if (!run) {
    throw new StepError(
      `${node} answered 202 with instance ${instance}, but GET /workflows does not list it`,
    );
  }
  return started(run);
}

/** How long a run that a 409 names as running may take to be listed (its start still runs the version gate). */
const BUSY_RUN_WAIT_MS = 30_000;

/**
 * The run a start's 409 names (`A workflow with instance … is already running`, `… in flight (run …)`) as the
 * node lists it. A run another start registered a moment ago may not be listed yet — its start is still probing
 * the invitees — so it is looked for again until it is, for up to BUSY_RUN_WAIT_MS; undefined if it never is.
 */
async function busyRun(ctx: StepContext, node: string, instance: string): Promise<WorkflowRun | undefined> {
  const until = ctx.clock.now() + BUSY_RUN_WAIT_MS;
  for (;;) {
    const listed = await whileWaiting(ctx, node, () =>
      ctx.clients.dpm(node).workflows({ signal: ctx.signal }),
    );
    const run = listed?.runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
    if (run !== undefined) return run;
    if (ctx.clock.now() >= until) return undefined;
    ctx.progress(`${node} says run ${instance} is already running; waiting for it to be listed`);
    await ctx.clock.sleep(POLL_MS, ctx.signal);
  }
}

/**
 * The coordinator belongs to another operator (`controlled: false`): this target starts nothing there. It waits
 * for that operator's run of the same change — followed once it appears, its invitations accepted on the nodes
 * this target controls — or for the end state; another change of the same thing stops it, as anywhere.
 */
async function coordinatorsRun(ctx: ItemContext, request: StartRequest): Promise<StartOutcome> {
  const { node, match } = request;
  const nodes = [node, ...request.watch];
  const until = ctx.clock.now() + (request.waitMs ?? 600_000);
  /** the runs seen before the one followed: the baseline of its watch for competitors */
  let known: string[] | undefined;
  for (let first = true; ; first = false) {
    if (!first) await ctx.clock.sleep(POLL_MS, ctx.signal);
    // a node that restarts meanwhile (it answers nothing for a moment) is waited for, not a failure
    const seen = await whileWaiting(ctx, node, () =>
      Promise.all([runsAround(ctx, node, request.watch, match), request.reached()]),
    );
    if (seen !== undefined) {
      const [around, reached] = seen;
      known ??= around.map(keyOf);
      const pending = pendingOf(around, match, node);
      if (pending) {
        ctx.progress(`following ${describeRun(pending.run)} on ${pending.node}, started by its operator`);
        return {
          outcome: 'following',
          at: pending,
          competitors: new Competitors(match, nodes, pending, known),
        };
      }
      if (reached) return { outcome: 'reached' };
      const rival = rivalOf(around, match, request.observed);
      if (rival) throw rivalError(match, rival, namerOf(ctx));
      if (first)
        ctx.progress(
          `waiting for the operator of ${node} to start the ${match.kind} run (${node} is not controlled here)`,
        );
    }
    if (ctx.clock.now() >= until) {
      throw new PausedError(
        `the ${match.kind} run is to be started on ${node}, which this target does not control, and its operator has not started it`,
        `the operator of ${node} runs the same playbook (its target controls ${node}); run this again to follow that run and accept its invitations here`,
      );
    }
  }
}

/**
 * Reconcile a journalled start: the run it started, if GET /workflows shows one created after the intent.
 * Undefined when it never reached the node (safe to plan again).
 */
export async function startedRun(
  ctx: StepContext,
  intents: readonly Intent[],
): Promise<WorkflowRun | undefined> {
  const start = [...intents].reverse().find((i) => i.action === 'start-workflow');
  if (!start) return undefined;
  const node = start['node'];
  if (typeof node !== 'string') return undefined;
  const found = await findRuns(ctx, node, matchOf(start), Number(start['at']));
  return found[0];
}

/**
 * The invitees' own rows of a coordinator run in progress, read at most every COMPETITOR_CHECK_MS: a peer row that
 * failed or was cancelled while the coordinator still waits (the coordinator restarted and the peer gave up on it
 * after its polls failed) can never come back — only a retry of a failed coordinator row revives peer rows — so
 * the run would wait for ever. A node that cannot be read is passed over.
 */
class StrandedPeers {
  private nextCheck = 0;

  async check(ctx: StepContext, node: string, run: WorkflowRun): Promise<void> {
    if (run.role !== 'Coordinator' || ctx.clock.now() < this.nextCheck) return;
    this.nextCheck = ctx.clock.now() + COMPETITOR_CHECK_MS;
    const invited = run.expected_peers.flatMap((p) => nodeOfParticipant(ctx, p) ?? []);
    const rows = await readEach(ctx, invited, (peer) =>
      whileWaiting(ctx, peer, async () =>
        (await ctx.clients.dpm(peer).workflows({ signal: ctx.signal })).runs.find(
          (r) => r.role === 'Peer' && r.coordinator_instance === run.instance_name,
        ),
      ),
    );
    const stranded = invited.flatMap((peer, i) => {
      const row = rows[i];
      return row && (row.status === 'failed' || row.status === 'cancelled') ? [{ peer, row }] : [];
    });
    // a kick or a contracts run needs only a quorum of its invitees (dpm-api.md §7.1): stuck once none is left
    const quorumOnly = run.kind === 'Kick' || run.kind === 'Contracts';
    if (stranded.length === 0 || (quorumOnly && stranded.length < run.expected_peers.length)) return;
    throw new StepError(
      `${describeRun(run)} on ${node} cannot complete: ${stranded.map(({ peer, row }) => `${peer}'s part of it is ${row.status}${row.error ? ` (${row.error})` : ''}`).join('; ')}`,
      {
        hint: `a peer row that gave up is not revived while the coordinator's run is in progress: cancel the run on ${node} (dpm.workflow { node: ${node}, instance: ${run.instance_name}, action: cancel }), then run the playbook again`,
      },
    );
  }
}

/**
 * Wait until the run (a coordinator's, or a peer row) is no longer in progress; progress shows its step. A failed
 * or cancelled run is a step failure naming the run, its step and its error; a coordinator run whose invitees
 * gave up their part (StrandedPeers) too; a wait that outlasts `timeoutMs` leaves the run alone. With
 * `competitors`, a competing run on the other member nodes stops the wait at once.
 */
export async function waitForRun(
  ctx: StepContext,
  node: string,
  instance: string,
  timeoutMs: number,
  competitors?: Competitors,
): Promise<WorkflowRun> {
  const deadline = ctx.clock.now() + timeoutMs;
  const stranded = new StrandedPeers();
  let last = '';
  for (;;) {
    await competitors?.check(ctx);
    const listed = await whileWaiting(ctx, node, () =>
      ctx.clients.dpm(node).workflows({ signal: ctx.signal }),
    );
    if (listed === undefined) {
      if (ctx.clock.now() >= deadline) {
        throw new StepError(`${node} did not answer while waiting for run ${instance}`, {
          hint: 'nothing was cancelled: once the node is back, run the playbook again to keep waiting',
        });
      }
      await ctx.clock.sleep(POLL_MS, ctx.signal);
      continue;
    }
    const run =
      listed.runs.find((r) => r.instance_name === instance && r.role === 'Coordinator') ??
      listed.runs.find((r) => r.instance_name === instance);
    if (!run) {
      throw new StepError(`the run ${instance} is no longer listed on ${node} (dismissed by someone else?)`, {
        hint: 'check GET /workflows on that node; run the playbook again to observe the result',
      });
    }
    if (run.status === 'completed') return run;
    if (run.status === 'failed' || run.status === 'cancelled') {
      throw new StepError(`${describeRun(run)} on ${node}`, {
        hint:
          run.status === 'failed'
            ? 'see the error above; a failed run is retried by running again only when it is safe (a coordinator Canton error), otherwise cancel/dismiss it with dpm.workflow'
            : 'someone cancelled it; run the playbook again to start over',
      });
    }
    await stranded.check(ctx, node, run);
    const now = `${run.current_step} (${run.step_index + 1}/${run.step_total})`;
    if (now !== last) {
      ctx.progress(`${instance}: ${now}`);
      last = now;
    }
    if (ctx.clock.now() >= deadline) {
      throw new StepError(
        `${describeRun(run)} on ${node}: still in progress after ${Math.round(timeoutMs / 1000)} s`,
        {
          hint: 'nothing was cancelled: run the playbook again to keep waiting (the run is adopted, not restarted), or raise `timeout`',
        },
      );
    }
    await ctx.clock.sleep(POLL_MS, ctx.signal);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Invitations

/** The peer run a node created when it accepted the coordinator's run `instance`, if any. */
async function peerRun(ctx: StepContext, node: string, instance: string): Promise<WorkflowRun | undefined> {
  const { runs } = await ctx.clients.dpm(node).workflows({ signal: ctx.signal });
  return runs.find((r) => r.role === 'Peer' && r.coordinator_instance === instance);
}

/**
 * On each controlled node, accept the invitation of run `instance` (and only it): wait for the card, journal the
 * intent, accept. A node that already joined the run is left alone; a card that never comes within `timeoutMs`
 * fails the step with what the node shows. With `coordinator`, the run is watched while a card is awaited: a run
 * that failed or was cancelled meanwhile (a peer declined) fails the step at once, and a run that completed
 * without this node (a kick's or a contracts run's quorum) needs no acceptance — its card, when it is there, is
 * declined, so that no invitation of the run stays pending (accepting it now would only fail the node's peer row
 * later). With `competitors`, so are the other member nodes.
 */
export async function acceptInvitations(
  ctx: ItemContext,
  nodes: readonly string[],
  instance: string,
  timeoutMs: number,
  coordinator?: string,
  competitors?: Competitors,
): Promise<string[]> {
  const accepted: string[] = [];
  for (const node of nodes.filter((n) => isControlled(ctx, n))) {
    const deadline = ctx.clock.now() + timeoutMs;
    for (;;) {
      await competitors?.check(ctx);
      const listed = await whileWaiting(ctx, node, async () => ({
        joined: await peerRun(ctx, node, instance),
        invitations: (await ctx.clients.dpm(node).invitations({ signal: ctx.signal })).invitations,
      }));
      if (listed?.joined) break;
      const card = listed?.invitations.find((i) => i.workflow_instance === instance);
      const run =
        coordinator === undefined
          ? undefined
          : (
              await whileWaiting(ctx, coordinator, () =>
                ctx.clients.dpm(coordinator).workflows({ signal: ctx.signal }),
              )
            )?.runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
      if (card && run?.status === 'completed') {
        await declineLeftover(ctx, { node, card, run });
        break;
      }
      if (card) {
        await ctx.record({ action: 'accept-invitation', node, invitation: card.id, instance });
        try {
          await ctx.clients.dpm(node).acceptInvitation(card.id, { signal: ctx.signal });
        } catch (error) {
          // 404: the card is gone (accepted or withdrawn meanwhile); 409: already participating. Either way
          // the node decided elsewhere; the coordinator's run tells the outcome.
          if (!(error instanceof ServiceError) || (error.status !== 404 && error.status !== 409)) throw error;
        }
        accepted.push(node);
        break;
      }
      if (run?.status === 'completed') break;
      if (run?.status === 'failed' || run?.status === 'cancelled') {
        throw new StepError(`${describeRun(run)} on ${coordinator}, before ${node} could accept`, {
          hint: 'see the error above; dpm.workflow (cancel, dismiss) clears the run',
        });
      }
      if (ctx.clock.now() >= deadline) {
        const other = (listed?.invitations ?? [])
          .map((i) => `${i.invitation_type} ${i.workflow_instance ?? i.id}`)
          .join(', ');
        throw new StepError(
          `${node} received no invitation for run ${instance} within ${Math.round(timeoutMs / 1000)} s`,
          {
            hint: `pending on ${node}: ${other || 'none'}; check that ${node} and the coordinator list each other as peers (dpm.network)`,
          },
        );
      }
      ctx.progress(`waiting for ${node} to receive the invitation of ${instance}`);
      await ctx.clock.sleep(POLL_MS, ctx.signal);
    }
  }
  return accepted;
}

/** An invitation still pending on a node this target controls, of a run that completed without that node. */
export interface Leftover {
  node: string;
  card: PendingInvitation;
  run: WorkflowRun;
}

/**
 * The invitations pending on the controlled nodes among `nodes` for coordinator runs in `around` that completed
 * (a kick or contracts run reaches its quorum without every invitee): nothing waits for them any more. Done means
 * done: a step is in sync only once none of its runs' invitations is left pending on the nodes it controls.
 */
export async function leftoverInvitations(
  ctx: StepContext,
  nodes: readonly string[],
  around: readonly NodeRun[],
): Promise<Leftover[]> {
  const finished = around.filter((r) => r.run.status === 'completed');
  if (finished.length === 0) return [];
  const controlled = [...new Set(nodes)].filter((n) => isControlled(ctx, n));
  const lists = await readEach(ctx, controlled, async (node) => {
    const { invitations } = await ctx.clients.dpm(node).invitations({ signal: ctx.signal });
    return invitations.flatMap((card) => {
      const at = finished.find(
        (r) => r.run.instance_name === card.workflow_instance && r.run.kind === card.invitation_type,
      );
      return at === undefined ? [] : [{ node, card, run: at.run }];
    });
  });
  return lists.flat();
}

/** Declines a leftover invitation (recorded first); a card gone meanwhile (404) is fine. */
export async function declineLeftover(ctx: ItemContext, { node, card, run }: Leftover): Promise<void> {
  ctx.progress(
    `${node}: declining the leftover invitation of ${run.instance_name} (it completed without ${node})`,
  );
  await ctx.record({ action: 'decline-invitation', node, invitation: card.id, instance: run.instance_name });
  try {
    await ctx.clients.dpm(node).declineInvitation(card.id, { signal: ctx.signal });
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status !== 404) throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Parties

/** The party with this prefix (or id) as a node sees it; `refresh` bypasses the node's cache. */
export async function readParty(
  ctx: StepContext,
  node: string,
  party: { prefix?: string; id?: string },
  refresh: boolean,
): Promise<DecentralizedParty | undefined> {
  const prefix = party.prefix ?? party.id?.split('::')[0];
  const { parties } = await ctx.clients
    .dpm(node)
    .decentralizedParties({ ...(prefix !== undefined ? { prefix } : {}), refresh }, { signal: ctx.signal });
  return parties.find((p) => (party.id ? p.party_id === party.id : p.party_id.split('::')[0] === prefix));
}

/**
 * Poll until `ready` holds for the party on every node: a live read first (`refresh=true`, which also
 * refreshes the node's cache in the background), then cached reads, which is where other members' owner keys
 * appear (dpm-api.md §4), with another live read every few seconds. Nodes are read at once. With `competitors`,
 * a competing run on the member nodes stops the wait. Returns each node's view.
 */
export async function waitForParty(
  ctx: StepContext,
  nodes: readonly string[],
  party: { prefix?: string; id?: string },
  ready: (party: DecentralizedParty | undefined, node: string) => boolean,
  timeoutMs: number,
  what: string,
  competitors?: Competitors,
): Promise<Map<string, DecentralizedParty>> {
  const deadline = ctx.clock.now() + timeoutMs;
  const views = new Map<string, DecentralizedParty>();
  const pending = new Set(nodes);
  let lastLive: number | undefined;
  for (;;) {
    await competitors?.check(ctx);
    // A live read rewrites the node's cache in the background, dropping other members' owner keys until they
    // are resolved again; reading live on every other poll could keep them from ever appearing.
    const refresh = lastLive === undefined || ctx.clock.now() - lastLive >= LIVE_READ_EVERY_MS;
    if (refresh) lastLive = ctx.clock.now();
    const round = [...pending];
    const seen = await readEach(ctx, round, (node) =>
      whileWaiting(ctx, node, () => readParty(ctx, node, party, refresh)),
    );
    round.forEach((node, i) => {
      const view = seen[i];
      if (view && ready(view, node)) {
        views.set(node, view);
        pending.delete(node);
      }
    });
    if (pending.size === 0) return views;
    if (ctx.clock.now() >= deadline) {
      throw new StepError(
        `${what}: not seen on ${[...pending].join(', ')} within ${Math.round(timeoutMs / 1000)} s`,
        {
          hint: 'the nodes may still be catching up: run the playbook again to observe once more',
        },
      );
    }
    await ctx.clock.sleep(POLL_MS, ctx.signal);
  }
}
