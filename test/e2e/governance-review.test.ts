/**
 * playbooks/review-governance.yaml and approve-mint-requests.yaml through the CLI against a 3-node sandbox with a
 * governed party (set up through the sandbox's API): what the policy names is confirmed, the rest reported and
 * left alone; mint and burn requests within the limits are proposed, confirmed and executed once, the others
 * not. Checked on the nodes' own APIs and the holders' ledger. Under the fast profile and the realistic one
 * time-scaled (every duration × 0.1), a world per profile.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import {
  type GovernedParty,
  configureParty,
  confirm,
  confirmationsOn,
  governedParty,
} from '@ledgerbook/sandbox/testing';
import { type TokenWorld, isoIn, tokenWorld, walletFor } from '@ledgerbook/sandbox/testing';
import { count, writes } from './packages-setup.js';
import { PLAYBOOKS, output, partyWorld, realisticWorld, type PartyWorld } from './party-setup.js';
import { PROFILES, patienceMs } from './profiles.js';

const MINT_REQUEST = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Mint:MintRequest';
const BURN_REQUEST = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Burn:BurnRequest';

/** only `node` controlled: another operator's target */
function only(node: string): (target: Record<string, unknown>) => void {
  return (target) => {
    for (const [name, n] of Object.entries(target['nodes'] as Record<string, Record<string, unknown>>))
      if (name !== node) n['controlled'] = false;
  };
}

describe.each(PROFILES)('governance review and mint approval (%s)', (_name, profile) => {
  let w: PartyWorld;
  let gov: GovernedParty;
  let tokens: TokenWorld;

  // the governed party set up through the sandbox's API, fast; under the realistic profile served by it from there
  // on (the identity provider's new port saved in the party's credentials again)
  beforeAll(async () => {
    if (profile.profile === 'realistic') {
      let governed: GovernedParty | undefined;
      w = await realisticWorld(
        async (world) => (governed = await governedParty(world, { instrument: 'ALPHA' })),
        profile.timeScale,
      );
      gov = governed!;
      await configureParty(w.world, gov.partyId);
    } else {
      w = await partyWorld(profile);
      gov = await governedParty(w.world, { instrument: 'ALPHA' });
    }
    tokens = await tokenWorld(w.world);
  }, 60_000);
  afterAll(async () => w?.stop());

  describe('review-governance.yaml', () => {
    it('confirms what the policy names, reports what it does not, and sends nothing more on a second run', async () => {
      expect(
        (await confirm(w.world.dpm[0]!, gov.partyId, { type: 'governance_set_threshold', new_threshold: 3 }))
          .status,
      ).toBe(200);
      expect(
        (
          await confirm(w.world.dpm[0]!, gov.partyId, {
            type: 'governance_set_timeout',
            new_timeout_microseconds: 10_000_000,
          })
        ).status,
      ).toBe(200);
      const b = w.operator('b', await w.target('b.yaml', only('node2')));
      const review = await b.run(join(PLAYBOOKS, 'review-governance.yaml'), '--json');
      expect(review.code, output(review)).toBe(0);
      expect(output(review)).toMatch(/not confirmed: governance_set_timeout .*outside the policy/);

      const { actions } = await confirmationsOn(w.world.dpm[2]!, gov.partyId);
      const threshold = actions.find((a) => a.action['type'] === 'governance_set_threshold');
      const timeout = actions.find((a) => a.action['type'] === 'governance_set_timeout');
      expect(threshold?.confirmations.map((c) => c.confirming_party).sort()).toEqual(
        [gov.members[0], gov.members[1]].sort(),
      );
      expect(threshold?.can_execute).toBe(true);
      expect(timeout?.confirmations.map((c) => c.confirming_party)).toEqual([gov.members[0]]);

      const before = writes(await requestCounts(w.world));
      const again = await b.run(join(PLAYBOOKS, 'review-governance.yaml'));
      expect(again.code, output(again)).toBe(0);
      expect(writes(await requestCounts(w.world))).toEqual(before);
    });
  });

  describe('approve-mint-requests.yaml', () => {
    it('proposes, confirms and executes the requests within the limits once; leaves the others', async () => {
      const alice = walletFor(w.world, tokens, tokens.holders[0]!);
      const instrument = { admin: gov.partyId, id: 'ALPHA' };
      const request = async (template: string, field: string, payload: Record<string, unknown>) => {
        const created = await alice.submit([
          {
            CreateCommand: {
              templateId: template,
              createArguments: {
                operator: gov.partyId,
                provider: gov.partyId,
                registrar: gov.partyId,
                [field]: {
                  holder: alice.party,
                  instrumentId: instrument,
                  executeBefore: isoIn(3_600_000),
                  meta: { values: {} },
                  ...payload,
                },
              },
            },
          },
        ]);
        expect(created.status, created.text).toBe(200);
      };
      await request(MINT_REQUEST, 'mint', { amount: '4' });
      await request(MINT_REQUEST, 'mint', { amount: '50' });

      const run = await w.run(
        join(PLAYBOOKS, 'approve-mint-requests.yaml'),
        '--input',
        `wait=${patienceMs(profile) / 1000}s`,
      );
      expect(run.code, output(run)).toBe(0);
      expect(output(run)).toMatch(/not accepted \(outside the limits\).*50(\.0+)? is more than 10/s);
      expect(await alice.balance(instrument)).toBe('4.0000000000');
      const open = await w.world.dpm[0]!.get<{ mint_requests: Array<{ amount: string }> }>(
        `/governance/mint-requests?party_id=${gov.partyId}`,
      );
      expect(open.body.mint_requests.map((r) => r.amount)).toEqual(['50']);

      // burn 1 of the 4: a holder's burn request, accepted the same way
      const holdings = await alice.holdings(instrument);
      await request(BURN_REQUEST, 'burn', {
        amount: '1',
        inputHoldingCids: holdings.map((h) => h.contractId),
      });
      const burn = await w.run(
        join(PLAYBOOKS, 'approve-mint-requests.yaml'),
        '--input',
        `wait=${patienceMs(profile) / 1000}s`,
      );
      expect(burn.code, output(burn)).toBe(0);
      expect(await alice.balance(instrument)).toBe('3.0000000000');

      const counts = await requestCounts(w.world);
      const executes = w.world.dpm.map((_, i) =>
        count(counts, `node${i + 1}`, 'POST', '/governance/execute'),
      );
      expect(executes.reduce((a, b) => a + b, 0)).toBe(2);
      const before = writes(counts);
      const again = await w.run(join(PLAYBOOKS, 'approve-mint-requests.yaml'), '--input', 'wait=0s');
      expect(again.code, output(again)).toBe(0);
      expect(writes(await requestCounts(w.world))).toEqual(before);
    });
  });
});
