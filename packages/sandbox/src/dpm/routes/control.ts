/**
 * GET /workflows and the control routes (dpm-api.md §6): per-instance cancel / dismiss / retry and the legacy
 * per-kind status and cancel routes, which pick the lowest registered instance and otherwise fall back to the
 * persisted rows (so a declined run still reports `inprogress` there while /workflows says `failed`).
 */
import { type Reply, json, jsonError } from '../../http/reply.js';
import { prefixOf } from '../keys.js';
import type { DpmNode } from '../node.js';
import type { RunRow } from '../types.js';
import { broadcastCancel, broadcastRetry, cancelRun, resumeCoordinator } from '../workflows/coordinator.js';
import { KINDS, WORKFLOW_KINDS, type WorkflowKind } from '../workflows/kinds.js';
import { route, type DpmRoute } from './route.js';

const STATUS_DEBUG: Record<RunRow['status'], string> = {
  inprogress: 'InProgress',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const controlRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/workflows',
    access: 'auth',
    handle: ({ node }) => {
      const visible = node.state.runs
        .map((row, order) => ({ row, order }))
        .filter(({ row }) => row.status === 'inprogress' || !row.dismissed)
        .sort((a, b) => b.row.updated_at - a.row.updated_at || b.order - a.order);
      return json(200, { runs: visible.map(({ row }) => toWorkflowRun(node, row)) });
    },
  }),
  route({
    method: 'POST',
    template: '/workflows/{instance_name}/cancel',
    access: 'admin',
    handle: ({ node, params }) => {
      const name = params.instance_name ?? '';
      const run = node.coordinators.get(name);
      const row = node.run(name);
      if (run === undefined || row === undefined)
        return jsonError(409, `No in-flight workflow run named ${name}`);
      if (run.status !== 'inprogress') return jsonError(409, `No ${run.kind} workflow in progress`);
      if (run.phase === 'init')
        return jsonError(409, `${run.kind} workflow is still initializing — try again in a moment`);
      cancelRun(node, run, row);
      return json(200, { message: `${run.kind} workflow cancelled` });
    },
  }),
  route({
    method: 'POST',
    template: '/workflows/{instance_name}/dismiss',
    access: 'admin',
    handle: ({ node, params }) => {
      const name = params.instance_name ?? '';
      const row = node.run(name);
      if (row === undefined) return jsonError(404, `workflow run ${name} not found`);
      if (row.status === 'inprogress')
        return jsonError(409, `${row.kind} workflow ${name} is still in progress — cancel it first`);
      if (!row.dismissed) node.updateRun(row, { dismissed: true });
      return json(200, { message: `workflow ${name} dismissed` });
    },
  }),
  route({
    method: 'POST',
    template: '/workflows/{instance_name}/retry',
    access: 'admin',
    handle: ({ node, params }) => {
      const name = params.instance_name ?? '';
      const row = node.run(name);
      if (row === undefined) return jsonError(404, `workflow run ${name} not found`);
      if (row.role === 'Peer') {
        return jsonError(
          409,
          'Retry must be initiated from the coordinator side. Peer rows flip back to InProgress automatically when the coordinator retries — wait for that or dismiss the row.',
        );
      }
      if (row.status !== 'failed') {
        return jsonError(
          409,
          `Cannot retry a workflow in status ${STATUS_DEBUG[row.status]}; only Failed runs can be retried`,
        );
      }
      node.updateRun(row, { status: 'inprogress', error: undefined });
      broadcastRetry(node, row);
      // a declined run is still registered (its task idles in the gate): the respawn is skipped
      if (!node.coordinators.has(name)) resumeCoordinator(node, row);
      return json(200, { message: `Retrying workflow ${name} from step ${row.current_step}` });
    },
  }),
  ...WORKFLOW_KINDS.flatMap((kind) => legacyRoutes(kind)),
];

function legacyRoutes(kind: WorkflowKind): DpmRoute[] {
  const def = KINDS[kind];
  const lowestRegistered = (node: DpmNode): string | undefined =>
    [...node.coordinators.values()]
      .filter((r) => r.kind === kind)
      .map((r) => r.instance)
      .sort()[0];
  return [
    route({
      method: 'GET',
      template: def.legacyStatusPath,
      access: 'auth',
      handle: ({ node }) => {
        const registered = lowestRegistered(node);
        const run = registered === undefined ? undefined : node.coordinators.get(registered);
        if (run !== undefined) return json(200, { status: run.status });
        const row = node.state.runs
          .filter((r) => r.role === 'Coordinator' && r.kind === kind && !r.dismissed)
          .sort((a, b) => b.created_at - a.created_at)[0];
        if (row === undefined) return json(200, { status: 'idle' });
        return json(200, { status: row.status, ...(row.error !== undefined ? { error: row.error } : {}) });
      },
    }),
    route({
      method: 'POST',
      template: def.legacyCancelPath,
      access: 'admin',
      handle: ({ node }): Reply => {
        const label = def.legacyLabel;
        const registered = lowestRegistered(node);
        if (registered !== undefined) {
          const run = node.coordinators.get(registered);
          const row = node.run(registered);
          if (run === undefined || row === undefined || run.status !== 'inprogress') {
            return jsonError(409, `No ${label} workflow in progress`);
          }
          if (run.phase === 'init')
            return jsonError(409, `${label} workflow is still initializing — try again in a moment`);
          cancelRun(node, run, row);
          return json(200, { message: `${label} workflow cancelled` });
        }
        const row = node.state.runs
          .filter((r) => r.role === 'Coordinator' && r.kind === kind && r.status === 'inprogress')
          .sort((a, b) => a.instance_name.localeCompare(b.instance_name))[0];
        if (row === undefined) return jsonError(409, `No ${label} workflow in progress`);
        node.updateRun(row, { status: 'cancelled', error: undefined });
        broadcastCancel(node, row);
        return json(200, { message: `${label} workflow cancelled` });
      },
    }),
  ];
}

interface ConfigShape {
  prefix?: string | null;
  party_id_prefix?: string | null;
  participants?: string[] | null;
  new_threshold?: number | null;
  previous_threshold?: number | null;
  threshold?: number | null;
  participant_id?: string | null;
  new_participant_id?: string | null;
  decentralized_party_id?: string | null;
  package_names?: string[] | null;
  contracts?: Array<{ name?: string }> | null;
  dar_filenames?: string[] | null;
  dar_files?: Array<{ filename?: string }> | null;
}

/** the persisted row plus the display fields derived from its config_json (and the coordinator's name) */
function toWorkflowRun(node: DpmNode, row: RunRow): Record<string, unknown> {
  let config: ConfigShape = {};
  try {
    config = JSON.parse(row.config_json) as ConfigShape;
  } catch (error) {
    node.env.log(
      `${node.name}: run ${row.instance_name} has an unreadable config_json: ${(error as Error).message}`,
    );
  }
  const prefix =
    config.prefix ??
    config.party_id_prefix ??
    (config.decentralized_party_id ? prefixOf(config.decentralized_party_id) : undefined);
  const participants = config.participants?.length ? config.participants : row.expected_peers;
  const packageNames = config.package_names?.length
    ? config.package_names
    : (config.contracts ?? []).map((c) => c.name ?? '').filter((n) => n !== '');
  const darFilenames = config.dar_filenames?.length
    ? config.dar_filenames
    : (config.dar_files ?? []).map((f) => f.filename ?? '');
  const newThreshold = config.new_threshold ?? config.threshold;
  const coordinatorName =
    row.coordinator_pubkey === undefined ? undefined : node.peerByKey(row.coordinator_pubkey)?.name;
  const optional = (key: string, value: unknown): Record<string, unknown> =>
    value === undefined || value === null || (Array.isArray(value) && value.length === 0)
      ? {}
      : { [key]: value };
  return {
    instance_name: row.instance_name,
    kind: row.kind,
    role: row.role,
    status: row.status,
    current_step: row.current_step,
    step_index: row.step_index,
    step_total: row.step_total,
    config_json: row.config_json,
    ...optional('coordinator_pubkey', row.coordinator_pubkey),
    ...optional('coordinator_instance', row.coordinator_instance),
    ...optional('coordinator_name', coordinatorName),
    expected_peers: row.expected_peers,
    completed_peers: row.completed_peers,
    ...optional('dec_party_id', row.dec_party_id),
    ...optional('prefix', prefix === '' ? undefined : prefix),
    ...optional('participants', participants),
    ...optional(
      'previous_threshold',
      (config.previous_threshold ?? 0) > 0 ? config.previous_threshold : undefined,
    ),
    ...optional('new_threshold', newThreshold),
    ...optional('kicked_participant', config.participant_id),
    ...optional('added_participant', config.new_participant_id),
    ...optional('package_names', packageNames),
    ...optional('dar_filenames', darFilenames),
    ...optional('error', row.error),
    dismissed: row.dismissed,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
