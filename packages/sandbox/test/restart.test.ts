/** Node restarts mid-workflow and whole-sandbox restarts on the same state dir (dpm-api.md §7.3, §14.2). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Invitation,
  type World,
  acceptOn,
  bootstrapMesh,
  darFile,
  onboard,
  refreshedParty,
  runOf,
  startWorld,
  waitFor,
  waitForInvitation,
  waitForRun,
  withoutWorldPackages,
} from '../testing/helpers.js';

describe('node restarts', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
    await bootstrapMesh(world);
  });
  afterAll(async () => world.stop());

  it('completes an onboarding whose coordinator restarts at SignDns', async () => {
    const fault = await world.admin.post('/faults', {
      kind: 'restart',
      node: 'node1',
      at: { workflow: 'Onboarding', step: 'SignDns' },
      downMs: 300,
    });
    expect(fault.status).toBe(201);
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'phoenix',
      peer_ids: [world.participant[1], world.participant[2]],
    });
    await acceptOn(world, [1, 2], started.body.instance_name);
    // while node1 is down its DPM refuses connections
    await waitFor('node1 to go down', async () => {
      try {
        await fetch(`${world.sandbox.urls.nodes[0]!.dpm}/healthz`);
        return undefined;
      } catch {
        return true;
      }
    });
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed', 5000);
    expect(run.step_index).toBe(7);
    expect((await world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);
    const party = await refreshedParty(world.dpm[2]!, 'phoenix');
    expect(party.participants).toHaveLength(3);
  });

  it('keeps a pending invitation across a restart of the invitee (admin API), and it can still be accepted', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [darFile('utility-registry-app-0.0.1.dar')],
      peer_ids: [world.participant[1]],
    });
    await waitForInvitation(world.dpm[1]!, started.body.instance_name);
    const restarted = await world.admin.post('/nodes/node2/restart', { downMs: 50 });
    expect([restarted.status, restarted.body]).toEqual([202, { node: 'node2', downMs: 50 }]);
    const card = await waitFor('node2 back with the card', async () => {
      const response = await world.dpm[1]!.get<{ invitations: Invitation[] }>('/invitations');
      return response.body.invitations.find((c) => c.workflow_instance === started.body.instance_name);
    });
    expect((await world.dpm[1]!.post('/invitations/accept', { id: card.id })).status).toBe(200);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
  });

  it('lets a second restart supersede one still pending, and comes back once', async () => {
    await world.admin.post('/nodes/node3/restart', { downMs: 200 });
    await world.admin.post('/nodes/node3/restart', { downMs: 20 });
    const health = await waitFor('node3 back', async () => {
      try {
        return (await world.dpm[2]!.get('/healthz')).status === 200;
      } catch {
        return undefined;
      }
    });
    expect(health).toBe(true);
    const status = await world.dpm[0]!.get<{ statuses: Array<{ id: string; status: string }> }>(
      '/participants-status',
    );
    expect(status.body.statuses.find((s) => s.id === world.participant[2])?.status).toBe('Connected');
  });

  it('resumes a peer row after the peer restarts mid-run', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/change-threshold', {
      decentralized_party_id: (await refreshedParty(world.dpm[0]!, 'phoenix')).party_id,
      new_threshold: 3,
    });
    expect(started.status, started.text).toBe(202);
    await acceptOn(world, [1], started.body.instance_name);
    await world.admin.post('/nodes/node2/restart', { downMs: 30 });
    await acceptOn(world, [2], started.body.instance_name);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect((await refreshedParty(world.dpm[1]!, 'phoenix')).threshold).toBe(3);
  });
});

describe('whole-sandbox restart on the same state dir', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'ledgerbook-sandbox-'));
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it('keeps participant ids, peers, parties, packages, runs and pending invitations', async () => {
    const first = await startWorld({ stateDir });
    let partyId: string;
    let pending: string;
    try {
      await bootstrapMesh(first);
      partyId = (await onboard(first, 'durable')).party_id;
      expect(
        (await first.dpm[0]!.post('/dars/upload', { dar_files: [darFile('wrapped-1.2.1.dar')] })).status,
      ).toBe(200);
      pending = (
        await first.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
          dar_files: [darFile('governance-core-0.2.0.dar')],
          peer_ids: [first.participant[1]],
        })
      ).body.instance_name;
      await waitForInvitation(first.dpm[1]!, pending);
    } finally {
      await first.stop();
    }

    const second = await startWorld({ stateDir });
    try {
      expect(second.participant).toEqual(first.participant);
      const status = await second.dpm[0]!.get<{ statuses: Array<{ status: string }> }>(
        '/participants-status',
      );
      expect(status.body.statuses.map((s) => s.status).sort()).toEqual([
        'Connected',
        'Connected',
        'CurrentNode',
      ]);
      const live = await second.dpm[2]!.get<{ parties: Array<{ party_id: string }> }>(
        '/decentralized-parties?refresh=true',
      );
      expect(live.body.parties.map((p) => p.party_id)).toEqual([partyId]);
      const vetted =
        await second.dpm[0]!.get<Array<{ package_id: string; package_name: string }>>('/packages/vetted');
      expect(
        withoutWorldPackages(vetted.body)
          .map((p) => p.package_name)
          .sort(),
      ).toEqual(['wrapped', 'wrapped-holding']);
      expect(await runOf(second.dpm[0]!, 'durable-creation')).toMatchObject({ status: 'completed' });
      // the in-progress distribution resumed (no invitation sent again): the old card is accepted and it completes
      expect(await runOf(second.dpm[0]!, pending)).toMatchObject({
        status: 'inprogress',
        current_step: 'WaitingForPeers',
      });
      await acceptOn(second, [1], pending);
      await waitForRun(second.dpm[0]!, pending, 'completed');
    } finally {
      await second.stop();
    }
  });
});
