/**
 * The sandbox's DPM answers against the reference (docs/reference/dpm-api.md): every route of
 * `routeResponseSchemas` is driven on a 3-node sandbox into a state where it answers its success shape (mesh,
 * parties, DARs, contracts, a run of every kind, pending invitations), and each answer is checked for the
 * reference's status code and content type, decoded with the client's wire schema, and compared field by field
 * with the reference's view of contracts/dpm.openapi.yaml (dpm-reference.ts: present when always sent, absent or null when optional, nothing
 * undocumented, enums and integers as documented). Then a representative set of error answers (§0.1).
 *
 * Routes the sandbox does not simulate (README "What is simulated, and what is not") are listed in NOT_SIMULATED
 * and checked to answer as any unknown path does; a test fails when a route is neither driven nor listed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DPM_ROUTES,
  LEGACY_CANCEL_ROUTES,
  LEGACY_STATUS_ROUTES,
  WORKFLOW_KINDS,
  WORKFLOW_STEPS as STEPS,
  routeResponseSchemas,
  routeSuccessStatus,
  type RouteKey,
  type WorkflowKind as Kind,
} from '../../src/clients/dpm-wire.js';
import { wireProblems } from '../../src/clients/schema-check.js';
import { readDar } from '../../src/dar/read.js';
import {
  type Api,
  type PartyRecord,
  type Response,
  type RunRecord,
  type World,
  acceptOn,
  bootstrapMesh,
  darFile,
  refreshedParty,
  startWorld,
  waitFor,
  waitForInvitation,
  waitForRun,
  withoutWorldPackages,
  governanceRulesFields,
  grantRights,
} from '@ledgerbook/sandbox/testing';
import { type Conformance, conform, responseOf } from './dpm-reference.js';
import { dpmOperations, loadDpmDocument } from '../../scripts/dpm-contract.js';
import { GOVERNANCE_TEST_ROUTES, NOT_SIMULATED } from './dpm-coverage.js';

type Json = Record<string, unknown>;

/** §5: the 202 message per start route */
const START_MESSAGES: Record<Kind, string> = {
  Onboarding: 'Onboarding workflow started',
  Kick: 'Kick workflow started',
  AddParty: 'Add-party workflow started',
  ChangeThreshold: 'Change-threshold workflow started',
  Contracts: 'Contracts workflow started',
  Dars: 'DARs distribution workflow started',
};

/** §3: the hard-coded defaults the server always stores and returns */
const PACKAGE_CONFIG_DEFAULTS = {
  governance_action: '#governance-action-v1',
  governance_core: '#governance-core-v1',
  governance_rewards: '#governance-rewards-automation-v1',
  governance_token_custody: '#governance-token-custody-v1',
  governance_utility_credential: '#governance-utility-credential-v1',
  governance_utility_onboarding: '#governance-utility-onboarding-v1',
  utility_credential: '#utility-credential-v0',
  utility_credential_app: '#utility-credential-app-v0',
  utility_registry: '#utility-registry-app-v0',
  vault: '#bitsafe-vault-v0-rc8',
  vault_governance: '#bitsafe-vault-governance-v0-rc8',
};

const SAMPLE_DARS = ['governance-core-0.2.0.dar', 'wrapped-1.2.1.dar', 'utility-registry-app-0.0.1.dar'];
/** every package the sample DARs carry (main and dependencies), as a participant reads them */
const samplePackageIds = SAMPLE_DARS.flatMap((file) =>
  readDar(readFileSync(join(import.meta.dirname, '../../playbooks/dars', file))).packages.map(
    (p) => p.packageId,
  ),
);

/** every route whose success answer a test below checked */
const driven = new Set<RouteKey>();

/** The reference's status and content type, the wire schema, and the reference's fields, for one success answer. */
function expectSuccess(route: RouteKey, response: Response): void {
  const schema = routeResponseSchemas[route];
  expect(schema, `${route} has a wire schema`).toBeDefined();
  expect(response.status, `${route}: ${response.text}`).toBe(routeSuccessStatus[route] ?? 200);
  expect(response.contentType, route).toBe('application/json');
  expect(wireProblems(schema!, response.body), `${route} decodes with the wire schema`).toEqual([]);
  const { problems, extras } = conform(response.body, responseOf(route));
  expect(problems, `${route}: fields per the reference`).toEqual([]);
  expect(extras, `${route}: fields the reference does not document`).toEqual([]);
  driven.add(route);
}

function expectJsonError(response: Response, status: number, error: string | RegExp): void {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  expect(response.contentType).toBe('application/json');
  expect(conform(response.body, 'ErrorResponse')).toEqual({ problems: [], extras: [] });
  const text = (response.body as { error: string }).error;
  if (typeof error === 'string') expect(text).toBe(error);
  else expect(text).toMatch(error);
}

function expectTextError(response: Response, status: number, text: string | RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.contentType).toMatch(/^text\/plain\b/);
  if (typeof text === 'string') expect(response.text).toBe(text);
  else expect(response.text).toMatch(text);
}

const kindOfStart: Record<string, Kind> = {
  'POST /onboarding': 'Onboarding',
  'POST /kick': 'Kick',
  'POST /add-party': 'AddParty',
  'POST /change-threshold': 'ChangeThreshold',
  'POST /contracts': 'Contracts',
  'POST /dars/distribute': 'Dars',
};

/** §5 instance names; `{secs}` the unix second of the start */
function instancePattern(kind: Kind, prefix: string): RegExp {
  const names: Record<Kind, string> = {
    Onboarding: `${prefix}-creation`,
    Kick: `${prefix}-kick-\\d+`,
    AddParty: `${prefix}-add-party-\\d+`,
    ChangeThreshold: `${prefix}-change-threshold-\\d+`,
    Contracts: `${prefix}-contracts-\\d+`,
    Dars: 'dars-distribute-\\d+',
  };
  return new RegExp(`^${names[kind]}$`);
}

/** The §7 rules a run record follows beyond its shape: steps, indices, roles, derived fields, config_json. */
function runProblems(run: RunRecord): string[] {
  const problems: string[] = [];
  const where = `${run.role} run ${run.instance_name}`;
  const kind = run.kind as Kind;
  const steps: readonly string[] = STEPS[kind];
  if (run.step_total !== steps.length) problems.push(`${where}: step_total ${run.step_total}`);
  const index = run.current_step === 'Active' ? 0 : steps.indexOf(run.current_step);
  if (index < 0 || (run.current_step === 'Active' && run.role !== 'Peer')) {
    problems.push(`${where}: current_step ${run.current_step}`);
  } else if (run.step_index !== index) {
    problems.push(`${where}: step_index ${run.step_index} for ${run.current_step}`);
  }
  if (
    run.status === 'completed' &&
    (run.current_step !== 'Complete' || run.step_index !== steps.length - 1)
  ) {
    problems.push(`${where}: completed at ${run.current_step}`);
  }
  const peerFields = ['coordinator_pubkey', 'coordinator_instance'];
  for (const field of peerFields) {
    if ((run.role === 'Peer') !== field in run)
      problems.push(`${where}: ${field} ${field in run ? 'present' : 'missing'}`);
  }
  if (run.role === 'Coordinator' && 'coordinator_name' in run) problems.push(`${where}: coordinator_name`);
  if ((kind === 'Onboarding' || kind === 'Dars') && 'dec_party_id' in run)
    problems.push(`${where}: dec_party_id`);
  if (run.role === 'Peer' && run.completed_peers.length > 0)
    problems.push(`${where}: completed_peers on a peer row`);
  let config: unknown;
  try {
    config = JSON.parse(String(run.config_json));
  } catch (error) {
    problems.push(`${where}: config_json is not JSON (${(error as Error).message})`);
    return problems;
  }
  const component = run.role === 'Coordinator' ? `${kind}CoordinatorConfig` : 'PeerConfig';
  const { problems: configProblems, extras } = conform(config, component);
  problems.push(...configProblems.map((p) => `${where} config_json ${p}`));
  problems.push(...extras.map((p) => `${where} config_json: undocumented ${p}`));
  return problems;
}

/** waits for the start of the next unix second: instance names of §5 carry the second */
async function nextSecond(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
}

function memberParty(world: World, i: number): string {
  return `operator${i + 1}::${world.participant[i]!.split('::')[1]}`;
}

describe('the field-by-field checker (the reference view of the document)', () => {
  const doc = {
    ...loadDpmDocument(),
    components: {
      schemas: {
        Sample: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            count: { type: 'integer', minimum: 0 },
            kind: { enum: ['a', 'b'] },
            note: { type: ['string', 'null'] },
            owner: { type: ['string', 'null'] },
          },
          required: ['id', 'count', 'kind', 'owner'],
        },
      },
    },
  };
  const check = (value: unknown): Conformance => conform(value, 'Sample', doc);

  it('accepts a body as documented, with an optional field absent or null', () => {
    expect(check({ id: 'x', count: 1, kind: 'a', owner: null })).toEqual({ problems: [], extras: [] });
    expect(check({ id: 'x', count: 1, kind: 'b', note: null, owner: 'o' })).toEqual({
      problems: [],
      extras: [],
    });
  });

  it('reports missing and null required fields, wrong types and enums, and undocumented fields', () => {
    const result = check({ id: null, count: 1.5, kind: 'c', note: 3, extra: true });
    expect(result.problems).toEqual([
      '/owner: missing (the reference always sends it)',
      '/id: null (the reference always sends a value)',
      '/count: expected integer, got 1.5',
      '/kind: expected ["a","b"], got "c"',
      '/note: expected string,null, got 3',
    ]);
    expect(result.extras).toEqual(['/extra']);
  });
});

describe('the sandbox against the DPM reference, route by route', () => {
  let world: World;
  let node1: Api;
  let node2: Api;
  let node3: Api;
  let alpha: PartyRecord;
  let gamma: PartyRecord;
  let keycloakUrl: string;
  /** the 202 answers of the starts that ran to completion, by route */
  const starts = new Map<RouteKey, { response: Response<Json>; prefix: string }>();
  let putPartyConfig: Response;

  async function start(route: RouteKey, api: Api, body: Json, prefix: string): Promise<string> {
    const path = route.slice('POST '.length);
    const response = await api.post<Json>(path, body);
    expect(response.status, `${route}: ${response.text}`).toBe(202);
    starts.set(route, { response, prefix });
    return String(response.body.instance_name);
  }

  beforeAll(async () => {
    world = await startWorld({ nodes: 3 });
    [node1, node2, node3] = world.dpm as [Api, Api, Api];
    keycloakUrl = world.sandbox.urls.idp.issuer.replace(/\/realms\/ledgerbook$/, '');
    const [, p2, p3] = world.participant as [string, string, string];

    await bootstrapMesh(world);
    const onboarding = await start(
      'POST /onboarding',
      node1,
      { party_id_prefix: 'alpha', peer_ids: [p2, p3] },
      'alpha',
    );
    await acceptOn(world, [1, 2], onboarding);
    await waitForRun(node1, onboarding, 'completed');
    alpha = await refreshedParty(node1, 'alpha');
    for (const [i, api] of world.dpm.entries()) {
      putPartyConfig = await api.put('/party-config', {
        dec_party_id: alpha.party_id,
        member_party_id: memberParty(world, i),
        user_id: `operator${i + 1}`,
        keycloak_url: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-ci',
        keycloak_client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET,
      });
      expect(putPartyConfig.status, putPartyConfig.text).toBe(200);
    }
    await grantRights(world, alpha.party_id);

    const dars = await start(
      'POST /dars/distribute',
      node1,
      { dar_files: SAMPLE_DARS.map(darFile), peer_ids: [p2, p3] },
      '',
    );
    await acceptOn(world, [1, 2], dars);
    await waitForRun(node1, dars, 'completed');

    await refreshedParty(node1, 'alpha');
    const contracts = await start(
      'POST /contracts',
      node1,
      {
        decentralized_party_id: alpha.party_id,
        participant_ids: world.participant,
        participant_parties: world.participant.map((_, i) => memberParty(world, i)),
        operator_party: memberParty(world, 0),
        contracts: [
          {
            id: 'rules',
            name: 'governance-core',
            package_id: '#governance-core',
            module_name: 'Governance.Rules',
            entity_name: 'GovernanceRules',
            fields: governanceRulesFields(world.participant.map((_, i) => memberParty(world, i))),
          },
        ],
      },
      'alpha',
    );
    await acceptOn(world, [1, 2], contracts);
    await waitForRun(node1, contracts, 'completed');

    // gamma: node1 and node2; then node3 added, the threshold changed, node3 kicked again
    const gammaStarted = await node1.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'gamma',
      peer_ids: [p2],
    });
    expect(gammaStarted.status, gammaStarted.text).toBe(202);
    await acceptOn(world, [1], gammaStarted.body.instance_name);
    await waitForRun(node1, gammaStarted.body.instance_name, 'completed');
    gamma = await refreshedParty(node1, 'gamma');

    const added = await start(
      'POST /add-party',
      node1,
      {
        decentralized_party_id: gamma.party_id,
        new_participant_id: p3,
        new_threshold: 2,
        previous_threshold: 1,
      },
      'gamma',
    );
    await acceptOn(world, [1, 2], added);
    await waitForRun(node1, added, 'completed');
    await waitFor('node3 in gamma', async () => {
      const party = await refreshedParty(node1, 'gamma');
      return party.participants.length === 3 ? party : undefined;
    });

    const changed = await start(
      'POST /change-threshold',
      node1,
      { decentralized_party_id: gamma.party_id, new_threshold: 3, previous_threshold: 2 },
      'gamma',
    );
    await acceptOn(world, [1, 2], changed);
    await waitForRun(node1, changed, 'completed');
    await waitFor('gamma at threshold 3', async () => {
      const party = await refreshedParty(node1, 'gamma');
      return party.threshold === 3 ? party : undefined;
    });

    const kicked = await start(
      'POST /kick',
      node1,
      { decentralized_party_id: gamma.party_id, participant_id: p3, new_threshold: 2, previous_threshold: 3 },
      'gamma',
    );
    await acceptOn(world, [1], kicked);
    await waitForRun(node1, kicked, 'completed');
    gamma = await waitFor('node3 out of gamma', async () => {
      const party = await refreshedParty(node1, 'gamma');
      return party.participants.length === 2 ? party : undefined;
    });
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  describe('§1 node, health, keys', () => {
    it('GET /healthz: {"status":"ok"} with Cache-Control: no-store, no token needed', async () => {
      const response = await node1.call('GET', '/healthz', { token: null });
      expectSuccess('GET /healthz', response);
      const raw = await fetch(`${node1.base}/healthz`);
      expect(raw.headers.get('cache-control')).toBe('no-store');
    });

    it('GET /auth-config: the Keycloak fields only (no Auth0 fields), no token needed', async () => {
      const response = await node1.call('GET', '/auth-config', { token: null });
      expectSuccess('GET /auth-config', response);
      expect(response.body).toEqual({
        auth_required: true,
        keycloak_host: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-cli',
      });
    });

    it('GET /node-config: the flattened config and the runtime fields; node.port is the Noise port', async () => {
      for (const [i, api] of world.dpm.entries()) {
        const response = await api.get<Json>('/node-config');
        expectSuccess('GET /node-config', response);
        const body = response.body as {
          node: { participant_id: string; port: number };
          canton: { network: string };
          keycloak: unknown;
          auth0: unknown;
          test_mode: boolean;
          version: string;
        };
        expect(body.node.participant_id).toBe(world.participant[i]);
        expect(body.canton.network).toBe('devnet');
        expect(body.keycloak).toMatchObject({
          url: keycloakUrl,
          realm: 'ledgerbook',
          client_id: 'ledgerbook-cli',
        });
        expect(body.auth0).toBeNull();
        expect(body.test_mode).toBe(false);
        const [major, minor, patch] = body.version.split(/[.-]/).map(Number) as [number, number, number];
        expect(major * 1e6 + minor * 1e3 + patch, body.version).toBeGreaterThanOrEqual(1009);
      }
    });

    it('GET /keys/status: has_keys and the 66-hex compressed public key', async () => {
      const response = await node1.get('/keys/status');
      expectSuccess('GET /keys/status', response);
      expect(response.body).toMatchObject({ has_keys: true });
    });
  });

  describe('§2 peers and connectivity', () => {
    it('GET /network-config: the full peer list on every node, itself included', async () => {
      for (const api of world.dpm) {
        const response = await api.get<{ peers: Array<{ participant_id: string }> }>('/network-config');
        expectSuccess('GET /network-config', response);
        expect(response.body.peers.map((p) => p.participant_id)).toEqual(world.participant);
      }
    });

    it('POST /network-config (a bare array, the table replaced): {"success": true}', async () => {
      const peers = (await node1.get<{ peers: unknown[] }>('/network-config')).body.peers;
      const response = await node1.post('/network-config', peers);
      expectSuccess('POST /network-config', response);
      expect((await node1.get<{ peers: unknown[] }>('/network-config')).body.peers).toEqual(peers);
    });

    it('GET /participants-status: CurrentNode without latency, the others Connected with a version', async () => {
      const response = await node2.get<{ statuses: Json[] }>('/participants-status');
      expectSuccess('GET /participants-status', response);
      const statuses = response.body.statuses;
      expect(statuses.map((s) => s.id)).toEqual(world.participant);
      const self = statuses.find((s) => s.id === world.participant[1]);
      expect(self).toMatchObject({ status: 'CurrentNode' });
      expect(self).not.toHaveProperty('latency_ms');
      for (const other of statuses.filter((s) => s !== self)) {
        expect(other).toMatchObject({ status: 'Connected', version: expect.any(String) as string });
        expect(other).toHaveProperty('latency_ms');
      }
    });
  });

  describe('§3 party config', () => {
    it('PUT /party-config: {"success": true}', () => {
      expectSuccess('PUT /party-config', putPartyConfig);
    });

    it('GET /party-config/{dec_party_id}: a configured party, and the defaults for one that is not', async () => {
      const configured = await node1.get<Json>(`/party-config/${alpha.party_id}`);
      expectSuccess('GET /party-config/{dec_party_id}', configured);
      expect(configured.body).toEqual({
        dec_party_id: alpha.party_id,
        member_party_id: memberParty(world, 0),
        user_id: 'operator1',
        keycloak_url: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-ci',
        has_client_secret: true,
        has_username: false,
        has_password: false,
        has_auth0_client_secret: false,
        packages: PACKAGE_CONFIG_DEFAULTS,
      });

      const unconfigured = await node1.get<Json>(`/party-config/${gamma.party_id}`);
      expectSuccess('GET /party-config/{dec_party_id}', unconfigured);
      expect(unconfigured.body).not.toHaveProperty('member_party_id');
      expect(unconfigured.body).not.toHaveProperty('user_id');
      expect(unconfigured.body).toMatchObject({
        dec_party_id: gamma.party_id,
        keycloak_url: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        has_client_secret: false,
        has_username: false,
        has_password: false,
        has_auth0_client_secret: false,
      });
    });
  });

  describe('§4 decentralized parties', () => {
    it('GET /decentralized-parties: cached (contracts listed) and live (refresh=true)', async () => {
      const cached = await node1.get<{ parties: PartyRecord[]; source: string }>('/decentralized-parties');
      expectSuccess('GET /decentralized-parties', cached);
      expect(cached.body.source).toBe('cache');
      const cachedAlpha = cached.body.parties.find((p) => p.party_id === alpha.party_id);
      expect(cachedAlpha?.contracts?.map((c) => c.template_id)).toEqual(['Governance.Rules:GovernanceRules']);
      expect(cachedAlpha?.participants.map((p) => p.participant_uid).sort()).toEqual(
        [...world.participant].sort(),
      );

      const live = await node2.get<{ parties: PartyRecord[]; source: string }>(
        '/decentralized-parties?prefix=alpha&refresh=true',
      );
      expectSuccess('GET /decentralized-parties', live);
      expect(live.body).toMatchObject({ source: 'live', refreshing: false });
      expect(live.body.parties.map((p) => p.party_id)).toEqual([alpha.party_id]);
      // live: owner_key only for this participant
      const keyed = live.body.parties[0]!.participants.filter((p) => p.owner_key !== undefined);
      expect(keyed.map((p) => p.participant_uid)).toEqual([world.participant[1]]);
    });
  });

  describe('§5 the six start routes', () => {
    it.each(Object.keys(kindOfStart))('%s: 202, the reference message and instance name', (route) => {
      const key = route as RouteKey;
      const kind = kindOfStart[key]!;
      const started = starts.get(key);
      expect(started, `${route} was started`).toBeDefined();
      expectSuccess(key, started!.response);
      expect(started!.response.body).toMatchObject({ status: 'inprogress', message: START_MESSAGES[kind] });
      expect(started!.response.body.instance_name).toMatch(instancePattern(kind, started!.prefix));
    });

    it('POST /dars/upload: {"success": true}, synchronous on this participant', async () => {
      const response = await node3.post('/dars/upload', { dar_files: [darFile(SAMPLE_DARS[2]!)] });
      expectSuccess('POST /dars/upload', response);
    });
  });

  describe('§6–§7 workflow records', () => {
    it('GET /workflows: every run of every kind, both roles, as §7 describes them', async () => {
      for (const [i, api] of world.dpm.entries()) {
        const response = await api.get<{ runs: RunRecord[] }>('/workflows');
        expectSuccess('GET /workflows', response);
        const runs = response.body.runs;
        expect(runs.flatMap(runProblems), `node${i + 1}`).toEqual([]);
        const updated = runs.map((r) => Number(r.updated_at));
        expect(updated, 'ordered by updated_at, newest first').toEqual([...updated].sort((a, b) => b - a));
      }
      const coordinated = (await node1.get<{ runs: RunRecord[] }>('/workflows')).body.runs;
      expect(new Set(coordinated.filter((r) => r.status === 'completed').map((r) => r.kind))).toEqual(
        new Set(WORKFLOW_KINDS),
      );
      const peered = (await node2.get<{ runs: RunRecord[] }>('/workflows')).body.runs.filter(
        (r) => r.role === 'Peer',
      );
      expect(new Set(peered.map((r) => r.kind))).toEqual(new Set(WORKFLOW_KINDS));
      for (const run of peered) {
        expect(run.instance_name).toBe(
          `peer-${run.kind.toLowerCase()}-${String(run.coordinator_pubkey).slice(0, 16)}-${String(run.coordinator_instance)}`,
        );
        expect(run.coordinator_name).toBe('node1');
      }
    });

    it('the legacy routes: GET /<kind>/status of a pending run, then POST /<kind>/cancel', async () => {
      await nextSecond();
      const [, p2, p3] = world.participant as [string, string, string];
      const pending: Array<[Kind, string, Json]> = [
        ['Onboarding', '/onboarding', { party_id_prefix: 'delta', peer_ids: [p2, p3] }],
        ['Kick', '/kick', { decentralized_party_id: alpha.party_id, participant_id: p3, new_threshold: 1 }],
        [
          'AddParty',
          '/add-party',
          { decentralized_party_id: gamma.party_id, new_participant_id: p3, new_threshold: 2 },
        ],
        [
          'ChangeThreshold',
          '/change-threshold',
          { decentralized_party_id: alpha.party_id, new_threshold: 3 },
        ],
        [
          'Contracts',
          '/contracts',
          {
            decentralized_party_id: alpha.party_id,
            participant_ids: world.participant,
            participant_parties: world.participant.map((_, i) => memberParty(world, i)),
            operator_party: memberParty(world, 0),
          },
        ],
        ['Dars', '/dars/distribute', { dar_files: [darFile(SAMPLE_DARS[0]!)], peer_ids: [p2, p3] }],
      ];
      const labels: Record<Kind, string> = {
        Onboarding: 'Onboarding',
        Kick: 'Kick',
        Contracts: 'Contracts',
        Dars: 'DARs',
        AddParty: 'Add-party',
        ChangeThreshold: 'Change-threshold',
      };
      for (const [kind, path, body] of pending) {
        const started = await node1.post<{ instance_name: string }>(path, body);
        expect(started.status, `${path}: ${started.text}`).toBe(202);
        const instance = started.body.instance_name;
        // the invitee sees the run on its coordinator (its oldest in-progress run)
        await waitForInvitation(node2, instance);
        const statuses = await node2.get<{ statuses: Array<Json & { workflow?: Json }> }>(
          '/participants-status',
        );
        expectSuccess('GET /participants-status', statuses);
        expect(statuses.body.statuses.find((s) => s.id === world.participant[0])?.workflow).toEqual({
          kind,
          role: 'Coordinator',
          step: 'WaitingForPeers',
          step_index: 0,
          step_total: STEPS[kind].length,
        });

        const statusRoute = LEGACY_STATUS_ROUTES[kind];
        const status = await node1.get(statusRoute.path);
        expectSuccess(`GET ${statusRoute.path}`, status);
        expect(status.body).toEqual({ status: 'inprogress' });

        const cancelRoute = LEGACY_CANCEL_ROUTES[kind];
        // during the run's start-up the route answers 409 `… still initializing` (asserted in dpm-governance.test.ts)
        const cancelled = await waitFor(`${kind} to leave its start-up`, async () => {
          const response = await node1.post(cancelRoute.path);
          return response.text.includes('still initializing') ? undefined : response;
        });
        expectSuccess(`POST ${cancelRoute.path}`, cancelled);
        expect(cancelled.body).toEqual({ message: `${labels[kind]} workflow cancelled` });
        const after = await node1.get(statusRoute.path);
        expectSuccess(`GET ${statusRoute.path}`, after);
        expect(after.body).toEqual({ status: 'cancelled' });
        await waitFor(`node2's card of ${instance} to be dropped`, async () => {
          const cards = await node2.get<{ invitations: Array<{ workflow_instance?: string }> }>(
            '/invitations',
          );
          return !cards.body.invitations.some((c) => c.workflow_instance === instance);
        });
      }
    });

    it('invitations, accept, decline; then retry, cancel and dismiss of the declined run', async () => {
      const [, p2, p3] = world.participant as [string, string, string];
      const started = await node1.post<{ instance_name: string }>('/onboarding', {
        party_id_prefix: 'epsilon',
        peer_ids: [p2, p3],
        threshold: 2,
      });
      expect(started.status, started.text).toBe(202);
      const instance = started.body.instance_name;
      const pubkey = (await node1.get<{ public_key: string }>('/keys/status')).body.public_key;

      await waitForInvitation(node2, instance);
      await waitForInvitation(node3, instance);
      for (const api of [node2, node3]) {
        const cards = await api.get<{ invitations: Json[] }>('/invitations');
        expectSuccess('GET /invitations', cards);
        const card = cards.body.invitations.find((c) => c.workflow_instance === instance);
        expect(card).toEqual({
          id: `onboarding-${pubkey.slice(0, 16)}-${instance}`,
          invitation_type: 'Onboarding',
          coordinator_pubkey: pubkey,
          coordinator_name: 'node1',
          received_at: expect.any(Number) as number,
          prefix: 'epsilon',
          participants: [p2, p3],
          new_threshold: 2,
          workflow_instance: instance,
        });
      }

      const card2 = await waitForInvitation(node2, instance);
      const accepted = await node2.post('/invitations/accept', { id: card2.id });
      expectSuccess('POST /invitations/accept', accepted);
      expect(accepted.body).toEqual({ message: 'Invitation accepted' });

      const card3 = await waitForInvitation(node3, instance);
      const declined = await node3.post('/invitations/decline', { id: card3.id });
      expectSuccess('POST /invitations/decline', declined);
      expect(declined.body).toEqual({ message: 'Invitation declined' });
      const failed = await waitForRun(node1, instance, 'failed');
      expect(failed.error).toBe(`Peer ${p3} declined the invitation`);

      const retried = await node1.post(`/workflows/${instance}/retry`);
      expectSuccess('POST /workflows/{instance_name}/retry', retried);
      expect(retried.body).toEqual({ message: `Retrying workflow ${instance} from step WaitingForPeers` });

      const cancelled = await node1.post(`/workflows/${instance}/cancel`);
      expectSuccess('POST /workflows/{instance_name}/cancel', cancelled);
      expect(cancelled.body).toEqual({ message: 'Onboarding workflow cancelled' });

      const dismissed = await node1.post(`/workflows/${instance}/dismiss`);
      expectSuccess('POST /workflows/{instance_name}/dismiss', dismissed);
      expect(dismissed.body).toEqual({ message: `workflow ${instance} dismissed` });
      const runs = (await node1.get<{ runs: RunRecord[] }>('/workflows')).body.runs;
      expect(runs.map((r) => r.instance_name)).not.toContain(instance);
    });
  });

  describe('§9 auth, §10 packages, §11 governance reads', () => {
    it('GET /auth/status: the configured party, authenticated, every right', async () => {
      const response = await node1.get('/auth/status');
      expectSuccess('GET /auth/status', response);
      expect(response.body).toEqual({
        parties: [
          {
            dec_party_id: alpha.party_id,
            member_party_id: memberParty(world, 0),
            user_id: 'operator1',
            keycloak_url: keycloakUrl,
            keycloak_realm: 'ledgerbook',
            status: { status: 'authenticated' },
            rights: {
              member_party_act_as: true,
              member_party_read_as: true,
              dec_party_act_as: true,
              dec_party_read_as: true,
            },
          },
        ],
      });
    });

    it('POST /auth/test (authenticated, not admin): one result per configured party', async () => {
      const response = await node1.call('POST', '/auth/test', { token: await world.token('viewer') });
      expectSuccess('POST /auth/test', response);
      expect(response.body).toEqual({ results: [{ party_id: alpha.party_id, success: true }] });
    });

    it('GET /packages/vetted: a bare array with every distributed package, on every node', async () => {
      for (const api of world.dpm) {
        const response = await api.get<Array<{ package_id: string }>>('/packages/vetted');
        expectSuccess('GET /packages/vetted', response);
        expect(new Set(withoutWorldPackages(response.body).map((p) => p.package_id))).toEqual(
          new Set(samplePackageIds),
        );
      }
    });

    it('GET /packages/compare-peers: local uploads and each reachable peer, no error_kind', async () => {
      const response = await node1.get<{ local_packages: unknown[]; peers: Json[] }>(
        '/packages/compare-peers',
      );
      expectSuccess('GET /packages/compare-peers', response);
      expect(response.body.local_packages.length).toBeGreaterThan(0);
      expect(response.body.peers.map((p) => p.participant_id)).toEqual(world.participant.slice(1));
      for (const peer of response.body.peers) {
        expect(peer.reachable).toBe(true);
        expect(peer).not.toHaveProperty('error_kind');
      }
    });

    it('GET /packages: the hard-coded PackageConfig, whatever the query', async () => {
      const response = await node1.get(`/packages?party_id=${alpha.party_id}`);
      expectSuccess('GET /packages', response);
      expect(response.body).toEqual(PACKAGE_CONFIG_DEFAULTS);
    });

    it('GET /governance/state: the GovernanceRules contract after the contracts run; null before', async () => {
      const response = await node2.get<{ state: Json }>(`/governance/state?party_id=${alpha.party_id}`);
      expectSuccess('GET /governance/state', response);
      expect(response.body.state).toMatchObject({
        vault_manager: alpha.party_id,
        threshold: 2,
        out_of_date: false,
      });
      const none = await node1.get(`/governance/state?party_id=${gamma.party_id}`);
      expectSuccess('GET /governance/state', none);
      expect(none.body).toEqual({ state: null });
    });

    it('GET /governance/confirmations: no actions, the rules contract, the member party', async () => {
      const state = (
        await node1.get<{ state: { contract_id: string } }>(`/governance/state?party_id=${alpha.party_id}`)
      ).body.state;
      const response = await node1.get(`/governance/confirmations?party_id=${alpha.party_id}`);
      expectSuccess('GET /governance/confirmations', response);
      expect(response.body).toMatchObject({
        actions: [],
        threshold: 2,
        member_party_id: memberParty(world, 0),
        rules_contract_id: state.contract_id,
        gov_core_out_of_date: false,
      });
      expect(response.body).not.toHaveProperty('domain_actions');
    });
  });

  describe('§0.1 error answers', () => {
    it('extractor errors are text/plain 400s: bad JSON, a missing field, an unknown field, the content type, a bad id, a bad query', async () => {
      expectTextError(
        await node1.call('POST', '/onboarding', { raw: '{"party_id_prefix": ' }),
        400,
        /^Json deserialize error: /,
      );
      expectTextError(
        await node1.post('/dars/upload', {}),
        400,
        'Json deserialize error: missing field `dar_files` at line 1 column 2',
      );
      expectTextError(
        await node1.post('/kick', {
          decentralized_party_id: gamma.party_id,
          participant_id: world.participant[1],
          new_threshold: 1,
          reason: 'x',
        }),
        400,
        /^Json deserialize error: unknown field `reason`/,
      );
      expectTextError(
        await node1.call('POST', '/invitations/accept', { raw: '{"id":"x"}', contentType: 'text/plain' }),
        400,
        'Content type error',
      );
      expectTextError(
        await node1.call('POST', '/invitations/accept', { raw: '{"id":"x"}', contentType: null }),
        400,
        'Content type error',
      );
      expectTextError(
        await node1.post('/onboarding', { party_id_prefix: 'zeta', peer_ids: ['node2::1220abc'] }),
        400,
        /^Json deserialize error: /,
      );
      expectTextError(
        await node1.get('/decentralized-parties?refresh=maybe'),
        400,
        /^Query deserialize error: /,
      );
    });

    it('every query parameter the document lists is read as it says: a required one missing, a bad bool, a bad integer', async () => {
      const withQuery = dpmOperations(loadDpmDocument()).filter((op) => Object.keys(op.query).length > 0);
      expect(withQuery.length).toBeGreaterThan(20);
      const sample = { 'canton-id': gamma.party_id, string: 'x', bool: 'true', u32: '1', i64: '1' };
      for (const op of withQuery) {
        const valid = Object.entries(op.query).filter(([, p]) => !p.optional);
        const url = (params: Array<[string, string]>): string =>
          `${op.path}?${new URLSearchParams(params).toString()}`;
        for (const [name] of valid) {
          const others = valid
            .filter(([n]) => n !== name)
            .map(([n, p]) => [n, sample[p.type]] as [string, string]);
          expectTextError(
            await node1.get(url(others)),
            400,
            `Query deserialize error: missing field \`${name}\``,
          );
        }
        const required = valid.map(([n, p]) => [n, sample[p.type]] as [string, string]);
        for (const [name, p] of Object.entries(op.query)) {
          if (p.type === 'bool')
            expectTextError(
              await node1.get(url([...required.filter(([n]) => n !== name), [name, 'maybe']])),
              400,
              'Query deserialize error: provided string was not `true` or `false`',
            );
          if (p.type === 'u32' || p.type === 'i64')
            expectTextError(
              await node1.get(url([...required.filter(([n]) => n !== name), [name, 'ten']])),
              400,
              /^Query deserialize error: invalid digit found in string/,
            );
        }
      }
    });

    it('a body over 100 MiB is refused with 413 text/plain before it is parsed', async () => {
      const size = 100 * 1024 * 1024 + 1;
      const response = await fetch(`${node1.base}/dars/upload`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await world.token('operator1')}`,
          'content-type': 'application/json',
        },
        body: new Uint8Array(size).fill(0x20),
      });
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain\b/);
      expect(await response.text()).toBe(
        `JSON payload (${size} bytes) is larger than allowed (limit: 104857600 bytes).`,
      );
    });

    it('handlers\' errors are JSON {"error": …} with the reference\'s texts', async () => {
      expectJsonError(
        await node1.post('/onboarding', { party_id_prefix: '9lives', peer_ids: [] }),
        400,
        'Party prefix must start with a letter (a-z, A-Z)',
      );
      expectJsonError(
        await node1.post('/onboarding', { party_id_prefix: 'alpha', peer_ids: [world.participant[1]] }),
        409,
        `A decentralized party with the prefix 'alpha' already exists (${alpha.party_id}). Choose a different prefix.`,
      );
      expectJsonError(await node2.post('/invitations/accept', { id: 'nope' }), 404, 'Invitation not found');
      expectJsonError(await node1.post('/workflows/nope/dismiss'), 404, 'workflow run nope not found');
      expectJsonError(
        await node1.post('/workflows/nope/cancel'),
        409,
        'No in-flight workflow run named nope',
      );
      expectJsonError(
        await node1.post('/workflows/alpha-creation/retry'),
        409,
        'Cannot retry a workflow in status Completed; only Failed runs can be retried',
      );
      expectJsonError(await node1.post('/onboarding/cancel'), 409, 'No Onboarding workflow in progress');
      expectJsonError(await node1.get('/party-config/not-an-id'), 400, /^Invalid dec_party_id: /);
    });

    it('the mesh pre-flight answers 422 with missing_edges', async () => {
      const stranger = `stranger::1220${'ab'.repeat(32)}`;
      const response = await node1.post('/onboarding', { party_id_prefix: 'zeta', peer_ids: [stranger] });
      expect(response.status).toBe(422);
      expect(response.contentType).toBe('application/json');
      expect(conform(response.body, 'OnboardingMeshErrorResponse')).toEqual({ problems: [], extras: [] });
      expect(response.body).toMatchObject({
        error: expect.stringMatching(/^Could not verify a full peer mesh/) as string,
        missing_edges: [{ from: world.participant[0], to: stranger, kind: 'unreachable_from_coordinator' }],
      });
    });

    it('401 texts: no token, a malformed one, an untrusted issuer, a bad signature', async () => {
      const unsigned = (payload: Json): string =>
        [{ alg: 'RS256', kid: 'k' }, payload]
          .map((p) => Buffer.from(JSON.stringify(p)).toString('base64url'))
          .join('.') + '.c2ln';
      const good = await world.token('operator1');
      const [header, payload, signature] = good.split('.') as [string, string, string];
      const tampered = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      const cases: Array<[string | null, string]> = [
        [null, 'missing bearer token'],
        ['garbage', 'malformed bearer token'],
        [unsigned({ sub: 'x' }), 'malformed bearer token'],
        [
          unsigned({ iss: 'http://127.0.0.1:9/auth/realms/evil' }),
          'token issuer not trusted: http://127.0.0.1:9/auth/realms/evil',
        ],
        [tampered, 'token is not active'],
      ];
      for (const [token, error] of cases) {
        expectJsonError(await node1.call('GET', '/workflows', { token }), 401, error);
      }
      // the issuer of a party_credentials row is trusted with that row's client id (alpha's names ledgerbook-ci)
      const ci = await clientCredentialsToken(world);
      expect((await node1.call('GET', '/workflows', { token: ci })).status).toBe(200);
    });

    it('403 on an admin route for a caller without the role; its GETs still answer', async () => {
      const viewer = await world.token('viewer');
      expectJsonError(
        await node1.call('POST', '/network-config', { body: [], token: viewer }),
        403,
        'missing required role: dpm-admin',
      );
      expect((await node1.call('GET', '/workflows', { token: viewer })).status).toBe(200);
    });

    it('unknown paths: GET answers the web UI (200 HTML, also GET on a POST-only route), others an empty 404', async () => {
      for (const path of ['/no/such/page', '/kick']) {
        const page = await node1.get(path);
        expect(page.status).toBe(200);
        expect(page.contentType).toMatch(/^text\/html\b/);
      }
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const response = await node1.call(method, '/no/such/route', { body: {} });
        expect(response.status, method).toBe(404);
        expect(response.text, method).toBe('');
      }
      expect((await node1.call('DELETE', '/workflows')).status).toBe(404);
      // the middleware comes first: without a token an unknown path is a 401, the public paths are not
      expectJsonError(await node1.call('GET', '/no/such/page', { token: null }), 401, 'missing bearer token');
      for (const path of ['/', '/index.html']) {
        const page = await node1.call('GET', path, { token: null });
        expect(page.status, path).toBe(200);
        expect(page.contentType, path).toMatch(/^text\/html\b/);
      }
    });
  });

  describe('coverage', () => {
    it.each(NOT_SIMULATED)('%s is not simulated: answered as an unknown path', async (route) => {
      const [method, template] = route.split(' ') as [string, string];
      const path = `${template}?party_id=${alpha.party_id}`;
      const response = await node1.call(method, path, method === 'GET' ? {} : { body: {} });
      if (method === 'GET') {
        expect(response.status).toBe(200);
        expect(response.contentType).toMatch(/^text\/html\b/);
      } else {
        expect(response.status).toBe(404);
        expect(response.text).toBe('');
      }
    });

    it('every route of routeResponseSchemas was driven to its success answer here or in dpm-governance.test.ts, or is listed as not simulated', () => {
      const all = Object.keys(routeResponseSchemas) as RouteKey[];
      const clientRoutes = Object.values(DPM_ROUTES).map((r): RouteKey => `${r.method} ${r.path}`);
      expect(all).toEqual(expect.arrayContaining(clientRoutes));
      expect(
        all.filter(
          (r) => !driven.has(r) && !NOT_SIMULATED.includes(r) && !GOVERNANCE_TEST_ROUTES.includes(r),
        ),
      ).toEqual([]);
      expect(GOVERNANCE_TEST_ROUTES.filter((r) => !all.includes(r))).toEqual([]);
      expect(NOT_SIMULATED.filter((r) => driven.has(r))).toEqual([]);
    });
  });
});

async function clientCredentialsToken(world: World): Promise<string> {
  const response = await fetch(world.sandbox.urls.idp.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'ledgerbook-ci',
      client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET!,
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (typeof body.access_token !== 'string')
    throw new Error(`no client-credentials token: ${JSON.stringify(body)}`);
  return body.access_token;
}
