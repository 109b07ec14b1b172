/**
 * playbooks/distribute-dars.yaml and playbooks/deploy-contracts.yaml through the CLI against a 3-node sandbox
 * (mesh, party and its credentials set up through the sandbox's API); results checked on every node's own DPM
 * API, request counts from the sandbox's admin API. Under the fast profile and the realistic one time-scaled
 * (every duration × 0.1), a world per profile.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  darFile,
  requestCounts,
  waitForInvitation,
  type PartyRecord,
  type RunRecord,
} from '@ledgerbook/sandbox/testing';
import {
  PLAYBOOKS,
  SAMPLE_DARS,
  count,
  packagesWorld,
  playbookCopy,
  samplePackages,
  writesNow,
  type PackagesWorld,
} from './packages-setup.js';
import { PROFILES } from './profiles.js';

interface Vetted {
  package_id: string;
  package_name: string;
  package_version: string;
}

async function expectVettedEverywhere(w: PackagesWorld): Promise<void> {
  for (const [i, api] of w.world.dpm.entries()) {
    const vetted = (await api.get<Vetted[]>('/packages/vetted')).body;
    for (const p of samplePackages()) {
      expect(
        vetted.some((v) => v.package_id === p.id && `${v.package_name}:${v.package_version}` === p.name),
        `node${i + 1} vetted ${p.name}`,
      ).toBe(true);
    }
  }
}

describe.each(PROFILES)('package and contract playbooks (%s)', (_name, profile) => {
  let w: PackagesWorld;
  beforeAll(async () => {
    w = await packagesWorld(profile);
  });
  afterAll(async () => w?.stop());

  it('refuses a DAR whose sha256 differs from its pin with exit 65, sending nothing', async () => {
    // the pin of another DAR: a copy-paste slip the DPM would not notice
    const playbook = await playbookCopy(w.dir, 'distribute-dars.yaml', (text) =>
      text.replace(
        'sha256: 82eaa394024dd8fbe0f5c98961aacdbb7890ed3212e0e249a347abf27a01e7b6',
        'sha256: 26eb38f118883834a9f9defbe442a596fde485f3718e59ad1ca23684795d9e47',
      ),
    );
    await w.world.admin.call('DELETE', '/requests');
    const result = await w.run(playbook);
    expect(result.code, result.stderr).toBe(65);
    expect(result.stderr).toMatch(/distribute-dars\.yaml:\d+:\d+/);
    expect(result.stderr).toContain('dars/wrapped-1.2.1.dar does not match its pinned sha256');
    expect(result.stderr).toContain('82eaa394024dd8fbe0f5c98961aacdbb7890ed3212e0e249a347abf27a01e7b6');
    expect(await requestCounts(w.world)).toEqual([]);
  });

  it('distributes the sample DARs: every node vets every package; a second run changes nothing', async () => {
    const first = await w.run(join(PLAYBOOKS, 'distribute-dars.yaml'));
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);
    expect(first.stdout).toMatch(/governance-core:0\.2\.0 \(0ba5f6c01995\)\s+✓\s+✓\s+✓/);

    expect(samplePackages()).toHaveLength(4);
    await expectVettedEverywhere(w);
    const counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/dars/distribute')).toBe(1);
    expect(count(counts, 'node1', 'POST', '/dars/upload')).toBe(0);

    const before = await writesNow(w.world);
    const second = await w.run(join(PLAYBOOKS, 'distribute-dars.yaml'));
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toMatch(/upload: in-sync/);
    expect(await writesNow(w.world)).toEqual(before);
  });

  it('deploys GovernanceRules for the party: listed on every node, governance state set; a second run changes nothing', async () => {
    const first = await w.run(join(PLAYBOOKS, 'deploy-contracts.yaml'), '--input', 'party=alpha');
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(0);

    for (const [i, api] of w.world.dpm.entries()) {
      const parties = await api.get<{ parties: PartyRecord[] }>(
        '/decentralized-parties?prefix=alpha&refresh=true',
      );
      const party = parties.body.parties[0];
      expect(party?.party_id, `node${i + 1} hosts the party`).toBe(w.party.party_id);
      expect(party?.contracts, `node${i + 1} lists the contract`).toEqual([
        expect.objectContaining({
          template_id: 'Governance.Rules:GovernanceRules',
          package_name: 'governance-core',
          package_version: '0.2.0',
        }),
      ]);
      const state = await api.get<{ state: { contract_id: string } | null }>(
        `/governance/state?party_id=${w.party.party_id}`,
      );
      expect(state.body.state?.contract_id, `node${i + 1} governance state`).toBe(
        party?.contracts?.[0]?.contract_id,
      );
    }
    const counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/contracts')).toBe(1);

    const before = await writesNow(w.world);
    const second = await w.run(join(PLAYBOOKS, 'deploy-contracts.yaml'));
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toMatch(/deploy: in-sync/);
    expect(await writesNow(w.world)).toEqual(before);
  });
});

describe.each(PROFILES)('distribute-dars.yaml on a partly done distribution (%s)', (_name, profile) => {
  let w: PackagesWorld | undefined;
  afterEach(async () => {
    await w?.stop();
    w = undefined;
  });

  it('adopts a Dars run of the same files in progress: accepts it and waits, starts none', async () => {
    w = await packagesWorld(profile);
    const started = await w.world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: SAMPLE_DARS.map(darFile),
      peer_ids: [w.world.participant[1], w.world.participant[2]],
    });
    expect(started.status, started.text).toBe(202);
    await waitForInvitation(w.world.dpm[2]!, started.body.instance_name);

    const result = await w.run(join(PLAYBOOKS, 'distribute-dars.yaml'));
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(
      `adopt Dars run ${started.body.instance_name}: inprogress at WaitingForPeers`,
    );
    await expectVettedEverywhere(w);
    const runs = (await w.world.dpm[0]!.get<{ runs: RunRecord[] }>('/workflows')).body.runs;
    expect(runs.filter((r) => r.kind === 'Dars' && r.role === 'Coordinator').map((r) => r.status)).toEqual([
      'completed',
    ]);
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/dars/distribute')).toBe(1);
  });

  it('uploads on the coordinator alone when only it lacks the packages', async () => {
    w = await packagesWorld(profile);
    for (const api of w.world.dpm.slice(1)) {
      const uploaded = await api.post('/dars/upload', { dar_files: SAMPLE_DARS.map(darFile) });
      expect(uploaded.status, uploaded.text).toBe(200);
    }
    const result = await w.run(join(PLAYBOOKS, 'distribute-dars.yaml'));
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('to node1 (POST /dars/upload): the peers vetted every package');
    await expectVettedEverywhere(w);
    const counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/dars/upload')).toBe(1);
    expect(count(counts, 'node1', 'POST', '/dars/distribute')).toBe(0);
  });
});
