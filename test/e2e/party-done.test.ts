/**
 * Done means done, through the CLI against a sandbox started here: a step is in sync only when no run it started
 * or adopted is still in flight (a run lingers at Complete after its effect is visible), and a declined DAR
 * distribution stops the client at once, says what to do, and starts nothing new until the operator did it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptOn,
  bootstrapMesh,
  requestCounts,
  runOf,
  waitFor,
  type World,
} from '@ledgerbook/sandbox/testing';
import { count, playbookCopy, samplePackages } from './packages-setup.js';
import {
  addFaults,
  alphaOnboarded,
  contractsPrepared,
  partyCredentials,
  deployOnly,
  output,
  partyWorld,
  realisticWorld,
  requestSeen,
  runsOf,
  thresholdOnly,
  type PartyWorld,
} from './party-setup.js';

let current: PartyWorld | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

/** Kills the run once node1 received its start POST; the run it started then waits for its peers. */
async function killAfterStart(w: PartyWorld, playbook: string, route: string, kind: string): Promise<string> {
  const { child, done } = w.spawn(playbook);
  await requestSeen(w.world, 'node1', 'POST', route);
  child.kill('SIGKILL');
  expect((await done).signal).toBe('SIGKILL');
  return waitFor(
    `the ${kind} run on node1`,
    async () => (await runsOf(w.world.dpm[0]!, kind))[0]?.instance_name,
  );
}

/** The only coordinator run of `kind` on node1, once it reached Complete (its effect is visible, it lingers). */
async function atComplete(world: World, kind: string): Promise<string> {
  return waitFor(
    `the ${kind} run at Complete`,
    async () => {
      const [run] = await runsOf(world.dpm[0]!, kind);
      return run?.current_step === 'Complete' && run.status === 'inprogress' ? run.instance_name : undefined;
    },
    60_000,
    2,
  );
}

describe('a resumed run adopts a run that is still finishing', () => {
  it('change-threshold: the threshold is already as declared, but it waits until the run completed', async () => {
    const w = (current = await realisticWorld(alphaOnboarded));
    const playbook = await w.playbook('threshold.yaml', thresholdOnly('node1', 3));
    const started = await killAfterStart(w, playbook, '/change-threshold', 'ChangeThreshold');
    await acceptOn(w.world, [1, 2], started);
    expect(await atComplete(w.world, 'ChangeThreshold')).toBe(started);

    const resumed = await w.run(playbook);
    expect(resumed.code, output(resumed)).toBe(0);
    // whether the run completes before or after this one plans, it is adopted and waited for, never started again
    expect(resumed.stdout).toContain('is adopted, not started again');
    // ledgerbook exits only once the run it adopted is done: the next change of the party is not refused
    expect((await runOf(w.world.dpm[0]!, started))?.status).toBe('completed');
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/change-threshold')).toBe(1);
  });

  it('deploy-contracts: the contract is listed already, but it waits until the run completed', async () => {
    const w = (current = await realisticWorld(contractsPrepared));
    await partyCredentials(w.world);
    const playbook = await w.playbook('deploy.yaml', deployOnly('node1'));
    const started = await killAfterStart(w, playbook, '/contracts', 'Contracts');
    await acceptOn(w.world, [1, 2], started);
    expect(await atComplete(w.world, 'Contracts')).toBe(started);

    const resumed = await w.run(playbook);
    expect(resumed.code, output(resumed)).toBe(0);
    expect((await runOf(w.world.dpm[0]!, started))?.status).toBe('completed');
    expect(count(await requestCounts(w.world), 'node1', 'POST', '/contracts')).toBe(1);
  });
});

describe('a peer declines a DAR distribution', () => {
  it('the client stops at once with who declined and what to do; runs again start nothing until the run is cleared', async () => {
    const w = (current = await partyWorld());
    await bootstrapMesh(w.world);
    await addFaults(w.world, { kind: 'decline', node: 'node3', workflow: 'Dars' });
    const playbook = await playbookCopy(w.dir, 'distribute-dars.yaml', (text) =>
      text.replace('timeout: 10m', 'timeout: 30s'),
    );

    const declined = await w.run(playbook);
    expect(declined.code, output(declined)).toBe(1);
    expect(output(declined)).toMatch(
      /Dars run dars-distribute-\d+ on node1 failed: node3 \(node3::[0-9a-f]+\) declined the invitation/,
    );
    expect(output(declined)).not.toMatch(/received no invitation/);
    const [run] = await runsOf(w.world.dpm[0]!, 'Dars');
    expect(output(declined)).toContain(`instance: ${run!.instance_name}, action: cancel`);

    // running again starts no second distribution and retries nothing
    const again = await w.run(playbook);
    expect(again.code, output(again)).toBe(1);
    expect(output(again)).toContain('declined the invitation');
    let counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/dars/distribute')).toBe(1);
    expect(count(counts, 'node1', 'POST', '/workflows/{instance_name}/retry')).toBe(0);

    // node3's operator agrees; the declined run is cancelled as the message says; the distribution goes through
    expect((await w.world.admin.call('DELETE', '/faults')).status).toBe(204);
    const cancel = await w.run(
      await w.playbook(
        'cancel.yaml',
        `name: cancel-dars
steps:
  - id: cancel
    uses: dpm.workflow
    with: { node: node1, instance: ${run!.instance_name}, action: cancel }
`,
      ),
    );
    expect(cancel.code, output(cancel)).toBe(0);
    const distributed = await w.run(playbook);
    expect(distributed.code, output(distributed)).toBe(0);
    counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/dars/distribute')).toBe(2);
    for (const api of w.world.dpm) {
      const vetted = new Set(
        (await api.get<Array<{ package_id: string }>>('/packages/vetted')).body.map((v) => v.package_id),
      );
      for (const p of samplePackages()) expect(vetted.has(p.id), p.name).toBe(true);
    }
  });
});
