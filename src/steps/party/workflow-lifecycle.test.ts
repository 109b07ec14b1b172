import { describe, expect, it } from 'vitest';
import type { DpmClient } from '../../clients/dpm.js';
import { ServiceError, StepError } from '../../errors.js';
import { PARTICIPANT, PARTY, fakeContext, run, target } from './packages-testing.js';
import type { WorkflowRun } from '../../clients/dpm-wire.js';
import type { Change } from '../contract.js';
import {
  decideRun,
  followChange,
  plannedChanges,
  type Decision,
  type RunsObserved,
} from './workflow-decision.js';
import { seeRunThrough, startWorkflow } from './workflow-lifecycle.js';
import { waitForRun } from './workflow-waits.js';

const t = target({ node1: {}, node2: { controlled: false }, node3: { controlled: false } });
const coordinatorRun = run({ instance_name: 'dars-distribute-7', kind: 'Dars', status: 'inprogress' });
const peerRow = (status: 'inprogress' | 'failed', error?: string) =>
  run({
    instance_name: 'peer-dars-0abc-dars-distribute-7',
    kind: 'Dars',
    role: 'Peer',
    status,
    coordinator_instance: 'dars-distribute-7',
    expected_peers: [PARTICIPANT.node2, PARTICIPANT.node3],
    ...(error === undefined ? {} : { error }),
  });

describe('waitForRun', () => {
  it('stops a coordinator run whose invitees gave their part up (it would wait for ever), naming what to cancel', async () => {
    const fake = fakeContext(t, {
      node1: { runs: [coordinatorRun] },
      node2: { runs: [peerRow('failed', 'Peer failed: persistent communication errors with coordinator')] },
      node3: { runs: [peerRow('inprogress')] },
    });
    const error = await waitForRun(fake.ctx, 'node1', 'dars-distribute-7', 60_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepError);
    expect((error as StepError).message).toMatch(
      /cannot complete: node2's part of it is failed \(Peer failed: persistent communication errors with coordinator\)/,
    );
    expect((error as StepError).hint).toContain(
      'dpm.workflow { node: node1, instance: dars-distribute-7, action: cancel }',
    );
  });

  it('a kick or contracts run goes on while some invitee is left to meet its quorum', async () => {
    const contracts = { ...coordinatorRun, kind: 'Contracts' as const, instance_name: 'alpha-contracts-7' };
    const row = {
      ...peerRow('failed', 'x'),
      kind: 'Contracts' as const,
      coordinator_instance: 'alpha-contracts-7',
    };
    const nodes = {
      node1: { runs: [contracts] },
      node2: { runs: [row] },
      node3: { runs: [] },
    };
    const { ctx } = fakeContext(t, nodes);
    let polls = 0;
    const clock = {
      now: () => Date.now(),
      sleep: () => {
        // the run completes after a few polls: the failed peer row never stopped the wait
        if (++polls === 3) nodes.node1.runs = [{ ...contracts, status: 'completed' }];
        return new Promise<void>((r) => setTimeout(r, 1));
      },
    };
    const waited = await waitForRun({ ...ctx, clock }, 'node1', 'alpha-contracts-7', 60_000);
    expect(waited.status).toBe('completed');
  });
});

describe('startWorkflow', () => {
  it('a 409 naming a run another start registered a moment ago: looked for until it is listed, then followed', async () => {
    const nodes = { node1: { runs: [] as ReturnType<typeof run>[] }, node2: {}, node3: {} };
    const { ctx, intents } = fakeContext(target({ node1: {}, node2: {}, node3: {} }), nodes);
    const starting = run({
      instance_name: 'alpha-change-threshold-7',
      kind: 'ChangeThreshold',
      status: 'inprogress',
      dec_party_id: PARTY,
      new_threshold: 3,
    });
    let polls = 0;
    const clock = {
      now: () => Date.now(),
      sleep: () => {
        // the other start finishes its checks: its run is listed after a few polls
        if (++polls === 3) nodes.node1.runs = [starting];
        return Promise.resolve();
      },
    };
    const outcome = await startWorkflow(
      { ...ctx, clock },
      {
        node: 'node1',
        match: { kind: 'ChangeThreshold', party: PARTY, same: (r) => r.new_threshold === 3 },
        observed: [],
        watch: ['node2', 'node3'],
        reached: () => Promise.resolve(false),
        start: (_client: DpmClient) =>
          Promise.reject(
            new ServiceError({
              service: 'dpm:node1',
              method: 'POST',
              path: '/change-threshold',
              status: 409,
              serviceMessage: 'A workflow with instance alpha-change-threshold-7 is already running',
              retryability: 'permanent',
            }),
          ),
      },
    );
    expect(outcome.outcome).toBe('following');
    expect(outcome.outcome === 'following' && outcome.at.run.instance_name).toBe('alpha-change-threshold-7');
    expect(intents.map((i) => i.action)).toEqual(['start-workflow']);
  });
});

describe('seeRunThrough', () => {
  const instance = 'dars-distribute-9';
  const card = (node: keyof typeof PARTICIPANT, forInstance: string) => ({
    id: `dars-${node}-${forInstance}`,
    invitation_type: 'Dars' as const,
    coordinator_pubkey: '02ab',
    received_at: 1,
    workflow_instance: forInstance,
  });

  /** node1 coordinates a Dars run inviting node2 and node3; it completes once both accepted here */
  function world(controlled: { node2: boolean; node3: boolean }) {
    const nodes = {
      node1: { runs: [run({ instance_name: instance, kind: 'Dars', status: 'inprogress' })] },
      node2: { invitations: [card('node2', 'dars-distribute-8'), card('node2', instance)] },
      node3: { invitations: [card('node3', instance)] },
    };
    const fake = fakeContext(
      target({ node1: {}, node2: { controlled: controlled.node2 }, node3: { controlled: controlled.node3 } }),
      nodes,
    );
    const accepted: string[] = [];
    const retried: string[] = [];
    const base = (node: string): DpmClient => fake.ctx.clients.dpm(node);
    const dpm = (node: string): DpmClient =>
      ({
        ...base(node),
        acceptInvitation: (id: string) => {
          accepted.push(id);
          const wanted = Object.values(controlled).filter(Boolean).length;
          if (accepted.length === wanted)
            nodes.node1.runs = [{ ...nodes.node1.runs[0]!, status: 'completed' }];
          return Promise.resolve({ message: 'accepted' });
        },
        retryWorkflow: (name: string) => {
          retried.push(name);
          return Promise.resolve({ message: 'retrying' });
        },
      }) as unknown as DpmClient;
    const ctx = { ...fake.ctx, clients: { ...fake.ctx.clients, dpm } };
    const at = { node: 'node1', run: nodes.node1.runs[0]! };
    const through = {
      match: { kind: 'Dars' as const, darFilenames: [] },
      members: ['node1', 'node2', 'node3'],
      remaining: () => 60_000,
    };
    return { ctx, fake, at, through, accepted, retried };
  }

  it('follows a run: the run’s own invitation accepted on every controlled invitee, each recorded first, then waited for', async () => {
    const w = world({ node2: true, node3: true });
    const followed = await seeRunThrough(w.ctx, { follow: w.at }, w.through);
    expect(followed?.at).toEqual(w.at);
    expect(w.accepted.sort()).toEqual([`dars-node2-${instance}`, `dars-node3-${instance}`]);
    expect(w.fake.intents.map((i) => [i.action, i['node'], i['instance']]).sort()).toEqual([
      ['accept-invitation', 'node2', instance],
      ['accept-invitation', 'node3', instance],
    ]);
  });

  it('accepts nothing on a node this target does not control: its operator does', async () => {
    const w = world({ node2: true, node3: false });
    await seeRunThrough(w.ctx, { follow: w.at }, w.through);
    expect(w.accepted).toEqual([`dars-node2-${instance}`]);
  });

  it('retries a failed run once, the intent recorded before the POST, then follows it', async () => {
    const w = world({ node2: true, node3: true });
    await seeRunThrough(w.ctx, { retry: w.at }, w.through);
    expect(w.retried).toEqual([instance]);
    expect(w.fake.intents[0]).toMatchObject({ action: 'retry-workflow', node: 'node1', instance });
  });

  it('a start that finds the end state reached follows nothing and accepts nothing', async () => {
    const w = world({ node2: true, node3: true });
    const followed = await seeRunThrough(
      w.ctx,
      { start: () => Promise.resolve({ outcome: 'reached' as const }) },
      w.through,
    );
    expect(followed).toBeUndefined();
    expect(w.accepted).toEqual([]);
    expect(w.fake.intents).toEqual([]);
  });
});

describe('followChange', () => {
  const at = (node: string) => ({
    node,
    run: run({
      instance_name: 'alpha-kick-1',
      kind: 'Kick',
      status: 'inprogress',
      kicked_participant: PARTICIPANT.node3,
    }),
  });
  const name = (p: string) => Object.entries(PARTICIPANT).find(([, id]) => id === p)?.[0] ?? p;

  it('adopts a run on the coordinator, follows one another member coordinates; both name the run and its node', () => {
    const adopt = followChange(at('node1'), 'node1', name, { party: PARTY });
    expect(adopt.action).toBe('wait');
    expect(adopt.summary).toMatch(
      /^adopt Kick run alpha-kick-1: inprogress at WaitingForPeers \(1\/5\) on node1 and wait for it \(remove node3\)/,
    );
    expect(adopt.details).toEqual({ party: PARTY, node: 'node1', instance: 'alpha-kick-1' });
    const follow = followChange(at('node2'), 'node1', name);
    expect(follow.summary).toMatch(
      /^follow Kick run alpha-kick-1: .* on node2 \(remove node3\): the same change, coordinated there/,
    );
    expect(follow.details).toEqual({ node: 'node2', instance: 'alpha-kick-1' });
  });
});

describe('decideRun: one ladder for every workflow kind', () => {
  const name = (p: string) => Object.entries(PARTICIPANT).find(([, id]) => id === p)?.[0] ?? p;
  const match = {
    kind: 'ChangeThreshold' as const,
    party: PARTY,
    same: (r: WorkflowRun) => r.new_threshold === 3,
  };
  const change = (status: WorkflowRun['status'], threshold: number, fields: Partial<WorkflowRun> = {}) =>
    run({
      instance_name: `alpha-change-threshold-${threshold}`,
      kind: 'ChangeThreshold',
      status,
      dec_party_id: PARTY,
      new_threshold: threshold,
      ...fields,
    });
  const ours = { node: 'node2', run: change('inprogress', 3) };
  const oursHere = { node: 'node1', run: change('inprogress', 3) };
  const rival = { node: 'node3', run: change('inprogress', 1) };
  const outputs = { threshold: 3 };
  const card = {
    id: 'card-1',
    invitation_type: 'ChangeThreshold' as const,
    coordinator_pubkey: '02ab',
    received_at: 1,
  };
  const leftover = { node: 'node2', card: { ...card, workflow_instance: 'x' }, run: change('completed', 3) };
  const safe = change('failed', 3, { error: 'Coordinator workflow failed: timeout' });
  const declined = change('failed', 3, { error: `Peer ${PARTICIPANT.node3} declined the invitation` });
  const completed = change('completed', 3);
  const seen = (fields: Partial<RunsObserved>): RunsObserved => ({
    coordinator: 'node1',
    match,
    around: [],
    reached: undefined,
    name,
    ...fields,
  });
  /** the decision, told as its action and what it names */
  const told = (d: Decision): string => {
    switch (d.action) {
      case 'in-sync':
        return 'in-sync';
      case 'decline':
        return `decline ${d.leftovers.map((l) => l.card.id).join(',')}`;
      case 'follow':
        return `follow ${d.at.run.instance_name} on ${d.at.node}`;
      case 'retry':
      case 'verify':
        return `${d.action} ${d.run.instance_name}`;
      case 'start':
        return 'start';
      case 'refuse':
        return `refuse: ${d.error.message}`;
    }
  };

  it.each<[string, Partial<RunsObserved>, string]>([
    ['end state reached, nothing in flight', { reached: outputs }, 'in-sync'],
    [
      'end state reached, completed runs left a card here',
      { reached: outputs, leftovers: [leftover] },
      'decline card-1',
    ],
    [
      'end state reached, the same change still in flight (it lingers at Complete)',
      { reached: outputs, around: [ours], leftovers: [leftover] },
      'follow alpha-change-threshold-3 on node2',
    ],
    ['nothing there', {}, 'start'],
    [
      'the same change in flight on the coordinator and on another member: the coordinator’s first',
      { around: [ours, oursHere] },
      'follow alpha-change-threshold-3 on node1',
    ],
    [
      'another change of the party in flight, beside the same change',
      { around: [ours, rival] },
      'refuse: refusing to start: node3 is already changing party',
    ],
    [
      'the last run in flight on the coordinator',
      { last: oursHere.run },
      'follow alpha-change-threshold-3 on node1',
    ],
    ['the last run failed on the coordinator’s own work', { last: safe }, 'retry alpha-change-threshold-3'],
    [
      'the last run was declined',
      { last: declined },
      'refuse: the ChangeThreshold run alpha-change-threshold-3 on node1 failed: node3',
    ],
    [
      'the last run completed, its effect not seen yet',
      { last: completed },
      'verify alpha-change-threshold-3',
    ],
    ['the last run was cancelled', { last: change('cancelled', 3) }, 'start'],
    [
      'a completed run of another change (not the last run of this one)',
      { around: [{ node: 'node3', run: change('completed', 1) }] },
      'start',
    ],
  ])('%s', (_what, fields, expected) => {
    expect(told(decideRun(seen(fields)))).toMatch(new RegExp(`^${expected.replace(/[()]/g, '\\$&')}`));
  });

  it('follows the same change before looking for another one when the kind says so, and words its refusal', () => {
    expect(told(decideRun(seen({ around: [rival, ours] }), { followBeforeRivals: true }))).toBe(
      'follow alpha-change-threshold-3 on node2',
    );
    expect(
      told(decideRun(seen({ around: [rival] }), { lead: 'refusing to start the Contracts workflow' })),
    ).toMatch(/^refuse: refusing to start the Contracts workflow: node3 is already changing party/);
  });

  it('plans each decision: the shared changes, the kind’s own start with what would refuse it', () => {
    const start = (refusal?: Error): Change => ({
      action: 'start',
      summary: refusal ? `start; as things stand now it would refuse: ${refusal.message}` : 'start',
    });
    const plan = (d: Decision, startsHere = true) =>
      d.action === 'in-sync'
        ? []
        : plannedChanges(d, 'node1', name, {
            details: { party: PARTY },
            verified: 'sees it',
            start,
            startsHere,
          }).map((c) => `${c.action}: ${c.summary}`);
    expect(plan(decideRun(seen({ reached: outputs, leftovers: [leftover] })))).toEqual([
      'delete: decline the invitation of alpha-change-threshold-3 left pending on node2: the run completed without it (its quorum was met)',
    ]);
    expect(plan(decideRun(seen({ around: [ours] })))[0]).toMatch(
      /^wait: follow ChangeThreshold run .* on node2/,
    );
    expect(plan(decideRun(seen({ last: safe })))[0]).toMatch(/^start: retry ChangeThreshold run .* on node1/);
    expect(plan(decideRun(seen({ last: safe })), false)[0]).toMatch(
      /^wait: wait for the operator of node1 \(not controlled here\) to retry ChangeThreshold run .* on node1 from its failed step/,
    );
    expect(plan(decideRun(seen({ last: completed })))).toEqual([
      'wait: run alpha-change-threshold-3 completed: wait until node1 sees it',
    ]);
    expect(plan(decideRun(seen({})))).toEqual(['start: start']);
    // another operator's coordinator: its operator starts the run; this target plans to wait for it and follow it
    expect(plan(decideRun(seen({})), false)).toEqual([
      'wait: wait for the operator of node1 (not controlled here) to start; then follow that run: accept its invitations on the nodes this target controls and wait for it',
    ]);
    expect(plan(decideRun(seen({ last: declined })))[0]).toMatch(
      /^start: start; as things stand now it would refuse: the ChangeThreshold run .* declined the invitation/,
    );
  });
});
