/**
 * token.distribute through the CLI against the sandbox, checked on the ledger: the shipped 200-recipient file is
 * planned without a submission, sent as exactly one offer of the exact amount per recipient, found in sync the
 * second time (no submission), accepted by the receivers with playbooks/accept-offers.yaml, and then each
 * receiver holds exactly one holding of its amount and the sender's balance fell by exactly the total — in the fast
 * profile and in the realistic one (time-scaled).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, events } from './cli.js';
import { PLAYBOOKS, byReceiver, shippedRecipients, tokenSandbox, type TokenSandbox } from './token-setup.js';

const same = (a: string, b: string): boolean => new Decimal(a).equals(b);

// field conditions too: the realistic profile's latencies and capacity, a hundred times faster
describe.each([{ profile: 'fast' as const }, { profile: 'realistic' as const, timeScale: 0.01 }])(
  'token.distribute end to end ($profile)',
  (options) => {
    let sb: TokenSandbox;
    beforeAll(async () => {
      sb = await tokenSandbox(options);
    });
    afterAll(() => sb?.stop());

    it('sends one offer per recipient of the shipped file, exactly once, and the receivers hold exactly their amounts after accepting', async () => {
      const lines = await shippedRecipients();
      expect(lines).toHaveLength(200);
      const total = lines.reduce((s, l) => s.plus(l.amount), new Decimal(0));
      const minter = sb.tokens.minter;
      const playbook = await sb.playbook(
        'airdrop.yaml',
        `name: airdrop
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${join(PLAYBOOKS, 'examples', 'recipients.csv')}
      reason: airdrop
`,
      );
      const before = await sb.holdings(minter);
      const submissions = await sb.submissions();

      // plan lists what would be sent, and sends nothing
      const plan = await cli(
        ['plan', playbook, '--target', sb.targetFile, '--state-dir', sb.stateDir, '--detailed-exitcode'],
        { cwd: sb.dir },
      );
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(2);
      for (const l of lines.slice(0, 5))
        expect(plan.stdout).toContain(`${l.receiver}: send ${l.amount} (line`);
      expect(plan.stdout.match(/: send /g)).toHaveLength(200);
      expect(plan.stdout).toContain('Plan: 200 changes to apply.');
      expect(await sb.submissions()).toBe(submissions);

      // the run: a receipt per recipient in the events, the totals in the summary
      const summaryFile = join(sb.dir, 'summary.md');
      const run = await sb.run(playbook, '--json', '--summary', summaryFile);
      expect(run.code, run.stderr).toBe(0);
      const stream = events(run.stdout);
      const receipts = stream.filter((e) => e.type === 'item.done' && e['step'] === 'pay');
      expect(receipts).toHaveLength(200);
      const done = stream.find((e) => e.type === 'step.done' && e['step'] === 'pay') as unknown as {
        outputs: { distribution: string; receipts: string; totals: Record<string, unknown> };
      };
      expect(done.outputs.totals).toEqual({
        recipients: 200,
        amount: total.toFixed(),
        sent: 200,
        sent_amount: total.toFixed(),
        found: 0,
        offered: 200,
        expired: 0,
        settled: 0,
        rejected: 0,
        withdrawn: 0,
      });
      const summary = await readFile(summaryFile, 'utf8');
      expect(summary).toContain('recipients 200');
      expect(summary).toContain(`sent 200`);

      // on the ledger: one offer per recipient, of its exact amount and reference, and nothing else
      const offers = await sb.offersFrom(minter);
      const paid = byReceiver(offers, done.outputs.distribution);
      expect(paid.size).toBe(200);
      for (const l of lines) {
        const amounts = paid.get(l.receiver) ?? [];
        expect(amounts, l.receiver).toHaveLength(1);
        expect(same(amounts[0] ?? '', l.amount), `${l.receiver} ${amounts[0]} ≠ ${l.amount}`).toBe(true);
      }
      const refs = new Map(
        offers.map((o) => [o.receiver, o.meta['splice.lfdecentralizedtrust.org/reference']]),
      );
      for (const l of lines) expect(refs.get(l.receiver)).toBe(l.reference);
      // the receipts name exactly the ledger's offers
      const file = (await readFile(resolve(sb.dir, done.outputs.receipts), 'utf8')).trim().split('\n');
      const byOffer = new Map(offers.map((o) => [o.contractId, o.receiver]));
      expect(file).toHaveLength(200);
      for (const line of file) {
        const receipt = JSON.parse(line) as {
          receiver: string;
          offer: string;
          status: string;
          update: string;
          sender: string;
          instrument: unknown;
        };
        expect(byOffer.get(receipt.offer)).toBe(receipt.receiver);
        expect(receipt.sender).toBe(minter);
        expect(receipt.instrument).toEqual(sb.tokens.instrument);
        expect(receipt.status).toBe('offered');
        expect(receipt.update).toMatch(/^[0-9a-f]+$/);
      }

      // the sender: spendable fell by exactly the total, now locked in the offers; its lanes merged into one holding
      const after = await sb.holdings(minter);
      expect(before.spendable.minus(after.spendable).equals(total)).toBe(true);
      expect(after.lockedTotal.minus(before.lockedTotal).equals(total)).toBe(true);
      expect(after.unlocked).toHaveLength(1);

      // a second run sends nothing
      const sent = await sb.submissions();
      const again = await sb.run(playbook);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('Nothing to do');
      expect(await sb.submissions()).toBe(sent);

      // the receivers accept, each with its own target party
      const names = lines.map((l) => sb.receiverName(l.receiver));
      const accept = await sb.run(
        join(PLAYBOOKS, 'accept-offers.yaml'),
        '--input',
        `receivers=[${names.join(',')}]`,
      );
      expect(accept.code, accept.stderr).toBe(0);
      expect(byReceiver(await sb.offersFrom(minter), done.outputs.distribution).size).toBe(0);
      const settled = byReceiver(await sb.settledFrom(minter), done.outputs.distribution);
      expect(settled.size).toBe(200);
      for (const l of lines) {
        const holdings = await sb.holdings(l.receiver);
        expect(holdings.unlocked, l.receiver).toHaveLength(1);
        expect(same(holdings.unlocked[0] ?? '', l.amount)).toBe(true);
        expect(settled.get(l.receiver)).toHaveLength(1);
      }
      const final = await sb.holdings(minter);
      expect(before.spendable.minus(final.spendable).equals(total)).toBe(true);
      expect(final.lockedTotal.equals(before.lockedTotal)).toBe(true);

      // accepting again and distributing again change nothing; the receipts now say settled
      const quiet = await sb.submissions();
      expect(
        (await sb.run(join(PLAYBOOKS, 'accept-offers.yaml'), '--input', `receivers=[${names.join(',')}]`))
          .code,
      ).toBe(0);
      const third = await sb.run(playbook, '--json');
      expect(third.code, third.stderr).toBe(0);
      expect(await sb.submissions()).toBe(quiet);
      const totals = (
        events(third.stdout).find((e) => e.type === 'step.done' && e['step'] === 'pay') as unknown as {
          outputs: { totals: Record<string, unknown> };
        }
      ).outputs.totals;
      expect(totals).toMatchObject({ recipients: 200, sent: 0, settled: 200, offered: 0 });
    });
  },
);
