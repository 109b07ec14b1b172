/**
 * Test support for the package and contract steps' unit tests: a step context whose DPM clients answer the
 * read routes from fixed data per node (the wire types of dpm-wire.ts) and record every call, so that observe,
 * plan and reconcile can be driven through the cases the sandbox cannot easily produce. Not used by the CLI.
 */
import type { Clients } from '../../clients/clients.js';
import type { DpmClient } from '../../clients/dpm.js';
import { offlineClients } from '../../clients/factory.js';
import type {
  AuthStatusResponse,
  ComparePeersResponse,
  DecentralizedParty,
  GovernanceState,
  PendingInvitation,
  VettedPackage,
  WorkflowKind,
  WorkflowRun,
  WorkflowStatusResponse,
} from '../../clients/dpm-wire.js';
import type { Intent, ItemContext, LogLevel } from '../contract.js';
import type { Target } from '../../playbook/target.js';

export const ns = (byte: string): string => `1220${byte.repeat(32)}`;
export const PARTICIPANT = {
  node1: `p1::${ns('a1')}`,
  node2: `p2::${ns('b2')}`,
  node3: `p3::${ns('c3')}`,
} as const;
export const MEMBER = {
  node1: `operator1::${ns('a1')}`,
  node2: `operator2::${ns('b2')}`,
  node3: `operator3::${ns('c3')}`,
} as const;
export const PARTY = `alpha::${ns('d4')}`;

export interface FakeNode {
  vetted?: VettedPackage[];
  uploaded?: ComparePeersResponse['local_packages'];
  runs?: WorkflowRun[];
  /** participant ids in the node's peer table */
  peers?: string[];
  parties?: DecentralizedParty[];
  auth?: AuthStatusResponse;
  legacy?: Partial<Record<WorkflowKind, WorkflowStatusResponse>>;
  governance?: GovernanceState | null;
  invitations?: PendingInvitation[];
}

export interface Fake {
  ctx: ItemContext;
  /** `node method` per call, in order */
  calls: string[];
  logs: Array<{ level: LogLevel; message: string }>;
  intents: Intent[];
  nodes: Record<string, FakeNode>;
}

export function target(
  nodes: Partial<Record<keyof typeof PARTICIPANT, { controlled?: boolean; party?: string }>>,
): Target {
  return {
    name: 'unit',
    network: 'devnet',
    file: undefined,
    nodes: Object.fromEntries(
      Object.entries(nodes).map(([name, extra]) => [
        name,
        {
          participantId: PARTICIPANT[name as keyof typeof PARTICIPANT],
          dpm: `http://127.0.0.1:1/${name}`,
          ...extra,
        },
      ]),
    ),
  };
}

export function fakeContext(
  t: Target,
  nodes: Record<string, FakeNode>,
  baseDir = '.',
  mode: 'plan' | 'run' = 'run',
): Fake {
  const calls: string[] = [];
  const logs: Fake['logs'] = [];
  const intents: Intent[] = [];
  const client = (name: string): DpmClient => {
    const node = (): FakeNode => nodes[name] ?? {};
    const answer = <T>(method: string, value: () => T): Promise<T> => {
      calls.push(`${name} ${method}`);
      return Promise.resolve(value());
    };
    const fake = {
      vettedPackages: () => answer('vettedPackages', () => node().vetted ?? []),
      comparePeers: () =>
        answer('comparePeers', () => ({ local_packages: node().uploaded ?? [], peers: [] })),
      workflows: () => answer('workflows', () => ({ runs: node().runs ?? [] })),
      invitations: () => answer('invitations', () => ({ invitations: node().invitations ?? [] })),
      networkConfig: () =>
        answer('networkConfig', () => ({
          peers: (node().peers ?? []).map((participant_id, i) => ({
            participant_id,
            name: `peer${i}`,
            address: '127.0.0.1',
            port: 9000,
            public_key: `02${'ab'.repeat(32)}`,
          })),
        })),
      decentralizedParties: (query: { prefix?: string } = {}) =>
        answer('decentralizedParties', () => ({
          parties: (node().parties ?? []).filter(
            (p) => query.prefix === undefined || p.party_id.split('::')[0] === query.prefix,
          ),
          source: 'live' as const,
          refreshing: false,
        })),
      authStatus: () => answer('authStatus', () => node().auth ?? { parties: [] }),
      legacyStatus: (kind: WorkflowKind) =>
        answer(`legacyStatus ${kind}`, () => node().legacy?.[kind] ?? { status: 'idle' as const }),
      governanceState: () => answer('governanceState', () => ({ state: node().governance ?? null })),
    };
    return fake as unknown as DpmClient;
  };
  const clients: Clients = { ...offlineClients(), dpm: client };
  const ctx: ItemContext = {
    runId: 'unit',
    stepId: 'step',
    playbookName: 'unit',
    targetName: 'unit',
    mode,
    target: t,
    clients,
    clock: { now: () => Date.now(), sleep: () => Promise.resolve() },
    signal: new AbortController().signal,
    approvals: new Set(),
    baseDir,
    actor: 'unit@test',
    siblingFailed: new AbortController().signal,
    source: {},
    previous: undefined,
    fingerprint: 'unit',
    outputDir: baseDir,
    concurrency: 1,
    session: undefined,
    log: (level, message) => logs.push({ level, message }),
    output: () => undefined,
    laterStep: () => undefined,
    progress: () => undefined,
    evaluate: () => undefined,
    item: { key: '', value: undefined },
    attempt: 1,
    commandId: (purpose) => `lb-step-${purpose}-unit`,
    deadline: undefined,
    record: (intent) => {
      intents.push(intent);
      return Promise.resolve();
    },
  };
  return { ctx, calls, logs, intents, nodes };
}

export function run(
  fields: Partial<WorkflowRun> & Pick<WorkflowRun, 'instance_name' | 'kind' | 'status'>,
): WorkflowRun {
  return {
    role: 'Coordinator',
    current_step: 'WaitingForPeers',
    step_index: 0,
    step_total: 5,
    config_json: '{}',
    expected_peers: [PARTICIPANT.node2, PARTICIPANT.node3],
    completed_peers: [],
    dismissed: false,
    created_at: Math.floor(Date.now() / 1000),
    updated_at: Math.floor(Date.now() / 1000),
    ...fields,
  };
}

export function vetted(id: string, name: string, version: string): VettedPackage {
  return { package_id: id, package_name: name, package_version: version };
}
