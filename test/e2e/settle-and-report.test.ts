/**
 * The other token step kinds through the CLI against the sandbox, checked on the services' own APIs: a DvP leg
 * allocated and executed (playbooks/dvp-settle.yaml), the DAR check against both shipped lists and a bad list
 * file, the devnet faucet, and the rewards report (table, CSV, SVG, both field-name variants, reconciliation with
 * receipts) against figures made on the ledger in the test.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALLOCATION,
  Registry,
  TRANSFER_OFFER,
  rootResult,
  settleOffers,
  transfer,
} from '@ledgerbook/sandbox/testing';
import { events } from './cli.js';
import {
  addFault,
  balance,
  clearFaults,
  contracts,
  expectExit,
  mintWorld,
  type MintWorld,
} from './mint-setup.js';
import { PLAYBOOKS, output } from './party-setup.js';

let w: MintWorld;

/** The minter offers `offers` transfers of 0.001 to alice, who accepts the first `accepted`. */
async function offerAndAccept(world: MintWorld, offers: number, accepted: number): Promise<void> {
  const registry = new Registry(world.world.sandbox.urls.registry, world.tokens.admin);
  const alice = world.wallet(world.tokens.holders[0] as string);
  const cids: string[] = [];
  for (let i = 0; i < offers; i++) {
    const inputs = (await world.minter.holdings(world.tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(world.minter, registry, alice.party, '0.001', inputs);
    expect(sent.status, sent.text).toBe(200);
    cids.push(String(rootResult(sent.body).output.value['transferInstructionCid']));
  }
  const settled = await settleOffers(alice, registry, cids.slice(0, accepted), 'TransferInstruction_Accept');
  expect(settled.status, settled.text).toBe(200);
}

beforeAll(async () => {
  w = await mintWorld();
});
afterAll(async () => {
  await w.stop();
});

function stepOutputs(stdout: string, step: string): Record<string, unknown> {
  const done = events(stdout).find((e) => e.type === 'step.done' && e['step'] === step);
  return (done?.['outputs'] ?? {}) as Record<string, unknown>;
}

describe('a DvP leg (playbooks/dvp-settle.yaml)', () => {
  const playbook = join(PLAYBOOKS, 'dvp-settle.yaml');

  it('allocates the leg and the venue executes it: the receiver holds the amount, the allocation is gone', async () => {
    const venueParty = (await w.world.admin.get<{ operators: Array<{ party: string }> }>('/world')).body
      .operators[0]?.party as string;
    const venue = w.wallet(venueParty);
    const minterBefore = await balance(w, w.minter);
    const venueBefore = await balance(w, venue);
    const result = await w.run(playbook, '--json');
    expectExit(result, 0);
    expect(stepOutputs(result.stdout, 'settle')['receiver_holding_cids']).toHaveLength(1);
    expect((await balance(w, venue)).minus(venueBefore).toFixed()).toBe('0.02');
    expect(minterBefore.minus(await balance(w, w.minter)).toFixed()).toBe('0.02');
    expect(await contracts(w.minter, { interface: ALLOCATION })).toEqual([]);
  });

  it('run again: the leg is allocated and settled once, nothing is sent', async () => {
    const before = await w.sent();
    const result = await w.run(playbook);
    expectExit(result, 0);
    expect(result.stdout).toContain('Nothing to do');
    expect(await w.sent()).toEqual(before);
  });

  it('withdraw gives the funds back to the sender', async () => {
    const minterBefore = await balance(w, w.minter);
    const result = await w.run(playbook, '--input', 'settlement=dvp-2', '--input', 'action=withdraw');
    expectExit(result, 0);
    expect((await balance(w, w.minter)).toFixed()).toBe(minterBefore.toFixed());
    expect(await contracts(w.minter, { interface: ALLOCATION })).toEqual([]);
  });
});

describe('token.dar-check', () => {
  it('passes against the current list, reports what the 0.3.1 list misses per node, and fails on it unless asked only to report', async () => {
    await w.playbook(
      'dars.yaml',
      `name: dars
inputs:
  list: { default: cbtc-lib-0.6.3 }
  on_missing: { default: fail }
steps:
  - id: check
    uses: token.dar-check
    with: { expected: '\${{ inputs.list }}', on_missing: '\${{ inputs.on_missing }}' }
`,
    );
    const pass = await w.run('dars.yaml', '--json');
    expectExit(pass, 0);
    expect(stepOutputs(pass.stdout, 'check')).toMatchObject({
      status: 'pass',
      total_expected: 21,
      missing: 0,
    });

    const fail = await w.run('dars.yaml', '--input', 'list=cbtc-lib-0.3.1');
    expectExit(fail, 1);
    expect(output(fail)).toContain('node1: 11 found, 10 missing');
    expect(output(fail)).toContain(
      'missing cbtc 1.1.1 (e0b1ae1cf5bb…); installed instead: 1.2.0 (f240dd5d1a98…)',
    );

    const report = await w.run(
      'dars.yaml',
      '--input',
      'list=cbtc-lib-0.3.1',
      '--input',
      'on_missing=report',
      '--json',
    );
    expectExit(report, 0);
    const outputs = stepOutputs(report.stdout, 'check');
    expect(outputs).toMatchObject({ status: 'fail', missing: 30 });
    const node2 = (outputs['nodes'] as Record<string, { missing: Array<{ name: string; version: string }> }>)[
      'node2'
    ];
    expect(node2?.missing.map((m) => `${m.name} ${m.version}`)).toContain('utility-registry-v0 0.4.0');
  });

  it('a list file with a problem is refused with the file, the place and the line of the playbook (exit 65)', async () => {
    await writeFile(
      join(w.dir, 'expected.json'),
      JSON.stringify({ packages: { nothex: { name: 'a', version: '1' } } }),
    );
    await w.playbook(
      'dars-file.yaml',
      `name: dars-file
steps:
  - id: check
    uses: token.dar-check
    with: { expected_file: expected.json }
`,
    );
    const result = await w.run('dars-file.yaml');
    expectExit(result, 65);
    expect(result.stderr).toMatch(
      /dars-file\.yaml:\d+:\d+ .*expected\.json at \/packages\/nothex: 'nothex' is not a package id/,
    );
  });
});

describe('token.faucet', () => {
  const faucet = `name: faucet
inputs:
  amount: { default: '1.5' }
steps:
  - id: ask
    uses: token.faucet
    with: { party: alice, amount: '\${{ inputs.amount }}', interval: 1s, wait: 30s }
`;

  it('asks once; the offer is on the receiver’s ledger; a second run asks nothing', async () => {
    await w.playbook('faucet.yaml', faucet);
    const alice = w.wallet(w.tokens.holders[0] as string);
    const result = await w.run('faucet.yaml', '--json');
    expectExit(result, 0);
    const offer = stepOutputs(result.stdout, 'ask');
    expect(offer['kind']).toBe('offer');
    const offers = await contracts(alice, { template: TRANSFER_OFFER });
    const mine = offers.find((o) => o.contractId === offer['contract_id']);
    expect((mine?.createArgument?.['transfer'] as { amount: string; sender: string }).sender).toBe(
      w.tokens.faucet,
    );
    const before = await w.sent();
    expectExit(await w.run('faucet.yaml'), 0);
    expect(await w.sent()).toEqual(before);
  });

  it('a refusal of the faucet is reported with its message', async () => {
    await addFault(w.world, {
      kind: 'service-refuses',
      service: 'faucet',
      message: 'daily limit reached',
      count: 1,
    });
    const result = await w.run('faucet.yaml', '--input', 'amount=2');
    await clearFaults(w.world);
    expectExit(result, 1);
    expect(output(result)).toContain('daily limit reached');
  });
});

describe('rewards.report', () => {
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    await offerAndAccept(w, 3, 2);
  });

  const report = (receipts = '[]', onDifference = 'warn') => `name: rewards
steps:
  - id: report
    uses: rewards.report
    with:
      parties: [minter]
      start_date: '${today}'
      end_date: '${today}'
      csv: out/rewards.csv
      svg: out/rewards.svg
      receipts: ${receipts}
      on_difference: ${onDifference}
`;

  /** a receipt in token.distribute's format (docs/architecture.md "Distributing tokens") */
  const receipt = (i: number, fields: Record<string, unknown> = {}): string =>
    JSON.stringify({
      receiver: `holder-00${i}::1220aa`,
      amount: '0.001',
      reference: null,
      line: i + 1,
      status: i <= 2 ? 'settled' : 'offered',
      offer: `00${i}`,
      update: `u${i}`,
      command: `lb-pay-transfer-${i}`,
      distribution: 'rewards/pay/1',
      ...fields,
    });

  it('prints the table and writes the CSV and the chart from the service’s figures, which match the ledger', async () => {
    await w.playbook('rewards.yaml', report());
    const result = await w.run('rewards.yaml', '--json');
    expectExit(result, 0);
    // 2 accepted × 3.6177, in cents; the client's share is 40 % of it (packages/sandbox/README.md, daily rewards)
    const total = new Decimal('3.6177').times(2).toFixed(2);
    const client = new Decimal('3.6177').times(2).times('0.4').toFixed(2);
    const csv = await readFile(join(w.dir, 'out', 'rewards.csv'), 'utf8');
    expect(csv).toBe(
      `date,transfer_creation_count,accepted_transfer_count,total_reward,client_reward\n${today},3,2,${total},${client}\n`,
    );
    expect(result.stderr + result.stdout).toMatch(
      new RegExp(`${today}\\s+3\\s+2\\s+${total.replace('.', '\\.')}`),
    );
    const svg = await readFile(join(w.dir, 'out', 'rewards.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain(`data-date="${today}"`);
    expect(svg).toContain('Total reward');
    expect(svg).toContain('Client reward');
    expect(stepOutputs(result.stdout, 'report')).toMatchObject({
      created_transfers: 3,
      accepted_transfers: 2,
      agrees: null,
    });
  });

  it('a fortnight’s chart names today under its bars, the one day with figures', async () => {
    await w.playbook(
      'fortnight.yaml',
      'name: fortnight\nsteps:\n  - id: report\n    uses: rewards.report\n    with: { parties: [minter], days: 14, svg: out/fortnight.svg }\n',
    );
    expectExit(await w.run('fortnight.yaml'), 0);
    const svg = await readFile(join(w.dir, 'out', 'fortnight.svg'), 'utf8');
    const axis = /<g class="x-axis"[^>]*>([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? '';
    const label = new Date().toLocaleString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    expect(axis).toContain(`>${label}</text>`);
  });

  it('a second run finds the files current and changes nothing', async () => {
    const result = await w.run('rewards.yaml');
    expectExit(result, 0);
    expect(result.stdout).toContain('Nothing to do');
  });

  it('reconciles with receipts: agrees when they name the same transfers, says what differs when not', async () => {
    await writeFile(join(w.dir, 'agree.jsonl'), [1, 2, 3].map((i) => receipt(i)).join('\n'));
    await writeFile(join(w.dir, 'short.jsonl'), [1, 2].map((i) => receipt(i)).join('\n'));
    await w.playbook('rewards.yaml', report('[agree.jsonl]'));
    const agree = await w.run('rewards.yaml', '--json');
    expectExit(agree, 0);
    expect(stepOutputs(agree.stdout, 'report')).toMatchObject({
      agrees: true,
      receipt_offers: 3,
      differences: [],
    });
    await w.playbook('rewards.yaml', report('[short.jsonl]'));
    const differ = await w.run('rewards.yaml', '--json');
    expectExit(differ, 0);
    expect(stepOutputs(differ.stdout, 'report')).toMatchObject({
      agrees: false,
      differences: ['the service counts 3 transfers created in the period, the receipts 2 offers'],
    });
    await w.playbook('rewards.yaml', report('[short.jsonl]', 'fail'));
    const failed = await w.run('rewards.yaml');
    expectExit(failed, 1);
    expect(output(failed)).toContain('the rewards service and the receipts differ');
  });

  it('refuses receipts of another sender’s distribution, whose transfers the service counts under that sender', async () => {
    const sentBy = (sender: string) => [1, 2, 3].map((i) => receipt(i, { sender })).join('\n');
    await writeFile(join(w.dir, 'minter.jsonl'), sentBy(w.tokens.minter));
    await w.playbook('rewards.yaml', report('[minter.jsonl]'));
    const own = await w.run('rewards.yaml', '--json');
    expectExit(own, 0);
    expect(stepOutputs(own.stdout, 'report')).toMatchObject({ agrees: true, receipt_offers: 3 });

    const alice = w.tokens.holders[0] as string;
    await writeFile(join(w.dir, 'alice.jsonl'), sentBy(alice));
    await w.playbook('rewards.yaml', report('[minter.jsonl, alice.jsonl]'));
    const other = await w.run('rewards.yaml');
    expectExit(other, 1);
    expect(output(other)).toContain(`the receipts name transfers sent by ${alice}, whose rewards`);
    expect(output(other)).toContain('add the sender to `parties`');
  });
});

describe('rewards.report against the live service’s field names', () => {
  it('reads total_estimated_reward and client_reward, and a day without figures stays empty', async () => {
    const live = await mintWorld({ rewardsFields: 'live' });
    try {
      await offerAndAccept(live, 1, 1);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const today = new Date().toISOString().slice(0, 10);
      await live.playbook(
        'rewards.yaml',
        `name: rewards
steps:
  - id: report
    uses: rewards.report
    with: { parties: [minter], start_date: '${yesterday}', end_date: '${today}', csv: r.csv }
`,
      );
      const result = await live.run('rewards.yaml', '--json');
      expectExit(result, 0);
      const outputs = stepOutputs(result.stdout, 'report');
      expect(outputs['days_without_figures']).toEqual([yesterday]);
      expect(outputs).toMatchObject({ total_reward: '3.62', client_reward: '1.45', accepted_transfers: 1 });
      expect(await readFile(join(live.dir, 'r.csv'), 'utf8')).toContain(`${yesterday},,,,\n`);
    } finally {
      await live.stop();
    }
  });
});
