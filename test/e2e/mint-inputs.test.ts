/**
 * Bad inputs to the mint-side token kinds are refused before anything is sent (exit 65), each with its line in
 * the playbook and what to do; the token playbooks validate against the testnet example target, whose services
 * carry the network's real addresses.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFile } from 'node:fs/promises';
import { cli, tempDir, writePlaybook } from './cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TARGET = join(ROOT, 'playbooks', 'targets', 'testnet-token.example.yaml');
const env = { KEYCLOAK_PASSWORD: 'a-long-enough-password' };

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('playbooks/targets/testnet-token.example.yaml', () => {
  it('names the testnet constants and validates the token playbooks', async () => {
    const target = parse(await readFile(TARGET, 'utf8')) as {
      network: string;
      instrument: { admin: string; id: string };
      services: Record<string, string>;
    };
    expect(target.network).toBe('testnet');
    expect(target.instrument).toEqual({
      admin: 'cbtc-network::12201b1741b63e2494e4214cf0bedc3d5a224da53b3bf4d76dba468f8e97eb15508f',
      id: 'CBTC',
    });
    expect(target.services).toMatchObject({
      registry: 'https://api.utilities.digitalasset-staging.com',
      gateway: 'https://api.testnet.bitsafe.finance',
    });
    // mint-and-distribute's sandbox.btc-send is guarded by `if:` (the approval gate stands in for it here)
    const playbooks = [
      'mint-and-distribute.yaml',
      'redeem.yaml',
      'dvp-settle.yaml',
      'rewards-report.yaml',
    ].map((p) => join(ROOT, 'playbooks', p));
    const result = await cli(['validate', ...playbooks, '--target', TARGET], { cwd: ROOT, env });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('refused before anything is sent (exit 65), with the line', () => {
  const cases: Array<{ name: string; step: string; needle: string; message: RegExp }> = [
    {
      name: 'an amount with 11 decimals',
      step: "uses: token.wait-for-mint\n    with: { party: minter, amount: '0.00000000001' }",
      needle: 'token.wait-for-mint',
      message: /'0\.00000000001' is not a valid value here[\s\S]*\\d\{1,10\}/,
    },
    {
      name: 'a zero amount',
      step: "uses: token.withdraw\n    with: { party: minter, amount: '0' }",
      needle: 'token.withdraw',
      message: /the amount must be more than 0/,
    },
    {
      name: 'a party the target only names',
      step: 'uses: token.credentials\n    with: { party: admin }',
      needle: 'token.credentials',
      message: /party 'admin' is only named in the target: ledgerbook cannot act as it/,
    },
    {
      name: 'a party the target does not have',
      step: 'uses: token.deposit-account\n    with: { party: minterr }',
      needle: 'token.deposit-account',
      message: /the target has no party 'minterr'/,
    },
    {
      name: 'the simulated chain on a real network',
      step: "uses: sandbox.btc-send\n    with: { address: tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx, amount: '0.1' }",
      needle: 'sandbox.btc-send',
      message: /needs the sandbox’s Bitcoin chain, and this target names none/,
    },
    {
      name: 'an unknown package list',
      step: 'uses: token.dar-check\n    with: { expected: cbtc-lib-9 }',
      needle: 'token.dar-check',
      message: /no expected package list named 'cbtc-lib-9'/,
    },
    {
      name: 'a BTC address that is none',
      step: 'uses: token.withdraw-account\n    with: { party: minter, destination: not-an-address }',
      needle: 'token.withdraw-account',
      message: /destination/,
    },
    {
      name: 'a rewards CSV that is not .csv',
      step: 'uses: rewards.report\n    with: { parties: [minter], csv: out.txt }',
      needle: 'rewards.report',
      message: /out\.txt does not end in \.csv/,
    },
  ];

  it.each(cases)('$name', async ({ step, needle, message }) => {
    const dir = await tempDir();
    const text = `name: bad\nsteps:\n  - id: s\n    ${step}\n`;
    await writePlaybook(dir, 'bad.yaml', text);
    const result = await cli(['run', 'bad.yaml', '--target', TARGET, '--state-dir', join(dir, 'state')], {
      cwd: dir,
      env,
    });
    expect(result.code, result.stderr).toBe(65);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(
      new RegExp(`bad\\.yaml:(${lineOf(text, needle)}|${lineOf(text, needle) + 1}):\\d+`),
    );
  });
});
