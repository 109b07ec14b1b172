import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sumAmounts } from '../../clients/amount.js';
import { ReceiptsWriter, type Receipt } from './receipts.js';

const receipt = (i: number, status: Receipt['status']): Receipt => ({
  receiver: `holder-${i}::1220${'a'.repeat(64)}`,
  amount: `0.${i}`,
  reference: null,
  line: i + 1,
  status,
  offer: `00${i}`,
  update: null,
  command: `lb-pay-transfer-${i}`,
  distribution: 'd',
  sender: `minter::1220${'b'.repeat(64)}`,
  instrument: { admin: `cbtc-network::1220${'c'.repeat(64)}`, id: 'CBTC' },
});

describe('ReceiptsWriter', () => {
  it('puts every receipt in the file only when it is closed, counts the totals, and removes what a killed writer left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-receipts-'));
    const path = join(dir, 'receipts-r1.jsonl');
    await writeFile(`${path}.partial-99999`, 'half a line');
    const writer = new ReceiptsWriter(path);
    const statuses: Array<Receipt['status']> = ['offered', 'settled', 'rejected'];
    const by = ['this-run', 'another', undefined] as const;
    for (let i = 0; i < 3000; i++)
      writer.add(receipt(i, statuses[i % 3] ?? 'offered'), by[Math.floor(i / 2) % 3]);
    expect(await readdir(dir)).not.toContain('receipts-r1.jsonl');
    await writer.close();
    expect(await readdir(dir)).toEqual(['receipts-r1.jsonl']);
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3000);
    expect(JSON.parse(lines[1] ?? '')).toEqual(receipt(1, 'settled'));
    expect(writer.totals).toEqual({
      recipients: 3000,
      amount: expect.any(String) as string,
      sent: 1000,
      sent_amount: expect.any(String) as string,
      found: 1000,
      offered: 1000,
      expired: 0,
      settled: 1000,
      rejected: 1000,
      withdrawn: 0,
    });
    expect(writer.totals.amount).toBe(sumAmounts(Array.from({ length: 3000 }, (_, i) => `0.${i}`)));
  });
});
