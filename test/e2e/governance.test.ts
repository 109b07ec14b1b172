/**
 * playbooks/governance.yaml through the CLI against a 3-node sandbox, the party set up with the shipped
 * playbooks (onboard-party.yaml, distribute-dars.yaml, deploy-contracts.yaml): a governance action confirmed by
 * the threshold of members and executed once, checked on every node's own governance state and chain audit; a
 * second run sends nothing that changes state; a confirmation that expired is confirmed again and counted once.
 * Each under the fast profile and the realistic one time-scaled (every duration × 0.1), a world per profile.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { confirmationsOn, stateOn } from '@ledgerbook/sandbox/testing';
import { executionsOf, governedThroughCli } from './governance-setup.js';
import { count, writes } from './packages-setup.js';
import { PLAYBOOKS, output, partyWorld, type PartyWorld } from './party-setup.js';
import { PROFILES } from './profiles.js';

const GOVERNANCE = join(PLAYBOOKS, 'governance.yaml');

describe.each(PROFILES)('governance.yaml, one operator controlling every node (%s)', (_name, profile) => {
  let w: PartyWorld;
  let partyId: string;
  beforeAll(async () => {
    w = await partyWorld(profile);
    partyId = await governedThroughCli(w);
  }, 120_000);
  afterAll(async () => w?.stop());

  it('confirms the new threshold on the members it needs, executes it once; every node shows it', async () => {
    const before = await stateOn(w.world.dpm[1]!, partyId);
    expect(before?.threshold).toBe(2);
    const run = await w.run(GOVERNANCE, '--input', 'threshold=3', '--json');
    expect(run.code, output(run)).toBe(0);
    for (const api of w.world.dpm) {
      expect((await stateOn(api, partyId))?.threshold).toBe(3);
      expect((await confirmationsOn(api, partyId)).actions).toEqual([]);
      expect(await executionsOf(api, partyId, 'SelfAction_SetThreshold')).toBe(1);
    }
    const counts = await requestCounts(w.world);
    const confirms = w.world.dpm.map((_, i) => count(counts, `node${i + 1}`, 'POST', '/governance/confirm'));
    // threshold 2 of the rules: two members confirm, nobody a third time
    expect(confirms.reduce((a, b) => a + b, 0)).toBe(2);
    expect(
      w.world.dpm
        .map((_, i) => count(counts, `node${i + 1}`, 'POST', '/governance/execute'))
        .reduce((a, b) => a + b, 0),
    ).toBe(1);
  });

  it('a second run sends nothing that changes state', async () => {
    const before = writes(await requestCounts(w.world));
    const again = await w.run(GOVERNANCE, '--input', 'threshold=3');
    expect(again.code, output(again)).toBe(0);
    expect(writes(await requestCounts(w.world))).toEqual(before);
  });

  it('adds an additional proposer: in effect after one execution, in sync on the next run', async () => {
    const proposer = (await w.world.admin.get<{ minter: { party: string } }>('/world')).body.minter.party;
    const run = await w.run(GOVERNANCE, '--input', 'threshold=3', '--input', `proposer=${proposer}`);
    expect(run.code, output(run)).toBe(0);
    expect(await executionsOf(w.world.dpm[2]!, partyId, 'SelfAction_AddAdditionalProposer')).toBe(1);
    const before = writes(await requestCounts(w.world));
    const again = await w.run(GOVERNANCE, '--input', 'threshold=3', '--input', `proposer=${proposer}`);
    expect(again.code, output(again)).toBe(0);
    expect(writes(await requestCounts(w.world))).toEqual(before);
  });
});

describe.each(PROFILES)(
  'governance.yaml, two operators, a confirmation that expires (%s)',
  (_name, profile) => {
    it('pauses for the other members without confirming again while it waits; confirmed again once on the next run; the next operator completes it; the expired one is expired', async () => {
      const w = await partyWorld(profile);
      try {
        const partyId = await governedThroughCli(w, [
          '--input',
          'confirmation_timeout_microseconds=10000000',
        ]);
        const only = (node: string) => (target: Record<string, unknown>) => {
          for (const [name, n] of Object.entries(target['nodes'] as Record<string, Record<string, unknown>>))
            if (name !== node) n['controlled'] = false;
        };
        const a = w.operator('a', await w.target('a.yaml', only('node1')));
        const b = w.operator('b', await w.target('b.yaml', only('node2')));
        const change = ['--input', 'timeout_microseconds=20000000', '--input', 'wait=1s'];

        // it waits past its confirmation's 10 s: once per decision, not once per timeout
        const first = await a.run(GOVERNANCE, ...change.slice(0, 2), '--input', 'wait=12s');
        expect(first.code, output(first)).toBe(3);
        expect(output(first)).toMatch(/0 of 2 members confirmed \(missing: node1 \(operator1\), node2/);
        expect(count(await requestCounts(w.world), 'node1', 'POST', '/governance/confirm')).toBe(1);
        const [stale] = (await confirmationsOn(w.world.dpm[0]!, partyId)).actions;
        expect(stale?.confirmation_count).toBe(0);

        const second = await a.run(GOVERNANCE, ...change);
        expect(second.code, output(second)).toBe(3);
        const [renewed] = (await confirmationsOn(w.world.dpm[0]!, partyId)).actions;
        expect(renewed).toMatchObject({ confirmation_count: 1, can_execute: false });
        expect(renewed?.confirmations).toHaveLength(1);

        const third = await b.run(GOVERNANCE, ...change);
        expect([3, 0]).toContain(third.code);
        const done = await a.run(GOVERNANCE, ...change);
        expect(done.code, output(done)).toBe(0);
        for (const api of w.world.dpm)
          expect((await stateOn(api, partyId))?.action_confirmation_timeout_microseconds).toBe(20_000_000);
        expect(await executionsOf(w.world.dpm[1]!, partyId, 'SelfAction_SetTimeout')).toBe(1);
        const counts = await requestCounts(w.world);
        // node1 confirmed once per confirmation that expired, and once more for the one executed (on a slow
        // machine the renewed one may expire too before node2's operator confirms)
        const expired = count(counts, 'node1', 'POST', '/governance/expire');
        expect(expired).toBeGreaterThanOrEqual(1);
        expect(count(counts, 'node1', 'POST', '/governance/confirm')).toBe(expired + 1);
        expect(count(counts, 'node2', 'POST', '/governance/confirm')).toBe(1);
        expect(count(counts, 'node3', 'POST', '/governance/confirm')).toBe(0);
        // the expired confirmations are not left listed as pending: their member expired each of them, once
        for (const api of w.world.dpm) expect((await confirmationsOn(api, partyId)).actions).toEqual([]);
      } finally {
        await w.stop();
      }
    }, 120_000);
  },
);
