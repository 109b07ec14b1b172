/**
 * Exactly once across operators: two ledgerbook installations (each its own state dir) working on one party at
 * the same time, through the CLI against a sandbox started here. The second is started the moment the sandbox's
 * request log shows the first one's start POST, so the race is the same on every run; what happened is counted
 * on the nodes' own APIs. Workflows take seconds where the race needs them to (the realistic profile).
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Api } from '@ledgerbook/sandbox/testing';
import { cli } from './cli.js';
import {
  contractsPrepared,
  partyCredentials,
  alphaOnboarded,
  deployOnly,
  liveParty,
  onboardOnly,
  output,
  partyWorld,
  realisticWorld,
  requestSeen,
  requestsEverywhere,
  runsOf,
  thresholdOnly,
  type PartyWorld,
} from './party-setup.js';

let current: PartyWorld | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

async function governanceRules(api: Api): Promise<number> {
  const party = await liveParty(api, 'alpha');
  return (party.contracts ?? []).filter((c) => c.template_id === 'Governance.Rules:GovernanceRules').length;
}

/** A target edit: only the named nodes are controlled, the others are read only. */
function controlling(...names: string[]): (target: Record<string, unknown>) => void {
  return (target) => {
    for (const [name, node] of Object.entries(target['nodes'] as Record<string, Record<string, unknown>>))
      if (!names.includes(name)) node['controlled'] = false;
  };
}

/** Coordinator runs of a kind on every node. */
async function runsEverywhere(w: PartyWorld, kind: string): Promise<number> {
  const lists = await Promise.all(w.world.dpm.map((api) => runsOf(api, kind)));
  return lists.flat().length;
}

describe('an operator whose target does not control the coordinator', () => {
  it('plans to wait for that operator’s run and follow it, not to start one, and sends nothing', async () => {
    const w = (current = await partyWorld({ profile: 'realistic', timeScale: 0.1 }));
    const before = await w.writes();
    const target = await w.target('node2-only.yaml', controlling('node2'));
    const playbook = await w.playbook('onboard.yaml', onboardOnly('beta'));
    const args = [
      'plan',
      playbook,
      '--target',
      target,
      '--state-dir',
      join(w.dir, 'op2'),
      '--detailed-exitcode',
    ];
    const planned = await cli(args, { cwd: w.dir });
    expect(planned.code, output(planned)).toBe(2);
    expect(planned.stdout).toContain(
      "wait for the operator of node1 (not controlled here) to start the onboarding of party 'beta' on node1",
    );
    expect(planned.stdout).toContain(
      'then follow that run: accept its invitations on the nodes this target controls',
    );
    expect(planned.stdout).not.toMatch(/~ start the onboarding/);
    expect(await w.writes()).toEqual(before);
  });
});

describe('two operators deploy the same contracts', () => {
  it('the second, coordinating on its own node, follows the first one’s run instead: one Contracts run, one contract', async () => {
    const w = (current = await realisticWorld(contractsPrepared, 0.3));
    await partyCredentials(w.world);
    // operator A runs node1 and node3, operator B runs node2: each reads the others' nodes, writes only its own
    const a = w.operator('a', await w.target('a.yaml', controlling('node1', 'node3')));
    const b = w.operator('b', await w.target('b.yaml', controlling('node2')));
    const first = a.spawn(await w.playbook('deploy-a.yaml', deployOnly('node1', '40s')));
    await requestSeen(w.world, 'node1', 'POST', '/contracts');
    const second = b.spawn(await w.playbook('deploy-b.yaml', deployOnly('node2', '40s')));
    const [ra, rb] = await Promise.all([first.done, second.done]);
    expect(ra.code, output(ra)).toBe(0);
    expect(rb.code, output(rb)).toBe(0);
    expect(output(rb)).toMatch(/Contracts run alpha-contracts-\d+/);

    expect(await requestsEverywhere(w.world, 'POST', '/contracts')).toBe(1);
    expect(await runsEverywhere(w, 'Contracts')).toBe(1);
    for (const api of w.world.dpm) expect(await governanceRules(api)).toBe(1);
  });
});

describe('two operators change one party’s threshold', () => {
  it('to the same value from two coordinators: the second follows the first one’s run, one run in all', async () => {
    const w = (current = await realisticWorld(alphaOnboarded, 0.3));
    const first = w.operator('a').spawn(await w.playbook('a.yaml', thresholdOnly('node1', 3)));
    await requestSeen(w.world, 'node1', 'POST', '/change-threshold');
    const second = w.operator('b').spawn(await w.playbook('b.yaml', thresholdOnly('node2', 3)));
    const [ra, rb] = await Promise.all([first.done, second.done]);
    expect(ra.code, output(ra)).toBe(0);
    expect(rb.code, output(rb)).toBe(0);
    expect(output(rb)).toMatch(/follow(ing)? ChangeThreshold run alpha-change-threshold-\d+: inprogress/);

    expect(await requestsEverywhere(w.world, 'POST', '/change-threshold')).toBe(1);
    expect(await runsEverywhere(w, 'ChangeThreshold')).toBe(1);
    for (const api of w.world.dpm) expect((await liveParty(api, 'alpha')).threshold).toBe(3);
  });

  it('to different values: the one that comes second is refused at once with the run it competes with; nothing of its own starts', async () => {
    const w = (current = await realisticWorld(alphaOnboarded, 0.3));
    const first = w.operator('a').spawn(await w.playbook('a.yaml', thresholdOnly('node1', 3, '40s')));
    await requestSeen(w.world, 'node1', 'POST', '/change-threshold');
    const second = await w.operator('b').run(await w.playbook('b.yaml', thresholdOnly('node2', 1, '40s')));
    expect(second.code, output(second)).toBe(1);
    expect(output(second)).toMatch(
      /node1 is already changing party alpha::[0-9a-f]+: ChangeThreshold run alpha-change-threshold-\d+: inprogress at \w+ \(\d\/6\) \(threshold → 3\)/,
    );
    expect(output(second)).toContain('action: cancel');
    // it said so before its own start: nothing was posted to node2, and the first run is still going
    expect(await requestsEverywhere(w.world, 'POST', '/change-threshold')).toBe(1);
    const [running] = await runsOf(w.world.dpm[0]!, 'ChangeThreshold');
    expect(running?.status).toBe('inprogress');

    const ra = await first.done;
    expect(ra.code, output(ra)).toBe(0);
    for (const api of w.world.dpm) expect((await liveParty(api, 'alpha')).threshold).toBe(3);
  });

  it('a competing change started on another member while the first waits stops the wait at once, naming both runs', async () => {
    const w = (current = await realisticWorld(alphaOnboarded, 0.3));
    const party = await liveParty(w.world.dpm[1]!, 'alpha');
    const first = w.operator('a').spawn(await w.playbook('a.yaml', thresholdOnly('node1', 3, '40s')));
    await requestSeen(w.world, 'node1', 'POST', '/change-threshold');
    // node2's operator, by hand, asks for threshold 1 at the same time (and accepts nothing)
    const rival = await w.world.dpm[1]!.post<{ instance_name: string }>('/change-threshold', {
      decentralized_party_id: party.party_id,
      new_threshold: 1,
    });
    expect(rival.status, rival.text).toBe(202);

    const ra = await first.done;
    expect(ra.code, output(ra)).toBe(1);
    expect(output(ra)).toMatch(
      new RegExp(
        `node2 is changing party alpha::[0-9a-f]+ at the same time as the ChangeThreshold run alpha-change-threshold-\\d+ on node1 \\(threshold → 3\\): ChangeThreshold run ${rival.body.instance_name}: inprogress .*\\(threshold → 1\\)`,
      ),
    );
    expect(output(ra)).toContain(`instance: ${rival.body.instance_name}, action: cancel`);
  });
});
