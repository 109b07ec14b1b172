/** Decline, cancel, retry, dismiss and the legacy per-kind routes (dpm-api.md §6, §7.3, §8). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Invitation,
  type World,
  acceptOn,
  bootstrapMesh,
  onboard,
  runOf,
  startWorld,
  waitFor,
  waitForInvitation,
  waitForRun,
  cancelStarted,
} from '../testing/helpers.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
  await bootstrapMesh(world);
});
afterAll(async () => world.stop());

const peerRowOf = async (node: number, instance: string) =>
  (await world.dpm[node]!.get<{ runs: Array<Record<string, unknown>> }>('/workflows')).body.runs.find(
    (r) => r.coordinator_instance === instance,
  );

describe('legacy status before any run', () => {
  it('reports idle', async () => {
    const response = await world.dpm[0]!.get('/onboarding/status');
    expect(response.body).toEqual({ status: 'idle' });
  });
});

describe('a peer declines', () => {
  it('fails the coordinator row, cancels the other peer, and legacy status still says inprogress', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'declined',
      peer_ids: [world.participant[1], world.participant[2]],
    });
    const instance = started.body.instance_name;
    await acceptOn(world, [1], instance);
    const card = await waitForInvitation(world.dpm[2]!, instance);
    const declined = await world.dpm[2]!.post('/invitations/decline', { id: card.id });
    expect([declined.status, declined.body]).toEqual([200, { message: 'Invitation declined' }]);

    const row = await waitForRun(world.dpm[0]!, instance, 'failed');
    expect(row.error).toBe(`Peer ${world.participant[2]} declined the invitation`);
    expect((await world.dpm[0]!.get('/onboarding/status')).body).toEqual({ status: 'inprogress' });
    const peer = await waitFor('the other peer row cancelled', async () => {
      const r = await peerRowOf(1, instance);
      return r?.status === 'cancelled' ? r : undefined;
    });
    expect(peer.error).toBe('Coordinator cancelled the workflow');

    // a second decline of the same card: it is gone
    const again = await world.dpm[2]!.post('/invitations/decline', { id: card.id });
    expect([again.status, again.body]).toEqual([404, { error: 'Invitation not found' }]);

    // the declined run is still registered: per-instance cancel works and turns the row cancelled
    const cancelled = await cancelStarted(world.dpm[0]!, instance);
    expect([cancelled.status, cancelled.body]).toEqual([200, { message: 'Onboarding workflow cancelled' }]);
    expect((await runOf(world.dpm[0]!, instance))?.status).toBe('cancelled');
    expect((await world.dpm[0]!.get('/onboarding/status')).body).toEqual({ status: 'cancelled' });

    // the cancelled peer keeps polling; four 503s later its row is overwritten to failed
    const failed = await waitFor('the cancelled peer row to fail', async () => {
      const r = await peerRowOf(1, instance);
      return r?.status === 'failed' ? r : undefined;
    });
    expect(failed.error).toBe('Peer failed: coordinator has no active workflow (cancelled or dismissed)');
  });

  it('declines on arrival under a decline fault', async () => {
    await world.admin.post('/faults', { kind: 'decline', node: 'node3', workflow: 'Onboarding' });
    try {
      const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
        party_id_prefix: 'refused',
        peer_ids: [world.participant[2]],
      });
      const row = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
      expect(row.error).toBe(`Peer ${world.participant[2]} declined the invitation`);
      const cards = await world.dpm[2]!.get<{ invitations: Invitation[] }>('/invitations');
      expect(
        cards.body.invitations.filter((c) => c.workflow_instance === started.body.instance_name),
      ).toEqual([]);
      expect((await cancelStarted(world.dpm[0]!, started.body.instance_name)).status).toBe(200);
    } finally {
      await world.admin.call('DELETE', '/faults');
    }
  });
});

describe('cancel', () => {
  it('cancels a waiting run, drops the invitees’ cards, and a second cancel is a 409', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [],
      peer_ids: [world.participant[1]],
    });
    const instance = started.body.instance_name;
    await waitForInvitation(world.dpm[1]!, instance);
    const cancelled = await cancelStarted(world.dpm[0]!, instance);
    expect([cancelled.status, cancelled.body]).toEqual([200, { message: 'Dars workflow cancelled' }]);
    expect(await runOf(world.dpm[0]!, instance)).toMatchObject({ status: 'cancelled' });
    expect((await runOf(world.dpm[0]!, instance))?.error).toBeUndefined();
    await waitFor('the card to vanish', async () => {
      const cards = await world.dpm[1]!.get<{ invitations: Invitation[] }>('/invitations');
      return !cards.body.invitations.some((c) => c.workflow_instance === instance);
    });
    const again = await cancelStarted(world.dpm[0]!, instance);
    expect([again.status, again.body]).toEqual([
      409,
      { error: `No in-flight workflow run named ${instance}` },
    ]);
  });

  it('cancels through the legacy per-kind route, then answers 409 when none is in progress', async () => {
    await world.dpm[0]!.post('/dars/distribute', { dar_files: [], peer_ids: [world.participant[2]] });
    const cancelled = await waitFor('the run to leave its start-up', async () => {
      const response = await world.dpm[0]!.post('/dars/cancel');
      return JSON.stringify(response.body).includes('still initializing') ? undefined : response;
    });
    expect([cancelled.status, cancelled.body]).toEqual([200, { message: 'DARs workflow cancelled' }]);
    const again = await world.dpm[0]!.post('/dars/cancel');
    expect([again.status, again.body]).toEqual([409, { error: 'No DARs workflow in progress' }]);
  });
});

describe('retry and dismiss', () => {
  let partyId: string;
  let instance: string;

  it('retries a failed contracts run after party credentials are configured; peers accept the old cards', async () => {
    partyId = (await onboard(world, 'retry')).party_id;
    const request = {
      decentralized_party_id: partyId,
      participant_ids: world.participant,
      participant_parties: world.participant,
      operator_party: world.participant[0],
      contracts: [],
    };
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/contracts', request);
    instance = started.body.instance_name;
    const failed = await waitForRun(world.dpm[0]!, instance, 'failed');
    expect(failed.error).toBe(
      'Coordinator workflow failed: Auth not configured, cannot run contracts workflow',
    );

    const notFailed = await world.dpm[0]!.post(`/workflows/${instance}/retry`);
    expect(notFailed.status).toBe(200);
    // still no credentials: the respawned coordinator fails again at once
    await waitForRun(world.dpm[0]!, instance, 'failed');

    const saved = await world.dpm[0]!.put('/party-config', {
      dec_party_id: partyId,
      member_party_id: world.participant[0],
      user_id: 'operator1',
      keycloak_url: world.sandbox.urls.idp.issuer.replace(/\/realms\/ledgerbook$/, ''),
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-ci',
      keycloak_client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET,
    });
    expect(saved.status).toBe(200);
    const retried = await world.dpm[0]!.post(`/workflows/${instance}/retry`);
    expect([retried.status, retried.body]).toEqual([
      200,
      { message: `Retrying workflow ${instance} from step WaitingForPeers` },
    ]);
    await acceptOn(world, [1, 2], instance);
    await waitForRun(world.dpm[0]!, instance, 'completed');
  });

  it('refuses to retry a completed run, a peer row, or an unknown one', async () => {
    const completed = await world.dpm[0]!.post(`/workflows/${instance}/retry`);
    expect([completed.status, completed.body]).toEqual([
      409,
      { error: 'Cannot retry a workflow in status Completed; only Failed runs can be retried' },
    ]);
    const peerRow = await peerRowOf(1, instance);
    const peer = await world.dpm[1]!.post(`/workflows/${String(peerRow?.instance_name)}/retry`);
    expect(peer.status).toBe(409);
    expect((peer.body as { error: string }).error).toMatch(
      /^Retry must be initiated from the coordinator side\./,
    );
    const unknown = await world.dpm[0]!.post('/workflows/nope/retry');
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'workflow run nope not found' }]);
  });

  it('dismisses a terminal row (idempotent), refuses an in-progress one', async () => {
    const dismissed = await world.dpm[0]!.post(`/workflows/${instance}/dismiss`);
    expect([dismissed.status, dismissed.body]).toEqual([200, { message: `workflow ${instance} dismissed` }]);
    expect(await runOf(world.dpm[0]!, instance)).toBeUndefined();
    expect((await world.dpm[0]!.post(`/workflows/${instance}/dismiss`)).status).toBe(200);

    const pending = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [],
      peer_ids: [world.participant[1]],
    });
    const busy = await world.dpm[0]!.post(`/workflows/${pending.body.instance_name}/dismiss`);
    expect([busy.status, busy.body]).toEqual([
      409,
      { error: `Dars workflow ${pending.body.instance_name} is still in progress — cancel it first` },
    ]);
    await cancelStarted(world.dpm[0]!, pending.body.instance_name);
    expect((await world.dpm[0]!.post('/workflows/nope/dismiss')).status).toBe(404);
  });

  it('refuses a second accept of the same card', async () => {
    // DAR distributions are named after their start second: the earlier tests' runs must not collide with this one
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [],
      peer_ids: [world.participant[1]],
    });
    expect(started.status, started.text).toBe(202);
    const card = await waitForInvitation(world.dpm[1]!, started.body.instance_name);
    expect((await world.dpm[1]!.post('/invitations/accept', { id: card.id })).status).toBe(200);
    const again = await world.dpm[1]!.post('/invitations/accept', { id: card.id });
    expect([again.status, again.body]).toEqual([404, { error: 'Invitation not found' }]);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
  });
});

describe('pending invitations', () => {
  it('keeps at most 16 per coordinator, evicting the oldest', async () => {
    const instances: string[] = [];
    for (let i = 1; i <= 17; i++) {
      const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
        party_id_prefix: `cap${i}`,
        peer_ids: [world.participant[1]],
      });
      expect(started.status).toBe(202);
      instances.push(started.body.instance_name);
      await waitForInvitation(world.dpm[1]!, started.body.instance_name);
    }
    const cards = await world.dpm[1]!.get<{ invitations: Invitation[] }>('/invitations');
    const fromCap = cards.body.invitations.filter((c) => c.workflow_instance?.startsWith('cap'));
    expect(fromCap.map((c) => c.workflow_instance)).toEqual(instances.slice(1));
    for (const instance of instances) {
      expect((await cancelStarted(world.dpm[0]!, instance)).status).toBe(200);
    }
  });
});
