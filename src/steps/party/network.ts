/**
 * dpm.network — the peer mesh (dpm-api.md §2, §12a "Mesh bootstrap"): every node gets the same full peers table,
 * itself included, built from each node's own keys and node config; then every node must see every other one
 * Connected with a DPM version that can take part in workflows (≥ 0.1.9).
 */
import type {
  NetworkConfigRequest,
  ParticipantStatus,
  ParticipantsStatusResponse,
  Peer,
} from '../../clients/dpm-wire.js';
import { defineStep, type Change, type ItemContext, type StepContext } from '../contract.js';
import { LedgerbookError, StepError } from '../../errors.js';
import { DEFAULT_TIMEOUT, checkFindings, dpmNetworkDeclaration, type With } from './network.declaration.js';
import { Deadline, durationMs, enforceChecks } from './party-common.js';
import { POLL_MS, isControlled, readEach, targetNode } from './workflow-runs.js';

/** The first DPM version whose Noise wire format concurrent workflows need (§5 version gate). */
export const MIN_DPM_VERSION = '0.1.9';

/** A peers-table entry as this step writes it. */
type Entry = Pick<Peer, 'participant_id' | 'name' | 'address' | 'port' | 'public_key'>;
const FIELDS = ['name', 'address', 'port', 'public_key'] as const;

interface NodeView {
  controlled: boolean;
  table: Peer[];
  statuses: ParticipantStatus[];
}

interface Observed {
  desired: Entry[];
  views: Record<string, NodeView>;
}

interface TableDiff {
  adds: string[];
  removes: string[];
  updates: Array<{ name: string; fields: string[] }>;
}

function meshNodes(w: With, ctx: StepContext): string[] {
  return w.nodes ?? Object.keys(ctx.target?.nodes ?? {});
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

function addressOf(
  ctx: StepContext,
  w: With,
  node: string,
  config: { public_address?: string | null; listen_address: string },
): string {
  const given = w.addresses?.[node];
  if (given !== undefined) return given;
  if (config.public_address) return config.public_address;
  if (!WILDCARDS.has(config.listen_address)) return config.listen_address;
  return new URL(targetNode(ctx, node).dpm).hostname.replace(/^\[|\]$/g, '');
}

/** `0.1.10` ≥ `0.1.9`; a pre-release or build suffix is ignored. */
export function versionAtLeast(version: string | null | undefined, minimum: string): boolean {
  if (!version) return false;
  const parts = (v: string): number[] =>
    v
      .split(/[-+]/)[0]!
      .split('.')
      .map((x) => Number.parseInt(x, 10) || 0);
  const a = parts(version);
  const b = parts(minimum);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

function tableDiff(desired: readonly Entry[], table: readonly Peer[]): TableDiff {
  const have = new Map(table.map((p) => [p.participant_id, p]));
  const want = new Set(desired.map((e) => e.participant_id));
  const diff: TableDiff = { adds: [], removes: [], updates: [] };
  for (const entry of desired) {
    const current = have.get(entry.participant_id);
    if (!current) {
      diff.adds.push(entry.name);
      continue;
    }
    const fields = FIELDS.filter((k) => current[k] !== entry[k]);
    if (fields.length > 0) diff.updates.push({ name: entry.name, fields: [...fields] });
  }
  for (const p of table)
    if (!want.has(p.participant_id)) diff.removes.push(`${p.name} (${p.participant_id})`);
  return diff;
}

function differs(diff: TableDiff): boolean {
  return diff.adds.length + diff.removes.length + diff.updates.length > 0;
}

function describeDiff(diff: TableDiff): string {
  const parts: string[] = [];
  if (diff.adds.length > 0) parts.push(`adds ${diff.adds.join(', ')}`);
  if (diff.updates.length > 0)
    parts.push(`updates ${diff.updates.map((u) => `${u.name}: ${u.fields.join(', ')}`).join('; ')}`);
  if (diff.removes.length > 0) parts.push(`removes ${diff.removes.join(', ')}`);
  return parts.join('; ');
}

/** Peers (other than the node itself) that its /participants-status does not show Connected with a usable version. */
function notConnected(
  node: string,
  desired: readonly Entry[],
  statuses: readonly ParticipantStatus[],
): string[] {
  const byId = new Map(statuses.map((s) => [s.id, s]));
  const problems: string[] = [];
  for (const entry of desired) {
    if (entry.name === node) continue;
    const status = byId.get(entry.participant_id);
    if (!status) problems.push(`${entry.name} not listed`);
    else if (status.status !== 'Connected') problems.push(`${entry.name} ${status.status}`);
    else if (!versionAtLeast(status.version, MIN_DPM_VERSION))
      problems.push(
        `${entry.name} runs ${status.version ?? 'an unknown version'} (needs ≥ ${MIN_DPM_VERSION})`,
      );
  }
  return problems;
}

function outputs(desired: readonly Entry[]): { peers: string[] } {
  return { peers: desired.map((e) => e.participant_id) };
}

/** The tables every node should hold: one entry per node from its own keys and config. */
async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, checkFindings);
  const nodes = meshNodes(w, ctx);
  const desired: Entry[] = [];
  const views: Record<string, NodeView> = {};
  // every node's four reads at once, the nodes in parallel
  const answers = await readEach(ctx, nodes, (node) => {
    const dpm = ctx.clients.dpm(node);
    const signal = { signal: ctx.signal };
    return Promise.all([
      dpm.keysStatus(signal),
      dpm.nodeConfig(signal),
      dpm.networkConfig(signal),
      dpm.participantsStatus(signal),
    ]);
  });
  for (const [i, node] of nodes.entries()) {
    const [keys, config, table, statuses] = answers[i]!;
    const expected = targetNode(ctx, node).participantId;
    if (config.node.participant_id !== expected) {
      throw new StepError(
        `${node}'s DPM reports participant ${config.node.participant_id}, but the target says ${expected}`,
        { hint: `correct nodes.${node}.participantId in the target, or its dpm URL` },
      );
    }
    if (!keys.has_keys || !keys.public_key) {
      throw new StepError(`${node} has no Noise key yet (GET /keys/status: has_keys false)`, {
        hint: `the DPM creates its key when it first starts; check that ${node}'s DPM started completely`,
      });
    }
    desired.push({
      participant_id: config.node.participant_id,
      name: node,
      address: addressOf(ctx, w, node, config.node),
      port: config.node.port,
      public_key: keys.public_key,
    });
    views[node] = { controlled: isControlled(ctx, node), table: table.peers, statuses: statuses.statuses };
  }
  return { desired, views };
}

function plan(_w: With, state: Observed, item: { key: string }) {
  const node = item.key;
  const view = state.views[node];
  if (!view) throw new StepError(`no observation of ${node}`);
  const changes: Change[] = [];
  const diff = tableDiff(state.desired, view.table);
  if (differs(diff)) {
    changes.push(
      view.controlled
        ? {
            action: 'update',
            summary: `replace the peers table on ${node} (${describeDiff(diff)})`,
            details: {
              node,
              adds: diff.adds,
              removes: diff.removes,
              updates: diff.updates.map((u) => u.name),
            },
          }
        : {
            action: 'wait',
            summary: `wait for ${node}'s operator to set its peers table (${describeDiff(diff)}); ${node} is not controlled by this target`,
            details: { node },
          },
    );
  }
  const missing = notConnected(node, state.desired, view.statuses);
  if (!differs(diff) && missing.length > 0) {
    changes.push({
      action: 'wait',
      summary: `wait until ${node} sees every peer Connected (now: ${missing.join(', ')})`,
      details: { node, waiting_for: missing },
    });
  }
  return changes.length === 0 ? { changes, outputs: outputs(state.desired) } : { changes };
}

/** Writes the table (carrying over each entry's `party` label), then waits for the node's connectivity. */
async function apply(ctx: ItemContext, w: With, item: { key: string }, state: Observed) {
  const node = item.key;
  const view = state.views[node];
  if (!view) throw new StepError(`no observation of ${node}`);
  const deadline = new Deadline(ctx, durationMs(w.timeout, DEFAULT_TIMEOUT));
  const dpm = ctx.clients.dpm(node);
  if (differs(tableDiff(state.desired, view.table))) {
    if (view.controlled) {
      const labels = new Map(view.table.map((p) => [p.participant_id, p.party]));
      const body: NetworkConfigRequest = state.desired.map((e) => {
        const party = labels.get(e.participant_id);
        return typeof party === 'string' ? { ...e, party } : { ...e };
      });
      await ctx.record({ action: 'set-network-config', node, peers: body.map((p) => p.participant_id) });
      await dpm.setNetworkConfig(body, { signal: ctx.signal });
    } else {
      await waitFor(ctx, deadline, `${node}'s operator to set its peers table`, async () => {
        const table = (await dpm.networkConfig({ signal: ctx.signal })).peers;
        return !differs(tableDiff(state.desired, table));
      });
    }
  }
  let last: string[] = [];
  const connected = await waitFor(ctx, deadline, `${node} to see every peer Connected`, async () => {
    const now = notConnected(
      node,
      state.desired,
      (await dpm.participantsStatus({ signal: ctx.signal })).statuses,
    );
    if (now.length > 0 && now.join() !== last.join()) ctx.progress(`${node}: waiting for ${now.join(', ')}`);
    last = now;
    return last.length === 0;
  });
  if (!connected) {
    throw new StepError(
      `the mesh is not connected after ${Math.round(deadline.totalMs / 1000)} s: ${node} sees ${last.join(', ')}\n${await matrix(ctx, state.desired)}`,
      {
        hint: 'each row is what that node’s GET /participants-status shows: Unreachable = the node or the network path is down; HandshakeFailed = the two tables disagree on a key (or one lacks the other); a version below 0.1.9 blocks every workflow start',
      },
    );
  }
  return outputs(state.desired);
}

/** Polls `holds` until true (true) or the deadline (false); a node that does not answer is waited for too. */
async function waitFor(
  ctx: StepContext,
  deadline: Deadline,
  what: string,
  holds: () => Promise<boolean>,
): Promise<boolean> {
  // another node failed for good (a 403 on its table): nothing this wait is for can happen in this run
  const stop = AbortSignal.any([ctx.signal, ctx.siblingFailed]);
  for (;;) {
    if (ctx.siblingFailed.aborted) throw ctx.siblingFailed.reason;
    try {
      if (await holds()) return true;
    } catch (error) {
      if (!(error instanceof LedgerbookError) || error.retryability !== 'transient') throw error;
      ctx.progress(`waiting for ${what}: ${error.message}`);
    }
    if (deadline.remaining() <= 1) return false;
    await ctx.clock.sleep(Math.min(POLL_MS, deadline.remaining()), stop);
  }
}

/** node × peer connectivity, as each node reports it, for the failure message. */
async function matrix(ctx: StepContext, desired: readonly Entry[]): Promise<string> {
  const answers = await readEach(ctx, desired, async (entry) => {
    try {
      return await ctx.clients.dpm(entry.name).participantsStatus({ signal: ctx.signal });
    } catch (error) {
      if (!(error instanceof LedgerbookError)) throw error;
      return error;
    }
  });
  const rows: string[] = [];
  for (const [i, entry] of desired.entries()) {
    const answer: ParticipantsStatusResponse | LedgerbookError | undefined = answers[i];
    if (answer === undefined || answer instanceof LedgerbookError) {
      rows.push(`  ${entry.name}: no answer (${answer?.message ?? 'none'})`);
      continue;
    }
    const byId = new Map(answer.statuses.map((s) => [s.id, s]));
    const cells = desired.map((peer) => {
      if (peer.name === entry.name) return `${peer.name}=self`;
      const s = byId.get(peer.participant_id);
      if (!s) return `${peer.name}=not listed`;
      return `${peer.name}=${s.status}${s.status === 'Connected' ? ` ${s.version ?? 'no version'}` : ''}`;
    });
    rows.push(`  ${entry.name} sees: ${cells.join(', ')}`);
  }
  return rows.join('\n');
}

export const dpmNetwork = defineStep<With, Observed, string>({
  ...dpmNetworkDeclaration,
  // every node's table is written at once: a node sees a peer Connected only once both tables list each other
  concurrency: 32,
  items: (w, ctx) => meshNodes(w, ctx).map((node) => ({ key: node, value: node })),
  observe,
  plan,
  // a peer's measured latency differs on every look and decides nothing
  planState: (state) => ({
    ...state,
    views: Object.fromEntries(
      Object.entries(state.views).map(([node, view]) => [
        node,
        { ...view, statuses: view.statuses.map(({ latency_ms: _latency, ...status }) => status) },
      ]),
    ),
  }),
  apply: (ctx, w, item, _plan, state) => apply(ctx, w, item, state),
  // POST /network-config replaces the whole table: doing it again is harmless, so a crash is settled by observing
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the peers table is observed again' }),
  combine: (_w, results) => results[0]?.outputs ?? { peers: [] },
});
