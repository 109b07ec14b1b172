/**
 * DpmClient against a real loopback HTTP server answering with bodies written from the reference
 * (docs/reference/dpm-api.md), not from the published mock fixtures.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.js';
import { DpmClient, checkQuery } from './dpm.js';
import { DPM_ERROR_RULES } from './dpm-errors.js';
import {
  DPM_ROUTES,
  WORKFLOW_KINDS,
  WORKFLOW_STEPS,
  routeRequestSchemas,
  routeResponseSchemas,
  routeSuccessStatus,
} from './dpm-wire.js';
import { HttpService } from './http.js';

const ns = (byte: string) => `1220${byte.repeat(32)}`;
const NODE1 = `node1::${ns('a1')}`;
const NODE2 = `node2::${ns('b2')}`;
const NODE3 = `node3::${ns('c3')}`;
const PARTY = `acme::${ns('d4')}`;
const MEMBER = `acme-member::${ns('e5')}`;
const OPERATOR = `operator::${ns('f6')}`;
const KEY1 = `02${'1a'.repeat(32)}`;
const KEY2 = `03${'2b'.repeat(32)}`;

interface Answer {
  status: number;
  body?: unknown;
  /** raw text with this content type instead of JSON */
  text?: { type: string; value: string };
}
interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

let server: Server;
let baseUrl: string;
let answer: Answer = { status: 200, body: {} };
const seen: Seen[] = [];
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString(),
      });
      if (answer.text) {
        res.writeHead(answer.status, { 'content-type': answer.text.type });
        res.end(answer.text.value);
      } else {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await agent.close();
});
beforeEach(() => {
  seen.length = 0;
  answer = { status: 200, body: {} };
});

function client(): DpmClient {
  return new DpmClient(
    new HttpService({ service: 'dpm:node1', baseUrl, dispatcher: agent, timeoutMs: 5000 }),
  );
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

// --- bodies from the reference ----------------------------------------------------------------------------------

const packageDefaults = {
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
const tls = { enabled: false, ca_cert: null, client_cert: null, client_key: null, domain: null };
const nodeConfig = {
  node: { participant_id: NODE1, listen_address: '0.0.0.0', port: 9000, public_address: null },
  canton: {
    admin_api_host: '127.0.0.1',
    admin_api_port: 5002,
    ledger_api_host: '127.0.0.1',
    ledger_api_port: 5001,
    synchronizer: 'global',
    network: 'devnet',
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
  keycloak: { url: 'http://127.0.0.1:8081/auth', realm: 'decpm', client_id: 'decpm-node1', username: null },
  auth0: null,
  test_mode: false,
  version: '0.1.10',
  build_version: '0.1.10-dev',
};
const peers = [
  { participant_id: NODE1, name: 'node1', address: '127.0.0.1', port: 9001, public_key: KEY1 },
  { participant_id: NODE2, name: 'node2', address: '127.0.0.1', port: 9002, public_key: KEY2, party: null },
];
const partyConfig = {
  dec_party_id: PARTY,
  member_party_id: MEMBER,
  user_id: 'svc-decman',
  keycloak_url: 'http://127.0.0.1:8081/auth',
  keycloak_realm: 'decpm',
  keycloak_client_id: 'decpm-node1',
  has_client_secret: true,
  has_username: false,
  has_password: false,
  has_auth0_client_secret: false,
  packages: packageDefaults,
};
const parties = {
  parties: [
    {
      party_id: PARTY,
      threshold: 2,
      owners: [KEY1, KEY2],
      my_owner_key: KEY1,
      participants: [
        { participant_uid: NODE1, permission: 'submission', owner_key: KEY1 },
        { participant_uid: NODE2, permission: 'confirmation' },
      ],
      contracts: [
        {
          contract_id: '00aa',
          template_id: 'Governance.Rules:GovernanceRules',
          package_id: 'ab'.repeat(32),
          package_name: 'governance-core',
          package_version: '0.2.0',
          created_at: '2026-05-01T10:00:00Z',
        },
      ],
      local_metadata: { annotations: {} },
    },
  ],
  source: 'live',
  refreshing: false,
};
const started = (message: string, instance: string) => ({
  status: 'inprogress',
  message,
  instance_name: instance,
});
const run = {
  instance_name: 'acme-creation',
  kind: 'Onboarding',
  role: 'Coordinator',
  status: 'inprogress',
  current_step: WORKFLOW_STEPS.Onboarding[3],
  step_index: 3,
  step_total: WORKFLOW_STEPS.Onboarding.length,
  config_json: JSON.stringify({
    party_id_prefix: 'acme',
    instance_name: 'acme-creation',
    threshold: 2,
    _p: null,
  }),
  expected_peers: [NODE2, NODE3],
  completed_peers: [NODE2],
  prefix: 'acme',
  participants: [NODE2, NODE3],
  new_threshold: 2,
  dismissed: false,
  created_at: 1782119593,
  updated_at: 1782119693,
};
const peerRun = {
  ...run,
  instance_name: `peer-onboarding-${KEY1.slice(0, 16)}-acme-creation`,
  role: 'Peer',
  current_step: 'Active',
  step_index: 0,
  completed_peers: [],
  coordinator_pubkey: KEY1,
  coordinator_instance: 'acme-creation',
  coordinator_name: null,
  error: null,
};
const invitation = {
  id: `onboarding-${KEY1.slice(0, 16)}-acme-creation`,
  invitation_type: 'Onboarding',
  coordinator_pubkey: KEY1,
  coordinator_name: null,
  received_at: 1782119594,
  prefix: 'acme',
  participants: [NODE2, NODE3],
  new_threshold: 2,
  workflow_instance: 'acme-creation',
};
const dar = {
  filename: 'wrapped-1.2.1.dar',
  data: Buffer.from('PK\u0003\u0004dar bytes').toString('base64'),
};

interface Case {
  name: string;
  call: (c: DpmClient) => Promise<unknown>;
  method: string;
  url: string;
  body?: unknown;
  answer: Answer;
}

const CASES: Case[] = [
  {
    name: 'healthz',
    call: (c) => c.healthz(),
    method: 'GET',
    url: '/healthz',
    answer: { status: 200, body: { status: 'ok' } },
  },
  {
    name: 'authConfig',
    call: (c) => c.authConfig(),
    method: 'GET',
    url: '/auth-config',
    answer: {
      status: 200,
      body: {
        auth_required: true,
        keycloak_host: 'http://127.0.0.1:8081/auth',
        keycloak_realm: 'decpm',
        keycloak_client_id: 'decpm-node1',
      },
    },
  },
  {
    name: 'nodeConfig',
    call: (c) => c.nodeConfig(),
    method: 'GET',
    url: '/node-config',
    answer: { status: 200, body: nodeConfig },
  },
  {
    name: 'keysStatus',
    call: (c) => c.keysStatus(),
    method: 'GET',
    url: '/keys/status',
    answer: { status: 200, body: { has_keys: true, public_key: KEY1 } },
  },
  {
    name: 'networkConfig',
    call: (c) => c.networkConfig(),
    method: 'GET',
    url: '/network-config',
    answer: { status: 200, body: { peers } },
  },
  {
    name: 'setNetworkConfig',
    call: (c) => c.setNetworkConfig([peers[0]!, { ...peers[1]!, party: null }]),
    method: 'POST',
    url: '/network-config',
    body: [peers[0], { ...peers[1], party: null }],
    answer: { status: 200, body: { success: true } },
  },
  {
    name: 'participantsStatus',
    call: (c) => c.participantsStatus(),
    method: 'GET',
    url: '/participants-status',
    answer: {
      status: 200,
      body: {
        statuses: [
          { id: NODE1, status: 'CurrentNode', version: '0.1.10', build_version: '0.1.10-dev' },
          {
            id: NODE2,
            status: 'Connected',
            latency_ms: 12,
            version: '0.1.10',
            workflow: { kind: 'Onboarding', role: 'Peer', step: 'SignDns', step_index: 3, step_total: 8 },
          },
          { id: NODE3, status: 'Unreachable' },
        ],
      },
    },
  },
  {
    name: 'partyConfig',
    call: (c) => c.partyConfig(PARTY),
    method: 'GET',
    url: `/party-config/${PARTY}`,
    answer: { status: 200, body: partyConfig },
  },
  {
    name: 'putPartyConfig',
    call: (c) =>
      c.putPartyConfig({
        dec_party_id: PARTY,
        member_party_id: MEMBER,
        user_id: 'svc-decman',
        keycloak_url: 'http://127.0.0.1:8081/auth',
        keycloak_realm: 'decpm',
        keycloak_client_id: 'decpm-node1',
        keycloak_client_secret: 'not-a-real-secret',
      }),
    method: 'PUT',
    url: '/party-config',
    body: {
      dec_party_id: PARTY,
      member_party_id: MEMBER,
      user_id: 'svc-decman',
      keycloak_url: 'http://127.0.0.1:8081/auth',
      keycloak_realm: 'decpm',
      keycloak_client_id: 'decpm-node1',
      keycloak_client_secret: 'not-a-real-secret',
    },
    answer: { status: 200, body: { success: true } },
  },
  {
    name: 'decentralizedParties',
    call: (c) => c.decentralizedParties({ prefix: 'acme', refresh: true }),
    method: 'GET',
    url: '/decentralized-parties?prefix=acme&refresh=true',
    answer: { status: 200, body: parties },
  },
  {
    name: 'decentralizedParties (cached, all)',
    call: (c) => c.decentralizedParties(),
    method: 'GET',
    url: '/decentralized-parties',
    answer: { status: 200, body: { parties: [], source: 'cache', refreshing: true } },
  },
  {
    name: 'startOnboarding',
    call: (c) => c.startOnboarding({ party_id_prefix: 'acme', peer_ids: [NODE2, NODE3], threshold: 2 }),
    method: 'POST',
    url: '/onboarding',
    body: { party_id_prefix: 'acme', peer_ids: [NODE2, NODE3], threshold: 2 },
    answer: { status: 202, body: started('Onboarding workflow started', 'acme-creation') },
  },
  {
    name: 'startKick',
    call: (c) =>
      c.startKick({
        decentralized_party_id: PARTY,
        participant_id: NODE3,
        new_threshold: 1,
        previous_threshold: 2,
      }),
    method: 'POST',
    url: '/kick',
    body: { decentralized_party_id: PARTY, participant_id: NODE3, new_threshold: 1, previous_threshold: 2 },
    answer: { status: 202, body: started('Kick workflow started', 'acme-kick-1782119593') },
  },
  {
    name: 'startAddParty',
    call: (c) =>
      c.startAddParty({ decentralized_party_id: PARTY, new_participant_id: NODE3, new_threshold: 2 }),
    method: 'POST',
    url: '/add-party',
    body: { decentralized_party_id: PARTY, new_participant_id: NODE3, new_threshold: 2 },
    answer: { status: 202, body: started('Add-party workflow started', 'acme-add-party-1782119593') },
  },
  {
    name: 'startChangeThreshold',
    call: (c) => c.startChangeThreshold({ decentralized_party_id: PARTY, new_threshold: 3 }),
    method: 'POST',
    url: '/change-threshold',
    body: { decentralized_party_id: PARTY, new_threshold: 3 },
    answer: {
      status: 202,
      body: started('Change-threshold workflow started', 'acme-change-threshold-1782119593'),
    },
  },
  {
    name: 'startContracts',
    call: (c) =>
      c.startContracts({
        decentralized_party_id: PARTY,
        participant_ids: [NODE1, NODE2],
        participant_parties: [MEMBER, MEMBER],
        operator_party: OPERATOR,
        contracts: [
          {
            id: 'rules',
            name: 'governance-core',
            package_id: '#governance-core-v1',
            module_name: 'Governance.Rules',
            entity_name: 'GovernanceRules',
            fields: [{ type: 'decentralized_party' }, { type: 'governance_threshold', value: 2 }],
          },
        ],
      }),
    method: 'POST',
    url: '/contracts',
    body: {
      decentralized_party_id: PARTY,
      participant_ids: [NODE1, NODE2],
      participant_parties: [MEMBER, MEMBER],
      operator_party: OPERATOR,
      contracts: [
        {
          id: 'rules',
          name: 'governance-core',
          package_id: '#governance-core-v1',
          module_name: 'Governance.Rules',
          entity_name: 'GovernanceRules',
          fields: [{ type: 'decentralized_party' }, { type: 'governance_threshold', value: 2 }],
        },
      ],
    },
    answer: { status: 202, body: started('Contracts workflow started', 'acme-contracts-1782119593') },
  },
  {
    name: 'distributeDars',
    call: (c) => c.distributeDars({ dar_files: [dar], peer_ids: [NODE2] }),
    method: 'POST',
    url: '/dars/distribute',
    body: { dar_files: [dar], peer_ids: [NODE2] },
    answer: {
      status: 202,
      body: started('DARs distribution workflow started', 'dars-distribute-1782119593'),
    },
  },
  {
    name: 'uploadDars',
    call: (c) => c.uploadDars({ dar_files: [dar] }),
    method: 'POST',
    url: '/dars/upload',
    body: { dar_files: [dar] },
    answer: { status: 200, body: { success: true } },
  },
  {
    name: 'workflows',
    call: (c) => c.workflows(),
    method: 'GET',
    url: '/workflows',
    answer: { status: 200, body: { runs: [run, peerRun] } },
  },
  {
    name: 'cancelWorkflow',
    call: (c) => c.cancelWorkflow('acme-creation'),
    method: 'POST',
    url: '/workflows/acme-creation/cancel',
    answer: { status: 200, body: { message: 'Onboarding workflow cancelled' } },
  },
  {
    name: 'dismissWorkflow',
    call: (c) => c.dismissWorkflow('acme-creation'),
    method: 'POST',
    url: '/workflows/acme-creation/dismiss',
    answer: { status: 200, body: { message: 'workflow acme-creation dismissed' } },
  },
  {
    name: 'retryWorkflow',
    call: (c) => c.retryWorkflow('acme-creation'),
    method: 'POST',
    url: '/workflows/acme-creation/retry',
    answer: { status: 200, body: { message: 'Retrying workflow acme-creation from step SignDns' } },
  },
  {
    name: 'legacyStatus',
    call: (c) => c.legacyStatus('Dars'),
    method: 'GET',
    url: '/dars/distribute/status',
    answer: { status: 200, body: { status: 'idle' } },
  },
  {
    name: 'legacyCancel',
    call: (c) => c.legacyCancel('AddParty'),
    method: 'POST',
    url: '/add-party/cancel',
    answer: { status: 200, body: { message: 'Add-party workflow cancelled' } },
  },
  {
    name: 'invitations',
    call: (c) => c.invitations(),
    method: 'GET',
    url: '/invitations',
    answer: { status: 200, body: { invitations: [invitation] } },
  },
  {
    name: 'acceptInvitation',
    call: (c) => c.acceptInvitation(invitation.id),
    method: 'POST',
    url: '/invitations/accept',
    body: { id: invitation.id },
    answer: { status: 200, body: { message: 'Invitation accepted' } },
  },
  {
    name: 'declineInvitation',
    call: (c) => c.declineInvitation(invitation.id),
    method: 'POST',
    url: '/invitations/decline',
    body: { id: invitation.id },
    answer: { status: 200, body: { message: 'Invitation declined' } },
  },
  {
    name: 'vettedPackages',
    call: (c) => c.vettedPackages(),
    method: 'GET',
    url: '/packages/vetted',
    answer: {
      status: 200,
      body: [
        { package_id: 'ab'.repeat(32), package_name: 'wrapped', package_version: '1.2.1' },
        { package_id: 'cd'.repeat(32), package_name: '', package_version: '' },
      ],
    },
  },
  {
    name: 'comparePeers',
    call: (c) => c.comparePeers(),
    method: 'GET',
    url: '/packages/compare-peers',
    answer: {
      status: 200,
      body: {
        local_packages: [{ package_id: 'ab'.repeat(32), name: 'wrapped', version: '1.2.1' }],
        peers: [
          {
            participant_id: NODE2,
            name: 'node2',
            reachable: true,
            packages: [{ package_id: 'ab'.repeat(32), name: 'wrapped', version: '1.2.1' }],
          },
          {
            participant_id: NODE3,
            name: 'node3',
            reachable: false,
            error_kind: 'tcp_connect_failed',
            packages: [],
          },
        ],
      },
    },
  },
  {
    name: 'packages',
    call: (c) => c.packages(),
    method: 'GET',
    url: '/packages',
    answer: { status: 200, body: packageDefaults },
  },
  {
    name: 'authStatus',
    call: (c) => c.authStatus(),
    method: 'GET',
    url: '/auth/status',
    answer: {
      status: 200,
      body: {
        parties: [
          {
            dec_party_id: PARTY,
            member_party_id: MEMBER,
            user_id: 'svc-decman',
            keycloak_url: 'http://127.0.0.1:8081/auth',
            keycloak_realm: 'decpm',
            status: { status: 'authenticated' },
            rights: {
              member_party_act_as: true,
              member_party_read_as: true,
              dec_party_act_as: true,
              dec_party_read_as: true,
            },
          },
          {
            dec_party_id: PARTY,
            member_party_id: MEMBER,
            user_id: 'svc-other',
            status: { status: 'failed', error: 'token exchange failed (401)' },
          },
        ],
      },
    },
  },
  {
    name: 'authTest',
    call: (c) => c.authTest(),
    method: 'POST',
    url: '/auth/test',
    answer: {
      status: 200,
      body: { results: [{ party_id: MEMBER, success: false, error: 'token exchange failed' }] },
    },
  },
  {
    name: 'governanceState',
    call: (c) => c.governanceState(PARTY),
    method: 'GET',
    url: `/governance/state?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: {
        state: {
          contract_id: '00aa',
          vault_manager: PARTY,
          members: [PARTY, MEMBER],
          threshold: 1,
          action_confirmation_timeout_microseconds: 86400000000,
          package_ref: '#governance-core-v1',
          out_of_date: false,
        },
      },
    },
  },
  {
    name: 'governanceConfirmations',
    call: (c) => c.governanceConfirmations(PARTY),
    method: 'GET',
    url: `/governance/confirmations?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: {
        actions: [
          {
            action_hash: 'ff'.repeat(32),
            action: { type: 'governance_set_threshold', new_threshold: 2 },
            confirmations: [
              {
                contract_id: '00bb',
                action: { type: 'governance_set_threshold', new_threshold: 2 },
                confirming_party: MEMBER,
                created_at: 1782119593,
                expires_at: 0,
              },
            ],
            confirmation_count: 1,
            can_execute: false,
            last_confirmation_at: 1782119593,
          },
        ],
        threshold: 2,
        member_party_id: MEMBER,
        rules_contract_id: '00aa',
        gov_core_out_of_date: false,
      },
    },
  },
  {
    name: 'governanceKnownMembers',
    call: (c) => c.governanceKnownMembers(PARTY),
    method: 'GET',
    url: `/governance/known-members?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: {
        members: [
          { participant_uid: NODE1, member_party_id: MEMBER },
          { participant_uid: NODE2, member_party_id: null },
        ],
      },
    },
  },
  {
    name: 'governanceAudit',
    call: (c) => c.governanceAudit(PARTY, { limit: 5, offset: 10 }),
    method: 'GET',
    url: `/governance/audit?party_id=${encodeURIComponent(PARTY)}&limit=5&offset=10`,
    answer: {
      status: 200,
      body: {
        entries: [
          {
            id: 3,
            timestamp: 1782119593,
            event_type: 'confirm',
            party_id: PARTY,
            member_party_id: MEMBER,
            governance_type: 'core_self',
            action_summary: 'governance_set_threshold',
            details: { new_threshold: 2 },
            status: 'success',
            error_message: null,
            created_at: 1782119593,
          },
        ],
        total_returned: 1,
      },
    },
  },
  {
    name: 'governanceChainAudit',
    call: (c) => c.governanceChainAudit(PARTY, { limit: 2, beforeOffset: 40, refresh: true }),
    method: 'GET',
    url: `/governance/chain-audit?party_id=${encodeURIComponent(PARTY)}&limit=2&before_offset=40&refresh=true`,
    answer: {
      status: 200,
      body: {
        entries: [
          {
            offset: 39,
            timestamp: 1782119593,
            event_type: 'execute',
            contract_id: '00ee',
            template_id: 'Governance.Rules:GovernanceRules',
            package_id: 'ab'.repeat(32),
            governance_type: 'core_self',
            action_summary: 'governance_set_threshold',
            choice: 'GovernanceRules_ExecuteSelfAction',
            acting_parties: [MEMBER],
            update_id: '1220' + 'cd'.repeat(32),
            details: {},
          },
        ],
        total_returned: 1,
        next_before_offset: 39,
      },
    },
  },
  {
    name: 'governanceMintRequests',
    call: (c) => c.governanceMintRequests(PARTY),
    method: 'GET',
    url: `/governance/mint-requests?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: {
        mint_requests: [
          {
            contract_id: '00f1',
            holder: OPERATOR,
            amount: '4',
            instrument_admin: PARTY,
            instrument_id: 'ALPHA',
            expires_at: 1782123193,
          },
        ],
      },
    },
  },
  {
    name: 'governanceBurnRequests',
    call: (c) => c.governanceBurnRequests(PARTY),
    method: 'GET',
    url: `/governance/burn-requests?party_id=${encodeURIComponent(PARTY)}`,
    answer: { status: 200, body: { burn_requests: [] } },
  },
  {
    name: 'governanceTransferInstructions',
    call: (c) => c.governanceTransferInstructions(PARTY),
    method: 'GET',
    url: `/governance/transfer-instructions?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: {
        transfer_instructions: [
          {
            contract_id: '00f2',
            sender: PARTY,
            receiver: OPERATOR,
            amount: '1.5',
            instrument_admin: PARTY,
            instrument_id: 'ALPHA',
            status: 'pending_receiver_acceptance',
            pending_actions: null,
            expires_at: 1782123193,
          },
        ],
      },
    },
  },
  {
    name: 'proposeGovernance',
    call: (c) =>
      c.proposeGovernance({
        party_id: PARTY,
        rules_contract_id: '00aa',
        proposal: { type: 'generic_vote', description: 'hello' },
      }),
    method: 'POST',
    url: '/governance/propose',
    body: {
      party_id: PARTY,
      rules_contract_id: '00aa',
      proposal: { type: 'generic_vote', description: 'hello' },
    },
    answer: { status: 200, body: { message: 'Proposal created' } },
  },
  {
    name: 'confirmGovernance',
    call: (c) =>
      c.confirmGovernance({
        party_id: PARTY,
        rules_contract_id: '00aa',
        governance_type: 'core_self',
        action: { type: 'governance_set_threshold', new_threshold: 2 },
      }),
    method: 'POST',
    url: '/governance/confirm',
    body: {
      party_id: PARTY,
      rules_contract_id: '00aa',
      governance_type: 'core_self',
      action: { type: 'governance_set_threshold', new_threshold: 2 },
    },
    answer: { status: 200, body: { message: 'Confirmation created' } },
  },
  {
    name: 'executeGovernance',
    call: (c) =>
      c.executeGovernance({
        party_id: PARTY,
        rules_contract_id: '00aa',
        governance_type: 'core_self',
        action: { type: 'governance_set_threshold', new_threshold: 2 },
        confirmation_cids: ['00b1', '00b2'],
      }),
    method: 'POST',
    url: '/governance/execute',
    body: {
      party_id: PARTY,
      rules_contract_id: '00aa',
      governance_type: 'core_self',
      action: { type: 'governance_set_threshold', new_threshold: 2 },
      confirmation_cids: ['00b1', '00b2'],
    },
    answer: { status: 200, body: { message: 'Action executed' } },
  },
  {
    name: 'expireGovernance',
    call: (c) => c.expireGovernance({ party_id: PARTY, rules_contract_id: '00aa', confirmation_cid: '00b1' }),
    method: 'POST',
    url: '/governance/expire',
    body: { party_id: PARTY, rules_contract_id: '00aa', confirmation_cid: '00b1' },
    answer: { status: 200, body: { message: 'Confirmation expired' } },
  },
  {
    name: 'cancelGovernance',
    call: (c) => c.cancelGovernance({ party_id: PARTY, confirmation_cid: '00b1' }),
    method: 'POST',
    url: '/governance/cancel',
    body: { party_id: PARTY, confirmation_cid: '00b1' },
    answer: { status: 200, body: { message: 'Confirmation cancelled' } },
  },
  {
    name: 'cancelProposal',
    call: (c) => c.cancelProposal({ party_id: PARTY, proposal_cid: '00c1' }),
    method: 'POST',
    url: '/governance/cancel-proposal',
    body: { party_id: PARTY, proposal_cid: '00c1' },
    answer: { status: 200, body: { message: 'Proposal cancelled' } },
  },
  {
    name: 'grantRights',
    call: (c) =>
      c.grantRights({ dec_party_id: PARTY, admin_client_id: 'ci', admin_client_secret: 'not-a-real-secret' }),
    method: 'POST',
    url: '/auth/grant-rights',
    body: { dec_party_id: PARTY, admin_client_id: 'ci', admin_client_secret: 'not-a-real-secret' },
    answer: {
      status: 200,
      body: {
        rights: {
          member_party_act_as: true,
          member_party_read_as: true,
          dec_party_act_as: true,
          dec_party_read_as: true,
        },
      },
    },
  },
  {
    name: 'discoverMemberParty',
    call: (c) => c.discoverMemberParty({ keycloak_client_id: 'acme', keycloak_client_secret: 'x' }),
    method: 'POST',
    url: '/party-config/discover-member-party',
    body: { keycloak_client_id: 'acme', keycloak_client_secret: 'x' },
    answer: { status: 200, body: { user_id: 'service-account-acme', primary_party: MEMBER } },
  },
  {
    name: 'instruments',
    call: (c) => c.instruments(PARTY),
    method: 'GET',
    url: `/instruments?party_id=${encodeURIComponent(PARTY)}`,
    answer: {
      status: 200,
      body: { instruments: [{ contract_id: '00cc', instrument_admin: PARTY, instrument_id: 'ALPHA' }] },
    },
  },
];

describe('DpmClient: one method per route', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    answer = c.answer;
    const result = await c.call(client());
    expect(result).toEqual(c.answer.body);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: c.method, url: c.url });
    if (c.body === undefined) {
      expect(seen[0]?.body).toBe('');
    } else {
      expect(seen[0]?.contentType).toBe('application/json');
      expect(JSON.parse(seen[0]?.body ?? '')).toEqual(c.body);
    }
  });

  it('every route of the table has a client method exercised here', () => {
    const called = new Set(CASES.map((c) => c.name.split(' ')[0]));
    for (const name of Object.keys(DPM_ROUTES)) expect(called.has(name), name).toBe(true);
  });

  it('legacy routes cover every kind', async () => {
    const urls: string[] = [];
    for (const kind of WORKFLOW_KINDS) {
      answer = { status: 200, body: { status: 'inprogress' } };
      await client().legacyStatus(kind);
      answer = { status: 200, body: { message: 'cancelled' } };
      await client().legacyCancel(kind);
    }
    for (const s of seen) urls.push(`${s.method} ${s.url}`);
    expect(urls).toEqual([
      'GET /onboarding/status',
      'POST /onboarding/cancel',
      'GET /kick/status',
      'POST /kick/cancel',
      'GET /contracts/status',
      'POST /contracts/cancel',
      'GET /dars/distribute/status',
      'POST /dars/cancel',
      'GET /add-party/status',
      'POST /add-party/cancel',
      'GET /change-threshold/status',
      'POST /change-threshold/cancel',
    ]);
  });
});

describe('DpmClient: decoding', () => {
  it('a body of another shape is a permanent unexpected response naming the pointer', async () => {
    answer = {
      status: 200,
      body: {
        ...parties,
        parties: [
          { ...parties.parties[0], participants: [{ participant_uid: NODE1, permission: 'Submission' }] },
        ],
      },
    };
    const error = await failure(client().decentralizedParties());
    expect(error.retryability).toBe('permanent');
    expect(error.message).toBe(
      'dpm:node1 GET /decentralized-parties → 200: unexpected response: /parties/0/participants/0/permission must be one of "submission", "confirmation", "observation", "unknown"',
    );
  });

  it('missing and null are both accepted for Option fields; a missing required field is not', async () => {
    answer = { status: 200, body: { has_keys: false } };
    await expect(client().keysStatus()).resolves.toEqual({ has_keys: false });
    answer = { status: 200, body: { has_keys: false, public_key: null } };
    await expect(client().keysStatus()).resolves.toEqual({ has_keys: false, public_key: null });
    answer = { status: 200, body: { public_key: null } };
    expect((await failure(client().keysStatus())).serviceMessage).toBe(
      'unexpected response: /has_keys is missing',
    );
  });

  it('extra fields from a newer server pass through', async () => {
    answer = { status: 200, body: { status: 'ok', uptime_secs: 12 } };
    await expect(client().healthz()).resolves.toEqual({ status: 'ok', uptime_secs: 12 });
  });

  it('the web UI answering a GET is explained', async () => {
    answer = {
      status: 200,
      text: { type: 'text/html; charset=utf-8', value: '<!doctype html><title>DPM</title>' },
    };
    const error = await failure(client().workflows());
    expect(error.serviceMessage).toBe(
      'unexpected response: expected a JSON body, got text/html; charset=utf-8',
    );
    expect(error.hint).toMatch(/web UI/);
  });
});

describe('DpmClient: requests are checked before anything is sent', () => {
  it('refuses an id whose namespace is not 68 hex digits', async () => {
    const error = await failure(
      client().startOnboarding({ party_id_prefix: 'acme', peer_ids: [`node2::1220${'b2'.repeat(30)}`] }),
    );
    expect(seen).toHaveLength(0);
    expect(error.retryability).toBe('permanent');
    expect(error.message).toMatch(
      /^dpm:node1 POST \/onboarding → request not sent: \/peer_ids\/0 must match pattern/,
    );
  });

  it('refuses a bad prefix, a threshold below 1, and a distribution without peers', async () => {
    await failure(client().startOnboarding({ party_id_prefix: '1acme', peer_ids: [NODE2] }));
    await failure(client().startChangeThreshold({ decentralized_party_id: PARTY, new_threshold: 0 }));
    const error = await failure(client().distributeDars({ dar_files: [dar], peer_ids: [] }));
    expect(error.serviceMessage).toBe('request not sent: /peer_ids must NOT have fewer than 1 items');
    expect(seen).toHaveLength(0);
  });

  it('refuses fields the server would reject as unknown (deny_unknown_fields)', async () => {
    const request = { decentralized_party_id: PARTY, new_threshold: 2, note: 'x' } as unknown as Parameters<
      DpmClient['startChangeThreshold']
    >[0];
    const error = await failure(client().startChangeThreshold(request));
    expect(error.serviceMessage).toBe('request not sent: /note is not allowed here');
    expect(seen).toHaveLength(0);
  });
});

describe('DpmClient: idempotency per route', () => {
  const onUnavailable: ReadonlyArray<
    readonly [string, 'transient' | 'ambiguous', (c: DpmClient) => Promise<unknown>]
  > = [
    ['GET /workflows', 'transient', (c) => c.workflows()],
    ['POST /network-config', 'transient', (c) => c.setNetworkConfig(peers)],
    [
      'PUT /party-config',
      'transient',
      (c) => c.putPartyConfig({ dec_party_id: PARTY, member_party_id: MEMBER, user_id: 'u' }),
    ],
    ['POST /workflows/{i}/dismiss', 'transient', (c) => c.dismissWorkflow('acme-creation')],
    ['POST /auth/test', 'transient', (c) => c.authTest()],
    [
      'POST /onboarding',
      'ambiguous',
      (c) => c.startOnboarding({ party_id_prefix: 'acme', peer_ids: [NODE2] }),
    ],
    [
      'POST /kick',
      'ambiguous',
      (c) => c.startKick({ decentralized_party_id: PARTY, participant_id: NODE3, new_threshold: 1 }),
    ],
    ['POST /dars/distribute', 'ambiguous', (c) => c.distributeDars({ dar_files: [dar], peer_ids: [NODE2] })],
    ['POST /dars/upload', 'ambiguous', (c) => c.uploadDars({ dar_files: [dar] })],
    ['POST /invitations/accept', 'ambiguous', (c) => c.acceptInvitation('x')],
    ['POST /invitations/decline', 'ambiguous', (c) => c.declineInvitation('x')],
    ['POST /workflows/{i}/cancel', 'ambiguous', (c) => c.cancelWorkflow('acme-creation')],
    ['POST /workflows/{i}/retry', 'ambiguous', (c) => c.retryWorkflow('acme-creation')],
    ['POST /dars/cancel', 'ambiguous', (c) => c.legacyCancel('Dars')],
  ];

  it.each(onUnavailable)('%s answered 503 → %s', async (_route, expected, call) => {
    answer = { status: 503, text: { type: 'text/plain', value: 'Service Unavailable' } };
    expect((await failure(call(client()))).retryability).toBe(expected);
  });
});

describe('DpmClient: the DPM’s own errors get hints', () => {
  const versionGate = (blocking: string): { status: number; body: { error: string } } => ({
    status: 409,
    body: {
      error:
        'Cannot start the workflow: every invited peer must run dec-party-manager >= 0.1.9 (concurrent workflows changed the Noise wire format, older builds cannot participate). ' +
        `Blocking peer(s): ${blocking}. Upgrade or deselect them and retry.`,
    },
  });

  it('409 version gate, a peer older than 0.1.9 → permanent, with what to check', async () => {
    answer = versionGate(
      `${NODE2} (could not verify version: connection refused); ${NODE3} (running version 0.1.8)`,
    );
    const error = await failure(
      client().startKick({ decentralized_party_id: PARTY, participant_id: NODE3, new_threshold: 1 }),
    );
    expect(error).toMatchObject({ status: 409, retryability: 'permanent' });
    expect(error.serviceMessage).toContain(NODE3);
    expect(error.hint).toMatch(/unreachable or older than 0\.1\.9/);
    expect(error.hint).toMatch(/participants-status/);
  });

  it('409 version gate, every blocking peer only unreachable (restarting) → transient: nothing started', async () => {
    answer = versionGate(
      `${NODE3} (could not verify version: TCP connection failed: Connection refused (os error 111))`,
    );
    const error = await failure(
      client().startKick({ decentralized_party_id: PARTY, participant_id: NODE3, new_threshold: 1 }),
    );
    expect(error).toMatchObject({ status: 409, retryability: 'transient' });
    expect(error.hint).toMatch(/could not be reached to check its version/);
  });

  it('422 mesh pre-flight → the missing edges, and the body for the step', async () => {
    const body = {
      error: 'Could not verify a full peer mesh for the selected peers',
      missing_edges: [
        { from: NODE1, to: NODE3, kind: 'unreachable_from_coordinator' },
        { from: NODE2, to: NODE3, kind: 'mesh_hole' },
      ],
    };
    answer = { status: 422, body };
    const error = await failure(
      client().startOnboarding({ party_id_prefix: 'acme', peer_ids: [NODE2, NODE3] }),
    );
    expect(error.retryability).toBe('permanent');
    expect(error.body).toEqual(body);
    expect(error.hint).toContain(`the coordinator ${NODE1} cannot reach ${NODE3}`);
    expect(error.hint).toContain(`${NODE2} does not list ${NODE3}`);
    expect(error.hint).toMatch(/network-config/);
  });

  it('409 same party → the run in flight and how to cancel it', async () => {
    answer = {
      status: 409,
      body: {
        error: `Party ${PARTY} already has a Kick workflow in flight (run acme-kick-1782119593); wait for it to finish or cancel it first`,
      },
    };
    const error = await failure(
      client().startChangeThreshold({ decentralized_party_id: PARTY, new_threshold: 1 }),
    );
    expect(error.hint).toMatch(/^run acme-kick-1782119593 \(Kick\) is in flight/);
    expect(error.hint).toContain('POST /workflows/acme-kick-1782119593/cancel');
  });

  it('403 → the admin role', async () => {
    answer = { status: 403, body: { error: 'missing required role: dpm-admin' } };
    const error = await failure(client().acceptInvitation('x'));
    expect(error).toMatchObject({
      status: 403,
      retryability: 'permanent',
      serviceMessage: 'missing required role: dpm-admin',
    });
    expect(error.hint).toMatch(/admin role 'dpm-admin'/);
  });

  it('401 → issuer, azp and expiry', async () => {
    answer = { status: 401, body: { error: 'token is not active' } };
    const error = await failure(client().workflows());
    expect(error.hint).toMatch(/issuer/);
    expect(error.hint).toMatch(/azp/);
  });

  it('409 still initializing and bootstrap race are transient', async () => {
    answer = {
      status: 409,
      body: { error: 'Onboarding workflow is still initializing — try again in a moment' },
    };
    expect((await failure(client().cancelWorkflow('acme-creation'))).retryability).toBe('transient');
    answer = { status: 409, body: { error: 'bootstrap already in progress' } };
    expect(
      (await failure(client().putPartyConfig({ dec_party_id: PARTY, member_party_id: MEMBER, user_id: 'u' })))
        .retryability,
    ).toBe('transient');
  });

  it.each([
    [404, 'Invitation not found', /already accepted or declined/],
    [
      409,
      'Already participating in workflow run acme-creation from this coordinator',
      /already accepted run acme-creation/,
    ],
    [
      409,
      'Cannot retry a workflow in status Completed; only Failed runs can be retried',
      /this one is Completed/,
    ],
    [409, 'No in-flight workflow run named acme-creation', /not in flight/],
    [
      409,
      "A decentralized party with the prefix 'acme' already exists (acme::1220ab). Choose a different prefix.",
      /party acme::1220ab already uses/,
    ],
    [
      409,
      `Participant ${NODE3} is not present in cached decentralized party ${PARTY}, or its owner key has not yet been resolved. Try refreshing /decentralized-parties first.`,
      /refresh=true/,
    ],
  ])('%i %s', async (status, text, hint) => {
    answer = { status, body: { error: text } };
    const error = await failure(client().retryWorkflow('acme-creation'));
    expect(error.serviceMessage).toBe(text);
    expect(error.hint).toMatch(hint);
  });

  it.each([
    [401, 'No credentials configured for party', /PUT \/party-config/],
    [
      500,
      'Failed to fetch auth token for party: invalid_client',
      /log in with the party's saved credentials/,
    ],
    [
      500,
      `Failed to submit confirmation: status: PermissionDenied, message: "PERMISSION_DENIED(7,0a1b2c3d): user u cannot act as ${MEMBER}"`,
      /POST \/auth\/grant-rights/,
    ],
    [
      500,
      'Failed to execute action: status: NotFound, message: "CONTRACT_NOT_FOUND(11,0a1b2c3d): Contract could not be found with id 00ab"',
      /current rules_contract_id/,
    ],
    [
      500,
      'Failed to create proposal: status: NotFound, message: "PACKAGE_NAMES_NOT_FOUND(11,0a1b2c3d): The following package names do not match upgradable packages uploaded on this participant: [bitsafe-vault-governance-v0-rc8]."',
      /dpm\.distribute-dars/,
    ],
  ])('governance %i %s', async (status, text, hint) => {
    answer = { status, body: { error: text } };
    const error = await failure(
      client().confirmGovernance({
        party_id: PARTY,
        rules_contract_id: '00ab',
        governance_type: 'core_self',
        action: { type: 'governance_set_threshold', new_threshold: 2 },
      }),
    );
    expect(error.serviceMessage).toBe(text);
    expect(error.hint).toMatch(hint);
  });

  it.each([
    'Failed to submit confirmation: status: Aborted, message: "LOCAL_VERDICT_LOCKED_CONTRACTS(2,0a1b2c3d): Rejected transaction is referring to locked contracts Set(ContractId(00ab))"',
    'Failed to execute action: status: NotFound, message: "CONTRACT_NOT_FOUND(11,0a1b2c3d): Contract could not be found with id 00ab"',
  ])(
    'a governance write that lost the race for the rules contract is contention: transient, paced (%s)',
    async (text) => {
      answer = { status: 500, body: { error: text } };
      const error = await failure(
        client().confirmGovernance({
          party_id: PARTY,
          rules_contract_id: '00ab',
          governance_type: 'core_self',
          action: { type: 'governance_set_threshold', new_threshold: 2 },
        }),
      );
      expect(error.retryability).toBe('transient');
      expect(error.backpressure).toEqual({});
    },
  );

  it('a 500 naming CONTRACT_NOT_FOUND outside the governance writes is no contention', async () => {
    answer = {
      status: 500,
      body: { error: 'Failed to grant rights: CONTRACT_NOT_FOUND(11,0a1b2c3d): Contract could not be found' },
    };
    const error = await failure(
      client().grantRights({ dec_party_id: PARTY, admin_client_id: 'a', admin_client_secret: 'b' }),
    );
    expect(error.backpressure).toBeUndefined();
    expect(error.hint ?? '').not.toMatch(/rules_contract_id/);
  });

  it('every rule has a distinct name', () => {
    const names = DPM_ERROR_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('dpm-wire route maps', () => {
  it('cover the client routes with their success status and request schemas', () => {
    expect(routeResponseSchemas['GET /workflows']).toBe(DPM_ROUTES.workflows.response);
    expect(routeResponseSchemas['GET /dars/distribute/status']).toBeDefined();
    expect(routeResponseSchemas['GET /operator-info']).toBeDefined();
    expect(routeSuccessStatus['POST /onboarding']).toBe(202);
    expect(routeSuccessStatus['POST /dars/distribute']).toBe(202);
    expect(routeSuccessStatus['GET /workflows']).toBeUndefined();
    expect(routeRequestSchemas['POST /network-config']).toBe(DPM_ROUTES.setNetworkConfig.request);
    expect(Object.keys(routeRequestSchemas).sort()).toEqual(
      [
        'POST /add-party',
        'POST /auth/grant-rights',
        'POST /change-threshold',
        'POST /contracts',
        'POST /dars/distribute',
        'POST /dars/upload',
        'POST /governance/cancel',
        'POST /governance/cancel-proposal',
        'POST /governance/confirm',
        'POST /governance/execute',
        'POST /governance/expire',
        'POST /governance/propose',
        'POST /invitations/accept',
        'POST /invitations/decline',
        'POST /kick',
        'POST /network-config',
        'POST /onboarding',
        'POST /party-config/discover-member-party',
        'PUT /party-config',
      ].sort(),
    );
  });
});

describe('query parameters, as contracts/dpm.openapi.yaml lists them', () => {
  it('a documented query passes; an undocumented or a missing required parameter is refused before anything is sent', () => {
    expect(() =>
      checkQuery(DPM_ROUTES.governanceChainAudit, { party_id: PARTY, limit: 2, refresh: undefined }),
    ).not.toThrow();
    expect(() => checkQuery(DPM_ROUTES.governanceState, { party: PARTY })).toThrow(
      'GET /governance/state: query parameter party is not in the DPM document; query parameter party_id is required',
    );
    expect(() => checkQuery(DPM_ROUTES.nodeConfig, { verbose: true })).toThrow(
      'query parameter verbose is not in the DPM document',
    );
  });
});
