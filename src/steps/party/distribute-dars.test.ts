import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Intent } from '../contract.js';
import { StepError } from '../../errors.js';
import { dpmDistributeDars } from './distribute-dars.js';
import { PARTICIPANT, fakeContext, run, target, vetted, type FakeNode } from './packages-testing.js';

type With = Parameters<typeof dpmDistributeDars.observe>[1];

const PLAYBOOKS = join(import.meta.dirname, '../../../playbooks');
const GOV = {
  path: 'dars/governance-core-0.2.0.dar',
  sha256: '26eb38f118883834a9f9defbe442a596fde485f3718e59ad1ca23684795d9e47',
};
const WRAPPED = {
  path: 'dars/wrapped-1.2.1.dar',
  sha256: '82eaa394024dd8fbe0f5c98961aacdbb7890ed3212e0e249a347abf27a01e7b6',
};
const gov = vetted(
  '0ba5f6c01995aa4b2ed054003750e1f2af09575cdf82251aeed0b9599b0d26dc',
  'governance-core',
  '0.2.0',
);
const wrapped = vetted(
  '5f6feaaf20545495aa7b69bbf5d1fa0e67309737e547e5a289c100048b8c742d',
  'wrapped',
  '1.2.1',
);
const holding = vetted(
  '19f3a97871cbacaf7e3bae0d82cc6d98c4bf2014c9e61022962131e5eb31bd3c',
  'wrapped-holding',
  '1.0.0',
);
const all = [gov, wrapped, holding];
const t = target({ node1: {}, node2: {}, node3: {} });
const w: With = { coordinator: 'node1', peers: ['node2', 'node3'], files: [GOV, WRAPPED] };
const mesh = [PARTICIPANT.node1, PARTICIPANT.node2, PARTICIPANT.node3];

async function planOf(
  nodes: Record<string, FakeNode>,
  given: With = w,
  mode: 'plan' | 'run' = 'run',
  on = t,
) {
  const fake = fakeContext(on, nodes, PLAYBOOKS, mode);
  const state = await dpmDistributeDars.observe(fake.ctx, given);
  return { fake, plan: () => dpmDistributeDars.plan(given, state, { key: '', value: given }) };
}

describe('dpm.distribute-dars: observe and plan', () => {
  it('is in sync when every node vetted every package of every DAR; outputs the manifests’ packages', async () => {
    const { plan } = await planOf({
      node1: { vetted: all, peers: mesh },
      node2: { vetted: all },
      node3: { vetted: [holding, wrapped, gov] },
    });
    expect(plan()).toEqual({
      changes: [],
      outputs: {
        packages: all.map((p) => ({
          package_id: p.package_id,
          name: p.package_name,
          version: p.package_version,
        })),
        instance: null,
      },
    });
  });

  it('distributes only to the peers that lack a package, saying what each lacks', async () => {
    const { plan } = await planOf({
      node1: { vetted: [], peers: mesh },
      node2: { vetted: all },
      node3: { vetted: [gov] },
    });
    expect(plan().changes).toEqual([
      {
        action: 'start',
        summary:
          'distribute governance-core-0.2.0.dar, wrapped-1.2.1.dar from node1 to node3 (POST /dars/distribute): node3 lacks wrapped:1.2.1, wrapped-holding:1.0.0',
        details: {
          coordinator: 'node1',
          peers: ['node3'],
          files: ['governance-core-0.2.0.dar', 'wrapped-1.2.1.dar'],
        },
      },
    ]);
  });

  it('uploads on the coordinator alone when only it lacks a package', async () => {
    const { plan } = await planOf({
      node1: { vetted: [gov], peers: mesh },
      node2: { vetted: all },
      node3: { vetted: all },
    });
    expect(plan().changes).toEqual([
      expect.objectContaining({
        action: 'update',
        summary:
          'upload governance-core-0.2.0.dar, wrapped-1.2.1.dar to node1 (POST /dars/upload): the peers vetted every package, node1 lacks wrapped:1.2.1, wrapped-holding:1.0.0',
      }),
    ]);
  });

  it("with another operator's coordinator: waits for that operator's run, or leaves its own upload to it", async () => {
    const theirs = target({ node1: { controlled: false }, node2: {}, node3: {} });
    const toPeers = await planOf(
      { node1: { vetted: [], peers: mesh }, node2: { vetted: all }, node3: { vetted: [gov] } },
      w,
      'run',
      theirs,
    );
    expect(toPeers.plan().changes.map((c) => [c.action, c.summary])).toEqual([
      [
        'wait',
        'wait for the operator of node1 (not controlled here) to distribute governance-core-0.2.0.dar, wrapped-1.2.1.dar from node1 to node3 (POST /dars/distribute): node3 lacks wrapped:1.2.1, wrapped-holding:1.0.0; then follow that run: accept its invitations on the nodes this target controls and wait for it',
      ],
    ]);
    const ownUpload = await planOf(
      { node1: { vetted: [gov], peers: mesh }, node2: { vetted: all }, node3: { vetted: all } },
      w,
      'run',
      theirs,
    );
    expect(ownUpload.plan().changes.map((c) => [c.action, c.summary])).toEqual([
      [
        'wait',
        'left to the operator of node1 (not controlled here): upload governance-core-0.2.0.dar, wrapped-1.2.1.dar to node1; node1 lacks wrapped:1.2.1, wrapped-holding:1.0.0; nothing is sent from here, and a parity gate stops the playbook until it is vetted',
      ],
    ]);
  });

  it('adopts a Dars run of the same files in progress; a run of other files is not this one', async () => {
    const same = run({
      instance_name: 'dars-distribute-2',
      kind: 'Dars',
      status: 'inprogress',
      dar_filenames: ['wrapped-1.2.1.dar', 'governance-core-0.2.0.dar'],
    });
    const other = run({
      instance_name: 'dars-distribute-1',
      kind: 'Dars',
      status: 'inprogress',
      dar_filenames: ['governance-core-0.2.0.dar'],
    });
    const lacking = { node2: { vetted: [] }, node3: { vetted: [] } };
    const adopt = await planOf({ node1: { vetted: [], peers: mesh, runs: [other, same] }, ...lacking });
    expect(adopt.plan().changes).toEqual([
      expect.objectContaining({ action: 'wait', details: { node: 'node1', instance: 'dars-distribute-2' } }),
    ]);
    const start = await planOf({ node1: { vetted: [], peers: mesh, runs: [other] }, ...lacking });
    expect(start.plan().changes[0]?.action).toBe('start');
  });

  it('is not in sync while a distribution of these files still runs, though everything is vetted', async () => {
    const lingering = run({
      instance_name: 'dars-distribute-2',
      kind: 'Dars',
      status: 'inprogress',
      current_step: 'Complete',
      dar_filenames: ['wrapped-1.2.1.dar', 'governance-core-0.2.0.dar'],
    });
    const everything = { vetted: all };
    const { plan } = await planOf({
      node1: { ...everything, peers: mesh, runs: [lingering] },
      node2: everything,
      node3: everything,
    });
    expect(plan().changes.map((c) => c.action)).toEqual(['wait']);
  });

  it('starts nothing after a peer declined the last distribution of these files: who, and how to clear it', async () => {
    const declined = run({
      instance_name: 'dars-distribute-3',
      kind: 'Dars',
      status: 'failed',
      error: `Peer ${PARTICIPANT.node3} declined the invitation`,
      dar_filenames: ['wrapped-1.2.1.dar', 'governance-core-0.2.0.dar'],
    });
    const lacking = { node2: { vetted: [] }, node3: { vetted: [] } };
    const { plan } = await planOf({ node1: { vetted: [], peers: mesh, runs: [declined] }, ...lacking });
    let error: unknown;
    try {
      plan();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StepError);
    expect((error as StepError).message).toBe(
      `the Dars run dars-distribute-3 on node1 failed: node3 (${PARTICIPANT.node3}) declined the invitation`,
    );
    expect((error as StepError).hint).toContain(
      '{ node: node1, instance: dars-distribute-3, action: cancel }',
    );
    // once it is cancelled, a new distribution may start
    const cancelled = await planOf({
      node1: { vetted: [], peers: mesh, runs: [{ ...declined, status: 'cancelled', error: null }] },
      ...lacking,
    });
    expect(cancelled.plan().changes[0]?.action).toBe('start');
  });

  it('refuses to start a run to a peer the coordinator does not list (it would wait forever)', async () => {
    const { plan } = await planOf({
      node1: { vetted: [], peers: [PARTICIPANT.node1, PARTICIPANT.node2] },
      node2: { vetted: [] },
      node3: { vetted: [] },
    });
    expect(plan).toThrow("node1's peer table does not list node3: a Dars workflow to it would wait forever");
  });

  it('in `plan`, reports a missing mesh edge in the change instead of failing (dpm.network may come first)', async () => {
    const { plan } = await planOf(
      { node1: { vetted: [], peers: [] }, node2: { vetted: [] }, node3: { vetted: all } },
      w,
      'plan',
    );
    expect(plan().changes[0]?.summary).toMatch(
      /to node2 \(POST \/dars\/distribute\): node2 lacks .*; as things stand now it would refuse: node1's peer table does not list node2/,
    );
  });

  it('refuses, before sending anything, a node that vetted the same name and version under another id', async () => {
    const impostor = { ...gov, package_id: 'ee'.repeat(32) };
    const { plan } = await planOf({
      node1: { vetted: all, peers: mesh },
      node2: { vetted: all },
      node3: { vetted: [impostor] },
    });
    expect(plan).toThrow(
      /^node3 vetted governance-core 0\.2\.0 as eeee.*, but the DAR's manifest names it 0ba5f6c0/,
    );
  });

  it('refuses files that differ from their pins before asking any node', async () => {
    const fake = fakeContext(t, {}, PLAYBOOKS);
    await expect(
      dpmDistributeDars.observe(fake.ctx, { ...w, files: [{ ...GOV, sha256: WRAPPED.sha256 }] }),
    ).rejects.toThrow(
      /^refusing the DARs, nothing was sent: dars\/governance-core-0\.2\.0\.dar does not match its pinned sha256/,
    );
    expect(fake.calls).toEqual([]);
  });

  it('check(): the coordinator among its peers, unknown nodes, wrong pins', () => {
    const findings = dpmDistributeDars.check!(
      { coordinator: 'node1', peers: ['node1', 'node4'], files: [{ ...WRAPPED, sha256: GOV.sha256 }] },
      t,
      PLAYBOOKS,
    );
    expect(findings.map((f) => `${f.pointer} ${f.message.split(':')[0]}`)).toEqual([
      "/peers/1 the target has no node 'node4'",
      '/files/0/sha256 dars/wrapped-1.2.1.dar does not match its pinned sha256',
      '/peers/0 node1 is the coordinator and cannot be one of its peers',
    ]);
  });
});

describe('dpm.distribute-dars: reconcile', () => {
  const at = Math.floor(Date.now() / 1000) - 10;
  const intents: Intent[] = [
    {
      action: 'start-workflow',
      node: 'node1',
      kind: 'Dars',
      at,
      dars: ['governance-core-0.2.0.dar', 'wrapped-1.2.1.dar'],
    },
  ];
  const started = (status: 'inprogress' | 'completed') =>
    run({
      instance_name: 'dars-distribute-9',
      kind: 'Dars',
      status,
      dar_filenames: ['governance-core-0.2.0.dar', 'wrapped-1.2.1.dar'],
    });

  it('leaves a started run in progress to be adopted', async () => {
    const fake = fakeContext(t, { node1: { runs: [started('inprogress')] } }, PLAYBOOKS);
    expect(await dpmDistributeDars.reconcile(fake.ctx, w, { key: '', value: w }, intents)).toEqual({
      status: 'not-done',
      note: 'Dars run dars-distribute-9: inprogress at WaitingForPeers (1/5) is still in progress: adopting it',
    });
  });

  it('is done when the started run finished and every node vetted every package', async () => {
    const fake = fakeContext(
      t,
      {
        node1: { runs: [started('completed')], vetted: all, peers: mesh },
        node2: { vetted: all },
        node3: { vetted: all },
      },
      PLAYBOOKS,
    );
    expect(await dpmDistributeDars.reconcile(fake.ctx, w, { key: '', value: w }, intents)).toMatchObject({
      status: 'done',
      outputs: { instance: 'dars-distribute-9' },
    });
  });

  it('is not done when a node still lacks a package (observe and plan decide what to do)', async () => {
    const fake = fakeContext(
      t,
      {
        node1: { runs: [started('completed')], vetted: all, peers: mesh },
        node2: { vetted: all },
        node3: { vetted: [] },
      },
      PLAYBOOKS,
    );
    expect(await dpmDistributeDars.reconcile(fake.ctx, w, { key: '', value: w }, intents)).toEqual({
      status: 'not-done',
      note: 'Dars run dars-distribute-9: completed at WaitingForPeers (1/5); some packages are still not vetted',
    });
  });
});
