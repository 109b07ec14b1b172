/**
 * The topology steps' pure parts: static checks against a target, and the plans — what each step decides from
 * what it observed (in sync, adopt, retry only when safe, start, or stop with who and what to do).
 */
import { describe, expect, it } from 'vitest';
import type { DecentralizedParty, PendingInvitation, WorkflowRun } from '../../clients/dpm-wire.js';
import { StepError } from '../../errors.js';
import type { Item } from '../contract.js';
import type { Target } from '../../playbook/target.js';
import { dpmAcceptInvitations } from './accept-invitations.js';
import { dpmKick } from './kick.js';
import type { MembershipState } from './membership.js';
import { dpmNetwork, versionAtLeast } from './network.js';
import { dpmOnboardParty } from './onboard-party.js';
import { declinedBy, earlierRun, retrySafe } from './party-common.js';
import { topologyKinds } from './topology.js';
import { dpmWorkflow } from './workflow-control.js';
import { rivalOf, type RunMatch } from './workflow-runs.js';

const hex = (c: string): string => `1220${c.repeat(64)}`;
const P1 = `node1::${hex('1')}`;
const P2 = `node2::${hex('2')}`;
const P3 = `node3::${hex('3')}`;
const PARTY = `alpha::${hex('a')}`;
const names = { [P1]: 'node1', [P2]: 'node2', [P3]: 'node3' };

const target: Target = {
  name: 'unit',
  network: 'devnet',
  file: undefined,
  nodes: {
    node1: { participantId: P1, dpm: 'http://127.0.0.1:1', party: `op1::${hex('1')}` },
    node2: { participantId: P2, dpm: 'http://127.0.0.1:2' },
    node3: { participantId: P3, dpm: 'http://127.0.0.1:3', controlled: false },
  },
};

function run(fields: Partial<WorkflowRun>): WorkflowRun {
  return {
    instance_name: 'alpha-creation',
    kind: 'Onboarding',
    role: 'Coordinator',
    prefix: 'alpha',
    status: 'inprogress',
    current_step: 'WaitingForPeers',
    step_index: 0,
    step_total: 8,
    config_json: '{}',
    expected_peers: [P2, P3],
    completed_peers: [],
    dismissed: false,
    created_at: 100,
    updated_at: 100,
    ...fields,
  };
}

function party(members: string[], threshold: number, keys = true): DecentralizedParty {
  return {
    party_id: PARTY,
    threshold,
    owners: members.map((_, i) => `owner${i}`),
    participants: members.map((p, i) => ({
      participant_uid: p,
      permission: 'confirmation' as const,
      ...(keys ? { owner_key: `owner${i}` } : {}),
    })),
  };
}

function thrown(fn: () => unknown): StepError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StepError) return error;
    throw error;
  }
  throw new Error('expected a StepError');
}

const item = <T>(key: string, value: T): Item<T> => ({ key, value });

describe('registration', () => {
  it('lists the eight topology kinds, each with a described, closed `with` schema', () => {
    expect(topologyKinds.map((k) => k.kind)).toEqual([
      'dpm.network',
      'dpm.party-config',
      'dpm.onboard-party',
      'dpm.accept-invitations',
      'dpm.kick',
      'dpm.add-party',
      'dpm.change-threshold',
      'dpm.workflow',
    ]);
    for (const kind of topologyKinds) {
      expect(kind.withSchema['additionalProperties'], kind.kind).toBe(false);
      const properties = kind.withSchema['properties'] as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties))
        expect(schema.description, `${kind.kind} with.${name}`).toBeTruthy();
    }
  });
});

describe('the rules for an earlier run', () => {
  it('retries only a coordinator run whose own work failed', () => {
    const failed = (error: string, role: 'Coordinator' | 'Peer' = 'Coordinator'): WorkflowRun =>
      run({ status: 'failed', error, role });
    expect(
      retrySafe(failed('Coordinator workflow failed: DNS did not appear in topology after 30 attempts')),
    ).toBe(true);
    expect(retrySafe(failed(`Peer ${P3} declined the invitation`))).toBe(false);
    expect(retrySafe(failed('Coordinator workflow failed: Resume failed: invalid config'))).toBe(false);
    expect(retrySafe(failed('Peer failed: persistent communication errors with coordinator', 'Peer'))).toBe(
      false,
    );
    expect(retrySafe(run({ status: 'completed', error: 'Coordinator workflow failed: x' }))).toBe(false);
    expect(declinedBy(failed(`Peer ${P3} declined the invitation`))).toBe(P3);
  });

  it('adopts a run in progress, retries a safe failure, stops on a decline, and ignores finished runs', () => {
    const name = (p: string): string => names[p] ?? p;
    expect(earlierRun(name, 'node1', run({})).verdict).toBe('adopt');
    expect(
      earlierRun(name, 'node1', run({ status: 'failed', error: 'Coordinator workflow failed: boom' }))
        .verdict,
    ).toBe('retry');
    expect(earlierRun(name, 'node1', run({ status: 'completed' })).verdict).toBe('none');
    expect(earlierRun(name, 'node1', run({ status: 'cancelled' })).verdict).toBe('none');
    const blocked = earlierRun(
      name,
      'node1',
      run({ status: 'failed', error: `Peer ${P3} declined the invitation` }),
    );
    expect(blocked.verdict).toBe('blocked');
    if (blocked.verdict !== 'blocked') return;
    expect(blocked.error.message).toBe(
      `the Onboarding run alpha-creation on node1 failed: node3 (${P3}) declined the invitation`,
    );
    expect(blocked.error.hint).toContain('{ node: node1, instance: alpha-creation, action: cancel }');
  });
});

describe('runs that stand in the way of a start', () => {
  const match: RunMatch = { kind: 'ChangeThreshold', party: PARTY, same: (r) => r.new_threshold === 3 };
  const change = (fields: Partial<WorkflowRun>) =>
    run({
      kind: 'ChangeThreshold',
      dec_party_id: PARTY,
      instance_name: 'alpha-change-threshold-1',
      ...fields,
    });

  it('another change of the party in flight anywhere, or finished since the observation; never the same change', () => {
    const inFlight = { node: 'node2', run: change({ new_threshold: 1 }) };
    expect(rivalOf([inFlight], match)).toBe(inFlight);
    expect(rivalOf([{ node: 'node2', run: change({ new_threshold: 3 }) }], match)).toBeUndefined();
    // a run of another party, or an onboarding, is not about this party
    expect(
      rivalOf([{ node: 'node2', run: change({ new_threshold: 1, dec_party_id: 'x::1' }) }], match),
    ).toBeUndefined();
    const done = { node: 'node2', run: change({ new_threshold: 1, status: 'completed' }) };
    // finished before the observation: what was observed already includes it
    expect(rivalOf([done], match, [done])).toBeUndefined();
    // finished since (unseen, or seen in progress): the observed state is stale
    expect(rivalOf([done], match, [])).toBe(done);
    expect(rivalOf([done], match, [inFlight])).toBe(done);
    // without an observation to compare with, only runs in flight count
    expect(rivalOf([done], match)).toBeUndefined();
    expect(
      rivalOf([{ node: 'node2', run: change({ new_threshold: 1, status: 'failed' }) }], match, []),
    ).toBeUndefined();
  });
});

describe('dpm.onboard-party', () => {
  const w = { coordinator: 'node1', peers: ['node2', 'node3'], prefix: 'alpha', threshold: 2 };
  /** `run` on node1 is also what the runs around show, unless `around` says otherwise */
  const observed = (fields: Record<string, unknown>) =>
    ({
      members: [P1, P2, P3],
      threshold: 2,
      party: undefined,
      elsewhere: undefined,
      run: undefined,
      around: fields['run'] ? [{ node: 'node1', run: fields['run'] }] : [],
      names,
      uncontrolled: ['node3'],
      startsHere: true,
      ...fields,
    }) as Parameters<typeof dpmOnboardParty.plan>[1];
  const plan = (state: ReturnType<typeof observed>) => dpmOnboardParty.plan(w, state, item('', w));

  it('is in sync when the party has exactly these members and this threshold', () => {
    expect(plan(observed({ party: party([P3, P1, P2], 2) }))).toEqual({
      changes: [],
      outputs: { party_id: PARTY, threshold: 2, members: [P3, P1, P2], nodes: ['node1', 'node2', 'node3'] },
    });
  });

  it('refuses to onboard over a party with the prefix but other members or threshold, naming the kinds that change it', () => {
    const error = thrown(() => plan(observed({ party: party([P1, P2], 1) })));
    expect(error.message).toContain(
      `already exists (${PARTY}, seen by node1): members node1, node2, threshold 1`,
    );
    expect(error.hint).toContain('dpm.add-party to add node3');
    expect(error.hint).toContain('dpm.change-threshold to set the threshold to 2');
  });

  it('starts when nothing exists, and says who must accept on their own', () => {
    const { changes } = plan(observed({}));
    expect(changes).toHaveLength(1);
    expect(changes[0]?.action).toBe('start');
    expect(changes[0]?.summary).toBe(
      "start the onboarding of party 'alpha' on node1 with node2, node3 (threshold 2 of 3); node3 must accept on their own",
    );
  });

  it("plans to wait for the onboarding that another operator's coordinator starts, and to follow it", () => {
    const { changes } = plan(observed({ startsHere: false }));
    expect(changes.map((c) => [c.action, c.summary])).toEqual([
      [
        'wait',
        "wait for the operator of node1 (not controlled here) to start the onboarding of party 'alpha' on node1 with node2, node3 (threshold 2 of 3); node3 must accept on their own; then follow that run: accept its invitations on the nodes this target controls and wait for it",
      ],
    ]);
  });

  it('adopts an onboarding of the prefix in progress instead of starting another', () => {
    const { changes } = plan(observed({ run: run({ current_step: 'SignDns', step_index: 3 }) }));
    expect(changes.map((c) => [c.action, c.summary.split(' and wait')[0]])).toEqual([
      ['wait', 'adopt Onboarding run alpha-creation: inprogress at SignDns (4/8) on node1'],
    ]);
  });

  it('is done only once its onboarding is no longer in flight; another onboarding of the prefix is refused', () => {
    // the party exists as declared, but the run that created it still lingers at Complete
    const lingering = run({ current_step: 'Complete', step_index: 7 });
    const waiting = plan(observed({ party: party([P1, P2, P3], 2), run: lingering }));
    expect(waiting.changes.map((c) => c.action)).toEqual(['wait']);
    expect(waiting.changes[0]?.summary).toMatch(
      /^adopt Onboarding run alpha-creation: inprogress at Complete/,
    );
    // node2 coordinates the same party (node2 with node1 and node3): followed, not started again
    const there = { node: 'node2', run: run({ expected_peers: [P1, P3] }) };
    const follow = plan(observed({ around: [there] })).changes[0];
    expect(follow?.summary).toMatch(
      /^follow Onboarding run alpha-creation: inprogress at WaitingForPeers \(1\/8\) on node2/,
    );
    expect(follow?.details).toMatchObject({ node: 'node2', instance: 'alpha-creation' });
    // node2 onboards the prefix with other members: refused, naming that run
    const other = { node: 'node2', run: run({ expected_peers: [P1] }) };
    expect(thrown(() => plan(observed({ around: [other] }))).message).toBe(
      "refusing to start: node2 is already changing the onboarding of 'alpha': Onboarding run alpha-creation: inprogress at WaitingForPeers (1/8) (onboard 'alpha' with node1)",
    );
  });

  it('retries a failed run only when the coordinator’s own work failed; a decline stops with who and how', () => {
    const retried = plan(
      observed({ run: run({ status: 'failed', error: 'Coordinator workflow failed: timeout' }) }),
    );
    expect(retried.changes[0]?.summary).toMatch(/^retry Onboarding run alpha-creation: failed/);
    const declined = thrown(() =>
      plan(observed({ run: run({ status: 'failed', error: `Peer ${P3} declined the invitation` }) })),
    );
    expect(declined.message).toContain('node3');
    expect(declined.message).toContain('declined the invitation');
    expect(declined.hint).toContain('action: cancel');
  });

  it('checks node names, the coordinator and the threshold against the target before anything is sent', () => {
    const check = (with_: Parameters<NonNullable<typeof dpmOnboardParty.check>>[0], t: Target, dir: string) =>
      dpmOnboardParty.check?.(with_, t, dir) ?? [];
    expect(check({ ...w, peers: ['node2', 'nod3'] }, target, '.')).toEqual([
      {
        pointer: '/peers/1',
        message: "the target has no node 'nod3'",
        hint: "did you mean 'node3'?",
        expected: 'a node name of the target',
      },
    ]);
    expect(check({ ...w, peers: ['node1', 'node2'] }, target, '.').map((f) => f.pointer)).toEqual([
      '/peers/0',
    ]);
    expect(check({ ...w, threshold: 4 }, target, '.').map((f) => f.message)).toEqual([
      'threshold 4 is more than the 3 members',
    ]);
    // another operator's coordinator is no error: the step follows that operator's run (see its schema)
    expect(check({ ...w, coordinator: 'node3', peers: ['node1', 'node2'] }, target, '.')).toEqual([]);
    expect(check({ ...w, coordinator: 'node9', peers: ['node1', 'node2'] }, target, '.')[0]?.message).toBe(
      "the target has no node 'node9'",
    );
    // values computed at run time are checked at run time
    expect(check({ ...w, coordinator: '${{ inputs.coordinator }}' }, target, '.')).toEqual([]);
  });
});

describe('dpm.network', () => {
  const entry = (p: string, name: string, key: string) => ({
    participant_id: p,
    name,
    address: '127.0.0.1',
    port: 9001,
    public_key: `02${key.repeat(64)}`,
  });
  const desired = [entry(P1, 'node1', 'a'), entry(P2, 'node2', 'b')];
  const connected = [
    { id: P1, status: 'CurrentNode' as const, version: '0.1.9' },
    { id: P2, status: 'Connected' as const, version: '0.1.9' },
  ];
  const state = (table: unknown[], statuses: unknown[], controlled = true) =>
    ({ desired, views: { node1: { controlled, table, statuses } } }) as Parameters<typeof dpmNetwork.plan>[1];
  const plan = (s: ReturnType<typeof state>) => dpmNetwork.plan({}, s, item('node1', 'node1'));

  it('compares the table as a set and says what it adds, updates and removes', () => {
    expect(plan(state([desired[1], desired[0]], connected))).toEqual({
      changes: [],
      outputs: { peers: [P1, P2] },
    });
    const stale = { ...entry(P2, 'node2', 'c') };
    const extra = entry(P3, 'old', 'd');
    const { changes } = plan(state([stale, extra], connected));
    expect(changes.map((c) => c.summary)).toEqual([
      `replace the peers table on node1 (adds node1; updates node2: public_key; removes old (${P3}))`,
    ]);
    expect(plan(state([], connected, false)).changes[0]).toMatchObject({ action: 'wait' });
  });

  it('waits while a peer is not Connected with a version that can take part in workflows', () => {
    const old = [connected[0], { id: P2, status: 'Connected', version: '0.1.8' }];
    expect(plan(state(desired, old)).changes[0]?.summary).toBe(
      'wait until node1 sees every peer Connected (now: node2 runs 0.1.8 (needs ≥ 0.1.9))',
    );
    expect(plan(state(desired, [connected[0]])).changes[0]?.summary).toContain('node2 not listed');
    expect(versionAtLeast('0.1.10', '0.1.9')).toBe(true);
    expect(versionAtLeast('0.1.9-rc1', '0.1.9')).toBe(true);
    expect(versionAtLeast('0.2', '0.1.9')).toBe(true);
    expect(versionAtLeast(undefined, '0.1.9')).toBe(false);
  });
});

describe('dpm.workflow', () => {
  const observed = (r: WorkflowRun | undefined) =>
    ({ wanted: 'run alpha-creation on node1', run: r, names }) satisfies Parameters<
      typeof dpmWorkflow.plan
    >[1];
  const plan = (action: 'wait' | 'cancel' | 'retry' | 'dismiss', r: WorkflowRun | undefined) => {
    const w = { node: 'node1', action, instance: 'alpha-creation' };
    return dpmWorkflow.plan(w, observed(r), item('', w));
  };

  it('cancels only a coordinator run still in flight (a declined one still idles), and is in sync once cancelled', () => {
    expect(plan('cancel', run({})).changes[0]?.action).toBe('delete');
    expect(
      plan('cancel', run({ status: 'failed', error: `Peer ${P3} declined the invitation` })).changes[0]
        ?.summary,
    ).toContain('(declined, still registered)');
    expect(plan('cancel', run({ status: 'cancelled' })).changes).toEqual([]);
    expect(plan('cancel', undefined).changes).toEqual([]);
    expect(thrown(() => plan('cancel', run({ status: 'completed' }))).message).toContain('nothing to cancel');
    expect(thrown(() => plan('cancel', run({ role: 'Peer' }))).message).toContain('peer row');
  });

  it('retries only a failed coordinator run whose own work failed', () => {
    expect(
      plan(
        'retry',
        run({ status: 'failed', error: 'Coordinator workflow failed: x', current_step: 'SignDns' }),
      ).changes[0]?.summary,
    ).toContain('from step SignDns');
    expect(
      thrown(() => plan('retry', run({ status: 'failed', error: `Peer ${P3} declined the invitation` })))
        .message,
    ).toContain('node3');
    expect(thrown(() => plan('retry', run({ status: 'cancelled' }))).message).toContain('cannot be retried');
    expect(
      thrown(() => plan('retry', run({ status: 'failed', error: 'x', role: 'Peer' }))).message,
    ).toContain('only the coordinator retries');
    expect(plan('retry', run({ status: 'completed' })).changes).toEqual([]);
    expect(plan('retry', run({})).changes[0]?.action).toBe('wait');
  });

  it('dismisses only a finished run, and is in sync once it is gone', () => {
    expect(plan('dismiss', run({ status: 'failed', error: 'x' })).changes[0]?.action).toBe('delete');
    expect(thrown(() => plan('dismiss', run({}))).message).toContain('not dismissed');
    expect(plan('dismiss', undefined).changes).toEqual([]);
    expect(thrown(() => plan('wait', undefined)).message).toContain('no run alpha-creation on node1');
  });
});

describe('dpm.kick', () => {
  const w = { coordinator: 'node1', party: PARTY, member: 'node3', threshold: 1 };
  /** `runs` on node1 are also what the runs around show, unless `around` says otherwise */
  const state = (fields: Partial<MembershipState>): MembershipState => ({
    partyId: PARTY,
    coordinatorId: P1,
    memberId: P3,
    party: party([P1, P2, P3], 2),
    runs: [],
    around: (fields.runs ?? [])
      .filter((r) => r.role === 'Coordinator')
      .map((r) => ({ node: 'node1', run: r })),
    watch: ['node2', 'node3'],
    peers: [P1, P2, P3],
    names,
    external: [P3],
    leftovers: [],
    ...fields,
  });
  const plan = (s: MembershipState, with_ = w) => dpmKick.plan(with_, s, item('', with_));

  it('is in sync once the member is gone with the declared threshold; a threshold left over is named', () => {
    expect(plan(state({ party: party([P1, P2], 1) })).changes).toEqual([]);
    const error = thrown(() => plan(state({ party: party([P1, P2], 2) })));
    expect(error.hint).toContain('dpm.change-threshold');
  });

  it('starts with the survivors invited, adopts the same kick in flight, and refuses beside another change of the party', () => {
    expect(plan(state({})).changes[0]?.summary).toBe(
      `remove node3 from ${PARTY} (threshold 1): start a Kick workflow on node1 (members now node1, node2, node3, threshold 2); invites node2`,
    );
    expect(plan(state({ memberId: P2 }), { ...w, member: 'node2' }).changes[0]?.summary).toBe(
      `remove node2 from ${PARTY} (threshold 1): start a Kick workflow on node1 (members now node1, node2, node3, threshold 2); invites node3; node3 must accept on their own`,
    );
    const same = run({
      kind: 'Kick',
      instance_name: 'alpha-kick-1',
      dec_party_id: PARTY,
      kicked_participant: P3,
      new_threshold: 1,
    });
    expect(plan(state({ runs: [same] })).changes[0]?.summary).toMatch(/^adopt Kick run alpha-kick-1/);
    const other = run({
      kind: 'ChangeThreshold',
      instance_name: 'alpha-change-threshold-1',
      dec_party_id: PARTY,
      new_threshold: 3,
    });
    expect(thrown(() => plan(state({ runs: [other] }))).message).toBe(
      `refusing to start: node1 is already changing party ${PARTY}: ChangeThreshold run alpha-change-threshold-1: inprogress at WaitingForPeers (1/8) (threshold → 3)`,
    );
    // the coordinator took part in another coordinator's change of the party: the DPM would refuse a start
    const peerRow = run({
      kind: 'AddParty',
      role: 'Peer',
      instance_name: 'peer-addparty-02aa-alpha-add-party-1',
      dec_party_id: PARTY,
    });
    expect(thrown(() => plan(state({ runs: [peerRow] }))).message).toContain(
      'already has a AddParty workflow in flight on node1',
    );
  });

  it('is done only once the same kick is no longer in flight, wherever it is coordinated', () => {
    const gone = { party: party([P1, P2], 1) };
    const lingering = run({
      kind: 'Kick',
      instance_name: 'alpha-kick-1',
      dec_party_id: PARTY,
      kicked_participant: P3,
      new_threshold: 1,
      current_step: 'Complete',
    });
    // the member is gone already while the run lingers at Complete: wait for it, do not call it in sync
    const adopt = plan(state({ ...gone, runs: [lingering] })).changes[0];
    expect(adopt?.action).toBe('wait');
    expect(adopt?.summary).toMatch(/^adopt Kick run alpha-kick-1: inprogress at Complete/);
    // coordinated by node2 (another operator's playbook): followed there, not started again on node1
    const follow = plan(state({ around: [{ node: 'node2', run: lingering }] })).changes[0];
    expect(follow?.details).toMatchObject({ node: 'node2', instance: 'alpha-kick-1' });
    expect(follow?.summary).toMatch(
      /^follow Kick run alpha-kick-1: inprogress at Complete \(1\/8\) on node2 \(remove node3, threshold → 1\)/,
    );
    // node1 took part in it as a peer and its row is still in flight: wait for that row
    const peerRow = { ...lingering, role: 'Peer' as const, instance_name: 'peer-kick-02aa-alpha-kick-1' };
    expect(plan(state({ ...gone, runs: [peerRow] })).changes[0]?.summary).toMatch(
      /^wait for Kick run peer-kick-02aa-alpha-kick-1: inprogress .* taken part in as a peer/,
    );
    expect(plan(state({ ...gone, runs: [{ ...lingering, status: 'completed' }] })).changes).toEqual([]);
    // another change of the party in flight on node2 is refused, naming it
    const rival = run({
      kind: 'ChangeThreshold',
      instance_name: 'alpha-change-threshold-9',
      dec_party_id: PARTY,
      new_threshold: 3,
    });
    expect(thrown(() => plan(state({ around: [{ node: 'node2', run: rival }] }))).message).toMatch(
      /^refusing to start: node2 is already changing party .*: ChangeThreshold run alpha-change-threshold-9/,
    );
  });

  it('says before sending anything when the threshold cannot be met', () => {
    expect(thrown(() => plan(state({}), { ...w, threshold: 3 })).message).toContain(
      'threshold 3 is more than the 2 members that remain',
    );
  });

  it('is in sync only once no invitation of its completed runs is left pending here: it declines what is', () => {
    const done = run({
      kind: 'Kick',
      instance_name: 'alpha-kick-1',
      dec_party_id: PARTY,
      kicked_participant: P3,
      new_threshold: 1,
      status: 'completed',
      current_step: 'Complete',
    });
    const card = {
      id: 'kick-02aa-alpha-kick-1',
      invitation_type: 'Kick' as const,
      coordinator_pubkey: `02${'aa'.repeat(32)}`,
      coordinator_name: 'node1',
      received_at: 100,
      workflow_instance: 'alpha-kick-1',
    };
    const left = plan(state({ party: party([P1, P2], 1), leftovers: [{ node: 'node2', card, run: done }] }));
    expect(left.changes).toEqual([
      expect.objectContaining({
        action: 'delete',
        summary:
          'decline the invitation of alpha-kick-1 left pending on node2: the run completed without it (its quorum was met)',
      }),
    ]);
  });

  it('another operator’s coordinator: nothing is started here, the step waits for that operator’s run to follow it', () => {
    const nodes = {
      ...target.nodes,
      node1: { participantId: P1, dpm: 'http://127.0.0.1:1', controlled: false },
    };
    expect(dpmKick.check?.(w, { ...target, nodes }, '.')).toEqual([]);
    const change = plan(state({ external: [P1, P3] })).changes[0];
    expect(change?.action).toBe('wait');
    expect(change?.summary).toBe(
      `remove node3 from ${PARTY} (threshold 1): wait for the operator of node1 (not controlled here) to start a Kick workflow there, then follow it: accept on node2 and wait for it`,
    );
  });
});

describe('dpm.accept-invitations', () => {
  const card = (fields: Partial<PendingInvitation>): PendingInvitation => ({
    id: `onboarding-02aaaaaaaaaaaaaa-alpha-creation`,
    invitation_type: 'Onboarding',
    coordinator_pubkey: `02${'a'.repeat(64)}`,
    coordinator_name: null,
    received_at: 1,
    prefix: 'alpha',
    participants: [P2, P3],
    new_threshold: 2,
    workflow_instance: 'alpha-creation',
    ...fields,
  });
  const observed = (cards: PendingInvitation[], joined: WorkflowRun[] = []) =>
    ({
      nodes: { node2: { cards, joined, keys: new Map([[`02${'a'.repeat(64)}`, P1]]) } },
      expect: [
        { kind: 'Onboarding', coordinator: 'node1', prefix: 'alpha', coordinatorId: P1, memberId: undefined },
      ],
      names,
    }) as Parameters<typeof dpmAcceptInvitations.plan>[1];
  const w = { expect: [{ kind: 'Onboarding' as const, coordinator: 'node1', prefix: 'alpha' }] };
  const plan = (state: ReturnType<typeof observed>, id: string) =>
    dpmAcceptInvitations.plan(w, state, item(`node2/${id}`, { node: 'node2', id }));

  it('accepts what the playbook declares and declines nothing else unless asked to', () => {
    const expected = card({});
    expect(plan(observed([expected]), expected.id).changes[0]).toMatchObject({
      action: 'update',
      summary: `accept on node2: Onboarding from node1 (prefix alpha, threshold 2), id ${expected.id}`,
    });
    const other = card({ id: 'onboarding-02aaaaaaaaaaaaaa-beta-creation', prefix: 'beta' });
    expect(plan(observed([other]), other.id).changes[0]).toMatchObject({ action: 'delete' });
    const stranger = card({
      id: 'onboarding-03bb-alpha-creation',
      coordinator_pubkey: `03${'b'.repeat(64)}`,
    });
    expect(plan(observed([stranger]), stranger.id).changes[0]?.action).toBe('delete');
  });

  it('is in sync when the invitation is gone because the node joined its run', () => {
    const joined = run({
      role: 'Peer',
      instance_name: 'peer-onboarding-x',
      coordinator_instance: 'alpha-creation',
    });
    expect(plan(observed([], [joined]), card({}).id)).toEqual({
      changes: [],
      outputs: { node: 'node2', invitation: card({}).id, action: 'accepted' },
    });
  });
});
