/**
 * The three changes of an existing party's membership or threshold — kick, add-party, change-threshold — share
 * one flow (dpm-api.md §5.2–5.4, §12a): observe the party live on the coordinator, the runs the coordinator holds
 * for the party and the runs the other member nodes coordinate for it; in sync when members and threshold are as
 * declared and no run of this change is still in flight; otherwise follow the same change in flight (on any
 * member), retry it when its failure is safe, or start it once the coordinator's party cache holds every member
 * and owner key (the start checks read the cache). Another change of the party in flight on any member is refused
 * with who makes it, and one that appears while this step waits stops the wait. Accept on the invitees this
 * target controls; wait; verify on every member node.
 */
import type {
  DecentralizedParty,
  WorkflowKind,
  WorkflowResponse,
  WorkflowRun,
} from '../../clients/dpm-wire.js';
import type { DpmClient } from '../../clients/dpm.js';
import type { Change, ItemContext, Outputs, StepContext } from '../contract.js';
import { ServiceError, StepError } from '../../errors.js';
import { MEMBERSHIP_TIMEOUT, membershipCheck, type MembershipWith } from './membership.declaration.js';
import {
  Deadline,
  durationMs,
  enforceChecks,
  hasOwnerKeys,
  membersOf,
  participantRef,
  refused,
  sameSet,
  type Namer,
} from './party-common.js';
import { beginOf, decideRun, plannedChanges, type Decision } from './workflow-decision.js';
import { seeRunThrough, startWorkflow, type Followed, type StartOutcome } from './workflow-lifecycle.js';
import {
  concerns,
  describeRun,
  isControlled,
  listRuns,
  namerOf,
  nodeOfParticipant,
  participantOf,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';
import {
  declineLeftover,
  leftoverInvitations,
  readParty,
  waitForParty,
  waitForRun,
  type Leftover,
} from './workflow-waits.js';

/** What the coordinator and the other member nodes show now. */
export interface MembershipState {
  partyId: string;
  coordinatorId: string;
  /** the participant added or removed (kick, add-party) */
  memberId: string | undefined;
  party: DecentralizedParty;
  /** runs on the coordinator that concern this party, either role, newest first */
  runs: WorkflowRun[];
  /** coordinator runs that concern this party on the coordinator and the other member nodes, newest first */
  around: NodeRun[];
  /** the other member nodes of the target (with the one added): read, never written */
  watch: string[];
  /** participant ids in the coordinator's peers table */
  peers: string[];
  /** node names of the participants the target knows */
  names: Record<string, string>;
  /** participants this target cannot accept for: not in it, or `controlled: false` */
  external: string[];
  /** invitations of this kind's completed runs still pending on the nodes this target controls */
  leftovers: Leftover[];
}

export interface MembershipKind<W extends MembershipWith> {
  kind: WorkflowKind;
  /** what the change is, in words: "remove node3 (threshold 1)" */
  describe(w: W, name: Namer, s: MembershipState): string;
  /** the members after the change */
  membersAfter(s: MembershipState): string[];
  /** a refusal the DPM would answer, said before anything is sent (thresholds, who may coordinate) */
  precondition(w: W, s: MembershipState, name: Namer): string | undefined;
  /** the earlier run carries this very change */
  sameChange(run: WorkflowRun, w: W, s: MembershipState): boolean;
  /** who the DPM invites: they accept */
  invitees(s: MembershipState): string[];
  start(dpm: DpmClient, w: W, s: MembershipState, signal: AbortSignal): Promise<WorkflowResponse>;
}

export async function observeMembership<W extends MembershipWith>(
  spec: MembershipKind<W>,
  ctx: StepContext,
  w: W,
): Promise<MembershipState> {
  enforceChecks(ctx, w, membershipCheck);
  const byId = w.party.includes('::');
  const party = await readParty(ctx, w.coordinator, byId ? { id: w.party } : { prefix: w.party }, true);
  if (!party) {
    throw new StepError(
      byId
        ? `${w.coordinator} does not see the party ${w.party}`
        : `${w.coordinator} knows no decentralized party with the prefix '${w.party}'`,
      {
        hint: `only a member can coordinate a change: choose a coordinator that is a member of ${w.party}, and check the party's id or prefix`,
      },
    );
  }
  const partyId = party.party_id;
  const memberId = w.member === undefined ? undefined : participantRef(ctx, w.member);
  const watch = [...membersOf(party), ...(memberId ? [memberId] : [])]
    .map((p) => nodeOfParticipant(ctx, p))
    .filter((n): n is string => n !== undefined && n !== w.coordinator);
  const [listed, { peers }] = await Promise.all([
    listRuns(ctx, w.coordinator, watch),
    ctx.clients.dpm(w.coordinator).networkConfig({ signal: ctx.signal }),
  ]);
  const ids = new Set([
    ...membersOf(party),
    ...peers.map((p) => p.participant_id),
    ...(memberId ? [memberId] : []),
  ]);
  const name = namerOf(ctx);
  const around = listed.filter((r) => concerns(r.run, matchOf(spec, w, partyId)));
  return {
    partyId,
    coordinatorId: participantOf(ctx, w.coordinator),
    memberId,
    party,
    runs: listed.filter((r) => r.node === w.coordinator && r.run.dec_party_id === partyId).map((r) => r.run),
    around,
    leftovers: await leftoverInvitations(
      ctx,
      [w.coordinator, ...watch],
      around.filter((r) => r.run.kind === spec.kind),
    ),
    watch,
    peers: peers.map((p) => p.participant_id),
    names: Object.fromEntries([...ids].map((p) => [p, name(p)])),
    external: [...ids].filter((p) => {
      const node = nodeOfParticipant(ctx, p);
      return node === undefined || !isControlled(ctx, node);
    }),
  };
}

/** The runs this change is about: its kind and party; the same change as the spec says. */
function matchOf<W extends MembershipWith>(
  spec: MembershipKind<W>,
  w: W,
  partyId: string,
  s?: MembershipState,
): RunMatch {
  return {
    kind: spec.kind,
    party: partyId,
    ...(s ? { same: (run: WorkflowRun) => spec.sameChange(run, w, s) } : {}),
  };
}

/** The lifecycle's decision, and membership's own when the change is in effect. */
type MembershipDecision =
  | Exclude<Decision, { action: 'refuse' | 'verify' }>
  /** the coordinator took part in this change as a peer: wait until its row is done */
  | { action: 'settle'; run: WorkflowRun };

function outputsOf(party: DecentralizedParty): Outputs {
  return { party_id: party.party_id, threshold: party.threshold, members: membersOf(party) };
}

function declared<W extends MembershipWith>(
  spec: MembershipKind<W>,
  w: W,
  s: MembershipState,
  party: DecentralizedParty,
): boolean {
  return sameSet(membersOf(party), spec.membersAfter(s)) && party.threshold === w.threshold;
}

/**
 * The lifecycle's decision (decideRun) with membership's rules: the members already as declared with another
 * threshold is refused first; a run of the party in flight on the coordinator in either role stops a start (the
 * DPM refuses it, §5), unless it is the coordinator's own peer row of this change, which is waited for; only a
 * failed last run is judged (a completed change says nothing of the party now: a later change may have undone
 * it); a failed run is retried by the coordinator's operator only; the kind's preconditions come last.
 */
function decide<W extends MembershipWith>(
  spec: MembershipKind<W>,
  w: W,
  s: MembershipState,
): MembershipDecision {
  const name: Namer = (p) => s.names[p] ?? p;
  const reached = declared(spec, w, s, s.party) ? outputsOf(s.party) : undefined;
  if (!reached && sameSet(membersOf(s.party), spec.membersAfter(s)) && spec.kind !== 'ChangeThreshold') {
    throw new StepError(
      `${spec.describe(w, name, s)}: the members are already as declared, but the threshold is ${s.party.threshold}, not ${w.threshold}`,
      {
        hint: `set the threshold with dpm.change-threshold (threshold: ${w.threshold}), or declare threshold ${s.party.threshold} here`,
      },
    );
  }
  /** the coordinator's own peer row of this very change, in flight */
  const ownRow = (r: WorkflowRun): boolean =>
    r.role === 'Peer' && r.status === 'inprogress' && r.kind === spec.kind && spec.sameChange(r, w, s);
  const peerRow = s.runs.find(ownRow);
  // the DPM refuses a start while any run of the party is in flight on the node, in either role (§5)
  const busy = s.runs.find((r) => r.status === 'inprogress');
  const last = s.runs.find(
    (r) => r.role === 'Coordinator' && r.kind === spec.kind && spec.sameChange(r, w, s),
  );
  const decision = decideRun({
    coordinator: w.coordinator,
    match: matchOf(spec, w, s.partyId, s),
    around: s.around,
    reached,
    leftovers: s.leftovers,
    last: !busy && last?.status === 'failed' ? last : undefined,
    name,
  });
  switch (decision.action) {
    case 'refuse':
      throw decision.error;
    case 'in-sync':
    case 'decline':
      return peerRow ? { action: 'settle', run: peerRow } : decision;
    case 'retry':
      // only the coordinator's operator retries its run: another operator waits for the run to go on (as for a start)
      return s.external.includes(s.coordinatorId) ? { action: 'start' } : decision;
    case 'start':
      if (busy) {
        if (ownRow(busy)) return { action: 'settle', run: busy };
        throw new StepError(
          `party ${s.partyId} already has a ${busy.kind} workflow in flight on ${w.coordinator}: ${describeRun(busy)}`,
          {
            hint: `only one change of a party runs at a time: wait for it, or cancel it on its coordinator (${busy.role === 'Coordinator' ? `dpm.workflow { node: ${w.coordinator}, instance: ${busy.instance_name}, action: cancel }` : `${busy.coordinator_name ?? 'the node that started it'}, run ${busy.coordinator_instance ?? '?'}`})`,
          },
        );
      }
      return preconditionHolds(spec, w, s, name);
    case 'follow':
      return decision;
    case 'verify':
      // never decided: only a failed last run is handed over
      throw new Error(`membership does not verify a completed run (${decision.run.instance_name})`);
  }
}

/** A start, once the kind's preconditions hold (what the DPM would refuse, said before anything is sent). */
function preconditionHolds<W extends MembershipWith>(
  spec: MembershipKind<W>,
  w: W,
  s: MembershipState,
  name: Namer,
): { action: 'start' } {
  const problem = spec.precondition(w, s, name);
  if (problem !== undefined) {
    throw new StepError(`${spec.describe(w, name, s)} cannot start: ${problem}`, {
      hint: 'nothing was sent; correct the step’s `with`',
    });
  }
  return { action: 'start' };
}

export function planMembership<W extends MembershipWith>(
  spec: MembershipKind<W>,
  w: W,
  s: MembershipState,
): { changes: Change[]; outputs?: Outputs } {
  const name: Namer = (p) => s.names[p] ?? p;
  const decision = decide(spec, w, s);
  const what = spec.describe(w, name, s);
  const details = { coordinator: w.coordinator, party: s.partyId, threshold: w.threshold };
  const invitees = spec.invitees(s);
  const others = invitees.filter((p) => s.external.includes(p)).map(name);
  const note = others.length > 0 ? `; ${others.join(', ')} must accept on their own` : '';
  switch (decision.action) {
    case 'in-sync':
      return { changes: [], outputs: decision.outputs };
    case 'settle':
      return {
        changes: [
          {
            action: 'wait',
            summary: `wait for ${describeRun(decision.run)} on ${w.coordinator} (${what}, taken part in as a peer) to finish`,
            details: { ...details, instance: decision.run.instance_name },
          },
        ],
      };
  }
  const awaited = (): Change => ({
    action: 'wait',
    summary: `${what}: wait for the operator of ${w.coordinator} (not controlled here) to start a ${spec.kind} workflow there, then follow it: accept on ${
      invitees
        .filter((p) => !s.external.includes(p))
        .map(name)
        .join(', ') || 'no node of this target'
    } and wait for it`,
    details,
  });
  const start = (): Change => ({
    action: 'start',
    summary: `${what}: start a ${spec.kind} workflow on ${w.coordinator} (members now ${membersOf(s.party).map(name).join(', ')}, threshold ${s.party.threshold}); invites ${invitees.map(name).join(', ') || 'nobody'}${note}`,
    details,
  });
  return {
    changes: plannedChanges(decision, w.coordinator, name, {
      details,
      start,
      awaited,
      startsHere: !s.external.includes(s.coordinatorId),
    }),
  };
}

/** Waits until the coordinator's cached party has the current members and every owner key (§4: the start checks read it). */
async function cacheReady(
  ctx: StepContext,
  w: MembershipWith,
  s: MembershipState,
  deadline: Deadline,
): Promise<void> {
  const current = membersOf(s.party);
  ctx.progress(`refreshing the party cache on ${w.coordinator}`);
  await waitForParty(
    ctx,
    [w.coordinator],
    { id: s.partyId },
    (party) => party !== undefined && sameSet(membersOf(party), current) && hasOwnerKeys(party),
    deadline.remaining(),
    `the party cache on ${w.coordinator} with every member's owner key`,
  );
}

export async function applyMembership<W extends MembershipWith>(
  spec: MembershipKind<W>,
  ctx: ItemContext,
  w: W,
  s: MembershipState,
): Promise<Outputs> {
  const deadline = new Deadline(ctx, durationMs(w.timeout, MEMBERSHIP_TIMEOUT));
  const decision = decide(spec, w, s);
  if (decision.action === 'in-sync') return decision.outputs;
  if (decision.action === 'decline') {
    for (const leftover of decision.leftovers) await declineLeftover(ctx, leftover);
    return outputsOf(s.party);
  }
  const coordinator = w.coordinator;
  const through = {
    match: matchOf(spec, w, s.partyId, s),
    members: [coordinator, ...s.watch],
    remaining: () => deadline.remaining(),
  };
  let followed: Followed | undefined;
  if (decision.action === 'settle') {
    await waitForRun(ctx, coordinator, decision.run.instance_name, deadline.remaining());
  } else {
    const start = () => startOnce(spec, ctx, w, s, through.match, deadline);
    followed = await seeRunThrough(ctx, beginOf(decision, coordinator, start), through);
  }
  // the change is in effect: what its runs left pending on this target's nodes (a kick's quorum was met
  // without them; another operator's run completed before this step could follow it) is declined
  if (!followed) {
    const again = await observeMembership(spec, ctx, w);
    for (const leftover of again.leftovers) await declineLeftover(ctx, leftover);
  }
  const after = spec.membersAfter(s);
  const verifyOn = after.map((p) => nodeOfParticipant(ctx, p)).filter((n): n is string => n !== undefined);
  const views = await waitForParty(
    ctx,
    verifyOn,
    { id: s.partyId },
    (party) => party !== undefined && declared(spec, w, s, party) && hasOwnerKeys(party),
    deadline.remaining(),
    `party ${s.partyId} with members ${after.map(namerOf(ctx)).join(', ')} and threshold ${w.threshold}`,
    followed?.competitors,
  );
  const seen = views.get(coordinator) ?? [...views.values()][0];
  if (!seen) throw new StepError(`no member node of the target shows ${s.partyId}`);
  return outputsOf(seen);
}

/**
 * Start the change once the coordinator's party cache is ready (the start checks read it). A start refused because
 * the cache was rewritten meanwhile is a transient error: the engine observes again and tries once more.
 */
async function startOnce<W extends MembershipWith>(
  spec: MembershipKind<W>,
  ctx: ItemContext,
  w: W,
  s: MembershipState,
  match: RunMatch,
  deadline: Deadline,
): Promise<StartOutcome> {
  // only the coordinator's operator starts: another operator's step waits for that run (startWorkflow)
  if (isControlled(ctx, w.coordinator)) await cacheReady(ctx, w, s, deadline);
  try {
    return await startWorkflow(ctx, {
      node: w.coordinator,
      match,
      observed: s.around,
      watch: s.watch,
      reached: async () => {
        const party = await partyNow(spec, ctx, w, s);
        return party !== undefined && declared(spec, w, s, party);
      },
      start: (client) => spec.start(client, w, s, ctx.signal),
      waitMs: deadline.remaining(),
    });
  } catch (error) {
    throw refused(`${w.coordinator} refused to start ${spec.describe(w, namerOf(ctx), s)}`, error);
  }
}

/**
 * The party as it is now, read live on a member that stays a member, not on the coordinator: a live read
 * rewrites the coordinator's cache in the background, without the other members' owner keys for a moment, and
 * the start checks read that cache (§4). With no such member (or none that answers), the coordinator's cache.
 */
async function partyNow<W extends MembershipWith>(
  spec: MembershipKind<W>,
  ctx: StepContext,
  w: W,
  s: MembershipState,
): Promise<DecentralizedParty | undefined> {
  const staying = spec.membersAfter(s).filter((p) => membersOf(s.party).includes(p));
  const others = s.watch.filter((n) => staying.includes(participantOf(ctx, n)));
  for (const node of others) {
    try {
      return await readParty(ctx, node, { id: s.partyId }, true);
    } catch (error) {
      if (!(error instanceof ServiceError) || ctx.signal.aborted) throw error;
      ctx.log('warn', `could not read ${s.partyId} on ${node} (${error.message}); asking another member`);
    }
  }
  return readParty(ctx, w.coordinator, { id: s.partyId }, false);
}
