/**
 * The issue's first acceptance point through the CLI against the sandbox, checked on the services' own APIs (the
 * ledger's active contracts, the chain, the sandbox's request counters), never on our journal: plan lists what
 * playbooks/mint-and-distribute.yaml would send and sends nothing; the run mints once and offers each of the 200
 * shipped recipients exactly its amount once, the minter's spendable balance moving by exactly the mint less the
 * total; the rewards report's figures are the ledger's and agree with the distribution's receipts; after the
 * receivers accept (playbooks/accept-offers.yaml) each holds one holding of its amount, and the report, run
 * again, agrees with the acceptances; a second run of the playbook sends nothing and exits 0.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { cli, events, type CliResult } from './cli.js';
import {
  PLAYBOOKS,
  byReceiver,
  shippedRecipients,
  tokenSandbox,
  type RecipientLine,
  type TokenSandbox,
} from './token-setup.js';

const PLAYBOOK = join(PLAYBOOKS, 'mint-and-distribute.yaml');
const MINTED = '1';

function stepOutputs(result: CliResult, step: string): Record<string, unknown> {
  const done = events(result.stdout).find((e) => e.type === 'step.done' && e['step'] === step);
  expect(done, `no step.done for ${step}`).toBeDefined();
  return (done as unknown as { outputs: Record<string, unknown> }).outputs;
}

let sb: TokenSandbox;
let lines: RecipientLine[];
let total: Decimal;
let reports: string;

/** Ledger submissions and BTC payments the sandbox received, from its own request log. */
async function sends(): Promise<number> {
  return (await requestCounts(sb.world))
    .filter(
      (r) =>
        r.method === 'POST' &&
        (r.route === '/v2/commands/submit-and-wait-for-transaction' || r.route === '/send'),
    )
    .reduce((n, r) => n + r.count, 0);
}

function run(...args: string[]): Promise<CliResult> {
  return sb.run(PLAYBOOK, '--input', `reports=${reports}`, ...args);
}

/** `plan --detailed-exitcode` of the playbook against the sandbox, with the journal of `stateDir` */
function planIn(stateDir: string): Promise<CliResult> {
  return cli(
    [
      'plan',
      PLAYBOOK,
      '--target',
      sb.targetFile,
      '--state-dir',
      stateDir,
      '--input',
      `reports=${reports}`,
      '--detailed-exitcode',
    ],
    { cwd: sb.dir },
  );
}

beforeAll(async () => {
  sb = await tokenSandbox();
  lines = await shippedRecipients();
  total = lines.reduce((s, l) => s.plus(l.amount), new Decimal(0));
  reports = join(sb.dir, 'reports');
});
afterAll(() => sb?.stop());

describe('mint-and-distribute to the 200 shipped recipients', () => {
  let distribution = '';
  let before: Awaited<ReturnType<TokenSandbox['holdings']>>;

  it('plan lists what a run would send, and sends nothing', async () => {
    expect(lines).toHaveLength(200);
    before = await sb.holdings(sb.tokens.minter);
    const sent = await sends();
    const plan = await planIn(sb.stateDir);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain("accept the Minter credential offer 'cbtc-minter'");
    for (const l of lines) expect(plan.stdout).toContain(`${l.receiver}: send ${l.amount} (line`);
    expect(plan.stdout.match(/: send /g)).toHaveLength(200);
    expect(await sends()).toBe(sent);
  });

  it('runs: one mint, one offer of the exact amount per recipient, the minter down by exactly the total', async () => {
    const result = await run('--json');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    distribution = String(stepOutputs(result, 'distribute')['distribution']);

    // the chain: one payment, minted
    const send = stepOutputs(result, 'send');
    const chain = await fetch(
      `${sb.world.sandbox.urls.bitcoin}/deposits?address=${encodeURIComponent(String(send['address']))}`,
    );
    const deposits = ((await chain.json()) as { deposits: Array<{ amount: string; status: string }> })
      .deposits;
    expect(deposits.map((d) => [new Decimal(d.amount).toFixed(), d.status])).toEqual([[MINTED, 'minted']]);

    // the ledger: exactly one offer of its amount per recipient, nothing else of this distribution
    const paid = byReceiver(await sb.offersFrom(sb.tokens.minter), distribution);
    expect(paid.size).toBe(200);
    for (const l of lines) {
      const amounts = paid.get(l.receiver) ?? [];
      expect(amounts, l.receiver).toHaveLength(1);
      expect(new Decimal(amounts[0] ?? '0').equals(l.amount), `${l.receiver}: ${amounts[0]}`).toBe(true);
    }
    const after = await sb.holdings(sb.tokens.minter);
    expect(after.spendable.toFixed()).toBe(before.spendable.plus(MINTED).minus(total).toFixed());
    expect(after.lockedTotal.minus(before.lockedTotal).toFixed()).toBe(total.toFixed());

    // the rewards report: the service's count of transfers created is the ledger's 200 offers, and the receipts agree
    const report = stepOutputs(result, 'rewards');
    expect(report).toMatchObject({
      created_transfers: 200,
      accepted_transfers: 0,
      receipt_offers: 200,
      agrees: true,
      differences: [],
    });
    const csv = await readFile(join(reports, 'mint-and-distribute-rewards.csv'), 'utf8');
    const today = new Date().toISOString().slice(0, 10);
    expect(csv).toContain(`\n${today},200,0,`);
    const svg = await readFile(join(reports, 'mint-and-distribute-rewards.svg'), 'utf8');
    expect(svg).toContain(`data-date="${today}"`);
  });

  it('a second run sends nothing and exits 0', async () => {
    const sent = await sends();
    const again = await run();
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await sends()).toBe(sent);
    expect(byReceiver(await sb.offersFrom(sb.tokens.minter), distribution).size).toBe(200);
  });

  it('plan --detailed-exitcode then finds everything in sync (exit 0), the report reconciled with a preview of the receipts, with a state dir of its own too', async () => {
    const sent = await sends();
    for (const stateDir of [sb.stateDir, join(sb.dir, 'fresh-state')]) {
      const plan = await planIn(stateDir);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain("the service's transfer counts agree with the receipts: 200 offers");
    }
    expect(await sends()).toBe(sent);
  });

  it('a saved plan of it, applied a moment later while the chain mines blocks, is still current and changes nothing', async () => {
    const sent = await sends();
    const saved = join(sb.dir, 'in-sync.plan.json');
    const args = ['--target', sb.targetFile, '--state-dir', sb.stateDir];
    const plan = await cli(['plan', PLAYBOOK, ...args, '--input', `reports=${reports}`, '--out', saved], {
      cwd: sb.dir,
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // the deposit's confirmations grow meanwhile: they decide nothing
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const applied = await cli(['run', saved, '--state-dir', sb.stateDir], { cwd: sb.dir });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stderr + applied.stdout).toContain('everything is in sync');
    expect(await sends()).toBe(sent);
  });

  it('after the receivers accept, each holds one holding of its amount and the report agrees with the acceptances', async () => {
    const names = lines.map((l) => sb.receiverName(l.receiver));
    const accept = await sb.run(
      join(PLAYBOOKS, 'accept-offers.yaml'),
      '--input',
      `receivers=[${names.join(',')}]`,
    );
    expect(accept.code, accept.stdout + accept.stderr).toBe(0);
    for (const l of lines) {
      const holdings = await sb.holdings(l.receiver);
      expect(holdings.unlocked, l.receiver).toHaveLength(1);
      expect(new Decimal(holdings.unlocked[0] ?? '0').equals(l.amount), l.receiver).toBe(true);
    }
    const final = await sb.holdings(sb.tokens.minter);
    expect(final.spendable.toFixed()).toBe(before.spendable.plus(MINTED).minus(total).toFixed());
    expect(final.lockedTotal.toFixed()).toBe(before.lockedTotal.toFixed());

    // the playbook again: still nothing sent; its receipts now say accepted, and the service counts them
    const sent = await sends();
    const again = await run('--json');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await sends()).toBe(sent);
    expect(stepOutputs(again, 'rewards')).toMatchObject({
      created_transfers: 200,
      accepted_transfers: 200,
      receipt_offers: 200,
      agrees: true,
    });
  });

  it('on a target without the simulated chain, the run stops at the approval gate with the address, and sends no BTC', async () => {
    const target = parse(await readFile(sb.targetFile, 'utf8')) as { services: Record<string, string> };
    delete target.services['bitcoin'];
    const file = join(sb.dir, 'no-chain.yaml');
    await writeFile(file, stringify(target));
    const sent = await sends();
    const result = await cli(
      [
        'run',
        PLAYBOOK,
        '--target',
        file,
        '--state-dir',
        join(sb.dir, 'no-chain-state'),
        '--input',
        'amount=0.5',
      ],
      { cwd: sb.dir },
    );
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout + result.stderr).toMatch(/send 0\.5 BTC to tb1\w+ [\s\S]*--approve deposit/);
    expect(await sends()).toBe(sent);
  });
});
