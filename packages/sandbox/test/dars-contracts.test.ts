import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readUploadedDar } from '../src/participant-dar.js';
import {
  type PartyRecord,
  type World,
  acceptOn,
  bootstrapMesh,
  darFile,
  onboard,
  startWorld,
  waitFor,
  waitForInvitation,
  waitForRun,
  withoutWorldPackages,
  governanceRulesFields,
  grantRights,
} from '../testing/helpers.js';

const governanceDar = readUploadedDar(
  readFileSync(join(import.meta.dirname, '../../../playbooks/dars/governance-core-0.2.0.dar')),
);
const wrappedDar = readUploadedDar(
  readFileSync(join(import.meta.dirname, '../../../playbooks/dars/wrapped-1.2.1.dar')),
);

interface Vetted {
  package_id: string;
  package_name: string;
  package_version: string;
}

function keycloakUrl(world: World): string {
  return world.sandbox.urls.idp.issuer.replace(/\/realms\/ledgerbook$/, '');
}

function memberParty(world: World, i: number): string {
  return `member${i + 1}::${world.participant[i]!.split('::')[1]}`;
}

/** PUT /party-config on every node with the CI client's credentials */
async function configureParty(world: World, partyId: string): Promise<void> {
  for (const [i, api] of world.dpm.entries()) {
    const response = await api.put('/party-config', {
      dec_party_id: partyId,
      member_party_id: memberParty(world, i),
      user_id: `operator${i + 1}`,
      keycloak_url: keycloakUrl(world),
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-ci',
      keycloak_client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET,
    });
    expect(response.status, response.text).toBe(200);
  }
}

async function distribute(world: World, file: string): Promise<string> {
  const started = await world.dpm[0]!.post<{ instance_name: string; message: string }>('/dars/distribute', {
    dar_files: [darFile(file)],
    peer_ids: [world.participant[1], world.participant[2]],
  });
  expect(started.status, started.text).toBe(202);
  expect(started.body.message).toBe('DARs distribution workflow started');
  expect(started.body.instance_name).toMatch(/^dars-distribute-\d+$/);
  const card = await waitForInvitation(world.dpm[1]!, started.body.instance_name);
  expect(card).toMatchObject({
    invitation_type: 'Dars',
    dar_filenames: [file],
    participants: [world.participant[1], world.participant[2]],
  });
  expect(card).not.toHaveProperty('dec_party_id');
  await acceptOn(world, [1, 2], started.body.instance_name);
  await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
  return started.body.instance_name;
}

describe('DAR distribution and contracts deployment', () => {
  let world: World;
  let party: PartyRecord;
  beforeAll(async () => {
    world = await startWorld();
    await bootstrapMesh(world);
    party = await onboard(world, 'gov');
  });
  afterAll(async () => world.stop());

  it('distributes a DAR: every participant vets its packages, the coordinator last', async () => {
    const instance = await distribute(world, 'governance-core-0.2.0.dar');
    for (const api of world.dpm) {
      const vetted = await api.get<Vetted[]>('/packages/vetted');
      expect(Array.isArray(vetted.body)).toBe(true);
      expect(vetted.body).toContainEqual({
        package_id: governanceDar.mainPackageId,
        package_name: 'governance-core',
        package_version: '0.2.0',
      });
    }
    for (const api of world.ledger) {
      const packages = await api.get<{ packageIds: string[] }>('/v2/packages');
      expect(packages.body.packageIds).toContain(governanceDar.mainPackageId);
    }
    const row = (
      await world.dpm[0]!.get<{ runs: Array<Record<string, unknown>> }>('/workflows')
    ).body.runs.find((r) => r.instance_name === instance);
    expect(row).toMatchObject({
      kind: 'Dars',
      step_total: 3,
      step_index: 2,
      dar_filenames: ['governance-core-0.2.0.dar'],
    });
    expect(row).not.toHaveProperty('dec_party_id');
  });

  it('vets on the peers at UploadDars and on the coordinator only at Complete', async () => {
    const utility = readUploadedDar(
      readFileSync(join(import.meta.dirname, '../../../playbooks/dars/utility-registry-app-0.0.1.dar')),
    );
    // hold the coordinator at the door of Complete: it restarts there, before its own upload
    await world.admin.post('/faults', {
      kind: 'restart',
      node: 'node1',
      at: { workflow: 'Dars', step: 'Complete' },
      downMs: 300,
    });
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [darFile('utility-registry-app-0.0.1.dar')],
      peer_ids: [world.participant[1], world.participant[2]],
    });
    await acceptOn(world, [1, 2], started.body.instance_name);
    const uploaded = async (i: number): Promise<boolean> =>
      (await world.ledger[i]!.get<{ packageIds: string[] }>('/v2/packages')).body.packageIds.includes(
        utility.mainPackageId,
      );
    await waitFor('both peers to hold the package', async () => (await uploaded(1)) && (await uploaded(2)));
    // node1's DPM is down; its participant's ledger API is not, and it has no copy yet
    expect(await uploaded(0)).toBe(false);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect(await uploaded(0)).toBe(true);
    // the peers backed off while node1 was down, and still catch its Disconnect
    for (const i of [1, 2]) {
      await waitFor(`node${i + 1}'s peer row to complete`, async () => {
        const runs = (await world.dpm[i]!.get<{ runs: Array<Record<string, unknown>> }>('/workflows')).body
          .runs;
        return (
          runs.find((r) => r.coordinator_instance === started.body.instance_name)?.status === 'completed'
        );
      });
    }
  });

  it('answers compare-peers with every peer reachable and its uploaded packages', async () => {
    const response = await world.dpm[0]!.get<{
      local_packages: Array<{ package_id: string }>;
      peers: Array<{
        participant_id: string;
        reachable: boolean;
        packages: Array<{ package_id: string; name: string; version: string }>;
      }>;
    }>('/packages/compare-peers');
    expect(response.body.local_packages.map((p) => p.package_id)).toContain(governanceDar.mainPackageId);
    expect(response.body.peers.map((p) => p.participant_id).sort()).toEqual(
      [world.participant[1], world.participant[2]].sort(),
    );
    for (const peer of response.body.peers) {
      expect(peer.reachable).toBe(true);
      expect(peer).not.toHaveProperty('error_kind');
      expect(peer.packages).toContainEqual({
        package_id: governanceDar.mainPackageId,
        name: 'governance-core',
        version: '0.2.0',
      });
    }
  });

  it('leaves one participant without vetting under a vet-fails fault, and the workflow still completes', async () => {
    const added = await world.admin.post('/faults', { kind: 'vet-fails', node: 'node3' });
    expect(added.status).toBe(201);
    try {
      await distribute(world, 'wrapped-1.2.1.dar');
    } finally {
      await world.admin.call('DELETE', '/faults');
    }
    const ids = wrappedDar.packages.map((p) => p.packageId);
    for (const [i, api] of world.dpm.entries()) {
      const vetted = (await api.get<Vetted[]>('/packages/vetted')).body.map((p) => p.package_id);
      for (const id of ids) expect(vetted.includes(id), `node${i + 1} vetted ${id}`).toBe(i !== 2);
    }
    // uploaded but not vetted: the ledger API and compare-peers still list the packages on node3
    const uploaded = await world.ledger[2]!.get<{ packageIds: string[] }>('/v2/packages');
    expect(uploaded.body.packageIds).toEqual(expect.arrayContaining(ids));
  });

  it('fails a contracts run at once without party credentials (JWT mode)', async () => {
    await world.dpm[0]!.get('/decentralized-parties?refresh=true');
    const started = await world.dpm[0]!.post<{ instance_name: string }>(
      '/contracts',
      contractsRequest(world, party.party_id),
    );
    expect(started.status, started.text).toBe(202);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
    expect(run.error).toBe('Coordinator workflow failed: Auth not configured, cannot run contracts workflow');
    expect(run.current_step).toBe('WaitingForPeers');
  });

  it('deploys GovernanceRules after party-config: contracts listed, governance state non-null', async () => {
    await configureParty(world, party.party_id);
    await grantRights(world, party.party_id);
    const status = await world.dpm[0]!.get<{
      parties: Array<{ status: { status: string }; rights?: object }>;
    }>('/auth/status');
    expect(status.body.parties[0]?.status).toEqual({ status: 'authenticated' });

    const before = await world.dpm[0]!.get<{ state: unknown }>(
      `/governance/state?party_id=${party.party_id}`,
    );
    expect(before.body).toEqual({ state: null });

    const started = await world.dpm[0]!.post<{ instance_name: string; message: string }>(
      '/contracts',
      contractsRequest(world, party.party_id),
    );
    expect(started.status, started.text).toBe(202);
    expect(started.body.message).toBe('Contracts workflow started');
    expect(await waitForInvitation(world.dpm[2]!, started.body.instance_name)).toMatchObject({
      invitation_type: 'Contracts',
      dec_party_id: party.party_id,
      participants: [world.participant[1], world.participant[2]],
      package_names: ['governance-core'],
    });
    await acceptOn(world, [1, 2], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect(run).toMatchObject({
      step_total: 5,
      current_step: 'Complete',
      package_names: ['governance-core'],
    });

    const seen = await waitFor('the contract in the coordinator cache', async () => {
      const response = await world.dpm[0]!.get<{ parties: PartyRecord[] }>(
        '/decentralized-parties?prefix=gov',
      );
      return response.body.parties[0]?.contracts?.length ? response.body.parties[0] : undefined;
    });
    expect(seen.contracts?.[0]).toMatchObject({
      template_id: 'Governance.Rules:GovernanceRules',
      package_id: governanceDar.mainPackageId,
      package_name: 'governance-core',
      package_version: '0.2.0',
    });
    const state = await world.dpm[1]!.get<{ state: Record<string, unknown> | null }>(
      `/governance/state?party_id=${party.party_id}`,
    );
    expect(state.body.state).toMatchObject({
      contract_id: seen.contracts?.[0]?.contract_id,
      vault_manager: party.party_id,
      threshold: 2,
      out_of_date: false,
    });
    const confirmations = await world.dpm[0]!.get<Record<string, unknown>>(
      `/governance/confirmations?party_id=${party.party_id}`,
    );
    expect(confirmations.body).toMatchObject({
      actions: [],
      threshold: 2,
      rules_contract_id: seen.contracts?.[0]?.contract_id,
      member_party_id: memberParty(world, 0),
      gov_core_out_of_date: false,
    });
  });

  it('fails a contracts run whose package is not vetted on every hosting participant', async () => {
    const request = contractsRequest(world, party.party_id, {
      id: 'deposit',
      name: 'wrapped',
      package_id: '#wrapped',
      module_name: 'CBTC.DepositAccount',
      entity_name: 'CBTCDepositAccountRules',
      fields: [],
    });
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/contracts', request);
    expect(started.status, started.text).toBe(202);
    await acceptOn(world, [1, 2], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
    expect(run.error).toMatch(
      new RegExp(
        `^Coordinator workflow failed: PACKAGE_NOT_VETTED_BY_RECIPIENTS\\(9,0\\): Not all receiving participants have vetted a package .* is not vetted by ${world.participant[2]}$`,
      ),
    );
    expect(run.current_step).toBe('PrepareSubmissions');
  });

  it('fails a contracts run whose GovernanceRules definition leaves a field off: all five, in template order', async () => {
    const fields = governanceRulesFields(world.participant.map((_, i) => memberParty(world, i))).slice(0, 4);
    const request = contractsRequest(world, party.party_id, {
      id: 'rules',
      name: 'governance-core',
      package_id: '#governance-core',
      module_name: 'Governance.Rules',
      entity_name: 'GovernanceRules',
      fields,
    });
    await nextSecond(); // a run name is per second: the run before failed in this one, its peer rows live on
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/contracts', request);
    expect(started.status, started.text).toBe(202);
    await acceptOn(world, [1, 2], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
    expect(run.error).toBe(
      'Coordinator workflow failed: COMMAND_PREPROCESSING_FAILED(8,0): create argument of Governance.Rules:GovernanceRules (contract rules): Expecting 5 fields for record GovernanceRules, but got 4',
    );
    expect(run.current_step).toBe('PrepareSubmissions');
  });

  it('fails a contracts run with fewer than three participants', async () => {
    const request = {
      ...contractsRequest(world, party.party_id),
      participant_ids: world.participant.slice(0, 2),
      participant_parties: [memberParty(world, 0), memberParty(world, 1)],
    };
    await nextSecond();
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/contracts', request);
    expect(started.status, started.text).toBe(202);
    await acceptOn(world, [1], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
    expect(run.error).toBe(
      'Coordinator workflow failed: At least 3 participants required for contract operations, found 2',
    );
    expect(run.current_step).toBe('PrepareSubmissions');
  });
});

/** waits until the wall clock's second changes */
async function nextSecond(): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === now) await new Promise((r) => setTimeout(r, 20));
}

function contractsRequest(
  world: World,
  partyId: string,
  contract: Record<string, unknown> = {
    id: 'rules',
    name: 'governance-core',
    package_id: '#governance-core',
    module_name: 'Governance.Rules',
    entity_name: 'GovernanceRules',
    fields: governanceRulesFields(world.participant.map((_, i) => memberParty(world, i))),
  },
): Record<string, unknown> {
  return {
    decentralized_party_id: partyId,
    participant_ids: world.participant,
    participant_parties: world.participant.map((_, i) => memberParty(world, i)),
    operator_party: memberParty(world, 0),
    contracts: [contract],
  };
}

describe('POST /dars/upload', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ nodes: 1 });
  });
  afterAll(async () => world.stop());

  it('uploads and vets synchronously on this participant only', async () => {
    const response = await world.dpm[0]!.post('/dars/upload', {
      dar_files: [darFile('utility-registry-app-0.0.1.dar')],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    const vetted = await world.dpm[0]!.get<Vetted[]>('/packages/vetted');
    expect(withoutWorldPackages(vetted.body).map((p) => p.package_name)).toEqual(['utility-registry-app']);
  });

  it('answers an empty list with success and changes nothing', async () => {
    const response = await world.dpm[0]!.post('/dars/upload', { dar_files: [] });
    expect(response.status).toBe(200);
    expect(withoutWorldPackages((await world.dpm[0]!.get<Vetted[]>('/packages/vetted')).body)).toHaveLength(
      1,
    );
  });

  it('answers bad base64 with 500 and the decoder text', async () => {
    const response = await world.dpm[0]!.post('/dars/upload', {
      dar_files: [{ filename: 'x.dar', data: 'ab-c' }],
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      error:
        'Failed to upload DARs: Failed to decode base64 DAR data for x.dar: Invalid symbol 45, offset 2.',
    });
  });

  it('answers a file that is not a DAR with 500 and what Canton says', async () => {
    const response = await world.dpm[0]!.post('/dars/upload', {
      dar_files: [{ filename: 'notes.dar', data: Buffer.from('hello').toString('base64') }],
    });
    expect(response.status).toBe(500);
    expect((response.body as { error: string }).error).toMatch(
      /^Failed to upload DARs: INVALID_DAR\(8,0\): Dar file is corrupt: notes\.dar: archive: not a readable zip archive/,
    );
  });

  it('answers a missing field with actix text/plain 400', async () => {
    const response = await world.dpm[0]!.post('/dars/upload', {});
    expect(response.status).toBe(400);
    expect(response.contentType).toMatch(/^text\/plain/);
    expect(response.text).toBe('Json deserialize error: missing field `dar_files` at line 1 column 2');
  });
});
