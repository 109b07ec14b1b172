/**
 * A `with` field written `${{ inputs.… }}` passes the playbook's validation whatever the input. These run the
 * shipped token playbooks with bad --input values through the CLI: each is refused with exit 65 at the playbook
 * line that reads the input, before the first step — the sandbox receives no request at all (counted by the
 * sandbox). Before, the steps ahead of the one reading the input ran: redeem accepted a credential and opened a
 * withdraw account, mint-and-distribute minted, and only then did the bad value stop the run.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { PLAYBOOKS, tokenSandbox, type TokenSandbox } from './token-setup.js';

let sb: TokenSandbox;
beforeAll(async () => {
  sb = await tokenSandbox();
});
afterAll(() => sb?.stop());

async function requests(): Promise<number> {
  return (await requestCounts(sb.world)).reduce((n, r) => n + r.count, 0);
}

async function refused(playbook: string, inputs: string[], ...where: RegExp[]): Promise<string> {
  const before = await requests();
  const result = await sb.run(join(PLAYBOOKS, playbook), ...inputs.flatMap((i) => ['--input', i]));
  const output = result.stdout + result.stderr;
  expect(result.code, output).toBe(65);
  for (const w of where) expect(output).toMatch(w);
  expect(output).toMatch(/nothing was run/);
  expect(output).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
  expect(await requests()).toBe(before);
  return output;
}

describe('bad inputs of the shipped playbooks are refused before anything is sent', () => {
  it('redeem: an amount that is no amount, at the burn step that reads it', async () => {
    await refused(
      'redeem.yaml',
      ['amount=abc'],
      /redeem\.yaml:\d+:\d+ error: step 'burn' with\.amount \(from \$\{\{ inputs\.amount \}\}\): 'abc' is not a valid value/,
    );
  });

  it('redeem: an amount of 0, by the kind’s own check', async () => {
    await refused('redeem.yaml', ['amount=0'], /step 'burn' with\.amount .*the amount must be more than 0/);
  });

  it('redeem: a party the target does not act as, with the parties it does', async () => {
    await refused(
      'redeem.yaml',
      ['party=nobody'],
      /step 'credentials' with\.party .*the target has no party 'nobody'/,
      /parties this target acts as: minter/,
    );
  });

  it('redeem: a destination that looks like a shell command is refused as an address, not run', async () => {
    const output = await refused(
      'redeem.yaml',
      ['destination=$(touch pwned)'],
      /step 'account' with\.destination/,
    );
    expect(output).toContain('$(touch pwned)');
  });

  it('redeem: a destination with one character mistyped fails its checksum, before any account pays out to it', async () => {
    await refused(
      'redeem.yaml',
      ['destination=tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy'],
      /step 'account' with\.destination .*tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy: it is no Bitcoin address: its checksum does not match/,
    );
  });

  it('redeem: a mainnet address on a devnet target, whose attestors pay out on testnet', async () => {
    await refused(
      'redeem.yaml',
      ['destination=bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
      /a Bitcoin mainnet address, but the attestors of devnet pay out on Bitcoin testnet/,
    );
  });

  it('mint-and-distribute: a recipients file with a bad line, by its line, before the mint', async () => {
    const file = await sb.recipients('bad.csv', [
      [sb.tokens.holders[0] as string, '1.5'],
      [sb.tokens.holders[1] as string, '-2'],
    ]);
    await refused('mint-and-distribute.yaml', [`recipients=${file}`], /bad\.csv:3:\d+ error: .*/);
  });

  it('mint-and-distribute: a recipients file that does not exist', async () => {
    await refused(
      'mint-and-distribute.yaml',
      [`recipients=${join(sb.dir, 'missing.csv')}`],
      /step 'distribute' with\.recipients .*missing\.csv/,
    );
  });

  it('a good input still runs: redeem with an amount of its own', async () => {
    const result = await sb.run(join(PLAYBOOKS, 'redeem.yaml'), '--input', 'amount=0.02');
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });
});
