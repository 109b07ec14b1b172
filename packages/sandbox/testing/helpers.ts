/**
 * Test helpers that drive the sandbox only over HTTP, the way a client does (dpm-api.md §12a): a small fetch
 * client per node with a real token from the sandbox's identity provider, and the recommended sequences.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';
import { GOVERNANCE_BUILTIN_PACKAGES } from '../src/governance/packages.js';
import { ALL_PLATFORM_PACKAGES } from '../src/platform-packages.js';
import { TOKEN_PACKAGES } from '../src/token/packages.js';

export interface Response<T = unknown> {
  status: number;
  contentType: string;
  text: string;
  /** parsed JSON when the body is JSON */
  body: T;
}

export class Api {
  constructor(
    readonly base: string,
    private readonly token: () => Promise<string | undefined>,
  ) {}

  async call<T = unknown>(
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; contentType?: string | null; token?: string | null } = {},
  ): Promise<Response<T>> {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? await this.token() : options.token;
    if (token !== null && token !== undefined) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined && options.contentType !== null)
      headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${this.base}${path}`, { method, headers, body: payload });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    let body: unknown = text;
    if (contentType.includes('json') && text !== '') body = JSON.parse(text);
    return { status: response.status, contentType, text, body: body as T };
  }

  get<T = unknown>(path: string): Promise<Response<T>> {
    return this.call<T>('GET', path);
  }

  post<T = unknown>(path: string, body?: unknown): Promise<Response<T>> {
    return this.call<T>('POST', path, body === undefined ? {} : { body });
  }

  put<T = unknown>(path: string, body: unknown): Promise<Response<T>> {
    return this.call<T>('PUT', path, { body });
  }
}

export interface World {
  sandbox: Sandbox;
  stateDir: string;
  /** one API per node, authenticated as that node's operator */
  dpm: Api[];
  ledger: Api[];
  admin: Api;
  participant: string[];
  /** operator1's password */
  password: string;
  /** the password of a user of the realm (each operator and the viewer have their own) */
  passwordOf(username: string): string;
  token(username: string, client?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function passwordGrant(
  tokenUrl: string,
  username: string,
  password: string,
  clientId = 'ledgerbook-cli',
): Promise<string> {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: clientId, username, password }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (typeof body.access_token !== 'string')
    throw new Error(`no token for ${username}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Starts a sandbox on port 0 in a fresh temp state dir (or the given one). */
export async function startWorld(options: Partial<SandboxOptions> = {}): Promise<World> {
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), 'ledgerbook-sandbox-'));
  const sandbox = await startSandbox({ profile: 'fast', ...options, stateDir });
  const secret = (file: string): string => readFileSync(join(stateDir, 'secrets', file), 'utf8').trim();
  const password = secret('operator-password');
  // each operator has its own password (operator1's in operator-password), the viewer too
  const passwordOf = (username: string): string => {
    const n = /^operator(\d+)$/.exec(username)?.[1];
    if (username === 'viewer') return secret('viewer-password');
    return n === undefined || n === '1' ? password : secret(`operator${n}-password`);
  };
  const cache = new Map<string, Promise<string>>();
  const token = (username: string, client = 'ledgerbook-cli'): Promise<string> => {
    const key = `${username}/${client}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      hit = passwordGrant(sandbox.urls.idp.tokenUrl, username, passwordOf(username), client);
      cache.set(key, hit);
    }
    return hit;
  };
  const insecure = options.insecure === true;
  const dpm = sandbox.urls.nodes.map(
    (n, i) => new Api(n.dpm, () => (insecure ? Promise.resolve(undefined) : token(`operator${i + 1}`))),
  );
  const ledger = sandbox.urls.nodes.map(
    (n, i) => new Api(n.ledger, () => (insecure ? Promise.resolve(undefined) : token(`operator${i + 1}`))),
  );
  return {
    sandbox,
    stateDir,
    dpm,
    ledger,
    admin: new Api(sandbox.urls.admin, () => Promise.resolve(undefined)),
    participant: sandbox.urls.nodes.map((n) => n.participantId),
    password,
    passwordOf,
    token,
    stop: async () => {
      await sandbox.stop();
      if (options.stateDir === undefined) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 5000,
  intervalMs = 5,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// ---- the §12a sequences --------------------------------------------------------------------------------------

interface Peer {
  participant_id: string;
  name: string;
  address: string;
  port: number;
  public_key: string;
}

/** GET /keys/status + /node-config on every node, one full peer list (incl. self) posted to every node */
export async function bootstrapMesh(
  world: World,
  nodes: number[] = world.dpm.map((_, i) => i),
): Promise<Peer[]> {
  const peers: Peer[] = [];
  for (const i of nodes) {
    const api = world.dpm[i]!;
    const keys = await api.get<{ public_key: string }>('/keys/status');
    const config = await api.get<{ node: { participant_id: string; port: number } }>('/node-config');
    peers.push({
      participant_id: config.body.node.participant_id,
      name: `node${i + 1}`,
      address: '127.0.0.1',
      port: config.body.node.port,
      public_key: keys.body.public_key,
    });
  }
  for (const i of nodes) {
    const response = await world.dpm[i]!.post('/network-config', peers);
    expect(response.status).toBe(200);
  }
  return peers;
}

export interface RunRecord {
  instance_name: string;
  kind: string;
  role: string;
  status: string;
  current_step: string;
  step_index: number;
  step_total: number;
  error?: string;
  coordinator_instance?: string;
  expected_peers: string[];
  completed_peers: string[];
  [key: string]: unknown;
}

export async function runOf(api: Api, instance: string): Promise<RunRecord | undefined> {
  const response = await api.get<{ runs: RunRecord[] }>('/workflows');
  return response.body.runs.find((r) => r.instance_name === instance);
}

export async function waitForRun(
  api: Api,
  instance: string,
  status: string,
  timeoutMs = 5000,
): Promise<RunRecord> {
  return waitFor(
    `run ${instance} to be ${status}`,
    async () => {
      const run = await runOf(api, instance);
      return run?.status === status ? run : undefined;
    },
    timeoutMs,
  );
}

export interface Invitation {
  id: string;
  invitation_type: string;
  workflow_instance?: string;
  [key: string]: unknown;
}

export async function waitForInvitation(api: Api, instance: string): Promise<Invitation> {
  return waitFor(`an invitation for ${instance}`, async () => {
    const response = await api.get<{ invitations: Invitation[] }>('/invitations');
    return response.body.invitations.find((i) => i.workflow_instance === instance);
  });
}

/** accepts the run's invitation on each of the given nodes */
export async function acceptOn(world: World, nodes: number[], instance: string): Promise<void> {
  for (const i of nodes) {
    const card = await waitForInvitation(world.dpm[i]!, instance);
    const accepted = await world.dpm[i]!.post('/invitations/accept', { id: card.id });
    expect(accepted.status, accepted.text).toBe(200);
  }
}

export interface PartyRecord {
  party_id: string;
  threshold: number;
  owners: string[];
  participants: Array<{ participant_uid: string; permission: string; owner_key?: string }>;
  contracts?: Array<{
    template_id: string;
    package_id: string;
    package_name: string;
    package_version: string;
    contract_id: string;
  }>;
}

/**
 * refresh=true, then poll the cached read until every member's owner key is there. The node rewrites its cache
 * in the background after a live read (other members' keys dropped until resolved again), so an older cached row
 * can look complete for a moment; the pause outlasts the fast profile's cache write and key resolution (~12 ms),
 * which run on this same event loop.
 */
export async function refreshedParty(api: Api, prefix: string): Promise<PartyRecord> {
  await api.get(`/decentralized-parties?prefix=${prefix}&refresh=true`);
  await new Promise((r) => setTimeout(r, 30));
  return waitFor(`party ${prefix} in the cache with every owner key`, async () => {
    const response = await api.get<{ parties: PartyRecord[]; source: string }>(
      `/decentralized-parties?prefix=${prefix}`,
    );
    const party = response.body.parties[0];
    if (response.body.source !== 'cache' || party === undefined) return undefined;
    return party.participants.every((p) => p.owner_key !== undefined) ? party : undefined;
  });
}

/** mesh + onboarding of `prefix` coordinated by node1 with every other node: the party as node1 sees it */
export async function onboard(world: World, prefix: string, threshold?: number): Promise<PartyRecord> {
  const others = world.dpm.map((_, i) => i).filter((i) => i !== 0);
  const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
    party_id_prefix: prefix,
    peer_ids: others.map((i) => world.participant[i]),
    ...(threshold === undefined ? {} : { threshold }),
  });
  expect(started.status, started.text).toBe(202);
  await acceptOn(world, others, started.body.instance_name);
  await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
  return refreshedParty(world.dpm[0]!, prefix);
}

export function darFile(name: string): { filename: string; data: string } {
  const bytes = readFileSync(join(import.meta.dirname, '../../../playbooks/dars', name));
  return { filename: name, data: bytes.toString('base64') };
}

export interface RequestCount {
  node: string;
  method: string;
  route: string;
  count: number;
}

export async function requestCounts(world: World): Promise<RequestCount[]> {
  return (await world.admin.get<{ requests: RequestCount[] }>('/requests')).body.requests;
}

/**
 * every sandbox participant has packages from the start (its platform's, the token's, the governance plugins');
 * these drop them from a package list
 */
const WORLD_PACKAGE_IDS = new Set(
  [...ALL_PLATFORM_PACKAGES, ...TOKEN_PACKAGES, ...GOVERNANCE_BUILTIN_PACKAGES].map((p) => p.id),
);

export function withoutWorldPackages<T extends { package_id: string }>(packages: T[]): T[] {
  return packages.filter((p) => !WORLD_PACKAGE_IDS.has(p.package_id));
}

/** a node's operator party (`operatorN::<its namespace>`), its member party in decentralized parties */
export function operatorPartyOf(world: World, i: number): string {
  return `operator${i + 1}::${world.participant[i]!.split('::')[1]}`;
}

/** one day, governance-core's default confirmation timeout */
export const ONE_DAY_MICROS = 86_400_000_000;

/**
 * The FieldDefinitions of a GovernanceRules contract, all five fields of the template in order: the party, its
 * members (a Set), the threshold (the party's when not given), the confirmation timeout, no additional proposers.
 */
export function governanceRulesFields(members: string[], timeoutMicros = ONE_DAY_MICROS): unknown[] {
  return [
    { type: 'decentralized_party' },
    { type: 'party_set', parties: members },
    { type: 'governance_threshold' },
    { type: 'rel_time', microseconds: timeoutMicros },
    { type: 'none' },
  ];
}

/**
 * POST /auth/grant-rights on the given nodes with the CI client (a participant administrator on every node): the
 * party's ledger user gets actAs and readAs on its member party and on the decentralized party.
 */
export async function grantRights(
  world: World,
  partyId: string,
  nodes = world.dpm.map((_, i) => i),
): Promise<void> {
  for (const i of nodes) {
    const response = await world.dpm[i]!.post<{ rights: Record<string, boolean> }>('/auth/grant-rights', {
      dec_party_id: partyId,
      admin_client_id: 'ledgerbook-ci',
      admin_client_secret: world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
    });
    expect(response.status, response.text).toBe(200);
    expect(Object.values(response.body.rights).every(Boolean), response.text).toBe(true);
  }
}

/**
 * POST /workflows/{instance}/cancel once the run is past its start-up: during it (invitations going out, then a
 * short pause) the node answers 409 `… still initializing — try again in a moment`, and a client tries again.
 */
export async function cancelStarted(api: Api, instance: string): Promise<Response> {
  return waitFor(`${instance} to leave its start-up`, async () => {
    const response = await api.post(`/workflows/${instance}/cancel`);
    return response.text.includes('still initializing') ? undefined : response;
  });
}
