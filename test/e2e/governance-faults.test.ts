/**
 * playbooks/governance.yaml under the faults operators meet, through the CLI against a 3-node sandbox with a
 * governed party (threshold 2 of 3, set up through the sandbox's API): a member node that goes down during the
 * confirmations, a rules contract consumed between the step's read and its confirm, and a SIGKILL between a
 * confirm and its checkpoint. Each time the threshold change is confirmed by two members and executed once —
 * counted on the nodes' own confirmations, audit logs and chain audit, and in the request counters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GovernedParty, configureParty, governedParty, stateOn } from '@ledgerbook/sandbox/testing';
import { requestCounts, waitFor } from '@ledgerbook/sandbox/testing';
import { GOVERNANCE, executionsOf } from './governance-setup.js';
import { count, writes } from './packages-setup.js';
import { addFaults, output, partyWorld, realisticWorld, type PartyWorld } from './party-setup.js';

let current: PartyWorld | undefined;
/**
 * The governed party; with `timeScale`, set up fast on a state dir and then served by the realistic profile ×
 * timeScale on it (the identity provider's new port saved in the party's credentials again)
 */
async function governed(timeScale?: number): Promise<{ w: PartyWorld; gov: GovernedParty }> {
  if (timeScale === undefined) {
    current = await partyWorld();
    return { w: current, gov: await governedParty(current.world) };
  }
  let gov: GovernedParty | undefined;
  current = await realisticWorld(async (world) => (gov = await governedParty(world)), timeScale);
  await configureParty(current.world, gov!.partyId);
  return { w: current, gov: gov! };
}
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

const NODES = ['node1', 'node2', 'node3'] as const;

async function confirmsPerNode(w: PartyWorld): Promise<number[]> {
  const counts = await requestCounts(w.world);
  return NODES.map((n) => count(counts, n, 'POST', '/governance/confirm'));
}

async function executesTotal(w: PartyWorld): Promise<number> {
  const counts = await requestCounts(w.world);
  return NODES.map((n) => count(counts, n, 'POST', '/governance/execute')).reduce((a, b) => a + b, 0);
}

interface AuditRow {
  event_type: string;
  status: string;
  member_party_id: string;
}

async function auditOf(w: PartyWorld, node: number, partyId: string): Promise<AuditRow[]> {
  const { body } = await w.world.dpm[node]!.get<{ entries: AuditRow[] }>(
    `/governance/audit?party_id=${partyId}&limit=100`,
  );
  return body.entries;
}

/** the confirmations of the threshold change each member made, as the ledger's chain audit records them */
async function confirmationsByMember(w: PartyWorld, partyId: string): Promise<Record<string, number>> {
  const { body } = await w.world.dpm[0]!.get<{
    entries: Array<{ event_type: string; choice?: string | null; acting_parties: string[] }>;
  }>(`/governance/chain-audit?party_id=${partyId}&refresh=true&limit=1000`);
  const out: Record<string, number> = {};
  // the confirm choices (each also creates a confirmation, a second entry of the same event)
  for (const e of body.entries.filter((x) => x.event_type === 'confirm' && typeof x.choice === 'string'))
    for (const p of e.acting_parties) out[p] = (out[p] ?? 0) + 1;
  return out;
}

async function thresholdEverywhere(w: PartyWorld, partyId: string, threshold: number): Promise<void> {
  for (const api of w.world.dpm) {
    expect((await stateOn(api, partyId))?.threshold).toBe(threshold);
    expect(await executionsOf(api, partyId, 'SelfAction_SetThreshold')).toBe(1);
  }
}

describe('governance faults', () => {
  it('a member node down during the confirmations: another member confirms, the change is executed once; the node reads it when back', async () => {
    const { w, gov } = await governed();
    // node1 answers slowly, so that node2 can be taken down while node1's confirm is in flight
    await addFaults(w.world, { kind: 'latency', node: 'node1', ms: 400 });
    const { done } = w.spawn(GOVERNANCE, '--input', 'threshold=3');
    await waitFor('node1’s confirm', async () => (await confirmsPerNode(w))[0] === 1, 30_000, 5);
    const restarted = await w.world.admin.post('/nodes/node2/restart', { downMs: 6000 });
    expect(restarted.status, restarted.text).toBe(202);

    const result = await done;
    expect(result.code, output(result)).toBe(0);
    expect(output(result)).toMatch(
      /node2 cannot be reached: its member .* is left out until it answers again/,
    );
    expect(await confirmsPerNode(w)).toEqual([1, 0, 1]);
    expect(await executesTotal(w)).toBe(1);

    // node2 back: it reads the same rules, and the next run (every node up) sends nothing
    await waitFor(
      'node2 up again',
      async () => (await w.world.dpm[1]!.get('/healthz')).status === 200,
      20_000,
      50,
    );
    await thresholdEverywhere(w, gov.partyId, 3);
    const before = writes(await requestCounts(w.world));
    const again = await w.run(GOVERNANCE, '--input', 'threshold=3');
    expect(again.code, output(again)).toBe(0);
    expect(writes(await requestCounts(w.world))).toEqual(before);
  }, 90_000);

  it.each([
    ['fast', undefined],
    ['realistic ×0.1', 0.1],
  ] as const)(
    'a rules contract consumed between the read and the confirm (%s): read again and sent again, confirmed once',
    async (_name, timeScale) => {
      const { w, gov } = await governed(timeScale);
      // node2's next submission finds the rules it names re-created under a new id (as after another member's
      // confirm): the participant refuses it CONTRACT_NOT_FOUND
      await addFaults(w.world, { kind: 'stale-contracts', node: 'node2', count: 1 });
      const result = await w.run(GOVERNANCE, '--input', 'threshold=3');
      expect(result.code, output(result)).toBe(0);
      expect((await w.world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);

      expect(await confirmsPerNode(w)).toEqual([1, 2, 0]);
      const node2 = (await auditOf(w, 1, gov.partyId)).filter((r) => r.event_type === 'confirm');
      expect(node2.map((r) => r.status)).toEqual(['success', 'failed']);
      expect(await confirmationsByMember(w, gov.partyId)).toEqual({
        [gov.members[0]!]: 1,
        [gov.members[1]!]: 1,
      });
      expect(await executesTotal(w)).toBe(1);
      await thresholdEverywhere(w, gov.partyId, 3);
    },
    60_000,
  );

  it('SIGKILL between a confirm and its checkpoint: the next run settles it from the confirmations, confirms nothing twice', async () => {
    const { w, gov } = await governed();
    // node1's answers are slow: the confirm has taken effect while ledgerbook still waits for its answer
    await addFaults(w.world, { kind: 'latency', node: 'node1', ms: 800 });
    const { child, done } = w.spawn(GOVERNANCE, '--input', 'threshold=3');
    await waitFor('node1’s confirm', async () => (await confirmsPerNode(w))[0] === 1, 60_000, 5);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    expect(await w.journal('governance')).toMatch(/"action":"confirm"/);
    expect((await w.world.admin.call('DELETE', '/faults')).status).toBe(204);
    await waitFor(
      'node1’s confirmation on the ledger',
      async () => (await confirmationsByMember(w, gov.partyId))[gov.members[0]!] === 1,
      10_000,
      50,
    );

    const again = await w.run(GOVERNANCE, '--input', 'threshold=3');
    expect(again.code, output(again)).toBe(0);
    expect(again.stdout).toMatch(/^resume governance/m);
    expect(await confirmsPerNode(w)).toEqual([1, 1, 0]);
    expect(await confirmationsByMember(w, gov.partyId)).toEqual({
      [gov.members[0]!]: 1,
      [gov.members[1]!]: 1,
    });
    expect(await executesTotal(w)).toBe(1);
    await thresholdEverywhere(w, gov.partyId, 3);
  }, 90_000);
});
