/**
 * Minting and redeeming through the CLI against the sandbox, checked on the services' own APIs (the ledger's
 * active contracts, the simulated chain, the sandbox's request log), never on our journal: credentials, deposit
 * account, address, BTC sent, the wait for the mint (paused and resumed), limits, a refused deposit; the redeem
 * playbook under a lost answer and a SIGKILL between intent and effect.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@ledgerbook/sandbox/testing';
import { CREDENTIAL, DEPOSIT_ACCOUNT, WITHDRAW_ACCOUNT, WITHDRAW_REQUEST } from '@ledgerbook/sandbox/testing';
import { cli, events, lines } from './cli.js';
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

const MINT = `name: mint
inputs:
  amount: { default: '0.05' }
  wait: { default: 1m }
steps:
  - id: credentials
    uses: token.credentials
    with: { party: minter }
  - id: account
    uses: token.deposit-account
    with: { party: minter, credential_cids: '\${{ steps.credentials.outputs.credential_cids }}' }
  - id: address
    uses: token.deposit-address
    with: { party: minter, account_id: '\${{ steps.account.outputs.account_id }}', amount: '\${{ inputs.amount }}' }
  - id: send
    uses: sandbox.btc-send
    with: { address: '\${{ steps.address.outputs.address }}', amount: '\${{ inputs.amount }}' }
  - id: mint
    uses: token.wait-for-mint
    with:
      party: minter
      amount: '\${{ inputs.amount }}'
      account_id: '\${{ steps.account.outputs.account_id }}'
      txid: '\${{ steps.send.outputs.txid }}'
      interval: 1s
      wait: '\${{ inputs.wait }}'
`;

interface Deposit {
  txid: string;
  amount: string;
  status: string;
  reason?: string;
}

let w: MintWorld;
let address = '';

async function depositsTo(to: string): Promise<Deposit[]> {
  const response = await w.chain.get<{ deposits: Deposit[] }>(`/deposits?address=${encodeURIComponent(to)}`);
  expect(response.status, response.text).toBe(200);
  return response.body.deposits;
}

beforeAll(async () => {
  w = await mintWorld();
  await w.playbook('mint.yaml', MINT);
});
afterAll(async () => {
  await w.stop();
});

function plan(playbook: string, ...args: string[]) {
  return cli(['plan', playbook, '--target', w.targetFile, '--state-dir', w.stateDir, ...args], {
    cwd: w.dir,
  });
}

describe('mint: credentials, deposit account, address, BTC, the wait for the mint', () => {
  it('plan lists what a run would do, and sends nothing', async () => {
    const before = await w.sends();
    const result = await plan('mint.yaml');
    expectExit(result, 0);
    expect(result.stdout).toContain("accept the Minter credential offer 'cbtc-minter'");
    expect(result.stdout).toMatch(/known after apply/);
    expect(await w.sends()).toBe(before);
  });

  it('runs to the mint: a credential, one account, one payment, 0.05 more for the minter, on the ledger and the chain', async () => {
    const start = await balance(w, w.minter);
    const result = await w.run('mint.yaml');
    expectExit(result, 0);
    const credentials = (await contracts(w.minter, { template: CREDENTIAL }, 'holder')).filter((c) =>
      JSON.stringify(c.createArgument?.['claims']).includes('"Minter"'),
    );
    expect(credentials).toHaveLength(1);
    const accounts = await contracts(w.minter, { template: DEPOSIT_ACCOUNT }, 'owner');
    expect(accounts).toHaveLength(1);
    const id = String(accounts[0]?.createArgument?.['id']);
    const gateway = await fetch(`${w.world.sandbox.urls.gateway}/wrapped/v1/bitcoin-address/${id}`);
    address = ((await gateway.json()) as { bitcoin_address: string }).bitcoin_address;
    const deposits = await depositsTo(address);
    expect(deposits.map((d) => [d.amount, d.status])).toEqual([['0.05000000', 'minted']]);
    expect((await balance(w, w.minter)).minus(start).toFixed()).toBe('0.05');
    expect(output(result)).toContain(deposits[0]?.txid.slice(0, 12));
  });

  it('run again: everything in sync, nothing sent, exit 0', async () => {
    const before = await w.sent();
    const result = await w.run('mint.yaml');
    expectExit(result, 0);
    expect(result.stdout).toContain('Nothing to do');
    expect(await w.sent()).toEqual(before);
  });

  it('a mint that outlasts the wait pauses (exit 3) and the next run carries on: one payment, one mint', async () => {
    const start = await balance(w, w.minter);
    await addFault(w.world, { kind: 'stall-chain' });
    const paused = await w.run('mint.yaml', '--input', 'amount=0.03', '--input', 'wait=3s');
    expectExit(paused, 3);
    expect(output(paused)).toMatch(/waiting for 0\.03 to be minted .*0\/6 confirmations/);
    expect(output(paused)).toContain('run the same command again to keep waiting');
    const journal = await w.journal('mint');
    expect(journal).toContain('"action":"wait-for-mint"');
    await clearFaults(w.world);
    const resumed = await w.run('mint.yaml', '--input', 'amount=0.03', '--input', 'wait=3s');
    expectExit(resumed, 0);
    expect(output(resumed)).toContain('carrying on the wait begun at offset');
    const deposits = await depositsTo(address);
    expect(deposits.filter((d) => d.amount === '0.03000000').map((d) => d.status)).toEqual(['minted']);
    expect((await balance(w, w.minter)).minus(start).toFixed()).toBe('0.03');
  });

  it('an amount outside the account’s limits is refused before any BTC is sent', async () => {
    const before = await w.sent();
    const result = await w.run('mint.yaml', '--input', 'amount=6', '--fresh');
    expectExit(result, 1);
    expect(output(result)).toContain("a deposit of 6 exceeds the account's maximum 5.0000000000");
    expect(await w.sent()).toEqual(before);
    expect((await depositsTo(address)).some((d) => d.amount === '6.00000000')).toBe(false);
  });

  it('a deposit the attestors refuse fails with their reason instead of waiting for ever', async () => {
    const sent = await w.chain.post<Deposit>('/send', { address, amount: '0.00001' });
    expect(sent.status, sent.text).toBe(200);
    await w.playbook(
      'refused.yaml',
      `name: refused
steps:
  - id: mint
    uses: token.wait-for-mint
    with: { party: minter, amount: '0.00001', txid: ${sent.body.txid}, interval: 1s, wait: 2m }
`,
    );
    const started = Date.now();
    const result = await w.run('refused.yaml');
    expectExit(result, 1);
    expect(output(result)).toMatch(
      /below the account's minimum 0\.0001000000|Deposit amount 0\.00001000 is below minimum/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('redeem (playbooks/redeem.yaml)', () => {
  const destination = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
  const redeem = join(PLAYBOOKS, 'redeem.yaml');

  async function requests(): Promise<Array<{ amount: string; btcTxId: string | null }>> {
    return (await contracts(w.minter, { template: WITHDRAW_REQUEST }, 'owner')).map((c) => ({
      amount: String(c.createArgument?.['amount']),
      btcTxId: (c.createArgument?.['btcTxId'] as string | null) ?? null,
    }));
  }

  it('burns once and follows the payout to its Bitcoin txid, though the answers of its submissions are lost', async () => {
    const start = await balance(w, w.minter);
    await addFault(w.world, { kind: 'lost-response', node: 'node1', count: 2, ms: 300 });
    const result = await w.run(redeem, '--json');
    await clearFaults(w.world);
    expectExit(result, 0);
    const accounts = (await contracts(w.minter, { template: WITHDRAW_ACCOUNT }, 'owner')).filter(
      (a) => a.createArgument?.['destinationBtcAddress'] === destination,
    );
    expect(accounts).toHaveLength(1);
    const paid = await requests();
    expect(paid).toHaveLength(1);
    expect(new Decimal(paid[0]?.amount ?? '0').toFixed()).toBe('0.01');
    expect(paid[0]?.btcTxId).toMatch(/^[0-9a-f]{64}$/);
    expect(start.minus(await balance(w, w.minter)).toFixed()).toBe('0.01');
    const done = events(result.stdout).find((e) => e.type === 'step.done' && e['step'] === 'burn');
    expect((done?.['outputs'] as Record<string, unknown>)['btc_txid']).toBe(paid[0]?.btcTxId);
  });

  it('run again: nothing is burned twice, nothing sent', async () => {
    const before = await w.sent();
    const result = await w.run(redeem);
    expectExit(result, 0);
    expect(await w.sent()).toEqual(before);
    expect(await requests()).toHaveLength(1);
  });

  it('killed (SIGKILL) after the burn was sent, the next run settles it from the ledger and burns nothing more', async () => {
    const start = await balance(w, w.minter);
    const requestsBefore = (await requests()).length;
    // submissions wait before they commit: the burn is in flight, received but not yet answered, when killed
    await w.world.admin.put('/capacity', { latencyMs: 1500 });
    const { child, done } = w.spawn(redeem, '--input', 'reference=killed-1', '--input', 'amount=0.02');
    const journal = join(w.stateDir, 'redeem@sandbox', 'journal.ndjson');
    const submitted = await w.sends();
    await waitFor(
      'the burn intent in the journal and its submission at the participant',
      async () =>
        ((await lines(journal)).some((l) => l.includes('"action":"burn"') && l.includes('0.02')) &&
          (await w.sends()) > submitted) ||
        undefined,
      30_000,
    );
    child.kill('SIGKILL');
    await done;
    await w.world.admin.put('/capacity', { latencyMs: 0 });
    const resumed = await w.run(redeem, '--input', 'reference=killed-1', '--input', 'amount=0.02');
    expectExit(resumed, 0);
    expect(start.minus(await balance(w, w.minter)).toFixed()).toBe('0.02');
    await waitFor('one more withdraw request', async () =>
      (await requests()).length === requestsBefore + 1 ? true : undefined,
    );
    const journalText = await readFile(journal, 'utf8');
    expect(journalText.match(/"action":"burn"/g)?.length).toBeGreaterThanOrEqual(1);
  });

  it('a payout that outlasts the wait pauses (exit 3) with what it saw; the next run finishes without a second burn', async () => {
    const start = await balance(w, w.minter);
    await addFault(w.world, { kind: 'late-burns' });
    const paused = await w.run(redeem, '--input', 'reference=late-1', '--input', 'wait=3s');
    expectExit(paused, 3);
    expect(output(paused)).toContain("the account's pending balance is 0.0100000000");
    await clearFaults(w.world);
    const resumed = await w.run(redeem, '--input', 'reference=late-1', '--input', 'wait=3s');
    expectExit(resumed, 0);
    expect(output(resumed)).toContain('the burn landed before; carrying on waiting for its payout');
    expect(start.minus(await balance(w, w.minter)).toFixed()).toBe('0.01');
  });
});
