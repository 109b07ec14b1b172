/**
 * dpm.onboard-party — create a decentralized party across operator nodes (dpm-api.md §5.1, §12a "Onboard party"):
 * in sync when a party with the prefix exists whose members are exactly the coordinator and the peers, with the
 * declared threshold, and no onboarding of it is still in flight. Otherwise: adopt the same onboarding in
 * progress (on the coordinator or another member), retry a failed one only when it is safe, or start one; accept
 * on the peers this target controls; wait for the run; then wait until every member node sees the party with all
 * members and their owner keys. Another onboarding of the prefix in flight on a member is refused.
 */
import type { DecentralizedParty, OnboardingMeshErrorResponse, WorkflowRun } from '../../clients/dpm-wire.js';
import { onboardingMeshErrorResponseSchema } from '../../clients/dpm-wire.js';
import { wireProblems } from '../../clients/schema-check.js';
import {
  defineStep,
  type Change,
  type ItemContext,
  type ItemPlan,
  type Outputs,
  type StepContext,
} from '../contract.js';
import { PausedError, ServiceError, StepError } from '../../errors.js';
import {
  DEFAULT_TIMEOUT,
  check,
  dpmOnboardPartyDeclaration,
  type With,
} from './onboard-party.declaration.js';
import {
  Deadline,
  describeParty,
  durationMs,
  enforceChecks,
  hasOwnerKeys,
  membersOf,
  nameOf,
  namesOf,
  refused,
  sameSet,
} from './party-common.js';
import { beginOf, decideRun, plannedChanges, type Decision } from './workflow-decision.js';
import {
  reconcileStart,
  seeRunThrough,
  startWorkflow,
  type Followed,
  type StartOutcome,
} from './workflow-lifecycle.js';
import {
  describeRun,
  isControlled,
  participantOf,
  readEach,
  runsAround,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';
import { readParty, waitForParty } from './workflow-waits.js';

interface Observed {
  /** participant ids: the coordinator first, then the peers */
  members: string[];
  threshold: number;
  /** the party with the prefix as the coordinator sees it (live) */
  party: DecentralizedParty | undefined;
  /** a party with the prefix that a peer sees but the coordinator does not */
  elsewhere: { node: string; party: DecentralizedParty } | undefined;
  /** the newest onboarding run of the prefix on the coordinator */
  run: WorkflowRun | undefined;
  /** onboarding runs of the prefix on the coordinator and the peers, newest first */
  around: NodeRun[];
  /** what the plan explains with: node names of the participants */
  names: Record<string, string>;
  /** peers whose invitation this target cannot accept (controlled: false) */
  uncontrolled: string[];
  /** the coordinator is controlled here: the onboarding is started here, not by its operator */
  startsHere: boolean;
}

export function defaultThreshold(members: number): number {
  return Math.max(1, Math.ceil(members / 2));
}

function outputsOf(w: With, party: DecentralizedParty): Outputs {
  return {
    party_id: party.party_id,
    threshold: party.threshold,
    members: membersOf(party),
    nodes: [w.coordinator, ...w.peers],
  };
}

function matches(state: Pick<Observed, 'members' | 'threshold'>, party: DecentralizedParty): boolean {
  return sameSet(membersOf(party), state.members) && party.threshold === state.threshold;
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const members = [w.coordinator, ...w.peers].map((n) => participantOf(ctx, n));
  const names = Object.fromEntries(members.map((p) => [p, nameOf(ctx, p)]));
  const [party, around] = await Promise.all([
    readParty(ctx, w.coordinator, { prefix: w.prefix }, true),
    runsAround(ctx, w.coordinator, w.peers, { kind: 'Onboarding', prefix: w.prefix }),
  ]);
  let elsewhere: Observed['elsewhere'];
  if (!party) {
    const seen = await readEach(ctx, w.peers, (node) => readParty(ctx, node, { prefix: w.prefix }, true));
    const at = seen.findIndex((p) => p !== undefined);
    const node = w.peers[at];
    const found = seen[at];
    if (node !== undefined && found !== undefined) elsewhere = { node, party: found };
  }
  return {
    members,
    threshold: w.threshold ?? defaultThreshold(members.length),
    party,
    elsewhere,
    run: around.find((r) => r.node === w.coordinator)?.run,
    around,
    names,
    uncontrolled: w.peers.filter((p) => !isControlled(ctx, p)),
    startsHere: isControlled(ctx, w.coordinator),
  };
}

/** Onboardings of the prefix; the same one has the declared members (its coordinator and invitees) and threshold. */
function matchOf(w: With, state: Pick<Observed, 'members' | 'threshold'>): RunMatch {
  const nodes = [w.coordinator, ...w.peers];
  return {
    kind: 'Onboarding',
    prefix: w.prefix,
    same: (run, node) =>
      sameSet([state.members[nodes.indexOf(node)] ?? node, ...run.expected_peers], state.members) &&
      (typeof run.new_threshold !== 'number' || run.new_threshold === state.threshold),
  };
}

/** The lifecycle's decision (decideRun), after the refusal that is onboarding's own: a party it must not change. */
function decide(w: With, state: Observed): Exclude<Decision, { action: 'refuse' }> {
  const name = (p: string): string => state.names[p] ?? p;
  const existing = state.party ?? state.elsewhere?.party;
  const reached = state.party && matches(state, state.party) ? outputsOf(w, state.party) : undefined;
  if (existing && !reached) {
    const declared = `members ${state.members.map(name).join(', ')} and threshold ${state.threshold}`;
    const have = membersOf(existing);
    const adds = state.members.filter((m) => !have.includes(m)).map(name);
    const removes = have.filter((m) => !state.members.includes(m)).map(name);
    const kinds = [
      ...(adds.length > 0 ? [`dpm.add-party to add ${adds.join(', ')}`] : []),
      ...(removes.length > 0 ? [`dpm.kick to remove ${removes.join(', ')}`] : []),
      ...(existing.threshold !== state.threshold
        ? [`dpm.change-threshold to set the threshold to ${state.threshold}`]
        : []),
    ];
    const seenBy = state.party ? w.coordinator : (state.elsewhere?.node ?? '?');
    throw new StepError(
      `a party with the prefix '${w.prefix}' already exists (${existing.party_id}, seen by ${seenBy}): members ${have.map(name).join(', ')}, threshold ${existing.threshold}; this step declares ${declared}`,
      {
        hint: `onboarding creates a party, it does not change one: use ${kinds.join(', ') || 'another prefix'}, or choose another prefix`,
      },
    );
  }
  const match = matchOf(w, state);
  // the coordinator's last onboarding of the prefix is judged only when it is this very onboarding
  const last = state.run && match.same?.(state.run, w.coordinator) ? state.run : undefined;
  const decision = decideRun({
    coordinator: w.coordinator,
    match,
    around: state.around,
    reached,
    last,
    name,
  });
  if (decision.action === 'refuse') throw decision.error;
  return decision;
}

function plan(w: With, state: Observed): ItemPlan {
  const decision = decide(w, state);
  if (decision.action === 'in-sync') return { changes: [], outputs: decision.outputs };
  // what the playbook declares is known before the party exists; its id and member order are not
  return { changes: changesOf(w, state, decision), knownOutputs: declaredOutputs(w, state) };
}

/** The outputs a party that is still to be made will have as declared: its nodes and threshold. */
function declaredOutputs(w: With, state: Observed): Outputs {
  return { nodes: [w.coordinator, ...w.peers], threshold: state.threshold };
}

function changesOf(w: With, state: Observed, decision: Exclude<Decision, { action: 'in-sync' }>): Change[] {
  const name = (p: string): string => state.names[p] ?? p;
  const peers = state.members.slice(1).map(name).join(', ');
  const others =
    state.uncontrolled.length > 0 ? `; ${state.uncontrolled.join(', ')} must accept on their own` : '';
  return plannedChanges(decision, w.coordinator, name, {
    details: { coordinator: w.coordinator, prefix: w.prefix, threshold: state.threshold },
    note: others,
    verified: `sees party '${w.prefix}'`,
    startsHere: state.startsHere,
    start: () => ({
      action: 'start',
      summary: `start the onboarding of party '${w.prefix}' on ${w.coordinator} with ${peers} (threshold ${state.threshold} of ${state.members.length})${others}`,
      details: { coordinator: w.coordinator, prefix: w.prefix, threshold: state.threshold, peers: w.peers },
    }),
  });
}

function meshError(ctx: StepContext, coordinator: string, error: ServiceError): StepError {
  const body = error.body as OnboardingMeshErrorResponse;
  const edges = body.missing_edges.map((e) =>
    e.kind === 'mesh_hole'
      ? `${nameOf(ctx, e.from)} does not list ${nameOf(ctx, e.to)} in its peers table (mesh hole)`
      : `${nameOf(ctx, e.from)} cannot reach ${nameOf(ctx, e.to)} (unreachable from the coordinator)`,
  );
  return new StepError(
    `${coordinator} refused to start the onboarding: the peer mesh is incomplete: ${edges.join('; ')}`,
    {
      cause: error,
      hint: 'nothing was started. Every member must list every other one with its current key (dpm.network) and be reachable: check GET /participants-status on each node, then run again',
    },
  );
}

async function apply(ctx: ItemContext, w: With, state: Observed): Promise<Outputs> {
  const deadline = new Deadline(ctx, durationMs(w.timeout, DEFAULT_TIMEOUT));
  const decision = decide(w, state);
  if (decision.action === 'in-sync') return decision.outputs;
  const coordinator = w.coordinator;
  const through = {
    match: matchOf(w, state),
    members: [coordinator, ...w.peers],
    remaining: () => deadline.remaining(),
  };
  if (decision.action === 'retry' && !isControlled(ctx, coordinator)) {
    throw new PausedError(
      `${describeRun(decision.run)} on ${coordinator} failed; ${coordinator} is not controlled by this target`,
      `the operator of ${coordinator} retries it (this same playbook, on its target); run this again to follow it`,
    );
  }
  let followed: Followed | undefined;
  if (decision.action === 'follow' || decision.action === 'retry' || decision.action === 'start') {
    const begin = beginOf(decision, coordinator, () => start(ctx, w, state, through.match));
    followed = await seeRunThrough(ctx, begin, through);
  }
  const views = await waitForParty(
    ctx,
    [coordinator, ...w.peers],
    { prefix: w.prefix },
    (party) => party !== undefined && matches(state, party) && hasOwnerKeys(party),
    deadline.remaining(),
    `party '${w.prefix}' with members ${namesOf(ctx, state.members)} (threshold ${state.threshold}) and every owner key`,
    followed?.competitors,
  );
  const seen = views.get(coordinator);
  if (!seen) throw new StepError(`${coordinator} does not show party '${w.prefix}'`);
  ctx.log('info', `${w.prefix}: ${describeParty(ctx, seen)} seen by ${[coordinator, ...w.peers].join(', ')}`);
  return outputsOf(w, seen);
}

/** Start the onboarding once (see startWorkflow). */
async function start(ctx: ItemContext, w: With, state: Observed, match: RunMatch): Promise<StartOutcome> {
  try {
    return await startWorkflow(ctx, {
      node: w.coordinator,
      match,
      observed: state.around,
      watch: w.peers,
      reached: async () => {
        const party = await readParty(ctx, w.coordinator, { prefix: w.prefix }, true);
        return party !== undefined && matches(state, party);
      },
      waitMs: durationMs(w.timeout, DEFAULT_TIMEOUT),
      start: (dpm) =>
        dpm.startOnboarding(
          { party_id_prefix: w.prefix, peer_ids: state.members.slice(1), threshold: state.threshold },
          { signal: ctx.signal },
        ),
    });
  } catch (error) {
    if (
      error instanceof ServiceError &&
      error.status === 422 &&
      wireProblems(onboardingMeshErrorResponseSchema, error.body).length === 0
    ) {
      throw meshError(ctx, w.coordinator, error);
    }
    throw refused(`${w.coordinator} refused to start the onboarding of '${w.prefix}'`, error);
  }
}

export const dpmOnboardParty = defineStep<With, Observed>({
  ...dpmOnboardPartyDeclaration,
  observe,
  plan: (w, state) => plan(w, state),
  apply: (ctx, w, _item, _plan, state) => apply(ctx, w, state),
  reconcile: (ctx, _w, _item, intents) => reconcileStart(ctx, intents),
});
