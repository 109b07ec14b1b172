import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PartyRecord,
  type World,
  acceptOn,
  bootstrapMesh,
  refreshedParty,
  runOf,
  startWorld,
  waitFor,
  waitForInvitation,
  waitForRun,
} from '../testing/helpers.js';

describe('mesh bootstrap and onboarding (three nodes, JWT mode)', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => world.stop());

  it('reports every peer Connected with version ≥ 0.1.9 after the mesh bootstrap', async () => {
    await bootstrapMesh(world);
    for (const [i, api] of world.dpm.entries()) {
      const response = await api.get<{ statuses: Array<{ id: string; status: string; version?: string }> }>(
        '/participants-status',
      );
      expect(response.status).toBe(200);
      expect(response.body.statuses).toHaveLength(3);
      for (const status of response.body.statuses) {
        expect(status.status).toBe(status.id === world.participant[i] ? 'CurrentNode' : 'Connected');
        expect(status.version).toBe('0.1.9');
      }
    }
  });

  let party: PartyRecord;
  it('onboards a party end to end well under a second, with the invitation fields of §8', async () => {
    const coordinatorKey = (await world.dpm[0]!.get<{ public_key: string }>('/keys/status')).body.public_key;
    const clock = performance.now();
    const started = await world.dpm[0]!.post<{ status: string; message: string; instance_name: string }>(
      '/onboarding',
      {
        party_id_prefix: 'acme',
        peer_ids: [world.participant[1], world.participant[2]],
      },
    );
    expect([started.status, started.body]).toEqual([
      202,
      { status: 'inprogress', message: 'Onboarding workflow started', instance_name: 'acme-creation' },
    ]);
    const card = await waitForInvitation(world.dpm[2]!, 'acme-creation');
    expect(card).toEqual({
      id: `onboarding-${coordinatorKey.slice(0, 16)}-acme-creation`,
      invitation_type: 'Onboarding',
      coordinator_pubkey: coordinatorKey,
      coordinator_name: 'node1',
      received_at: expect.any(Number) as number,
      prefix: 'acme',
      participants: [world.participant[1], world.participant[2]],
      new_threshold: 2,
      workflow_instance: 'acme-creation',
    });
    await acceptOn(world, [1, 2], 'acme-creation');
    await waitForRun(world.dpm[0]!, 'acme-creation', 'completed');
    party = await refreshedParty(world.dpm[0]!, 'acme');
    const elapsed = performance.now() - clock;
    expect(elapsed).toBeLessThan(5000); // the realistic profile takes about 30 s
    expect(party.party_id).toMatch(/^acme::1220[0-9a-f]{64}$/);
    expect(party.threshold).toBe(2);
    expect(party.participants.map((p) => p.participant_uid).sort()).toEqual([...world.participant].sort());
    expect(party.participants.every((p) => p.permission === 'confirmation')).toBe(true);
    expect(party.owners).toHaveLength(3);
  });

  it('answers a first read live (own owner key only), then from the cache with every owner key', async () => {
    const first = await world.dpm[1]!.get<{ parties: PartyRecord[]; source: string; refreshing: boolean }>(
      '/decentralized-parties?prefix=acme',
    );
    expect(first.body.source).toBe('live');
    expect(first.body.refreshing).toBe(false);
    const live = first.body.parties[0]!;
    const ownKey = live.participants.find((p) => p.participant_uid === world.participant[1])?.owner_key;
    expect(live).toMatchObject({ party_id: party.party_id, my_owner_key: ownKey });
    expect(live.participants.filter((p) => p.owner_key !== undefined)).toHaveLength(1);
    const cached = await waitFor('the cached read with every owner key', async () => {
      const r = await world.dpm[1]!.get<{ parties: PartyRecord[]; source: string }>(
        '/decentralized-parties?prefix=acme',
      );
      const p = r.body.parties[0];
      return r.body.source === 'cache' && p?.participants.every((x) => x.owner_key !== undefined)
        ? p
        : undefined;
    });
    expect(cached.owners.sort()).toEqual(cached.participants.map((p) => p.owner_key).sort());
  });

  it('shows the party with its threshold and members on every node after a refresh', async () => {
    for (const api of world.dpm) {
      const seen = await refreshedParty(api, 'acme');
      expect(seen.party_id).toBe(party.party_id);
      expect(seen.threshold).toBe(2);
      expect(seen.owners.sort()).toEqual([...party.owners].sort());
    }
  });

  it('leaves completed rows on the coordinator (8 steps) and on each peer', async () => {
    const coordinator = await runOf(world.dpm[0]!, 'acme-creation');
    expect(coordinator).toMatchObject({
      kind: 'Onboarding',
      role: 'Coordinator',
      status: 'completed',
      current_step: 'Complete',
      step_index: 7,
      step_total: 8,
      completed_peers: [],
      prefix: 'acme',
    });
    // no threshold in the request: the coordinator's config holds null, so the row derives none
    expect(coordinator).not.toHaveProperty('new_threshold');
    for (const api of world.dpm.slice(1)) {
      const rows = (await api.get<{ runs: Array<Record<string, unknown>> }>('/workflows')).body.runs;
      const peerRow = rows.find((r) => r.coordinator_instance === 'acme-creation');
      // the peer's config comes from the invitation, which advertises the effective threshold
      expect(peerRow).toMatchObject({
        role: 'Peer',
        status: 'completed',
        current_step: 'Complete',
        step_index: 7,
        new_threshold: 2,
      });
      expect(peerRow?.instance_name).toMatch(/^peer-onboarding-0[23][0-9a-f]{14}-acme-creation$/);
      expect(peerRow?.coordinator_name).toBe('node1');
    }
  });

  it('refuses a second onboarding with the same prefix (409)', async () => {
    const response = await world.dpm[0]!.post('/onboarding', {
      party_id_prefix: 'acme',
      peer_ids: [world.participant[1]],
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: `A decentralized party with the prefix 'acme' already exists (${party.party_id}). Choose a different prefix.`,
    });
  });
});
