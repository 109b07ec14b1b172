/**
 * The lifecycle every DPM workflow step shares (DESIGN.md principle 3, dpm-api.md §12a): start the run or follow
 * one already there (on any member node), accept its invitations on the nodes this target controls, wait for it,
 * and leave the verify — what "done" means on the DPM's own reads — to the kind.
 * - a start POST has no idempotency key: its intent is journalled first, and an answer that is lost is settled by
 *   looking for the run in GET /workflows (kind, prefix or party, created after the intent), never by a second
 *   start;
 * - runs are looked for on every member node the target names, not only on the coordinator: the same change in
 *   progress anywhere is followed (adopted) and waited for, never started twice; another change of the same
 *   thing in progress is refused with who makes it;
 * - right before a start, the runs and the declared end state are read again: an end state reached meanwhile
 *   starts nothing, a run of the same change that appeared meanwhile is followed, another change that appeared
 *   (or finished) meanwhile is refused;
 * - with a coordinator another operator controls, nothing is started: that operator's run is waited for and
 *   followed;
 * - while a run is waited for, the other member nodes are watched for a competing run, which stops the wait with
 *   what was seen;
 * - invitations are accepted only for the run this step started (or adopted), on nodes the target controls.
 * A kind says what differs: the route and body of its start, which runs carry its change (a RunMatch), what its
 * end state is, and how it verifies the outcome. No step retries by itself: a refusal that clears up by itself is
 * a transient error, and the engine observes again and paces the next attempt.
 * What remains open (docs/architecture.md "Several operators"): two starts on different coordinators whose
 * re-observation and POST overlap in time both go ahead; the watch then reports each to the other.
 */
import { AmbiguousOutcomeError, PausedError, ServiceError, StepError } from '../../errors.js';
import type { DpmClient } from '../../clients/dpm.js';
import type { WorkflowKind, WorkflowResponse, WorkflowRun } from '../../clients/dpm-wire.js';
import type { Intent, ItemContext, Reconciliation, StepContext } from '../contract.js';
import { failedRunError, refused } from './party-common.js';
import {
  Competitors,
  allOrNone,
  POLL_MS,
  carries,
  describeRun,
  findRuns,
  isControlled,
  keyOf,
  namerOf,
  nodeOfParticipant,
  pendingOf,
  rivalError,
  rivalOf,
  runsAround,
  whileWaiting,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';
import { acceptInvitations, waitForRun } from './workflow-waits.js';

interface StartIntent extends Intent {
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
function inFlightRun(error: unknown): string | undefined {
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

/** Reconcile a journalled start for a kind that settles everything by observing again: adopted, or planned anew. */
export async function reconcileStart(ctx: StepContext, intents: readonly Intent[]): Promise<Reconciliation> {
  const run = await startedRun(ctx, intents);
  return {
    status: 'not-done',
    note: run
      ? `the start recorded before reached the node: ${describeRun(run)} is adopted, not started again`
      : 'no run was started before; observing again',
  };
}

// ---------------------------------------------------------------------------------------------------------
// Seeing a run through

/** A run being followed and the watch for competing runs that goes with it. */
export interface Followed {
  at: NodeRun;
  competitors: Competitors;
}

/** How a kind's change gets its run: one already there, a failed one that is safe to retry, or a start. */
export type Begin =
  | { follow: NodeRun }
  | { retry: NodeRun }
  /** startWorkflow with the kind's route and body (and the kind's wording of a refusal) */
  | { start: () => Promise<StartOutcome> };

export interface SeeThrough {
  /** the runs that carry the change (see RunMatch) */
  match: RunMatch;
  /** the coordinator and the other member nodes: watched for a competing run while the run is followed */
  members: readonly string[];
  /** the time left for each phase (accepting, waiting) */
  remaining: () => number;
}

/**
 * Start or follow the run of a change, accept its invitations on the nodes this target controls and wait for it
 * (followRun). Undefined when the start found the declared end state reached already (another operator's run):
 * nothing was followed; the kind verifies the outcome on the DPM's own reads either way.
 */
export async function seeRunThrough(
  ctx: ItemContext,
  begin: Begin,
  { match, members, remaining }: SeeThrough,
): Promise<Followed | undefined> {
  let followed: Followed | undefined;
  if ('follow' in begin) {
    followed = { at: begin.follow, competitors: new Competitors(match, members, begin.follow) };
  } else if ('retry' in begin) {
    await retryRun(ctx, begin.retry);
    followed = { at: begin.retry, competitors: new Competitors(match, members, begin.retry) };
  } else {
    const outcome = await begin.start();
    if (outcome.outcome === 'reached') return undefined;
    followed = outcome;
  }
  await followRun(ctx, followed, remaining);
  return followed;
}

/**
 * Retry a failed coordinator run from its failed step (only ever asked for when retrySafe): the intent recorded
 * first, a refusal told as the node's.
 */
export async function retryRun(ctx: ItemContext, { node, run }: NodeRun): Promise<void> {
  await ctx.record({ action: 'retry-workflow', node, instance: run.instance_name });
  try {
    await ctx.clients.dpm(node).retryWorkflow(run.instance_name, { signal: ctx.signal });
  } catch (error) {
    throw refused(`${node} refused to retry ${run.instance_name}`, error);
  }
}

/**
 * Follow a run to its end: accept its invitation on every invitee this target controls, on all of them at once (a
 * kick or a contracts run may reach its quorum before every invitee joined), then wait for the run. Invitees of
 * other operators are named in the progress: they accept on their own. A competing run stops both; a failure is
 * told with who declined and how to clear it (explainFailure).
 */
async function followRun(
  ctx: ItemContext,
  { at, competitors }: Followed,
  remaining: () => number,
): Promise<WorkflowRun> {
  const instance = at.run.instance_name;
  const invited = at.run.expected_peers;
  const nodes = invited.flatMap((p) => nodeOfParticipant(ctx, p) ?? []).filter((n) => n !== at.node);
  const others = [
    ...invited.filter((p) => nodeOfParticipant(ctx, p) === undefined),
    ...nodes.filter((n) => !isControlled(ctx, n)),
  ];
  if (others.length > 0)
    ctx.progress(
      `${instance}: waiting for the operators of ${others.join(', ')} to accept (not controlled here)`,
    );
  try {
    await allOrNone(
      ctx,
      nodes.map(
        (n) => (each: ItemContext) =>
          acceptInvitations(each, [n], instance, remaining(), at.node, competitors),
      ),
    );
    return await waitForRun(ctx, at.node, instance, remaining(), competitors);
  } catch (error) {
    throw await explainFailure(ctx, at.node, instance, error);
  }
}

/** A failed wait for a run, told with who declined and how to clear it when the run failed. */
async function explainFailure(
  ctx: StepContext,
  coordinator: string,
  instance: string,
  error: unknown,
): Promise<unknown> {
  if (!(error instanceof StepError)) return error;
  const { runs } = await ctx.clients.dpm(coordinator).workflows({ signal: ctx.signal });
  const run = runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
  return run?.status === 'failed' ? failedRunError(namerOf(ctx), coordinator, run) : error;
}
