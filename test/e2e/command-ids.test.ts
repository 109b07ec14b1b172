/**
 * Command ids come from the engine only: what a distribution journals before each transfer is the command id the
 * participant received and completed, the command that created the receiver's offer, and what the receipts name.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenSandbox, type TokenSandbox } from './token-setup.js';

let sb: TokenSandbox;

beforeAll(async () => {
  sb = await tokenSandbox();
});
afterAll(() => sb?.stop());

const holder = (i: number): string => sb.tokens.holders[i] as string;

/** The records of the only journal in `stateDir`. */
async function journal(stateDir: string): Promise<Array<Record<string, unknown>>> {
  const [dir] = (await readdir(stateDir)).filter((name) => name.includes('@'));
  const text = await readFile(join(stateDir, dir as string, 'journal.ndjson'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('command ids', () => {
  it('the id journalled with each transfer intent is the one the ledger completed, created the offer under, and the receipt names', async () => {
    const minter = sb.tokens.minter;
    const recipients = await sb.recipients('ids.csv', [
      [holder(20), '0.01', 'ids-20'],
      [holder(21), '0.02', 'ids-21'],
      [holder(22), '0.03', 'ids-22'],
    ]);
    const playbook = await sb.playbook(
      'ids.yaml',
      `name: ids
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${recipients}
      receipts: ids-receipts.jsonl
`,
    );
    const run = await sb.run(playbook);
    expect(run.code, run.stdout + run.stderr).toBe(0);

    const intents = new Map<string, string>();
    for (const record of await journal(sb.stateDir)) {
      const intent = record['intent'] as { action?: string; commandId?: string } | undefined;
      if (record['t'] === 'intent' && intent?.action === 'transfer')
        intents.set(record['item'] as string, intent.commandId as string);
    }
    expect([...intents.keys()].sort()).toEqual([holder(20), holder(21), holder(22)].sort());

    // the participant completed each journalled id, successfully
    const completed = await sb.completions(minter, 0);
    for (const id of intents.values())
      expect(completed.filter((c) => c.commandId === id && c.code === 0)).toHaveLength(1);

    // each receiver's offer was created by the command the journal names for that receiver
    const offers = await sb.offersFrom(minter);
    const commands = await sb.offerCommands(minter);
    for (const [receiver, id] of intents) {
      const mine = offers.filter((o) => o.receiver === receiver);
      expect(mine).toHaveLength(1);
      expect(commands.get(mine[0]?.contractId as string)).toBe(id);
    }

    // and the receipts name the same ids
    const receipts = (await readFile(join(sb.dir, 'ids-receipts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { receiver: string; command: string });
    expect(receipts).toHaveLength(3);
    for (const receipt of receipts) expect(receipt.command).toBe(intents.get(receipt.receiver));
  });
});
