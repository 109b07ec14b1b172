import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PartyRecord,
  type World,
  bootstrapMesh,
  onboard,
  refreshedParty,
  runOf,
  startWorld,
} from './helpers.js';

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
  it('onboards a party end to end well under a second', async () => {
    const started = performance.now();
    party = await onboard(world, 'acme');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(1000);
    expect(party.party_id).toMatch(/^acme::1220[0-9a-f]{64}$/);
    expect(party.threshold).toBe(2);
    expect(party.participants.map((p) => p.participant_uid).sort()).toEqual([...world.participant].sort());
    expect(party.participants.every((p) => p.permission === 'confirmation')).toBe(true);
    expect(party.owners).toHaveLength(3);
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
