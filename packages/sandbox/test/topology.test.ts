import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PartyRecord,
  type World,
  acceptOn,
  bootstrapMesh,
  refreshedParty,
  startWorld,
  waitForInvitation,
  waitForRun,
} from '../testing/helpers.js';

/** four nodes; the party starts on node1..node3, node4 is meshed but not a member */
describe('change-threshold, kick and add-party', () => {
  let world: World;
  let party: PartyRecord;
  const members = (p: PartyRecord): string[] => p.participants.map((x) => x.participant_uid).sort();

  beforeAll(async () => {
    world = await startWorld({ nodes: 4 });
    await bootstrapMesh(world);
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'topo',
      peer_ids: [world.participant[1], world.participant[2]],
      threshold: 2,
    });
    expect(started.status).toBe(202);
    await acceptOn(world, [1, 2], started.body.instance_name);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    party = await refreshedParty(world.dpm[0]!, 'topo');
  });
  afterAll(async () => world.stop());

  it('changes the threshold (all members accept), visible on every member after a refresh', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string; message: string }>(
      '/change-threshold',
      {
        decentralized_party_id: party.party_id,
        new_threshold: 3,
        previous_threshold: 2,
      },
    );
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({
      status: 'inprogress',
      message: 'Change-threshold workflow started',
    });
    expect(started.body.instance_name).toMatch(/^topo-change-threshold-\d+$/);
    const card = await waitForInvitation(world.dpm[1]!, started.body.instance_name);
    expect(card).toMatchObject({
      invitation_type: 'ChangeThreshold',
      dec_party_id: party.party_id,
      new_threshold: 3,
    });
    // ChangeThreshold invitations list the invitees and the coordinator
    expect((card.participants as string[]).sort()).toEqual([...world.participant.slice(0, 3)].sort());
    await acceptOn(world, [1, 2], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect(run).toMatchObject({
      step_total: 6,
      new_threshold: 3,
      previous_threshold: 2,
      dec_party_id: party.party_id,
    });
    for (const i of [0, 1, 2]) expect((await refreshedParty(world.dpm[i]!, 'topo')).threshold).toBe(3);
  });

  it('fails a change to the current threshold inside ExportState', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/change-threshold', {
      decentralized_party_id: party.party_id,
      new_threshold: 3,
    });
    expect(started.status).toBe(202);
    await acceptOn(world, [1, 2], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'failed');
    expect(run.error).toBe(
      'Coordinator workflow failed: new_threshold 3 is already the current threshold — nothing to change',
    );
    expect(run.current_step).toBe('ExportState');
  });

  it('kicks node3: the survivors accept (node3 gets no invitation), membership and threshold change', async () => {
    await refreshedParty(world.dpm[0]!, 'topo');
    const started = await world.dpm[0]!.post<{ instance_name: string; message: string }>('/kick', {
      decentralized_party_id: party.party_id,
      participant_id: world.participant[2],
      new_threshold: 1,
      previous_threshold: 3,
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body.message).toBe('Kick workflow started');
    expect(await waitForInvitation(world.dpm[1]!, started.body.instance_name)).toMatchObject({
      invitation_type: 'Kick',
      dec_party_id: party.party_id,
      kicked_participant: world.participant[2],
      new_threshold: 1,
      previous_threshold: 3,
      participants: [world.participant[1]],
    });
    await acceptOn(world, [1], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect(run).toMatchObject({
      kind: 'Kick',
      step_total: 6,
      kicked_participant: world.participant[2],
      new_threshold: 1,
    });
    const node3Cards = await world.dpm[2]!.get<{ invitations: Array<{ workflow_instance?: string }> }>(
      '/invitations',
    );
    expect(node3Cards.body.invitations.some((c) => c.workflow_instance === started.body.instance_name)).toBe(
      false,
    );
    const after = await refreshedParty(world.dpm[0]!, 'topo');
    expect(members(after)).toEqual([world.participant[0], world.participant[1]].sort());
    expect(after.threshold).toBe(1);
    // node3 no longer hosts the party: a live read there does not list it
    const live = await world.dpm[2]!.get<{ parties: PartyRecord[]; source: string }>(
      '/decentralized-parties?prefix=topo&refresh=true',
    );
    expect(live.body).toMatchObject({ source: 'live', parties: [] });
  });

  it('adds node4: existing members and the newcomer accept, the party gains a member', async () => {
    await refreshedParty(world.dpm[0]!, 'topo');
    const started = await world.dpm[0]!.post<{ instance_name: string; message: string }>('/add-party', {
      decentralized_party_id: party.party_id,
      new_participant_id: world.participant[3],
      new_threshold: 2,
      previous_threshold: 1,
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body.message).toBe('Add-party workflow started');
    // invitations are delivered after the start's pause: wait for the card rather than read it once
    const invite = await waitForInvitation(world.dpm[3]!, started.body.instance_name);
    expect(invite).toMatchObject({
      invitation_type: 'AddParty',
      dec_party_id: party.party_id,
      new_participant: world.participant[3],
      new_threshold: 2,
      previous_threshold: 1,
    });
    expect((invite?.participants as string[]).sort()).toEqual(
      [world.participant[0], world.participant[1], world.participant[3]].sort(),
    );
    await acceptOn(world, [1, 3], started.body.instance_name);
    const run = await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    expect(run).toMatchObject({ step_total: 13, step_index: 12, added_participant: world.participant[3] });
    const after = await refreshedParty(world.dpm[3]!, 'topo');
    expect(members(after)).toEqual([world.participant[0], world.participant[1], world.participant[3]].sort());
    expect(after.threshold).toBe(2);
  });
});
