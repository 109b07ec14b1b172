/**
 * `timeScale` multiplies every duration of a profile and keeps its order of events: the tests that run the
 * realistic profile time-scaled see the same winners as an unscaled network would. Here the race at the heart of
 * several operators' governance: two members confirm on the same rules contract, the second while the first's
 * submission (3 s in the realistic profile) still holds it — the first wins, the second is refused as contention;
 * a third, sent with the id read before the first committed, finds it consumed; one read again after it goes
 * through. The same outcome at every scale.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOKEN_PROFILES, scaleTimings } from '../src/profile.js';
import { configureParty, confirm, governedParty, rulesId } from '../testing/governance-helpers.js';
import { startWorld, type World } from '../testing/helpers.js';

const action = { type: 'governance_set_threshold', new_threshold: 3 };

/** the party governed, set up fast on a state dir; then the sandbox started again on it, realistic × scale */
async function realisticGoverned(scale: number): Promise<{ world: World; partyId: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-scale-'));
  const fast = await startWorld({ stateDir: dir });
  let partyId: string;
  try {
    ({ partyId } = await governedParty(fast));
  } finally {
    await fast.stop();
  }
  const world = await startWorld({ stateDir: dir, profile: 'realistic', timeScale: scale });
  // the identity provider listens on another port now: the party's credentials name it again
  await configureParty(world, partyId);
  return { world, partyId, dir };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([0.1, 0.05])('the realistic profile × %s', (scale) => {
  it('keeps who wins a race for the rules contract: the first confirm; the second is contention', async () => {
    const { world, partyId, dir } = await realisticGoverned(scale);
    try {
      const latency = scaleTimings(TOKEN_PROFILES.realistic, scale).submitLatencyMs;
      expect(latency).toBe(3000 * scale);
      const [node1, node2, node3] = world.dpm;
      const stale = await rulesId(node3!, partyId);
      const first = confirm(node1!, partyId, action);
      // the second arrives while the first's submission holds the rules contract
      await sleep(latency * 0.3);
      const second = await confirm(node2!, partyId, action);
      expect((await first).status).toBe(200);
      expect(second.status).toBe(500);
      expect(second.body.error).toMatch(/LOCAL_VERDICT_LOCKED_CONTRACTS/);
      // with the id read before the first committed: consumed since
      const late = await node3!.post<{ error?: string }>('/governance/confirm', {
        party_id: partyId,
        rules_contract_id: stale,
        action,
        governance_type: 'core_self',
      });
      expect(late.status).toBe(500);
      expect(late.body.error).toMatch(/CONTRACT_NOT_FOUND/);
      // read again: it goes through
      expect((await confirm(node2!, partyId, action)).status).toBe(200);
    } finally {
      await world.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
