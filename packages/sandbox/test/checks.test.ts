/**
 * The start routes' checks in the reference's order, with its status codes and texts (dpm-api.md §5), and the
 * framework-level answers of §0.1 (text/plain 400s, the SPA page, empty 404s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PartyRecord,
  type World,
  acceptOn,
  bootstrapMesh,
  onboard,
  refreshedParty,
  startWorld,
  waitForRun,
  cancelStarted,
} from '../testing/helpers.js';

let world: World;
let party: PartyRecord;
const fakeId = `stranger::1220${'ab'.repeat(32)}`;

beforeAll(async () => {
  world = await startWorld();
  await bootstrapMesh(world);
  party = await onboard(world, 'chk', 2);
});
afterAll(async () => world.stop());

const error = (text: string): { error: string } => ({ error: text });

describe('POST /onboarding checks', () => {
  it.each([
    ['', 'Party prefix must not be empty'],
    ['a'.repeat(181), 'Party prefix must be at most 180 characters (got 181)'],
    ['1abc', 'Party prefix must start with a letter (a-z, A-Z)'],
    [
      'ab.c',
      "Party prefix contains invalid character '.'; only ASCII letters, digits, '-' and '_' are allowed",
    ],
  ])('refuses prefix %j with 400', async (prefix, text) => {
    const response = await world.dpm[0]!.post('/onboarding', {
      party_id_prefix: prefix,
      peer_ids: [world.participant[1]],
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(error(text));
  });

  it('checks the prefix before the mesh (a bad prefix with an unknown peer is a 400)', async () => {
    const response = await world.dpm[0]!.post('/onboarding', { party_id_prefix: '9x', peer_ids: [fakeId] });
    expect(response.status).toBe(400);
  });

  it('answers 422 with missing_edges for a peer the coordinator does not know', async () => {
    const response = await world.dpm[0]!.post<{ error: string; missing_edges: unknown[] }>('/onboarding', {
      party_id_prefix: 'meshless',
      peer_ids: [world.participant[1], fakeId],
    });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/^Could not verify a full peer mesh\. /);
    expect(response.body.error).toContain(
      `[unreachable from coordinator] ${world.participant[0]} → ${fakeId}`,
    );
    // node2 answered ListPeers, and its peer list lacks the stranger too
    expect(response.body.missing_edges).toEqual([
      { from: world.participant[0], to: fakeId, kind: 'unreachable_from_coordinator' },
      { from: world.participant[1], to: fakeId, kind: 'mesh_hole' },
    ]);
  });

  it('answers 422 with a mesh_hole when a selected peer does not list another', async () => {
    const peers = (await world.dpm[1]!.get<{ peers: Array<{ participant_id: string }> }>('/network-config'))
      .body.peers;
    await world.dpm[1]!.post(
      '/network-config',
      peers.filter((p) => p.participant_id !== world.participant[2]),
    );
    try {
      const response = await world.dpm[0]!.post<{ missing_edges: unknown[] }>('/onboarding', {
        party_id_prefix: 'holey',
        peer_ids: [world.participant[1], world.participant[2]],
      });
      expect(response.status).toBe(422);
      // node3 cannot complete a handshake with node2 any more either, but node1 still reaches both
      expect(response.body.missing_edges).toEqual([
        { from: world.participant[1], to: world.participant[2], kind: 'mesh_hole' },
      ]);
    } finally {
      await world.dpm[1]!.post('/network-config', peers);
    }
  });

  it('checks the threshold range after the mesh', async () => {
    const response = await world.dpm[0]!.post('/onboarding', {
      party_id_prefix: 'thr',
      peer_ids: [world.participant[1]],
      threshold: 3,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(
      error('threshold must be between 1 and 2 (invited peers + this node); got 3'),
    );
  });

  it('answers 422 (mesh first) for an unreachable invitee, and other kinds the 409 version gate', async () => {
    await world.admin.post('/faults', { kind: 'unreachable', node: 'node3' });
    try {
      const onboarding = await world.dpm[0]!.post('/onboarding', {
        party_id_prefix: 'cut',
        peer_ids: [world.participant[2]],
      });
      expect(onboarding.status).toBe(422);
      const dars = await world.dpm[0]!.post('/dars/distribute', {
        dar_files: [],
        peer_ids: [world.participant[2]],
      });
      expect(dars.status).toBe(409);
      expect(dars.body).toEqual(
        error(
          `Cannot start the workflow: every invited peer must run dec-party-manager >= 0.1.9 (concurrent workflows changed the Noise wire format, older builds cannot participate). Blocking peer(s): ${world.participant[2]} (could not verify version: TCP connection timeout: deadline has elapsed). Upgrade or deselect them and retry.`,
        ),
      );
      const status = await world.dpm[0]!.get<{ statuses: Array<{ id: string; status: string }> }>(
        '/participants-status',
      );
      expect(status.body.statuses.find((s) => s.id === world.participant[2])).toEqual({
        id: world.participant[2],
        status: 'Unreachable',
      });
      const compare = await world.dpm[0]!.get<{ peers: Array<Record<string, unknown>> }>(
        '/packages/compare-peers',
      );
      expect(compare.body.peers.find((p) => p.participant_id === world.participant[2])).toEqual({
        participant_id: world.participant[2],
        name: 'node3',
        reachable: false,
        error_kind: 'tcp_connect_timeout',
        packages: [],
      });
    } finally {
      await world.admin.call('DELETE', '/faults');
    }
  });

  it('refuses a second start of the same onboarding instance while the first runs', async () => {
    const body = { party_id_prefix: 'twice', peer_ids: [world.participant[1]] };
    const first = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', body);
    expect(first.status).toBe(202);
    const second = await world.dpm[0]!.post('/onboarding', body);
    expect(second.status).toBe(409);
    expect(second.body).toEqual(error('A workflow with instance twice-creation is already running'));
    const cancelled = await cancelStarted(world.dpm[0]!, 'twice-creation');
    expect(cancelled.status).toBe(200);
  });
});

describe('POST /kick checks', () => {
  const kick = (body: Record<string, unknown>) =>
    world.dpm[0]!.post('/kick', { decentralized_party_id: party.party_id, new_threshold: 1, ...body });

  it('refuses kicking yourself', async () => {
    const response = await kick({ participant_id: world.participant[0] });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(error('Cannot kick yourself'));
  });

  it('refuses a participant without a cached owner key (409)', async () => {
    const response = await kick({ participant_id: fakeId });
    expect(response.status).toBe(409);
    expect(response.body).toEqual(
      error(
        `Participant ${fakeId} is not present in cached decentralized party ${party.party_id}, or its owner key has not yet been resolved. Try refreshing /decentralized-parties first.`,
      ),
    );
  });

  it('checks the new threshold against the members minus the target', async () => {
    const response = await kick({ participant_id: world.participant[2], new_threshold: 3 });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(
      error(
        'new_threshold must be between 1 and 2 (party member count 3, minus the participant being kicked); got 3',
      ),
    );
  });

  it('refuses unknown fields (deny_unknown_fields) with the actix text', async () => {
    const response = await world.dpm[0]!.call('POST', '/kick', {
      raw: `{"decentralized_party_id":"${party.party_id}","participant_id":"${world.participant[2]}","new_threshold":1,"force":true}`,
    });
    expect(response.status).toBe(400);
    expect(response.contentType).toMatch(/^text\/plain/);
    expect(response.text).toMatch(
      /^Json deserialize error: unknown field `force`, expected one of `decentralized_party_id`, `participant_id`, `new_threshold`, `previous_threshold` at line 1 column \d+$/,
    );
  });

  it('two starts on one party in the same instant: one is accepted, the other refused with 409', async () => {
    const body = { decentralized_party_id: party.party_id, new_threshold: 1 };
    // slow peers: both starts are between their checks and their inserts at once (the version gate asks them)
    const slow = await world.admin.post<{ faults: Array<{ id: string }> }>('/faults', [
      { kind: 'latency', node: 'node2', ms: 300 },
      { kind: 'latency', node: 'node3', ms: 300 },
    ]);
    // two kinds, so two instance names: only the same-party guard can refuse one of them
    const answers = await Promise.all([
      world.dpm[0]!.post<{ instance_name: string }>('/change-threshold', body),
      kick({ participant_id: world.participant[2] }) as Promise<{
        status: number;
        body: { instance_name: string };
      }>,
    ]);
    const accepted = answers.filter((a) => a.status === 202);
    try {
      expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
      const runs = (await world.dpm[0]!.get<{ runs: Array<Record<string, unknown>> }>('/workflows')).body
        .runs;
      const live = runs.filter((r) => r.status === 'inprogress' && r.dec_party_id === party.party_id);
      expect(live).toHaveLength(1);
    } finally {
      for (const f of slow.body.faults) await world.admin.call('DELETE', `/faults/${f.id}`);
      for (const a of accepted)
        expect((await cancelStarted(world.dpm[0]!, a.body.instance_name)).status).toBe(200);
    }
  });

  it('refuses a second topology run on the same party while one is in flight (409)', async () => {
    const pending = await world.dpm[0]!.post<{ instance_name: string }>('/change-threshold', {
      decentralized_party_id: party.party_id,
      new_threshold: 1,
    });
    expect(pending.status).toBe(202);
    try {
      const response = await kick({ participant_id: world.participant[2] });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(
        error(
          `Party ${party.party_id} already has a ChangeThreshold workflow in flight (run ${pending.body.instance_name}); wait for it to finish or cancel it first`,
        ),
      );
    } finally {
      expect((await cancelStarted(world.dpm[0]!, pending.body.instance_name)).status).toBe(200);
    }
  });
});

describe('POST /add-party and /change-threshold checks', () => {
  const add = (body: Record<string, unknown>) =>
    world.dpm[0]!.post('/add-party', { decentralized_party_id: party.party_id, new_threshold: 2, ...body });

  it('refuses adding yourself', async () => {
    expect((await add({ new_participant_id: world.participant[0] })).body).toEqual(
      error('Cannot add yourself as the new participant'),
    );
  });

  it('refuses a participant that is not a configured peer', async () => {
    const response = await add({ new_participant_id: fakeId });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(error(`Participant ${fakeId} is not a configured peer of this node`));
  });

  it('refuses an existing member (409)', async () => {
    const response = await add({ new_participant_id: world.participant[1] });
    expect(response.status).toBe(409);
    expect(response.body).toEqual(
      error(`Participant ${world.participant[1]} is already a member of ${party.party_id}`),
    );
  });

  it('refuses a party without cached membership (409), for add-party and change-threshold alike', async () => {
    const unknown = `nope::1220${'cd'.repeat(32)}`;
    const text = `No cached membership for ${unknown}. Try refreshing /decentralized-parties first.`;
    const added = await world.dpm[0]!.post('/add-party', {
      decentralized_party_id: unknown,
      new_participant_id: world.participant[1],
      new_threshold: 1,
    });
    expect([added.status, added.body]).toEqual([409, error(text)]);
    const changed = await world.dpm[0]!.post('/change-threshold', {
      decentralized_party_id: unknown,
      new_threshold: 1,
    });
    expect([changed.status, changed.body]).toEqual([409, error(text)]);
  });

  it('checks the change-threshold range against the member count', async () => {
    const response = await world.dpm[0]!.post('/change-threshold', {
      decentralized_party_id: party.party_id,
      new_threshold: 4,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(error('new_threshold must be between 1 and 3 (party member count); got 4'));
  });

  it('refuses a threshold change on a one-member party', async () => {
    const started = await world.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
      party_id_prefix: 'solo',
      peer_ids: [],
    });
    expect(started.status).toBe(202);
    await waitForRun(world.dpm[0]!, started.body.instance_name, 'completed');
    const solo = await refreshedParty(world.dpm[0]!, 'solo');
    expect(solo.threshold).toBe(1);
    const response = await world.dpm[0]!.post('/change-threshold', {
      decentralized_party_id: solo.party_id,
      new_threshold: 1,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(error(`Cannot change threshold: ${solo.party_id} has only 1 member(s)`));
  });
});

describe('POST /dars/distribute checks', () => {
  it('refuses an empty peer list', async () => {
    const response = await world.dpm[0]!.post('/dars/distribute', { dar_files: [], peer_ids: [] });
    expect([response.status, response.body]).toEqual([400, error('peer_ids must contain at least one peer')]);
    const omitted = await world.dpm[0]!.post('/dars/distribute', { dar_files: [] });
    expect(omitted.status).toBe(400);
  });

  it('refuses a second distribution in the same second (the instance names collide)', async () => {
    let first = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [],
      peer_ids: [world.participant[1]],
    });
    let second = await world.dpm[0]!.post<{ instance_name: string }>('/dars/distribute', {
      dar_files: [],
      peer_ids: [world.participant[1]],
    });
    if (second.status === 202) {
      // the two calls straddled a second boundary; the next pair cannot
      first = second;
      second = await world.dpm[0]!.post('/dars/distribute', {
        dar_files: [],
        peer_ids: [world.participant[1]],
      });
    }
    expect(first.status).toBe(202);
    expect(second.status).toBe(409);
    expect(second.body).toEqual(
      error(`A workflow with instance ${first.body.instance_name} is already running`),
    );
    await acceptOn(world, [1], first.body.instance_name);
    await waitForRun(world.dpm[0]!, first.body.instance_name, 'completed');
  });
});

describe('framework answers (actix) and the auth middleware', () => {
  it('answers malformed JSON, a bad Canton id, a wrong type and a missing content type with text/plain 400', async () => {
    const api = world.dpm[0]!;
    const cases: Array<[string, Parameters<typeof api.call>[2], string]> = [
      [
        '/onboarding',
        { raw: '{"party_id_prefix": "x",' },
        'Json deserialize error: EOF while parsing an object at line 1 column 24',
      ],
      [
        '/onboarding',
        { raw: '{"party_id_prefix":"x","peer_ids":["bad"]}' },
        "Json deserialize error: Invalid Canton ID format: expected 'prefix::namespace', got 'bad' at line 1 column 40",
      ],
      [
        '/onboarding',
        { raw: '{"party_id_prefix":"x","peer_ids":["p::12zz"]}' },
        "Json deserialize error: Invalid character 'z' at position 2 at line 1 column 44",
      ],
      [
        '/onboarding',
        { raw: '{"party_id_prefix":5,"peer_ids":[]}' },
        'Json deserialize error: invalid type: integer `5`, expected a string at line 1 column 20',
      ],
      [
        '/onboarding',
        { raw: '{"party_id_prefix":"x","peer_ids":[]}', contentType: null },
        'Content type error',
      ],
    ];
    for (const [path, options, text] of cases) {
      const response = await api.call('POST', path, options);
      expect(response.status, text).toBe(400);
      expect(response.contentType).toMatch(/^text\/plain/);
      expect(response.text).toBe(text);
    }
  });

  it('serves the web UI page for unknown GET paths (and GET on a POST-only route), 404 for other methods', async () => {
    const unknown = await world.dpm[0]!.get('/no/such/page');
    expect(unknown.status).toBe(200);
    expect(unknown.contentType).toMatch(/^text\/html/);
    expect((await world.dpm[0]!.get('/kick')).status).toBe(200);
    const post = await world.dpm[0]!.post('/no/such/route');
    expect(post.status).toBe(404);
    expect(post.text).toBe('');
  });

  it('authenticates before decoding the body, and decodes before the admin gate', async () => {
    const anonymous = await world.dpm[0]!.call('POST', '/onboarding', { raw: '{', token: null });
    expect([anonymous.status, anonymous.body]).toEqual([401, error('missing bearer token')]);
    const viewer = await world.token('viewer');
    const badBody = await world.dpm[0]!.call('POST', '/onboarding', { raw: '{', token: viewer });
    expect(badBody.status).toBe(400);
    const forbidden = await world.dpm[0]!.call('POST', '/onboarding', {
      body: { party_id_prefix: 'v', peer_ids: [] },
      token: viewer,
    });
    expect([forbidden.status, forbidden.body]).toEqual([403, error('missing required role: dpm-admin')]);
    const read = await world.dpm[0]!.call('GET', '/workflows', { token: viewer });
    expect(read.status).toBe(200);
    const test = await world.dpm[0]!.call('POST', '/auth/test', { token: viewer });
    expect(test.status).toBe(200);
  });

  it('keeps /healthz and /auth-config public', async () => {
    const health = await world.dpm[0]!.call('GET', '/healthz', { token: null });
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    const config = await world.dpm[0]!.call('GET', '/auth-config', { token: null });
    expect(config.body).toEqual({
      auth_required: true,
      keycloak_host: world.sandbox.urls.idp.issuer.replace(/\/realms\/ledgerbook$/, ''),
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-cli',
    });
  });
});
