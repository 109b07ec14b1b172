/**
 * Waiting on the DPM while a workflow runs (dpm-api.md §4, §6, §7): for a run to finish (a node that restarts meanwhile
 * is waited for; a run whose invitees gave up is stopped), for an invitation to accept on a node this target
 * controls (only the run's own), and for every member node to see a party as declared. Invitations a completed run
 * left pending on this target's nodes are declined, so that done means done.
 */
import { ServiceError, StepError } from '../../errors.js';
import type { DecentralizedParty, PendingInvitation, WorkflowRun } from '../../clients/dpm-wire.js';
import type { Change, ItemContext, JsonValue, StepContext } from '../contract.js';
import {
  COMPETITOR_CHECK_MS,
  POLL_MS,
  describeRun,
  isControlled,
  nodeOfParticipant,
  readEach,
  whileWaiting,
  type Competitors,
  type NodeRun,
} from './workflow-runs.js';

/** While waiting for a party, a live read (`refresh=true`) at most this often; cached reads in between. */
const LIVE_READ_EVERY_MS = 5_000;

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

/** A wait for a run that outlasted its timeout; the run was left alone. */
export class RunStillInProgress extends StepError {
  constructor(
    readonly node: string,
    readonly run: WorkflowRun,
    timeoutMs: number,
  ) {
    super(`${describeRun(run)} on ${node}: still in progress after ${Math.round(timeoutMs / 1000)} s`, {
      hint: 'nothing was cancelled: run the playbook again to keep waiting (the run is adopted, not restarted), or raise `timeout`',
    });
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
    if (ctx.clock.now() >= deadline) throw new RunStillInProgress(node, run, timeoutMs);
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

/** The planned change of declining a leftover invitation; `details` adds the kind's own. */
export function declineChange(
  { node, card, run }: Leftover,
  details: Record<string, JsonValue> = {},
): Change {
  return {
    action: 'delete',
    summary: `decline the invitation of ${run.instance_name} left pending on ${node}: the run completed without it (its quorum was met)`,
    details: { ...details, node, invitation: card.id, instance: run.instance_name },
  };
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
