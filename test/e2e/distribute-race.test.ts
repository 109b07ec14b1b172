/**
 * Two runners at once on one distribution, each with a state of its own (two machines, two CI jobs), started 0.2 s
 * apart, under the realistic profile (time-scaled: every submission stays in flight a while, so the two meet there):
 * both exit 0; on the ledger each receiver has exactly one offer; what each says it sent is what the participant's
 * completions say its own submissions landed, and each recipient it did not send is one it found in sync or found
 * sent by the other. The same with a participant that deduplicates nothing (`maxDeduplicationDuration: 0`): there a
 * transfer the other runner landed between the read before a send and that send's arrival is sent twice, and the
 * second offer is withdrawn before the step ends — so the transfers that landed are the recipients plus the
 * withdrawals that landed, and each receiver is left one offer. `LB_RACE_TRIES=5` runs the soak: five tries, each a
 * distribution of its own.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, type CliResult } from './cli.js';
import { byReceiver, tokenSandbox, type TokenSandbox } from './token-setup.js';

const TRIES = Number(process.env['LB_RACE_TRIES'] ?? 1);
const RECIPIENTS = 16;

interface Report {
  distribution: string;
  totals: { recipients: number; sent: number; found: number };
  inSync: number;
}

function reportOf(result: CliResult): Report {
  expect(result.code, result.stdout + result.stderr).toBe(0);
  const stream = events(result.stdout);
  const done = stream.find((e) => e.type === 'step.done' && e['step'] === 'pay');
  const outputs = done?.['outputs'] as { distribution: string; totals: Report['totals'] };
  const inSync = stream.filter((e) => e.type === 'item.done' && e['status'] === 'in-sync').length;
  return { distribution: outputs.distribution, totals: outputs.totals, inSync };
}

describe.each([
  ['with Canton’s deduplication (7 days)', undefined],
  ['with no deduplication on the participants', 0],
] as const)('two runners at once, %s', (_, maxDeduplicationDuration) => {
  let sb: TokenSandbox;
  beforeAll(async () => {
    sb = await tokenSandbox({
      profile: 'realistic',
      timeScale: 0.05,
      ...(maxDeduplicationDuration !== undefined ? { maxDeduplicationDuration } : {}),
    });
  });
  afterAll(() => sb?.stop());

  it.each(Array.from({ length: TRIES }, (_, i) => i))(
    'try %i: both exit 0, every receiver paid once, each says truthfully what it sent and what it found sent',
    async (attempt) => {
      const lines = sb.tokens.holders
        .slice(100 + attempt * RECIPIENTS, 100 + (attempt + 1) * RECIPIENTS)
        .map((holder, i): [string, string, string] => [holder, `0.0${(i % 9) + 1}`, `race-${attempt}`]);
      const csv = await sb.recipients(`race-${attempt}.csv`, lines);
      const playbook = await sb.playbook(
        `race-${attempt}.yaml`,
        `name: race-${attempt}
steps:
  - id: pay
    uses: token.distribute
    retry: { attempts: 5, delay: 200ms, max_delay: 2s }
    with:
      sender: minter
      recipients: ${csv}
`,
      );
      const from = await sb.wallet(sb.tokens.minter).ledgerEnd();
      const one = sb.spawnAt(join(sb.dir, `race-${attempt}-a`), playbook, '--json');
      await new Promise((r) => setTimeout(r, 200));
      const other = sb.spawnAt(join(sb.dir, `race-${attempt}-b`), playbook, '--json');
      const [a, b] = [reportOf(await one.done), reportOf(await other.done)];

      // the ledger: one offer per receiver, of its amount
      const paid = byReceiver(await sb.offersFrom(sb.tokens.minter), a.distribution);
      expect(b.distribution).toBe(a.distribution);
      expect(lines.filter(([r]) => paid.get(r)?.length !== 1)).toEqual([]);
      expect(paid.size).toBe(RECIPIENTS);

      // each runner's own submissions that landed, by the submission id each sent them under
      const completions = (await sb.completions(sb.tokens.minter, from)).filter((c) => c.code === 0);
      const landed = new Map<string, number>();
      for (const c of completions)
        if (c.commandId.startsWith('lb-pay-transfer-'))
          landed.set(c.submissionId, (landed.get(c.submissionId) ?? 0) + 1);
      const numerically = (x: number, y: number): number => x - y;
      expect([...landed.values()].sort(numerically)).toEqual(
        [a.totals.sent, b.totals.sent].filter((n) => n > 0).sort(numerically),
      );
      // every transfer beyond one per recipient is a second offer that a runner withdrew; with deduplication
      // the participant refuses the second one, so there is none
      const withdrawn = completions.filter((c) => c.commandId.startsWith('lb-pay-withdraw-')).length;
      expect(a.totals.sent + b.totals.sent).toBe(RECIPIENTS + withdrawn);
      if (maxDeduplicationDuration === undefined) expect(withdrawn).toBe(0);
      // what a runner did not send, it found: in sync when it looked, or sent by the other while it was about to
      for (const r of [a, b]) expect(r.totals.sent + r.totals.found + r.inSync).toBe(RECIPIENTS);
    },
  );
});
