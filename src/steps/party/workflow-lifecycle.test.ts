import { describe, expect, it } from 'vitest';
import type { DpmClient } from '../../clients/dpm.js';
import { ServiceError, StepError } from '../../errors.js';
import { PARTICIPANT, PARTY, fakeContext, run, target } from './packages-testing.js';
import { startWorkflow } from './workflow-lifecycle.js';
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
