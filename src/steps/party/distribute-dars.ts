import type { VettedPackage, WorkflowRun } from '../../clients/dpm-wire.js';
import {
  defineStep,
  type Change,
  type ItemContext,
  type ItemPlan,
  type Outputs,
  type StepContext,
} from '../contract.js';
import { StepError } from '../../errors.js';
import { DEFAULT_TIMEOUT, dpmDistributeDarsDeclaration, type With } from './distribute-dars.declaration.js';
import {
  crossCheck,
  darPackages,
  loadDars,
  packageLabel,
  packageOutputs,
  requireNodes,
  timeoutMs,
} from './packages-common.js';
import { type LoadedDar, type PackageRef } from './packages-common.declaration.js';
import { declinedBy } from './party-common.js';
import { decideRun, plannedChanges, type Decision } from './workflow-decision.js';
import {
  seeRunThrough,
  startWorkflow,
  startedRun,
  type SeeThrough,
  type StartOutcome,
} from './workflow-lifecycle.js';
import {
  describeRun,
  isControlled,
  namerOf,
  participantOf,
  pendingOf,
  readEach,
  runsAround,
  type NodeRun,
  type RunMatch,
} from './workflow-runs.js';

interface Observed {
  /** `plan` reports what would stop a start; `run` refuses */
  mode: 'plan' | 'run';
  /** the coordinator is controlled here: the run is started here, not by its operator (see ChangeWording) */
  startsHere: boolean;
  /** Dars runs of these files on the coordinator and the peers, newest first */
  around: NodeRun[];
  dars: LoadedDar[];
  packages: PackageRef[];
  /** node → what it vetted */
  vetted: Map<string, VettedPackage[]>;
  /** a Dars run of these very files in progress, on the coordinator or coordinated by a peer */
  running: NodeRun | undefined;
  /** the newest Dars run of these files on the coordinator (a declined one stops the step) */
  latest: WorkflowRun | undefined;
  /** node names of the participants the target knows, for messages */
  names: Record<string, string>;
  /** peers the coordinator's peer table does not list (a run to them would wait forever) */
  unknownPeers: string[];
}

function match(dars: readonly LoadedDar[]): RunMatch {
  return { kind: 'Dars', darFilenames: dars.map((d) => d.filename) };
}

/** The packages each node does not have vetted, nodes in `with` order (coordinator first). */
function lacking(w: With, state: Observed): Map<string, PackageRef[]> {
  const result = new Map<string, PackageRef[]>();
  for (const node of [w.coordinator, ...w.peers]) {
    const ids = new Set(state.vetted.get(node)?.map((v) => v.package_id));
    const missing = state.packages.filter((p) => !ids.has(p.package_id));
    if (missing.length > 0) result.set(node, missing);
  }
  return result;
}

async function observeDars(ctx: StepContext, w: With): Promise<Observed> {
  requireNodes(ctx.target, [w.coordinator, ...w.peers], 'coordinator and peers');
  if (w.peers.includes(w.coordinator)) {
    throw new StepError(`${w.coordinator} is the coordinator and cannot be one of its peers`, {
      hint: 'remove it from `peers`: the coordinator uploads its own copy at the end of the workflow',
    });
  }
  const dars = await loadDars(w.files, ctx.baseDir);
  const packages = darPackages(dars);
  const nodes = [w.coordinator, ...w.peers];
  const [lists, around, { peers }] = await Promise.all([
    readEach(ctx, nodes, (node) => ctx.clients.dpm(node).vettedPackages({ signal: ctx.signal })),
    runsAround(ctx, w.coordinator, w.peers, match(dars)),
    ctx.clients.dpm(w.coordinator).networkConfig({ signal: ctx.signal }),
  ]);
  const vetted = new Map<string, VettedPackage[]>(nodes.map((node, i) => [node, lists[i] ?? []]));
  const listed = new Set(peers.map((p) => p.participant_id));
  const unknownPeers = w.peers.filter((n) => !listed.has(participantOf(ctx, n)));
  const name = namerOf(ctx);
  return {
    mode: ctx.mode,
    startsHere: isControlled(ctx, w.coordinator),
    around,
    dars,
    packages,
    vetted,
    running: pendingOf(around, match(dars), w.coordinator),
    latest: around.find((r) => r.node === w.coordinator)?.run,
    names: Object.fromEntries(
      [...around.flatMap((r) => r.run.expected_peers), ...listed].map((p) => [p, name(p)]),
    ),
    unknownPeers,
  };
}

function outputs(w: With, state: Observed, instance: string | null): Outputs {
  crossCheck(state.packages, state.vetted.get(w.coordinator) ?? [], w.coordinator);
  return { packages: packageOutputs(state.packages), instance };
}

function files(state: Observed): string {
  return state.dars.map((d) => d.filename).join(', ');
}

function describeLack(missing: ReadonlyMap<string, PackageRef[]>, nodes: readonly string[]): string {
  return nodes.map((n) => `${n} lacks ${(missing.get(n) ?? []).map(packageLabel).join(', ')}`).join('; ');
}

function planDars(w: With, state: Observed): ItemPlan {
  return decideDars(w, state).plan;
}

/**
 * The decision and the plan made from it; apply acts on the decision, never on the plan's wording. `missing`: the
 * packages each node lacks; `toPeers`: a peer lacks one (a Dars workflow), else only the coordinator (an upload).
 */
function decideDars(
  w: With,
  state: Observed,
): { decision: Decision; plan: ItemPlan; missing: Map<string, PackageRef[]>; toPeers: boolean } {
  // A node that vetted a package of the same name and version under another id holds a different build: refuse
  // before anything is sent (dpm-api.md §12a matches packages by name and version).
  for (const [node, list] of state.vetted) crossCheck(state.packages, list, node);
  const missing = lacking(w, state);
  const toPeers = w.peers.some((p) => missing.has(p));
  const name = (p: string): string => state.names[p] ?? p;
  // a peer said no: nothing new starts until an operator settled it and cleared the run (cancel, dismiss); any
  // other failure is not judged: a distribution started again is safe (a node keeps one copy of a package)
  const declined = state.latest && declinedBy(state.latest) !== undefined ? state.latest : undefined;
  const decision = decideRun({
    coordinator: w.coordinator,
    match: match(state.dars),
    around: state.around,
    reached: missing.size === 0 ? outputs(w, state, null) : undefined,
    last: declined,
    name,
  });
  if (decision.action === 'in-sync')
    return { decision, plan: { changes: [], outputs: decision.outputs }, missing, toPeers };
  // In `plan`, what would refuse the start is said in the change instead of failing; in `run`, nothing starts.
  if (decision.action === 'refuse' && state.mode === 'run') throw decision.error;
  const start = (refusal?: StepError): Change =>
    refusal
      ? {
          action: 'start',
          summary: `distribute ${files(state)} from ${w.coordinator}; as things stand now it would refuse: ${refusal.message}`,
          details: { coordinator: w.coordinator, files: state.dars.map((d) => d.filename) },
        }
      : distribution(w, state, missing);
  // only another operator's coordinator lacks a package: its operator uploads; no run to follow from here
  const awaited = (): Change => ({
    action: 'wait',
    summary: `left to the operator of ${w.coordinator} (not controlled here): upload ${files(state)} to ${w.coordinator}; ${describeLack(missing, [w.coordinator])}; nothing is sent from here, and a parity gate stops the playbook until it is vetted`,
    details: { node: w.coordinator, files: state.dars.map((d) => d.filename) },
  });
  const changes = plannedChanges(decision, w.coordinator, name, {
    start,
    startsHere: state.startsHere,
    ...(toPeers ? {} : { awaited }),
  });
  return { decision, plan: { changes }, missing, toPeers };
}

/** A Dars workflow to the peers that lack a package, or, when only the coordinator lacks one, an upload on it. */
function distribution(w: With, state: Observed, missing: ReadonlyMap<string, PackageRef[]>): Change {
  const peers = w.peers.filter((p) => missing.has(p));
  if (peers.length === 0) {
    return {
      action: 'update',
      summary: `upload ${files(state)} to ${w.coordinator} (POST /dars/upload): the peers vetted every package, ${describeLack(missing, [w.coordinator])}`,
      details: { node: w.coordinator, files: state.dars.map((d) => d.filename) },
    };
  }
  const unknown = peers.filter((p) => state.unknownPeers.includes(p));
  const refusal =
    unknown.length > 0
      ? new StepError(
          `${w.coordinator}'s peer table does not list ${unknown.join(', ')}: a Dars workflow to ${unknown.length === 1 ? 'it' : 'them'} would wait forever`,
          { hint: 'set up the peer mesh first (dpm.network), then run again' },
        )
      : undefined;
  // In `plan`, an earlier step (dpm.network) may still set the mesh up: say so instead of failing.
  if (refusal && state.mode === 'run') throw refusal;
  return {
    action: 'start',
    summary: `distribute ${files(state)} from ${w.coordinator} to ${peers.join(', ')} (POST /dars/distribute): ${describeLack(missing, peers)}${refusal ? `; as things stand now it would refuse: ${refusal.message}` : ''}`,
    details: { coordinator: w.coordinator, peers, files: state.dars.map((d) => d.filename) },
  };
}

/** After the work: a node still without a package is reported here; the parity gate decides. */
function reportLeftovers(ctx: StepContext, w: With, state: Observed): void {
  const missing = lacking(w, state);
  if (missing.size > 0) {
    ctx.log(
      'warn',
      `not vetted after the distribution: ${describeLack(missing, [...missing.keys()])}; a parity gate (dpm.vetted-parity) stops the playbook until they are`,
    );
  }
}

/**
 * dpm.distribute-dars: the DARs pinned by sha256, read and checked before anything is sent; in sync when every
 * package of every DAR is vetted on the coordinator and every peer. Otherwise one Dars workflow to the peers
 * that lack them (or, when only the coordinator lacks them, a direct upload on it), invitations accepted on
 * controlled peers, and a wait. A Dars run of the same files already in progress is adopted, never doubled.
 */
export const dpmDistributeDars = defineStep<With, Observed>({
  ...dpmDistributeDarsDeclaration,
  observe: observeDars,
  plan: (w, state) => planDars(w, state),
  async apply(ctx, w, _item, _plan, first) {
    let state = first;
    let instance: string | null = null;
    let covered = new Set<string>();
    if (state.running) {
      const adopted = await seeRunThrough(ctx, { follow: state.running }, through(w, state));
      const run = adopted?.at.run;
      instance = run?.instance_name ?? null;
      covered = new Set(run?.expected_peers);
      state = await observeDars(ctx, w);
    }
    const { decision, missing, toPeers } = decideDars(w, state);
    if (decision.action === 'start' && toPeers) {
      // After an adopted run, only peers it did not invite get a run of their own: a peer that took part and
      // still lacks a package failed to vet it, which another run would not change (the gate reports it).
      // With another operator's coordinator, distribute waits for that operator's run and follows it.
      const peers = w.peers.filter((p) => missing.has(p) && !covered.has(participantOf(ctx, p)));
      if (peers.length > 0) {
        instance = await distribute(ctx, w, state, peers);
        state = await observeDars(ctx, w);
      }
    } else if (decision.action === 'start' && state.startsHere) {
      // only the coordinator lacks a package: an upload on it (another operator's coordinator uploads its own)
      await ctx.record({
        action: 'upload-dars',
        node: w.coordinator,
        files: state.dars.map((d) => d.filename),
      });
      await ctx.clients
        .dpm(w.coordinator)
        .uploadDars(
          { dar_files: state.dars.map((d) => ({ filename: d.filename, data: d.data.toString('base64') })) },
          { signal: ctx.signal },
        );
      state = await observeDars(ctx, w);
    }
    reportLeftovers(ctx, w, state);
    return outputs(w, state, instance);
  },
  async reconcile(ctx, w, _item, intents) {
    const run = await startedRun(ctx, intents);
    if (run?.status === 'inprogress') {
      return { status: 'not-done', note: `${describeRun(run)} is still in progress: adopting it` };
    }
    const state = await observeDars(ctx, w);
    if (lacking(w, state).size === 0)
      return { status: 'done', outputs: outputs(w, state, run?.instance_name ?? null) };
    const seen = run
      ? `${describeRun(run)}`
      : intents.some((i) => i.action === 'upload-dars')
        ? 'the upload may not have happened; uploading again is safe (Canton keeps one copy of a package)'
        : 'no Dars run was started';
    return { status: 'not-done', note: `${seen}; some packages are still not vetted` };
  },
});

/** How a Dars run of these files is seen through: each phase with the step's whole timeout. */
function through(w: With, state: Observed): SeeThrough {
  const limit = timeoutMs(w.timeout, DEFAULT_TIMEOUT);
  return { match: match(state.dars), members: [w.coordinator, ...w.peers], remaining: () => limit };
}

/**
 * One Dars workflow to the peers that lack a package: started once (or a run of these files that appeared
 * meanwhile followed), accepted on controlled peers, waited for. Null when everything got vetted meanwhile.
 */
async function distribute(
  ctx: ItemContext,
  w: With,
  state: Observed,
  peers: readonly string[],
): Promise<string | null> {
  const start = async (): Promise<StartOutcome> => {
    const outcome = await startWorkflow(ctx, {
      node: w.coordinator,
      match: match(state.dars),
      observed: state.around,
      watch: w.peers,
      reached: async () => lacking(w, await observeDars(ctx, w)).size === 0,
      start: (client) =>
        client.distributeDars(
          {
            dar_files: state.dars.map((d) => ({ filename: d.filename, data: d.data.toString('base64') })),
            peer_ids: peers.map((p) => participantOf(ctx, p)),
          },
          { signal: ctx.signal },
        ),
    });
    if (outcome.outcome === 'started')
      ctx.progress(`${outcome.at.run.instance_name}: started on ${w.coordinator} for ${peers.join(', ')}`);
    return outcome;
  };
  const followed = await seeRunThrough(ctx, { start }, through(w, state));
  return followed?.at.run.instance_name ?? null;
}
