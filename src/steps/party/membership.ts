/**
 * The three changes of an existing party's membership or threshold — kick, add-party, change-threshold — share
 * one flow (dpm-api.md §5.2–5.4, §12a): observe the party live on the coordinator and the runs it holds for the
 * party; in sync when members and threshold are as declared; otherwise adopt the same change in flight, retry it
 * when its failure is safe, or start it once the coordinator's party cache holds every member and owner key (the
 * start checks read the cache); accept on the invitees this target controls; wait; verify on every member node.
 */
import type { DpmClient } from '../../clients/dpm.js';
import type {
  DecentralizedParty,
  WorkflowKind,
  WorkflowResponse,
  WorkflowRun,
} from '../../clients/dpm-wire.js';
import { StepError } from '../../errors.js';
import type {
  Change,
  Intent,
  ItemContext,
  Outputs,
  Reconciliation,
  StaticFinding,
  StepContext,
} from '../../engine/step.js';
import type { Target } from '../../playbook/target.js';
import {
  Deadline,
  Findings,
  cacheStale,
  durationMs,
  earlierRun,
  enforceChecks,
  explainFailure,
  hasOwnerKeys,
  inFlightRun,
  membersOf,
  namer,
  nodeNameSchema,
  partyRefSchema,
  participantRef,
  refused,
  resolveParty,
  sameSet,
  thresholdSchema,
  timeoutSchema,
  type Namer,
  retryChange,
} from './party-common.js';
import {
  acceptInvitations,
  describeRun,
  findRuns,
  isControlled,
  nodeOfParticipant,
  participantOf,
  readParty,
  startWorkflow,
  startedRun,
  waitForParty,
  waitForRun,
} from './workflow.js';

export const MEMBERSHIP_TIMEOUT = '15m';
/** Starts refused because the coordinator's cache was rewritten meanwhile are tried again this often. */
const CACHE_ATTEMPTS = 3;

/** The `with` fields the three kinds share. */
export const membershipProperties = {
  coordinator: nodeNameSchema(
    'The member node that coordinates the change (its DPM starts the workflow). Must be controlled by this target.',
  ),
  party: partyRefSchema,
  timeout: timeoutSchema(MEMBERSHIP_TIMEOUT, 'the workflow to complete and every member to see the result'),
} as const;

export const memberSchema = (description: string) =>
  ({
    type: 'string',
    minLength: 1,
    description: `${description} A node name of the target, or a participant id \`<name>::<68 hex>\` for a node of another operator.`,
  }) as const;

export const newThresholdSchema = thresholdSchema;

export interface MembershipWith {
  coordinator: string;
  party: string;
  member?: string;
  threshold: number;
  timeout?: string | number;
}

/** What the coordinator shows now. */
export interface MembershipState {
  partyId: string;
  coordinatorId: string;
  /** the participant added or removed (kick, add-party) */
  memberId: string | undefined;
  party: DecentralizedParty;
  /** runs on the coordinator that concern this party, either role, newest first */
  runs: WorkflowRun[];
  /** participant ids in the coordinator's peers table */
  peers: string[];
  /** node names of the participants the target knows */
  names: Record<string, string>;
  /** participants this target cannot accept for: not in it, or `controlled: false` */
  external: string[];
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

/** Static checks the three kinds share. */
export function membershipCheck(w: MembershipWith, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  if (f.node('/coordinator', w.coordinator))
    f.controlled('/coordinator', w.coordinator, 'the coordinator starts the workflow');
  if (w.member !== undefined) {
    f.member('/member', w.member);
    if (w.member === w.coordinator)
      f.add('/member', 'the member is the coordinator', 'choose another coordinator');
  }
  return f.list;
}

export async function observeMembership(
  ctx: StepContext,
  w: MembershipWith,
  check: (w: MembershipWith, target: Target | undefined) => StaticFinding[],
): Promise<MembershipState> {
  enforceChecks(ctx, w, check);
  const partyId = await resolveParty(ctx, w.coordinator, w.party);
  const party = await readParty(ctx, w.coordinator, { id: partyId }, true);
  if (!party) {
    throw new StepError(`${w.coordinator} does not see the party ${partyId}`, {
      hint: `only a member can coordinate a change: choose a coordinator that is a member of ${partyId}`,
    });
  }
  const dpm = ctx.clients.dpm(w.coordinator);
  const { runs } = await dpm.workflows({ signal: ctx.signal });
  const { peers } = await dpm.networkConfig({ signal: ctx.signal });
  const memberId = w.member === undefined ? undefined : participantRef(ctx, w.member);
  const ids = new Set([
    ...membersOf(party),
    ...peers.map((p) => p.participant_id),
    ...(memberId ? [memberId] : []),
  ]);
  const name = namer(ctx);
  return {
    partyId,
    coordinatorId: participantOf(ctx, w.coordinator),
    memberId,
    party,
    runs: runs.filter((r) => r.dec_party_id === partyId).sort((a, b) => b.created_at - a.created_at),
    peers: peers.map((p) => p.participant_id),
    names: Object.fromEntries([...ids].map((p) => [p, name(p)])),
    external: [...ids].filter((p) => {
      const node = nodeOfParticipant(ctx, p);
      return node === undefined || !isControlled(ctx, node);
    }),
  };
}

type Decision =
  | { action: 'in-sync'; outputs: Outputs }
  | { action: 'start' }
  | { action: 'adopt'; run: WorkflowRun }
  | { action: 'retry'; run: WorkflowRun };

function outputsOf(party: DecentralizedParty): Outputs {
  return { party_id: party.party_id, threshold: party.threshold, members: membersOf(party) };
}

function decide<W extends MembershipWith>(spec: MembershipKind<W>, w: W, s: MembershipState): Decision {
  const name: Namer = (p) => s.names[p] ?? p;
  const after = spec.membersAfter(s);
  const current = membersOf(s.party);
  if (sameSet(current, after)) {
    if (s.party.threshold === w.threshold) return { action: 'in-sync', outputs: outputsOf(s.party) };
    if (spec.kind !== 'ChangeThreshold') {
      throw new StepError(
        `${spec.describe(w, name, s)}: the members are already as declared, but the threshold is ${s.party.threshold}, not ${w.threshold}`,
        {
          hint: `set the threshold with dpm.change-threshold (threshold: ${w.threshold}), or declare threshold ${s.party.threshold} here`,
        },
      );
    }
  }
  // the DPM refuses a start while any run of the party is in flight on the node, in either role (§5)
  const busy = s.runs.find((r) => r.status === 'inprogress');
  if (busy) {
    if (busy.role === 'Coordinator' && busy.kind === spec.kind && spec.sameChange(busy, w, s))
      return { action: 'adopt', run: busy };
    throw new StepError(
      `party ${s.partyId} already has a ${busy.kind} workflow in flight on ${w.coordinator}: ${describeRun(busy)}`,
      {
        hint: `only one change of a party runs at a time: wait for it, or cancel it with a dpm.workflow step ({ node: ${w.coordinator}, instance: ${busy.instance_name}, action: cancel })`,
      },
    );
  }
  const last = s.runs.find(
    (r) => r.role === 'Coordinator' && r.kind === spec.kind && spec.sameChange(r, w, s),
  );
  const earlier = earlierRun(name, w.coordinator, last);
  if (earlier.verdict === 'retry') return { action: 'retry', run: earlier.run };
  if (earlier.verdict === 'blocked') throw earlier.error;
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
    case 'adopt':
      return {
        changes: [
          {
            action: 'wait',
            summary: `adopt ${describeRun(decision.run)} (${what}) and wait for it`,
            details,
          },
        ],
      };
    case 'retry':
      return { changes: [retryChange(decision.run, w.coordinator, details)] };
    case 'start':
      return {
        changes: [
          {
            action: 'start',
            summary: `${what}: start a ${spec.kind} workflow on ${w.coordinator} (members now ${membersOf(s.party).map(name).join(', ')}, threshold ${s.party.threshold}); invites ${invitees.map(name).join(', ') || 'nobody'}${note}`,
            details,
          },
        ],
      };
  }
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
  const coordinator = w.coordinator;
  const dpm = ctx.clients.dpm(coordinator);
  let run: WorkflowRun | undefined = decision.action === 'start' ? undefined : decision.run;
  if (decision.action === 'retry') {
    await ctx.record({ action: 'retry-workflow', node: coordinator, instance: decision.run.instance_name });
    try {
      await dpm.retryWorkflow(decision.run.instance_name, { signal: ctx.signal });
    } catch (error) {
      throw refused(`${coordinator} refused to retry ${decision.run.instance_name}`, error);
    }
  }
  for (let attempt = 1; run === undefined; attempt++) {
    await cacheReady(ctx, w, s, deadline);
    try {
      run = await startWorkflow(ctx, coordinator, { kind: spec.kind, party: s.partyId }, (client) =>
        spec.start(client, w, s, ctx.signal),
      );
    } catch (error) {
      if (cacheStale(error) && attempt < CACHE_ATTEMPTS) {
        ctx.progress(`${coordinator}'s party cache changed under the start; reading it again`);
        continue;
      }
      const inFlight = inFlightRun(error);
      if (inFlight) {
        const [same] = (await findRuns(ctx, coordinator, { kind: spec.kind, party: s.partyId })).filter(
          (r) =>
            r.instance_name === inFlight.instance && r.status === 'inprogress' && spec.sameChange(r, w, s),
        );
        if (same) {
          run = same;
          continue;
        }
      }
      throw refused(`${coordinator} refused to start ${spec.describe(w, namer(ctx), s)}`, error);
    }
  }
  const instance = run.instance_name;
  const invitees = spec.invitees(s);
  const nodes = invitees.map((p) => nodeOfParticipant(ctx, p)).filter((n): n is string => n !== undefined);
  const others = [
    ...invitees.filter((p) => nodeOfParticipant(ctx, p) === undefined),
    ...nodes.filter((n) => !isControlled(ctx, n)),
  ];
  if (others.length > 0)
    ctx.progress(
      `${instance}: waiting for the operators of ${others.join(', ')} to accept (not controlled here)`,
    );
  try {
    // at once on every invitee: a kick may reach its quorum before all of them joined
    await Promise.all(
      nodes.map((n) => acceptInvitations(ctx, [n], instance, deadline.remaining(), coordinator)),
    );
    await waitForRun(ctx, coordinator, instance, deadline.remaining());
  } catch (error) {
    throw await explainFailure(ctx, coordinator, instance, error);
  }
  const after = spec.membersAfter(s);
  const verifyOn = after.map((p) => nodeOfParticipant(ctx, p)).filter((n): n is string => n !== undefined);
  const views = await waitForParty(
    ctx,
    verifyOn,
    { id: s.partyId },
    (party) =>
      party !== undefined &&
      sameSet(membersOf(party), after) &&
      party.threshold === w.threshold &&
      hasOwnerKeys(party),
    deadline.remaining(),
    `party ${s.partyId} with members ${after.map(namer(ctx)).join(', ')} and threshold ${w.threshold}`,
  );
  const seen = views.get(coordinator) ?? [...views.values()][0];
  if (!seen) throw new StepError(`no member node of the target shows ${s.partyId}`);
  return outputsOf(seen);
}

export async function reconcileMembership(
  ctx: ItemContext,
  intents: readonly Intent[],
): Promise<Reconciliation> {
  const run = await startedRun(ctx, intents);
  return {
    status: 'not-done' as const,
    note: run
      ? `the start recorded before reached the node: ${describeRun(run)} is adopted, not started again`
      : 'no run was started before; observing again',
  };
}

export const membershipOutputs = {
  party_id: 'the party id',
  threshold: 'the party’s threshold after the change',
  members: 'the members’ participant ids after the change',
} as const;
