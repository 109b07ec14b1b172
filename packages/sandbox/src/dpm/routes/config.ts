/**
 * Node, health, keys, peers, connectivity, party credentials and auth routes (dpm-api.md §1, §2, §3, §9).
 */
import { json, jsonError } from '../../http/reply.js';
import { cantonIdProblem } from '../../http/serde.js';
import { MeshError } from '../../mesh.js';
import { DPM_BUILD_VERSION, DPM_VERSION, type DpmNode } from '../node.js';
import type { PartyCredentials, Peer } from '../types.js';
import { route, type DpmRoute } from './route.js';
import { requestShape } from '../wire.js';

/** the hard-coded PackageConfig the server always stores and returns */
export const PACKAGE_CONFIG = {
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

interface PartyConfigRequest {
  dec_party_id: string;
  member_party_id: string;
  user_id: string;
  keycloak_url?: string;
  keycloak_realm?: string;
  keycloak_client_id?: string;
  keycloak_client_secret?: string;
  keycloak_username?: string;
  keycloak_password?: string;
  auth0_domain?: string;
  auth0_audience?: string;
  auth0_client_id?: string;
  auth0_client_secret?: string;
}

export const configRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/healthz',
    access: 'public',
    handle: () => json(200, { status: 'ok' }, { 'cache-control': 'no-store' }),
  }),
  route({
    method: 'GET',
    template: '/auth-config',
    access: 'public',
    handle: ({ node }) => {
      const keycloak = node.env.auth.keycloak;
      if (node.env.auth.insecure || keycloak === undefined) return json(200, { auth_required: false });
      return json(200, {
        auth_required: true,
        keycloak_host: keycloak.url,
        keycloak_realm: keycloak.realm,
        keycloak_client_id: keycloak.clientId,
      });
    },
  }),
  route({
    method: 'GET',
    template: '/node-config',
    access: 'auth',
    handle: ({ node }) => json(200, nodeConfig(node)),
  }),
  route({
    method: 'GET',
    template: '/keys/status',
    access: 'auth',
    handle: ({ node }) => json(200, { has_keys: true, public_key: node.publicKey }),
  }),
  route({
    method: 'GET',
    template: '/network-config',
    access: 'auth',
    handle: ({ node }) => json(200, { peers: node.state.peers }),
  }),
  route<Peer[]>({
    method: 'POST',
    template: '/network-config',
    access: 'admin',
    body: requestShape('POST /network-config'),
    handle: ({ node, body }) => {
      node.state.peers = body.map((p) => {
        const { party, ...rest } = p;
        return party === undefined ? rest : { ...rest, party };
      });
      node.save();
      return json(200, { success: true });
    },
  }),
  route({
    method: 'GET',
    template: '/participants-status',
    access: 'auth',
    handle: async ({ node }) => json(200, { statuses: await participantsStatus(node) }),
  }),
  route({
    method: 'GET',
    template: '/party-config/{dec_party_id}',
    access: 'auth',
    handle: ({ node, params }) => {
      const id = params.dec_party_id ?? '';
      const problem = cantonIdProblem(id);
      if (problem !== undefined) return jsonError(400, `Invalid dec_party_id: ${problem}`);
      return json(200, partyConfigResponse(node, id));
    },
  }),
  route<PartyConfigRequest>({
    method: 'PUT',
    template: '/party-config',
    access: 'admin',
    body: requestShape('PUT /party-config'),
    handle: ({ node, body }) => savePartyConfig(node, body),
  }),
];

function nodeConfig(node: DpmNode): unknown {
  const tls = { enabled: false, ca_cert: null, client_cert: null, client_key: null, domain: null };
  const keycloak = node.env.auth.keycloak;
  return {
    node: {
      participant_id: node.participantId,
      listen_address: '0.0.0.0',
      port: node.identity.noisePort,
      public_address: null,
    },
    canton: {
      admin_api_host: '127.0.0.1',
      admin_api_port: 5002,
      ledger_api_host: '127.0.0.1',
      ledger_api_port: 5001,
      synchronizer: 'global',
      network: node.env.network,
      admin_api_tls: tls,
      ledger_api_tls: tls,
    },
    timeouts: {
      handshake_timeout_secs: 30,
      message_timeout_secs: 120,
      connection_retry_attempts: 3,
      connection_retry_delay_secs: 5,
    },
    noise_retry: { per_attempt_timeout_secs: 5, max_attempts: 2, backoff_ms: 250 },
    reward_automation_interval_secs: 300,
    reward_max_creates: 100,
    reward_min_expiry_margin_secs: 120,
    keycloak:
      node.env.auth.insecure || keycloak === undefined
        ? null
        : { url: keycloak.url, realm: keycloak.realm, client_id: keycloak.clientId, username: null },
    auth0: null,
    test_mode: node.env.auth.insecure,
    version: DPM_VERSION,
    build_version: DPM_BUILD_VERSION,
  };
}

async function participantsStatus(node: DpmNode): Promise<unknown[]> {
  return Promise.all(
    node.state.peers.map(async (peer) => {
      if (peer.participant_id === node.participantId) {
        return {
          id: peer.participant_id,
          status: 'CurrentNode',
          version: DPM_VERSION,
          build_version: DPM_BUILD_VERSION,
        };
      }
      const started = performance.now();
      try {
        const reply = await node.send(peer.participant_id, { type: 'health' });
        if (reply.type !== 'health') return { id: peer.participant_id, status: 'HandshakeFailed' };
        return {
          id: peer.participant_id,
          status: 'Connected',
          latency_ms: Math.round(performance.now() - started),
          ...(reply.workflow !== undefined ? { workflow: reply.workflow } : {}),
          version: reply.version,
          build_version: reply.buildVersion,
        };
      } catch (error) {
        if (!(error instanceof MeshError)) throw error;
        const unreachable = error.kind === 'tcp_connect_failed' || error.kind === 'tcp_connect_timeout';
        return { id: peer.participant_id, status: unreachable ? 'Unreachable' : 'HandshakeFailed' };
      }
    }),
  );
}

function partyConfigResponse(node: DpmNode, partyId: string): unknown {
  const row = node.state.party_credentials.find((c) => c.dec_party_id === partyId);
  const keycloak = node.env.auth.keycloak;
  if (row === undefined) {
    return {
      dec_party_id: partyId,
      keycloak_url: keycloak?.url ?? '',
      keycloak_realm: keycloak?.realm ?? '',
      keycloak_client_id: '',
      has_client_secret: false,
      has_username: false,
      has_password: false,
      has_auth0_client_secret: false,
      packages: PACKAGE_CONFIG,
    };
  }
  return {
    dec_party_id: row.dec_party_id,
    member_party_id: row.member_party_id,
    user_id: row.user_id,
    keycloak_url: row.keycloak_url,
    keycloak_realm: row.keycloak_realm,
    keycloak_client_id: row.keycloak_client_id,
    has_client_secret: row.keycloak_client_secret !== undefined,
    has_username: row.keycloak_username !== undefined,
    has_password: row.keycloak_password !== undefined,
    ...(row.auth0_domain !== undefined ? { auth0_domain: row.auth0_domain } : {}),
    ...(row.auth0_audience !== undefined ? { auth0_audience: row.auth0_audience } : {}),
    ...(row.auth0_client_id !== undefined ? { auth0_client_id: row.auth0_client_id } : {}),
    has_auth0_client_secret: row.auth0_client_secret !== undefined,
    packages: PACKAGE_CONFIG,
  };
}

/** omitted = keep the existing value, "" = clear it */
function merge(next: string | undefined, existing: string | undefined): string | undefined {
  if (next === undefined) return existing;
  return next === '' ? undefined : next;
}

function savePartyConfig(node: DpmNode, body: PartyConfigRequest): ReturnType<typeof json> {
  const existing = node.state.party_credentials.find((c) => c.dec_party_id === body.dec_party_id);
  const row: PartyCredentials = {
    dec_party_id: body.dec_party_id,
    member_party_id: body.member_party_id,
    user_id: body.user_id,
    keycloak_url: body.keycloak_url ?? '',
    keycloak_realm: body.keycloak_realm ?? '',
    keycloak_client_id: body.keycloak_client_id ?? '',
  };
  const set = (key: keyof PartyCredentials, value: string | undefined): void => {
    if (value !== undefined) row[key] = value;
  };
  const auth0Domain = body.auth0_domain ?? '';
  if (auth0Domain !== '') {
    if ((body.auth0_audience ?? '') === '') return jsonError(400, 'auth0_audience is required');
    if ((body.auth0_client_id ?? '') === '') return jsonError(400, 'auth0_client_id is required');
    const freshSecret = (body.auth0_client_secret ?? '') !== '';
    if (existing?.auth0_domain !== undefined && existing.auth0_domain !== auth0Domain && !freshSecret) {
      return jsonError(
        400,
        'auth0_domain changed; resubmit with a fresh auth0_client_secret in the same request',
      );
    }
    const secret = merge(body.auth0_client_secret, existing?.auth0_client_secret);
    if (secret === undefined)
      return jsonError(400, 'auth0_client_secret is required for first-time Auth0 setup');
    set('auth0_domain', auth0Domain);
    set('auth0_audience', body.auth0_audience);
    set('auth0_client_id', body.auth0_client_id);
    set('auth0_client_secret', secret);
  } else {
    if (
      !node.env.auth.insecure &&
      (row.keycloak_url === '' || row.keycloak_realm === '' || row.keycloak_client_id === '')
    ) {
      return jsonError(
        400,
        'keycloak_url, keycloak_realm, and keycloak_client_id are required (or supply auth0_domain to use the Auth0 path)',
      );
    }
    const freshSecret = (body.keycloak_client_secret ?? '') !== '';
    const freshLogin = (body.keycloak_username ?? '') !== '' && (body.keycloak_password ?? '') !== '';
    if (existing !== undefined && existing.keycloak_url !== row.keycloak_url && !freshSecret && !freshLogin) {
      return jsonError(
        400,
        'keycloak_url changed; resubmit with a fresh keycloak_client_secret (or keycloak_username + keycloak_password) in the same request',
      );
    }
  }
  set('keycloak_client_secret', merge(body.keycloak_client_secret, existing?.keycloak_client_secret));
  set('keycloak_username', merge(body.keycloak_username, existing?.keycloak_username));
  set('keycloak_password', merge(body.keycloak_password, existing?.keycloak_password));
  node.state.party_credentials = [...node.state.party_credentials.filter((c) => c !== existing), row];
  node.save();
  return json(200, { success: true });
}
