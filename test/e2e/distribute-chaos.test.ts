/**
 * Chaos for token.distribute, checked on the ledger: 500 recipients, the run killed with SIGKILL at ten random
 * points and resumed each time, then a distribution under injected faults (an expired token, a stale holding, lost
 * responses after commit, contention, overload, the registry down for 10 s). Each time: every recipient holds
 * exactly one offer of its amount (zero duplicates, zero missing), the sender's balance fell by exactly the total,
 * and one more run sends nothing.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@ledgerbook/sandbox/testing';
import { events } from './cli.js';
import { byReceiver, tokenSandbox, type TokenSandbox } from './token-setup.js';

const same = (a: string, b: string): boolean => new Decimal(a).equals(b);

/** `count` recipients from the world's holders (skipping alice, who holds CBTC already), amounts 0.01…0.09. */
function recipientsOf(sb: TokenSandbox, from: number, count: number): Array<[string, string]> {
  return sb.tokens.holders
    .slice(from, from + count)
    .map((holder, i): [string, string] => [holder, new Decimal((i % 9) + 1).dividedBy(100).toFixed()]);
}

function total(lines: ReadonlyArray<readonly [string, string]>): Decimal {
  return lines.reduce((s, [, a]) => s.plus(a), new Decimal(0));
}

async function expectPaidOnce(
  sb: TokenSandbox,
  distribution: string,
  lines: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  const paid = byReceiver(await sb.offersFrom(sb.tokens.minter), distribution);
  const duplicates = [...paid].filter(([, amounts]) => amounts.length > 1).map(([r]) => r);
  const missing = lines.filter(([r]) => !paid.has(r)).map(([r]) => r);
  expect({ duplicates, missing }).toEqual({ duplicates: [], missing: [] });
  expect(paid.size).toBe(lines.length);
  for (const [receiver, amount] of lines) expect(same(paid.get(receiver)?.[0] ?? '', amount)).toBe(true);
}

/** The distribution id a `--json` run reports in its step's outputs. */
function distributionOf(stdout: string): string {
  const done = events(stdout).find((e) => e.type === 'step.done' && e['step'] === 'pay') as unknown as
    { outputs?: { distribution?: string } } | undefined;
  const id = done?.outputs?.distribution;
  if (id === undefined) throw new Error(`no distribution id in the output:\n${stdout}`);
  return id;
}

describe('token.distribute under chaos', () => {
  let sb: TokenSandbox;
  beforeAll(async () => {
    sb = await tokenSandbox();
  });
  afterAll(() => sb?.stop());

  it('killed with SIGKILL at ten random points and resumed each time, pays 500 recipients exactly once', async () => {
    // transfers in flight: each submission waits before it commits, as on a real network
    await sb.world.admin.put('/capacity', { latencyMs: 30 });
    const lines = recipientsOf(sb, 1, 500);
    const csv = await sb.recipients('chaos.csv', lines);
    const playbook = await sb.playbook(
      'chaos.yaml',
      `name: chaos
steps:
  - id: pay
    uses: token.distribute
    retry: { attempts: 6, delay: 200ms, max_delay: 2s }
    with:
      sender: minter
      recipients: ${csv}
`,
    );
    const before = await sb.holdings(sb.tokens.minter);
    const kills: number[] = [];
    for (let i = 0; i < 10; i++) {
      const start = await sb.submissions();
      const wanted = 1 + Math.floor(Math.random() * 45);
      const { child, done } = sb.spawn(playbook);
      // kill it once it has made a random number of submissions (or when it ends first)
      await waitFor(
        `${wanted} submissions`,
        async () => child.exitCode !== null || (await sb.submissions()) - start >= wanted || undefined,
        60_000,
        5,
      );
      child.kill('SIGKILL');
      const result = await done;
      kills.push((await sb.submissions()) - start);
      if (result.code === 0) break;
      expect(result.signal).toBe('SIGKILL');
    }
    expect(kills.length).toBeGreaterThanOrEqual(5);

    const last = await sb.run(playbook, '--json');
    expect(last.code, last.stderr).toBe(0);
    const distribution = distributionOf(last.stdout);
    await expectPaidOnce(sb, distribution, lines);
    const after = await sb.holdings(sb.tokens.minter);
    expect(before.spendable.minus(after.spendable).equals(total(lines))).toBe(true);

    const quiet = await sb.submissions();
    expect((await sb.run(playbook)).code).toBe(0);
    expect(await sb.submissions()).toBe(quiet);
    await sb.world.admin.put('/capacity', { latencyMs: 0 });
    // about 35 s on CI; the later tests share this sandbox, so it may not be cut off (and go on beside them) on a
    // loaded machine
  }, 180_000);

  it('overload slows a distribution down without failing it: PARTICIPANT_BACKPRESSURE refusals are waited out, not counted as attempts', async () => {
    const lines = recipientsOf(sb, 300, 40);
    const csv = await sb.recipients('overload.csv', lines);
    const playbook = await sb.playbook(
      'overload.yaml',
      `name: overload
steps:
  - id: pay
    uses: token.distribute
    retry: { attempts: 2, delay: 50ms, max_delay: 100ms }
    with:
      sender: minter
      recipients: ${csv}
      # the first test's receivers again, on purpose: another distribution pays them once more
      pay_again: true
`,
    );
    // more refusals than the policy's attempts, and a window of 40 transactions a second
    await sb.world.admin.post('/faults', { kind: 'overload', count: 12 });
    await sb.world.admin.put('/capacity', { latencyMs: 0, limit: 20, windowSeconds: 0.5 });
    const result = await sb.run(playbook, '--json');
    await sb.world.admin.put('/capacity', { latencyMs: 0, limit: null });
    expect(result.code, result.stderr).toBe(0);
    const refusals = events(result.stdout).filter(
      (e) =>
        e.type === 'retry' && /PARTICIPANT_BACKPRESSURE/.test((e['error'] as { message: string }).message),
    );
    expect(refusals.length).toBeGreaterThan(2);
    await expectPaidOnce(sb, distributionOf(result.stdout), lines);
  });

  it('under an expired token, a stale holding, lost responses, contention, overload and the registry down for 10 s', async () => {
    await sb.world.admin.put('/capacity', { latencyMs: 20 });
    const lines = recipientsOf(sb, 1, 150);
    const csv = await sb.recipients('faults.csv', lines);
    const playbook = await sb.playbook(
      'faults.yaml',
      `name: faults
steps:
  - id: pay
    uses: token.distribute
    retry: { attempts: 8, delay: 500ms, max_delay: 4s }
    with:
      sender: minter
      recipients: ${csv}
      distribution: faults-1
      pay_again: true
`,
    );
    const before = await sb.holdings(sb.tokens.minter);
    const start = await sb.submissions();
    await sb.world.admin.post('/faults', [
      { kind: 'overload', count: 4 },
      { kind: 'contention', node: 'node1', count: 3 },
    ]);
    const { child, done } = sb.spawn(playbook);
    // the run ending before the faults are in place fails the test with what it printed, not as a timeout
    const after = async (n: number): Promise<void> => {
      const ended = await Promise.race([
        waitFor(
          `${n} submissions`,
          async () => (await sb.submissions()) - start >= n || undefined,
          60_000,
          5,
        ).then(() => undefined),
        done,
      ]);
      if (ended)
        throw new Error(
          `the run ended (exit ${ended.code}) before ${n} submissions:\n${ended.stdout}${ended.stderr}`,
        );
    };
    await after(20);
    await sb.world.admin.post('/faults', [
      { kind: 'expire-tokens', node: 'node1', count: 1 },
      { kind: 'stale-contracts', node: 'node1', count: 2 },
      { kind: 'lost-response', node: 'node1', count: 2, ms: 200 },
    ]);
    await after(60);
    const down = await sb.world.admin.post<{ faults: Array<{ id: string }> }>('/faults', {
      kind: 'service-down',
      service: 'registry',
    });
    expect(down.status).toBe(201);
    await new Promise((r) => setTimeout(r, 10_000));
    for (const { id } of down.body.faults) await sb.world.admin.call('DELETE', `/faults/${id}`);
    const result = await done;
    expect(child.exitCode).toBe(0);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // each fault was met (the sandbox spends counted faults as they act)
    expect((await sb.world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);
    await expectPaidOnce(sb, 'faults-1', lines);
    const now = await sb.holdings(sb.tokens.minter);
    expect(before.spendable.minus(now.spendable).equals(total(lines))).toBe(true);
    const quiet = await sb.submissions();
    expect((await sb.run(playbook)).code).toBe(0);
    expect(await sb.submissions()).toBe(quiet);
  });
});
