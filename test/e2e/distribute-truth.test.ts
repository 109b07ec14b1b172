/**
 * What the ledger says of each receiver, when ledgerbook's own records are gone — on a sandbox whose participants
 * deduplicate nothing (a deduplication period of 0), so that nothing here relies on the participant refusing a
 * command id twice, and under the realistic profile's order of events (time-scaled). Counted on the ledger and the
 * sandbox's request counters:
 *  - rejected and expired receivers, after the state dir is lost: reported as such, nothing sent (as a person sees
 *    it in a pseudo-terminal); offered again only when the playbook says `resend:`, under new command ids, the
 *    expired offers withdrawn;
 *  - a renamed playbook (same sender, receivers and references): refused with the list of who would be paid twice,
 *    nothing sent; `pay_again: true` pays them.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, type CliResult } from './cli.js';
import { PLAYBOOKS, byReceiver, tokenSandbox, type TokenSandbox } from './token-setup.js';

let sb: TokenSandbox;
beforeAll(async () => {
  sb = await tokenSandbox({ profile: 'realistic', timeScale: 0.01, maxDeduplicationDuration: 0 });
});
afterAll(() => sb?.stop());

const holder = (i: number): string => sb.tokens.holders[i] as string;

/** Each step's totals, from a `--json` run. */
function totals(result: CliResult): Record<string, Record<string, unknown>> {
  expect(result.code, result.stdout + result.stderr).toBe(0);
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of events(result.stdout))
    if (e.type === 'step.done' && typeof e['step'] === 'string') {
      const t = (e['outputs'] as { totals?: Record<string, unknown> } | undefined)?.totals;
      if (t !== undefined) out[e['step']] = t;
    }
  return out;
}

/** A distribution id, from a `--json` run's step outputs. */
function distributionOf(result: CliResult, step: string): string {
  const done = events(result.stdout).find((e) => e.type === 'step.done' && e['step'] === step);
  return (done?.['outputs'] as { distribution: string }).distribution;
}

describe('after the state is lost, with no deduplication on the participants', () => {
  it('reports rejected and expired receivers, sends nothing; re-offers them only with resend, under new command ids', async () => {
    const lines = (from: number): Array<[string, string, string]> =>
      [0, 1, 2].map((i) => [holder(from + i), `0.0${i + 1}`, `truth-${from + i}`]);
    const kept = await sb.recipients('kept.csv', lines(10));
    const brief = await sb.recipients('brief.csv', lines(13));
    const text = (extra: { pay?: string; soon?: string; expires?: string }) => `name: truth
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${kept}${extra.pay ?? ''}
  - id: soon
    uses: token.distribute
    with:
      sender: minter
      recipients: ${brief}
      expires: ${extra.expires ?? '2s'}${extra.soon ?? ''}
`;
    const playbook = await sb.playbook('truth.yaml', text({}));
    const first = await sb.run(playbook, '--json');
    const paid = totals(first);
    expect(paid['pay']).toMatchObject({ sent: 3, offered: 3 });
    expect(paid['soon']).toMatchObject({ sent: 3, offered: 3 });
    const sentAt = Date.now();
    const [pay, soon] = [distributionOf(first, 'pay'), distributionOf(first, 'soon')];

    // two receivers reject, one accepts (as themselves); the short offers expire meanwhile
    const rejecter = await sb.playbook(
      'reject.yaml',
      `name: reject
inputs: { receivers: { type: array } }
steps:
  - id: reject
    uses: token.reject-offers
    for_each: \${{ inputs.receivers }}
    with: { party: '\${{ item }}', sender: minter }
`,
    );
    const name = (i: number): string => sb.receiverName(holder(i));
    expect((await sb.run(rejecter, '--input', `receivers=[${name(10)},${name(11)}]`)).code).toBe(0);
    expect(
      (await sb.run(join(PLAYBOOKS, 'accept-offers.yaml'), '--input', `receivers=[${name(12)}]`)).code,
    ).toBe(0);
    await new Promise((r) => setTimeout(r, Math.max(0, sentAt + 2500 - Date.now())));
    const before = byReceiver(await sb.offersFrom(sb.tokens.minter), soon);
    expect([...before.values()].map((a) => a.length)).toEqual([1, 1, 1]);
    const firstCommands = await sb.offerCommands(sb.tokens.minter);

    // the state is lost: the ledger alone says where each receiver stands, and nothing is sent — as a person
    // at a terminal sees it
    await rm(sb.stateDir, { recursive: true, force: true });
    const quiet = await sb.submissions();
    const { code, screen } = await sb.runInTerminal(playbook);
    expect(code, screen).toBe(0);
    expect(await sb.submissions()).toBe(quiet);
    const flat = screen.replace(/\s+/g, ' ');
    for (const [step, counts] of [
      [
        'pay',
        'sent 0 · sent amount 0 · found 0 · offered 0 · expired 0 · settled 1 · rejected 2 · withdrawn 0',
      ],
      [
        'soon',
        'sent 0 · sent amount 0 · found 0 · offered 0 · expired 3 · settled 0 · rejected 0 · withdrawn 0',
      ],
    ])
      expect(flat).toMatch(
        new RegExp(`✔ ${step}: in-sync \\(\\d+ m?s\\) — recipients 3 · amount 0\\.06 · ${counts}`),
      );
    expect(flat).toMatch(
      /2 receivers have an offer that was rejected: .*not offered again: add `resend: \[rejected\]`/,
    );
    expect(flat).toMatch(/3 receivers have an expired offer: it can no longer be accepted/);

    // resend: offered again, under new command ids; the expired offers withdrawn, their amounts back
    const resend = await sb.playbook(
      'truth.yaml',
      text({ pay: '\n      resend: [rejected]', soon: '\n      resend: [expired]', expires: '1h' }),
    );
    const spendable = (await sb.holdings(sb.tokens.minter)).spendable;
    const offered = totals(await sb.run(resend, '--json'));
    expect(offered['pay']).toMatchObject({ sent: 2, offered: 2, settled: 1, rejected: 0 });
    expect(offered['soon']).toMatchObject({ sent: 3, offered: 3, expired: 0 });
    const offers = await sb.offersFrom(sb.tokens.minter);
    const now = await sb.offerCommands(sb.tokens.minter);
    for (const [distribution, receivers] of [
      [pay, [holder(10), holder(11)]],
      [soon, [holder(13), holder(14), holder(15)]],
    ] as const) {
      const mine = offers.filter((o) => o.meta['ledgerbook.dev/distribution'] === distribution);
      for (const receiver of receivers) {
        const to = mine.filter((o) => o.receiver === receiver);
        expect(to, receiver).toHaveLength(1);
        const command = now.get(to[0]?.contractId ?? '');
        expect(command).toMatch(/^lb-/);
        // a new command id: none of the first offers was created under it
        expect([...firstCommands.values()]).not.toContain(command);
      }
    }
    // the re-offers locked 0.09, and the withdrawn expired offers gave their 0.06 back
    const after = (await sb.holdings(sb.tokens.minter)).spendable;
    expect(spendable.minus(after).equals(new Decimal('0.03'))).toBe(true);

    // and once re-offered, lost state or not, they are not offered a third time
    await rm(sb.stateDir, { recursive: true, force: true });
    const still = await sb.submissions();
    const third = totals(await sb.run(resend, '--json'));
    expect(await sb.submissions()).toBe(still);
    expect(third['pay']).toMatchObject({ sent: 0, offered: 2, settled: 1 });
    expect(third['soon']).toMatchObject({ sent: 0, offered: 3 });
  });
});

describe('a distribution is identified by its id: renaming the playbook starts another', () => {
  it('refuses to pay again what the sender paid under the old name, listing who; pay_again pays them', async () => {
    const csv = await sb.recipients('payroll.csv', [
      [holder(20), '0.05', 'payroll-2026-11'],
      [holder(21), '0.06', 'payroll-2026-11'],
      [holder(22), '0.07', ''],
    ]);
    const payroll = (name: string, extra = ''): string => `name: ${name}
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${csv}${extra}
`;
    const first = await sb.run(await sb.playbook('payroll.yaml', payroll('payroll')));
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // the same file, the playbook renamed (as the hint of two files with one name suggests)
    const renamed = await sb.playbook('payroll-2.yaml', payroll('payroll-november'));
    const quiet = await sb.submissions();
    const refused = await sb.run(renamed);
    const output = refused.stdout + refused.stderr;
    expect(refused.code, output).toBe(65);
    expect(await sb.submissions()).toBe(quiet);
    for (const [line, i] of [
      [2, 20],
      [3, 21],
      [4, 22],
    ] as const)
      expect(output).toMatch(
        new RegExp(
          `payroll\\.csv:${line}:1 error: .*${holder(i).slice(0, 12)}.* would be paid twice: minter already paid it`,
        ),
      );
    expect(output).toMatch(/pay_again: true/);
    // opting in pays them again, under the new distribution
    const again = await sb.playbook('payroll-2.yaml', payroll('payroll-november', '\n      pay_again: true'));
    const result = await sb.run(again, '--json');
    expect(totals(result)['pay']).toMatchObject({ sent: 3 });
    const offers = await sb.offersFrom(sb.tokens.minter);
    for (const i of [20, 21, 22])
      expect(offers.filter((o) => o.receiver === holder(i)).map((o) => o.amount)).toHaveLength(2);
  });
});
