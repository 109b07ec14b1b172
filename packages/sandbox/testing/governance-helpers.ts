/**
 * What the governance tests share, through the nodes' own APIs only: a decentralized party with GovernanceRules
 * on the ledger (mesh, onboarding, governance-core on every participant, party credentials, the ledger rights,
 * a Contracts run), and the reads of its governance state and confirmations on a node.
 */
import { expect } from 'vitest';
import {
  type Api,
  type World,
  acceptOn,
  bootstrapMesh,
  darFile,
  governanceRulesFields,
  grantRights,
  onboard,
  operatorPartyOf,
  waitForRun,
} from './helpers.js';

export interface GovernedParty {
  partyId: string;
  /** each node's member party, by node index */
  members: string[];
}

export interface GovernanceAction {
  action_hash: string;
  action: Record<string, unknown>;
  confirmations: Array<{
    contract_id: string;
    confirming_party: string;
    created_at: number;
    expires_at: number;
  }>;
  confirmation_count: number;
  can_execute: boolean;
  last_confirmation_at: number;
}

export interface DomainAction {
  proposal_cid: string;
  action_label: string;
  description?: string;
  confirmations: GovernanceAction['confirmations'];
  confirmation_count: number;
  can_execute: boolean;
  orphaned: boolean;
  proposer?: string;
}

export interface Confirmations {
  actions: GovernanceAction[];
  domain_actions?: DomainAction[];
  threshold: number;
  member_party_id?: string;
  rules_contract_id?: string;
  gov_core_out_of_date: boolean;
}

export interface GovernanceState {
  contract_id: string;
  vault_manager: string;
  members: string[];
  threshold: number;
  action_confirmation_timeout_microseconds?: number;
  out_of_date: boolean;
}

/** the party's credentials on every node: the CI client, whose ledger user is the node's service account */
export async function configureParty(world: World, partyId: string): Promise<void> {
  const keycloak = world.sandbox.urls.idp.issuer.replace(/\/realms\/[^/]+$/, '');
  for (const [i, api] of world.dpm.entries()) {
    const response = await api.put('/party-config', {
      dec_party_id: partyId,
      member_party_id: operatorPartyOf(world, i),
      user_id: 'service-account-ledgerbook-ci',
      keycloak_url: keycloak,
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-ci',
      keycloak_client_secret: world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
    });
    expect(response.status, response.text).toBe(200);
  }
}

/** contracts run of `definitions` for the party, coordinated by node1, accepted everywhere, completed */
export async function deployContracts(world: World, partyId: string, definitions: unknown[]): Promise<void> {
  await world.dpm[0]!.get('/decentralized-parties?refresh=true');
  const started = await world.dpm[0]!.post<{ instance_name: string }>('/contracts', {
    decentralized_party_id: partyId,
    participant_ids: world.participant,
    participant_parties: world.participant.map((_, i) => operatorPartyOf(world, i)),
    operator_party: operatorPartyOf(world, 0),
    contracts: definitions,
  });
  expect(started.status, started.text).toBe(202);
  const others = world.dpm.map((_, i) => i).filter((i) => i !== 0);
  await acceptOn(world, others, started.body.instance_name);
  const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed', 10_000).catch(
    async (error: Error) => {
      const rows = await world.dpm[0]!.get<{ runs: Array<{ instance_name: string; error?: string }> }>(
        '/workflows',
      );
      const row = rows.body.runs.find((r) => r.instance_name === started.body.instance_name);
      throw new Error(`${error.message}: ${row?.error ?? 'no error'}`);
    },
  );
  expect(run.status).toBe('completed');
}

export function rulesDefinition(members: string[], timeoutMicros?: number): Record<string, unknown> {
  return {
    id: 'governance-rules',
    name: 'governance-core',
    package_id: '#governance-core',
    module_name: 'Governance.Rules',
    entity_name: 'GovernanceRules',
    fields: governanceRulesFields(members, timeoutMicros),
  };
}

/** the registry's InstrumentConfiguration of an instrument the party issues (its mint and burn requests need it) */
export function instrumentDefinition(id: string): Record<string, unknown> {
  return {
    id: `instrument-${id}`,
    name: 'utility-registry',
    package_id: '#utility-registry-v0',
    module_name: 'Utility.Registry.V0.Configuration.Instrument',
    entity_name: 'InstrumentConfiguration',
    fields: [
      { type: 'operator_party' },
      { type: 'decentralized_party' },
      { type: 'instrument', id },
      { type: 'text', value: id },
      { type: 'text', value: id },
      { type: 'int64', value: 10 },
    ],
  };
}

/**
 * A party `prefix` of every node (threshold 2 by default) with GovernanceRules on the ledger: mesh, onboarding,
 * governance-core on every participant, credentials and rights on every node, one Contracts run.
 */
export async function governedParty(
  world: World,
  options: { prefix?: string; threshold?: number; timeoutMicros?: number; instrument?: string } = {},
): Promise<GovernedParty> {
  await bootstrapMesh(world);
  const party = await onboard(world, options.prefix ?? 'alpha', options.threshold ?? 2);
  for (const api of world.dpm) {
    const upload = await api.post('/dars/upload', { dar_files: [darFile('governance-core-0.2.0.dar')] });
    expect(upload.status, upload.text).toBe(200);
  }
  await configureParty(world, party.party_id);
  await grantRights(world, party.party_id);
  const members = world.participant.map((_, i) => operatorPartyOf(world, i));
  await deployContracts(world, party.party_id, [
    rulesDefinition(members, options.timeoutMicros),
    ...(options.instrument === undefined ? [] : [instrumentDefinition(options.instrument)]),
  ]);
  return { partyId: party.party_id, members };
}

export async function confirmationsOn(api: Api, partyId: string): Promise<Confirmations> {
  const response = await api.get<Confirmations>(`/governance/confirmations?party_id=${partyId}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function stateOn(api: Api, partyId: string): Promise<GovernanceState | null> {
  const response = await api.get<{ state: GovernanceState | null }>(`/governance/state?party_id=${partyId}`);
  expect(response.status, response.text).toBe(200);
  return response.body.state;
}

/** the current rules contract id, read fresh (it changes after every confirm and execute) */
export async function rulesId(api: Api, partyId: string): Promise<string> {
  const id = (await confirmationsOn(api, partyId)).rules_contract_id;
  expect(id, 'the party has a rules contract').toBeDefined();
  return id!;
}

export async function confirm(
  api: Api,
  partyId: string,
  action: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return api.post<{ message?: string; error?: string }>('/governance/confirm', {
    party_id: partyId,
    rules_contract_id: await rulesId(api, partyId),
    action,
    governance_type: 'core_self',
    ...extra,
  });
}
