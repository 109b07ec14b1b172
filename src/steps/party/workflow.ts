/**
 * How every DPM workflow step starts, finds, joins and waits for a workflow run — the operators' safe-retry
 * rules in one place (DESIGN.md principle 3, dpm-api.md §12a):
 * - a start POST has no idempotency key: its intent is journalled first, and an answer that is lost is settled by
 *   looking for the run in GET /workflows (kind, prefix or party, created after the intent), never by a second
 *   start;
 * - nothing starts while a matching run is `inprogress`: that run is adopted and waited for;
 * - invitations are accepted only for the run this step started (or adopted), on nodes the target controls.
 */
import { AmbiguousOutcomeError, ServiceError, StepError } from '../../errors.js';
import type { DpmClient } from '../../clients/dpm.js';
import type {
  DecentralizedParty,
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
/** GETs a step sends at once, across nodes (each node's independent reads go together on top). */
export const READS_AT_ONCE = 8;

export interface RunMatch {
  kind: WorkflowKind;
  /** onboarding: the party prefix */
  prefix?: string;
  /** kick / add-party / change-threshold / contracts: the decentralized party id */
  party?: string;
  /** dars: the file names of the distribution */
  darFilenames?: readonly string[];
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

export function describeRun(run: WorkflowRun): string {
  const where = `${run.current_step} (${run.step_index + 1}/${run.step_total})`;
  return `${run.kind} run ${run.instance_name}: ${run.status} at ${where}${run.error ? `: ${run.error}` : ''}`;
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

/**
 * Start a workflow once. Refuses when a matching run is in progress (the caller adopts it instead). The intent
 * is journalled before the POST; an ambiguous answer is settled by GET /workflows.
 */
export async function startWorkflow(
  ctx: ItemContext,
  node: string,
  match: RunMatch,
  start: (client: DpmClient) => Promise<WorkflowResponse>,
): Promise<WorkflowRun> {
  const client = ctx.clients.dpm(node);
  const running = (await findRuns(ctx, node, match)).find((r) => r.status === 'inprogress');
  if (running) {
    throw new StepError(`refusing to start: ${describeRun(running)} is still in progress on ${node}`, {
      hint: 'run the playbook again: a run in progress is adopted and waited for, never started twice',
    });
  }
  const at = Math.floor(ctx.clock.now() / 1000);
  await ctx.record(intentFor(node, match, at));
  let instance: string | undefined;
  try {
    instance = (await start(client)).instance_name;
  } catch (error) {
    if (!(error instanceof ServiceError) || error.retryability !== 'ambiguous') throw error;
    const found = await findRuns(ctx, node, match, at);
    if (found[0]) return found[0];
    throw new AmbiguousOutcomeError(
      `the ${match.kind} start on ${node} got no answer, and GET /workflows does not show a run started since then`,
      `${error.message}; no ${match.kind} run on ${node} created after ${new Date(at * 1000).toISOString()}`,
      'the run may still appear: run the playbook again to look once more, or check the node and `ledgerbook state resolve`',
    );
  }
  const run = (await findRuns(ctx, node, match, at)).find((r) => r.instance_name === instance);
  if (!run) {
    throw new StepError(
      `${node} answered 202 with instance ${instance}, but GET /workflows does not list it`,
    );
  }
  return run;
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
 * Wait until the run is no longer in progress; progress shows its step. A failed or cancelled run is a step
 * failure naming the run, its step and its error; a wait that outlasts `timeoutMs` leaves the run alone.
 */
export async function waitForRun(
  ctx: StepContext,
  node: string,
  instance: string,
  timeoutMs: number,
): Promise<WorkflowRun> {
  const deadline = ctx.clock.now() + timeoutMs;
  let last = '';
  for (;;) {
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
    const run = listed.runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
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
 * without this node (a kick's quorum) needs no acceptance.
 */
export async function acceptInvitations(
  ctx: ItemContext,
  nodes: readonly string[],
  instance: string,
  timeoutMs: number,
  coordinator?: string,
): Promise<string[]> {
  const accepted: string[] = [];
  for (const node of nodes.filter((n) => isControlled(ctx, n))) {
    const deadline = ctx.clock.now() + timeoutMs;
    for (;;) {
      const listed = await whileWaiting(ctx, node, async () => ({
        joined: await peerRun(ctx, node, instance),
        invitations: (await ctx.clients.dpm(node).invitations({ signal: ctx.signal })).invitations,
      }));
      if (listed?.joined) break;
      const card = listed?.invitations.find((i) => i.workflow_instance === instance);
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
      if (coordinator !== undefined) {
        const runs = await whileWaiting(ctx, coordinator, () =>
          ctx.clients.dpm(coordinator).workflows({ signal: ctx.signal }),
        );
        const run = runs?.runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
        if (run?.status === 'completed') break;
        if (run?.status === 'failed' || run?.status === 'cancelled') {
          throw new StepError(`${describeRun(run)} on ${coordinator}, before ${node} could accept`, {
            hint: 'see the error above; dpm.workflow (cancel, dismiss) clears the run',
          });
        }
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
 * appear (dpm-api.md §4), with another live read every few seconds. Nodes are read at once. Returns each
 * node's view.
 */
export async function waitForParty(
  ctx: StepContext,
  nodes: readonly string[],
  party: { prefix?: string; id?: string },
  ready: (party: DecentralizedParty | undefined, node: string) => boolean,
  timeoutMs: number,
  what: string,
): Promise<Map<string, DecentralizedParty>> {
  const deadline = ctx.clock.now() + timeoutMs;
  const views = new Map<string, DecentralizedParty>();
  const pending = new Set(nodes);
  let lastLive: number | undefined;
  for (;;) {
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
