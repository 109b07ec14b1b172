import type {
  AuthStatusResponse,
  ContractInfo,
  ContractsRequest,
  DecentralizedParty,
  GovernanceState,
  WorkflowRun,
} from '../../clients/dpm-wire.js';
import {
  defineStep,
  type Change,
  type Intent,
  type ItemContext,
  type ItemPlan,
  type JsonValue,
  type Outputs,
  type StepContext,
} from '../contract.js';
import { AmbiguousOutcomeError, PausedError, StepError } from '../../errors.js';
import { DEFAULT_TIMEOUT, dpmDeployContractsDeclaration, type With } from './deploy-contracts.declaration.js';
import {
  addUploaded,
  buildMatrix,
  compareVersions,
  formatMatrix,
  missingPairs,
  packageLabel,
  parityError,
  readNodePackages,
  requireNodes,
  shortId,
  timeoutMs,
  type Matrix,
} from './packages-common.js';
import { type PackageRef } from './packages-common.declaration.js';
import { declinedBy } from './party-common.js';
import { beginOf, decideRun, plannedChanges, type Decision } from './workflow-decision.js';
import {
  seeRunThrough,
  startWorkflow,
  startedRun,
  type Begin,
  type Followed,
  type SeeThrough,
  type StartOutcome,
} from './workflow-lifecycle.js';
import {
  describeRun,
  findRuns,
  isControlled,
  namerOf,
  nodeOfParticipant,
  participantOf,
  pendingOf,
  readEach,
  runsAround,
  targetNode,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';
import {
  RunStillInProgress,
  declineLeftover,
  leftoverInvitations,
  readParty,
  waitForParty,
  type Leftover,
} from './workflow-waits.js';
export const GOVERNANCE_RULES_TEMPLATE = 'Governance.Rules:GovernanceRules';
type ContractSpec = With['contracts'][number];

interface Participant {
  node: string;
  participantId: string;
  /** the member party, when known */
  party: string | undefined;
}

interface Resolved {
  spec: ContractSpec;
  template: string;
  /** undefined: a `#name` the coordinator has not vetted */
  package: PackageRef | undefined;
  /** the party's contract of this template and package, when it exists */
  listed: ContractInfo | undefined;
}

interface Observed {
  /** `plan` reports what would stop a start; `run` refuses */
  mode: 'plan' | 'run';
  /**
   * whether this target controls the coordinator: when another operator does, that operator starts the run (with
   * its credentials, its view of the members) and this target waits for it and follows it
   */
  startsHere: boolean;
  party: DecentralizedParty | undefined;
  participants: Participant[];
  /** party hosts that are not nodes of this target (their vetting cannot be checked here) */
  outside: string[];
  contracts: Resolved[];
  matrix: Matrix;
  /** the coordinator's credentials for the party: undefined when fine, else what is wrong */
  credentials: string | undefined;
  /** the newest Contracts run of this party on the coordinator */
  latest: WorkflowRun | undefined;
  /** runs of this party on the coordinator and the other member nodes of the target, newest first */
  around: NodeRun[];
  /** the other member nodes of the target: read, never written */
  watch: string[];
  /** invitations of this party's completed Contracts runs still pending on the nodes this target controls */
  leftovers: Leftover[];
  /** node names of the participants the target knows, for messages */
  names: Record<string, string>;
  governance: GovernanceState | null;
}

function templateOf(spec: ContractSpec): string {
  return `${spec.module_name}:${spec.entity_name}`;
}

function partyQuery(w: With): { id?: string; prefix?: string } {
  return w.party.includes('::') ? { id: w.party } : { prefix: w.party };
}

function isListed(spec: ContractSpec, c: ContractInfo): boolean {
  if (c.template_id !== templateOf(spec)) return false;
  return spec.package_id.startsWith('#')
    ? c.package_name === spec.package_id.slice(1)
    : c.package_id === spec.package_id;
}

function authProblem(status: AuthStatusResponse, partyId: string, node: string): string | undefined {
  const entry = status.parties.find((p) => p.dec_party_id === partyId);
  if (entry) {
    if (entry.status.status === 'authenticated' || entry.status.status === 'mock') return undefined;
    return entry.status.status === 'failed'
      ? `${node} cannot authenticate as the party: ${entry.status.error}`
      : `${node} has no credentials for the party`;
  }
  // insecure (devnet) nodes answer with a mock entry and need no credentials
  if (status.parties.some((p) => p.status.status === 'mock')) return undefined;
  return `${node} has no credentials for the party`;
}

/**
 * The Contracts runs this step is about: of the party, with the same package names (the invitation's
 * `package_names`) as its contracts. When a name is not known yet (a package id whose package was not looked up),
 * any Contracts run of the party is taken for this one.
 */
function matchOf(partyId: string, state?: Pick<Observed, 'contracts'>): RunMatch {
  const names = state?.contracts.map(contractName);
  const wanted = names?.every((n) => n !== undefined) ? [...new Set(names)].sort() : undefined;
  return {
    kind: 'Contracts',
    party: partyId,
    ...(wanted
      ? {
          same: (run: WorkflowRun) => {
            const listed = [...new Set(run.package_names ?? [])].sort();
            return listed.length === wanted.length && listed.every((n, i) => n === wanted[i]);
          },
        }
      : {}),
  };
}

/** The name a contract is sent with (shown to the peers as `package_names`), when it is known. */
function contractName(c: Resolved): string | undefined {
  if (c.spec.name !== undefined) return c.spec.name;
  return c.spec.package_id.startsWith('#') ? c.spec.package_id.slice(1) : c.package?.name;
}

async function observeContracts(ctx: StepContext, w: With): Promise<Observed> {
  const named = (w.participants ?? []).map((p) => (typeof p === 'string' ? { node: p } : p));
  requireNodes(ctx.target, [w.coordinator, ...named.map((p) => p.node)], 'coordinator and participants');
  const state: Observed = {
    mode: ctx.mode,
    startsHere: isControlled(ctx, w.coordinator),
    party: await readParty(ctx, w.coordinator, partyQuery(w), true),
    participants: [],
    outside: [],
    contracts: [],
    matrix: buildMatrix([], [], new Map()),
    credentials: undefined,
    latest: undefined,
    around: [],
    watch: [],
    leftovers: [],
    names: {},
    governance: null,
  };
  const party = state.party;
  if (!party) return state;
  state.contracts = w.contracts.map((spec) => ({
    spec,
    template: templateOf(spec),
    package: undefined,
    listed: (party.contracts ?? []).find((c) => isListed(spec, c)),
  }));
  const hosts = party.participants.map((p) => p.participant_uid);
  state.names = Object.fromEntries(hosts.map((h) => [h, namerOf(ctx)(h)]));
  state.watch = [
    ...new Set([...hosts.flatMap((h) => nodeOfParticipant(ctx, h) ?? []), ...named.map((p) => p.node)]),
  ].filter((n) => n !== w.coordinator);
  state.around = await runsAround(ctx, w.coordinator, state.watch, matchOf(party.party_id));
  state.latest = state.around.find((r) => r.node === w.coordinator && r.run.kind === 'Contracts')?.run;
  if (state.contracts.every((c) => c.listed)) {
    state.leftovers = await leftoverInvitations(
      ctx,
      [w.coordinator, ...state.watch],
      state.around.filter((r) => r.run.kind === 'Contracts'),
    );
    if ((party.contracts ?? []).some((c) => c.template_id === GOVERNANCE_RULES_TEMPLATE)) {
      const answer = await ctx.clients
        .dpm(w.coordinator)
        .governanceState(party.party_id, { signal: ctx.signal });
      state.governance = answer.state ?? null;
    }
    return state;
  }
  // a run of these very contracts in flight is followed: what a start needs is not read
  if (pendingOf(state.around, matchOf(party.party_id, state), w.coordinator)) return state;

  // What a start needs: participants and their member parties, credentials, packages and their vetting.
  const nodes =
    named.length > 0 ? named.map((p) => p.node) : hosts.flatMap((h) => nodeOfParticipant(ctx, h) ?? []);
  if (!nodes.includes(w.coordinator)) nodes.unshift(w.coordinator);
  state.outside = hosts.filter((h) => nodeOfParticipant(ctx, h) === undefined);
  // each node's GET /auth/status at most once, all nodes at once
  const auth = new Map<string, Promise<AuthStatusResponse>>();
  const authOf = (node: string): Promise<AuthStatusResponse> => {
    let status = auth.get(node);
    if (!status) {
      status = ctx.clients.dpm(node).authStatus({ signal: ctx.signal });
      auth.set(node, status);
    }
    return status;
  };
  const [participants, seen, coordinatorAuth] = await Promise.all([
    readEach(ctx, nodes, async (node) => {
      const given = named.find((p) => p.node === node)?.party;
      const memberParty =
        given ??
        targetNode(ctx, node).party ??
        (await authOf(node)).parties.find((p) => p.dec_party_id === party.party_id)?.member_party_id;
      return { node, participantId: participantOf(ctx, node), party: memberParty };
    }),
    readNodePackages(ctx, nodes, [], false),
    authOf(w.coordinator),
  ]);
  state.participants = participants;
  state.credentials = authProblem(coordinatorAuth, party.party_id, w.coordinator);

  const coordinatorVetted = seen.get(w.coordinator)?.vetted ?? [];
  const everywhere = [...seen.values()].flatMap((s) => s.vetted);
  for (const c of state.contracts) {
    if (c.spec.package_id.startsWith('#')) {
      const name = c.spec.package_id.slice(1);
      const best = coordinatorVetted
        .filter((v) => v.package_name === name)
        .sort((a, b) => compareVersions(b.package_version, a.package_version))[0];
      if (best) c.package = { package_id: best.package_id, name, version: best.package_version };
    } else {
      const known = everywhere.find((v) => v.package_id === c.spec.package_id);
      c.package = {
        package_id: c.spec.package_id,
        name: known?.package_name ?? '',
        version: known?.package_version ?? '',
      };
    }
  }
  const packages = [
    ...new Map(
      state.contracts.flatMap((c) => (c.package ? [[c.package.package_id, c.package] as const] : [])),
    ).values(),
  ];
  await addUploaded(ctx, seen, packages);
  state.matrix = buildMatrix(nodes, packages, seen);
  ctx.log(missingPairs(state.matrix).length === 0 ? 'info' : 'error', formatMatrix(state.matrix));
  if (state.outside.length > 0) {
    ctx.log(
      'warn',
      `the party is also hosted by ${state.outside.join(', ')}, which this target does not name: their vetted packages cannot be checked here`,
    );
  }
  return state;
}

function contractRows(state: Observed): JsonValue[] {
  return state.contracts.flatMap((c) =>
    c.listed
      ? [
          {
            contract_id: c.listed.contract_id,
            template_id: c.listed.template_id,
            package_id: c.listed.package_id,
            package_name: c.listed.package_name,
            package_version: c.listed.package_version,
            created_at: c.listed.created_at,
          },
        ]
      : [],
  );
}

/** A decoded DPM answer as plain JSON (it came from JSON; this drops `undefined` fields). */
function asJson(value: object): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

function doneOutputs(state: Observed): Outputs {
  return {
    party: state.party?.party_id ?? null,
    contracts: contractRows(state),
    governance: state.governance ? asJson(state.governance) : null,
  };
}

function request(w: With, state: Observed, partyId: string): ContractsRequest {
  const coordinatorParty = state.participants.find((p) => p.node === w.coordinator)?.party ?? '';
  return {
    decentralized_party_id: partyId,
    participant_ids: state.participants.map((p) => p.participantId),
    participant_parties: state.participants.map((p) => p.party ?? ''),
    operator_party: w.operator_party ?? coordinatorParty,
    contracts: state.contracts.map((c) => ({
      id: c.spec.id,
      name: contractName(c) ?? c.spec.package_id,
      package_id: c.spec.package_id,
      module_name: c.spec.module_name,
      entity_name: c.spec.entity_name,
      fields: c.spec.fields ?? [],
    })),
  };
}

/**
 * What stops a start beyond another change in the way (decideRun), first problem first — when this target starts
 * the run: unresolved packages, parity, credentials, member parties, a decline.
 */
function refusalOf(w: With, state: Observed, context: string): StepError | undefined {
  // what a start needs (packages, parity, credentials, member parties) is the starting operator's to check
  if (!state.startsHere) return undefined;
  const unresolved = state.contracts.filter((c) => !c.package);
  if (unresolved.length > 0) {
    return new StepError(
      `${context}: ${w.coordinator} has not vetted any package named ${unresolved.map((c) => c.spec.package_id.slice(1)).join(', ')}`,
      { hint: 'distribute the DAR first (dpm.distribute-dars), then run again' },
    );
  }
  if (missingPairs(state.matrix).length > 0) return parityError(state.matrix, context);
  if (state.credentials) {
    return new StepError(`${context}: ${state.credentials}`, {
      hint: `configure the party's credentials on ${w.coordinator} (dpm.party-config, PUT /party-config); the workflow would fail at once without them`,
    });
  }
  const unknown = state.participants.filter((p) => !p.party);
  if (unknown.length > 0) {
    return new StepError(`${context}: no member party for ${unknown.map((p) => p.node).join(', ')}`, {
      hint: "give it as `participants: [{node, party}]`, as the target node's `party`, or configure the node's party credentials (dpm.party-config)",
    });
  }
  const declined = state.latest && declinedBy(state.latest);
  if (declined && state.latest) {
    return new StepError(
      `${context}: its last Contracts run ${state.latest.instance_name} was declined by ${state.participants.find((p) => p.participantId === declined)?.node ?? declined}`,
      {
        hint: `an operator said no: settle it with them, then dismiss the run (POST /workflows/${state.latest.instance_name}/dismiss, or dpm.workflow) and run again`,
      },
    );
  }
  return undefined;
}

const refusalContext = (partyId: string): string => `refusing to start the Contracts workflow for ${partyId}`;
const namer = (state: Observed) => (p: string) => state.names[p] ?? p;

/**
 * decideRun for the party's contracts: in sync only when no run of these contracts is in flight and none left an
 * invitation pending here (done means done); a run of them in flight is followed even beside another change (the
 * watch then names both). What a start needs is refusalOf's.
 */
function decide(w: With, state: Observed, partyId: string): Decision {
  const { around, leftovers } = state;
  const reached = state.contracts.every((c) => c.listed) ? doneOutputs(state) : undefined;
  const seen = { coordinator: w.coordinator, match: matchOf(partyId, state), reached, name: namer(state) };
  const rules = { lead: refusalContext(partyId), followBeforeRivals: true };
  return decideRun({ ...seen, around, leftovers }, rules);
}

function planContracts(w: With, state: Observed): ItemPlan {
  const { party } = state;
  if (!party) {
    const missing = new StepError(`${w.coordinator} lists no decentralized party ${w.party}`, {
      hint: `onboard it first (dpm.onboard-party); ${w.coordinator} must be one of its members`,
    });
    if (state.mode === 'run') throw missing;
    return {
      changes: [
        {
          action: 'start',
          summary: `start a Contracts workflow on ${w.coordinator} for the party ${w.party} once it exists: ${missing.message} now`,
          details: { coordinator: w.coordinator, party: w.party },
        },
      ],
    };
  }
  const context = refusalContext(party.party_id);
  const decision = decide(w, state, party.party_id);
  if (decision.action === 'in-sync') return { changes: [], outputs: decision.outputs };
  const start = (refusal = refusalOf(w, state, context)): Change => {
    // In `plan`, an earlier step of the playbook may still fix what is missing (credentials, DARs): say what
    // would be refused instead of failing. In `run`, nothing starts.
    if (refusal && state.mode === 'run') throw refusal;
    const what = state.contracts
      .filter((c) => !c.listed)
      .map(
        (c) =>
          `${c.template} (${c.package ? `${packageLabel(c.package)} ${shortId(c.package.package_id)}` : c.spec.package_id})`,
      )
      .join(', ');
    const who = state.participants.map((p) => p.node).join(', ');
    const { latest } = state;
    const previous = latest && latest.status !== 'completed' ? `; the last run ${describeRun(latest)}` : '';
    const blocked = refusal
      ? `; as things stand now it would refuse: ${refusal.message.slice(context.length + 2)}`
      : '';
    return {
      action: 'start',
      summary: `start a Contracts workflow on ${w.coordinator} for ${party.party_id}: create ${what} with ${who}${previous}${blocked}`,
      details: {
        coordinator: w.coordinator,
        party: party.party_id,
        contracts: state.contracts.filter((c) => !c.listed).map((c) => c.spec.id),
        participants: state.participants.map((p) => p.node),
      },
    };
  };
  return {
    changes: plannedChanges(decision, w.coordinator, namer(state), { start, startsHere: state.startsHere }),
  };
}

/** How a Contracts run of the party is seen through: each phase with the step's whole timeout. */
function through(w: With, state: Observed, partyId: string): SeeThrough {
  const limit = timeoutMs(w.timeout, DEFAULT_TIMEOUT);
  const members = [w.coordinator, ...state.watch];
  return { match: matchOf(partyId, state), members, remaining: () => limit };
}

/**
 * See the run through, then verify that the party lists every contract. A wait that runs out leaves the run alone
 * and pauses (exit 3) with this step's intents open, so that the next run reconciles (contracts status,
 * /workflows, the party's contracts) before it does anything else.
 */
async function completed(
  ctx: ItemContext,
  w: With,
  state: Observed,
  partyId: string,
  begin: Begin,
): Promise<Outputs> {
  let followed: Followed | undefined;
  try {
    followed = await seeRunThrough(ctx, begin, through(w, state, partyId));
  } catch (error) {
    throw await pausedOnTimeout(ctx, error);
  }
  const now = await observeContracts(ctx, w);
  // the contracts are there (another operator's run, which may have completed without this target's nodes)
  if (!followed) return declineLeftovers(ctx, now);
  const missing = now.contracts.filter((c) => !c.listed);
  if (missing.length > 0) {
    throw new AmbiguousOutcomeError(
      `the Contracts run ${followed.at.run.instance_name} completed on ${followed.at.node}, but the party does not list every contract`,
      `${now.party?.party_id ?? w.party} lists ${(now.party?.contracts ?? []).map((c) => c.template_id).join(', ') || 'no contracts'}; missing ${missing.map((c) => c.template).join(', ')}`,
      'check the party on every node (GET /decentralized-parties?refresh=true) and the run',
    );
  }
  return doneOutputs(now);
}

/** A wait for a run still in progress that timed out: a pause, not a failure (the run goes on). */
async function pausedOnTimeout(ctx: StepContext, error: unknown): Promise<unknown> {
  if (!(error instanceof RunStillInProgress)) return error;
  const instance = error.run.instance_name;
  const { runs } = await ctx.clients.dpm(error.node).workflows({ signal: ctx.signal });
  const run = runs.find((r) => r.instance_name === instance && r.role === 'Coordinator');
  if (run?.status !== 'inprogress') return error;
  return new PausedError(
    error.message,
    'nothing was cancelled: run the playbook again to keep waiting (the run is adopted and reconciled, not restarted), or raise `timeout`',
  );
}

/** The contracts are listed: decline what their runs left pending on this target's nodes. */
async function declineLeftovers(ctx: ItemContext, state: Observed): Promise<Outputs> {
  for (const leftover of state.leftovers) await declineLeftover(ctx, leftover);
  return doneOutputs(state);
}

/**
 * dpm.deploy-contracts: in sync when the party lists every declared contract (template in its package). It
 * refuses to start unless every participant vetted the packages the contracts use (the matrix is printed), the
 * coordinator holds the party's credentials and every member party is known; it refreshes the coordinator's
 * party cache until the threshold and owner keys are there, starts one Contracts workflow, accepts on the
 * controlled participants and waits. A run in progress for the party is adopted; after a timeout or an
 * ambiguous answer, reconcile reads the contracts status, GET /workflows and the party's contracts first.
 */
export const dpmDeployContracts = defineStep<With, Observed>({
  ...dpmDeployContractsDeclaration,
  observe: observeContracts,
  plan: (w, state) => planContracts(w, state),
  async apply(ctx, w, _item, _plan, state) {
    const party = state.party;
    if (!party) throw new StepError(`${w.coordinator} lists no decentralized party ${w.party}`);
    const decision = decide(w, state, party.party_id);
    if (decision.action === 'refuse') throw decision.error;
    if (decision.action !== 'follow' && decision.action !== 'start') return declineLeftovers(ctx, state);
    const start = async (): Promise<StartOutcome> => {
      // The contracts quorum is computed from the coordinator's cached party: threshold and owner keys first.
      await waitForParty(
        ctx,
        [w.coordinator],
        { id: party.party_id },
        (p) => p !== undefined && p.threshold > 0 && p.participants.every((m) => m.owner_key !== undefined),
        timeoutMs(w.timeout, DEFAULT_TIMEOUT),
        `the party ${party.party_id} with its threshold and every owner key in ${w.coordinator}'s cache`,
      );
      const body = request(w, state, party.party_id);
      const outcome = await startWorkflow(ctx, {
        node: w.coordinator,
        match: matchOf(party.party_id, state),
        observed: state.around,
        watch: state.watch,
        reached: async () => {
          const now = await readParty(ctx, w.coordinator, { id: party.party_id }, true);
          return (
            now !== undefined &&
            w.contracts.every((spec) => (now.contracts ?? []).some((c) => isListed(spec, c)))
          );
        },
        start: (client) => client.startContracts(body, { signal: ctx.signal }),
      });
      if (outcome.outcome === 'started')
        ctx.progress(`${outcome.at.run.instance_name}: started on ${w.coordinator}`);
      return outcome;
    };
    return completed(ctx, w, state, party.party_id, beginOf(decision, w.coordinator, start));
  },
  async reconcile(ctx, w, _item, intents) {
    return reconcileContracts(ctx, w, intents);
  },
});

/**
 * After a timeout or an ambiguous answer, before any retry: the legacy contracts status, the run in
 * GET /workflows, and the target template (the party's contracts) — then done, not done, or ambiguous.
 */
async function reconcileContracts(ctx: ItemContext, w: With, intents: readonly Intent[]) {
  const legacy = await ctx.clients.dpm(w.coordinator).legacyStatus('Contracts', { signal: ctx.signal });
  const run = await startedRun(ctx, intents);
  const state = await observeContracts(ctx, w);
  const listed = state.contracts.filter((c) => c.listed).length;
  const seen = [
    `GET /contracts/status on ${w.coordinator}: ${legacy.status}${legacy.error ? ` (${legacy.error})` : ''}`,
    `GET /workflows: ${run ? describeRun(run) : 'no Contracts run of this party since the start was recorded'}`,
    `${state.party?.party_id ?? w.party} lists ${listed} of ${state.contracts.length} declared contracts`,
  ].join('; ');
  ctx.log('info', `reconciling an earlier attempt: ${seen}`);
  // a run still in flight is waited for even when its contracts are listed already (it lingers at Complete)
  if (run?.status === 'inprogress')
    return { status: 'not-done' as const, note: `adopting ${run.instance_name}` };
  if (state.party && listed === state.contracts.length && state.leftovers.length === 0)
    return { status: 'done' as const, outputs: doneOutputs(state) };
  if (state.party && listed === state.contracts.length)
    return { status: 'not-done' as const, note: 'the contracts are listed; an invitation is left pending' };
  if (run?.status === 'completed') {
    return {
      status: 'ambiguous' as const,
      seen,
      hint: 'the run completed but the contracts are not listed: check the party on every node',
    };
  }
  if (run) return { status: 'not-done' as const, note: `${describeRun(run)}; nothing was created` };
  const anyRunning = (await findRuns(ctx, w.coordinator, { kind: 'Contracts' })).some(
    (r) => r.status === 'inprogress',
  );
  if (legacy.status === 'inprogress' && !anyRunning) {
    return {
      status: 'ambiguous' as const,
      seen,
      hint: `${w.coordinator} reports a Contracts workflow in progress that GET /workflows does not list: check the node before starting another`,
    };
  }
  return { status: 'not-done' as const, note: 'the start did not reach the node' };
}
