/**
 * Onboarding under the faults operators meet (dpm-api.md §14.2), through the CLI against a sandbox started here:
 * a peer that declines, a peer that cannot be reached, a coordinator that restarts in the middle, a token that
 * stops being accepted mid-run. What happened is read on the nodes' own APIs.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import { bootstrapMesh, requestCounts, waitFor } from '@ledgerbook/sandbox/testing';
import { count } from './packages-setup.js';
import {
  PLAYBOOKS,
  addFaults,
  members,
  onboardOnly,
  output,
  partyOnEvery,
  partyWorld,
  runsOf,
  type PartyWorld,
} from './party-setup.js';

let current: PartyWorld | undefined;
/** the realistic profile, every duration × 0.1 */
const REALISTIC = { profile: 'realistic', timeScale: 0.1 } as const;
async function world(profile: Partial<SandboxOptions> = {}): Promise<PartyWorld> {
  current = await partyWorld(profile);
  return current;
}
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

describe('onboarding faults', () => {
  it('a declining peer fails the run with who declined and what to do; nothing is started or retried until it is cleared', async () => {
    const w = await world();
    await bootstrapMesh(w.world);
    await addFaults(w.world, { kind: 'decline', node: 'node3', workflow: 'Onboarding' });
    const file = await w.playbook('alpha.yaml', onboardOnly('alpha'));

    const declined = await w.run(file);
    expect(declined.code, output(declined)).toBe(1);
    expect(output(declined)).toMatch(
      /alpha-creation on node1 failed: node3 \(node3::[0-9a-f]+\) declined the invitation/,
    );
    expect(output(declined)).toContain('action: cancel');

    // running again neither starts another onboarding nor retries the declined one
    const again = await w.run(file);
    expect(again.code, output(again)).toBe(1);
    expect(output(again)).toContain('declined the invitation');
    const counts = await requestCounts(w.world);
    expect(count(counts, 'node1', 'POST', '/onboarding')).toBe(1);
    expect(count(counts, 'node1', 'POST', '/workflows/{instance_name}/retry')).toBe(0);

    // once node3's operator agrees: cancel the declined run as the message says, and onboard again
    expect((await w.world.admin.call('DELETE', '/faults')).status).toBe(204);
    const cancel = await w.run(
      await w.playbook(
        'cancel.yaml',
        `name: cancel-alpha
steps:
  - id: cancel
    uses: dpm.workflow
    with: { node: node1, instance: alpha-creation, action: cancel }
`,
      ),
    );
    expect(cancel.code, output(cancel)).toBe(0);
    const onboarded = await w.run(file);
    expect(onboarded.code, output(onboarded)).toBe(0);
    for (const view of await partyOnEvery(w.world, 'alpha', [0, 1, 2])) {
      expect(members(view)).toEqual([...w.world.participant].sort());
    }
  });

  it('an unreachable peer: the start is refused with the missing mesh edges, and nothing is started', async () => {
    const w = await world();
    await bootstrapMesh(w.world);
    await addFaults(w.world, { kind: 'unreachable', node: 'node3' });
    const result = await w.run(await w.playbook('alpha.yaml', onboardOnly('alpha')));
    expect(result.code, output(result)).toBe(1);
    expect(output(result)).toContain(
      'node1 refused to start the onboarding: the peer mesh is incomplete: node1 cannot reach node3 (unreachable from the coordinator)',
    );
    expect(output(result)).toContain('nothing was started');
    // nothing was applied, and the summary says so
    expect(result.stdout).toContain('Failed (exit 1) after 0 changes');
    expect(await runsOf(w.world.dpm[0]!, 'Onboarding')).toEqual([]);
    for (const api of w.world.dpm.slice(1)) {
      const { body } = await api.get<{ invitations: unknown[] }>('/invitations');
      expect(body.invitations).toEqual([]);
    }
  });

  it.each([
    ['fast', {}, 500],
    // 500 ms is 5 s unscaled: the peers' DPMs outlast it (three polls 0.5 s apart, 5 s unscaled)
    ['realistic ×0.1', REALISTIC, 500],
  ] as const)(
    'a coordinator restart in the middle of the onboarding (%s): the run still completes, as one run',
    async (_name, profile, downMs) => {
      const w = await world(profile);
      await addFaults(w.world, {
        kind: 'restart',
        node: 'node1',
        at: { workflow: 'Onboarding', step: 'SignDns' },
        downMs,
      });
      const result = await w.run(join(PLAYBOOKS, 'onboard-party.yaml'));
      expect(result.code, output(result)).toBe(0);
      expect((await w.world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);
      const runs = await runsOf(w.world.dpm[0]!, 'Onboarding', 'alpha');
      expect(runs.map((r) => [r.instance_name, r.status])).toEqual([['alpha-creation', 'completed']]);
      for (const view of await partyOnEvery(w.world, 'alpha', [0, 1, 2])) {
        expect(view.threshold).toBe(2);
        expect(members(view)).toEqual([...w.world.participant].sort());
      }
    },
  );

  it('a token refused mid-run: the client authenticates again once and the run completes', async () => {
    const w = await world();
    const { done } = w.spawn(join(PLAYBOOKS, 'onboard-party.yaml'));
    // as soon as the onboarding is about to start, node1 stops accepting the token ledgerbook holds
    await waitFor(
      'the onboarding start intent',
      async () => (await w.journal('onboard-party')).includes('"action":"start-workflow"'),
      20_000,
      2,
    );
    await addFaults(w.world, { kind: 'expire-tokens', node: 'node1', count: 1 });
    const result = await done;
    expect(result.code, output(result)).toBe(0);
    // the refusal happened (the fault is used up) and was answered by a new token, not by a failed step
    expect((await w.world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);
    expect(output(result)).not.toMatch(/\b401\b|token is not active/);
    for (const view of await partyOnEvery(w.world, 'alpha', [0, 1, 2])) expect(view.threshold).toBe(2);
  });

  it('an accept answered with 503 after it took effect is an ambiguous outcome: exit 4, not a failure', async () => {
    const w = await world();
    await addFaults(w.world, {
      kind: 'http-error',
      node: 'node2',
      method: 'POST',
      route: '/invitations/accept',
      status: 503,
      phase: 'after',
      count: 1,
    });
    const result = await w.run(join(PLAYBOOKS, 'onboard-party.yaml'));
    expect(result.code, output(result)).toBe(4);
    expect(output(result)).toMatch(/\b503\b/);
  });

  it('a wrong password gets a hint about the password, not about the DPM', async () => {
    const w = await world();
    const secrets = await w.playbook('bad.env', 'SANDBOX_OPERATOR_PASSWORD=not-the-password-1\n');
    const result = await w.run(join(PLAYBOOKS, 'onboard-party.yaml'), '--secrets-file', secrets);
    expect(result.code).toBe(1);
    expect(output(result)).toContain('invalid_grant');
    expect(output(result)).toContain('the secret behind auth.password');
    expect(output(result)).not.toContain('the DPM refused the token');
  });

  it('a permanent error on one node (403 on its peer table) stops the other nodes waiting at once', async () => {
    const w = await world();
    await addFaults(w.world, { kind: 'forbid', node: 'node1', method: 'POST', route: '/network-config' });
    const playbook = await w.playbook(
      'mesh.yaml',
      'name: mesh\nsteps:\n  - id: mesh\n    uses: dpm.network\n',
    );
    // the default wait for the mesh is two minutes, longer than this test may take: it must end on the 403
    const result = await w.run(playbook);
    expect(result.code).toBe(1);
    expect(output(result)).toMatch(/POST \/network-config → 403/);
    expect(output(result)).not.toMatch(/the mesh is not connected after/);
  });
});
