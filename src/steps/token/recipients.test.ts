import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inlineRecipients, readRecipients, readRecipientsSync, type Recipients } from './recipients.js';

const party = (n: number): string =>
  `holder-${String(n).padStart(3, '0')}::1220${String(n).padStart(64, 'a')}`;
const SENDER = `minter::1220${'b'.repeat(64)}`;

async function file(text: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-recipients-'));
  const path = join(dir, 'recipients.csv');
  await writeFile(path, text);
  return path;
}

async function both(text: string | Buffer): Promise<Recipients> {
  const path = await file(text);
  const streamed = await readRecipients(path, 'recipients.csv', { sender: SENDER });
  // the synchronous reader of `validate` finds exactly the same
  expect(readRecipientsSync(path, 'recipients.csv', { sender: SENDER })).toEqual(streamed);
  return streamed;
}

const where = (r: Recipients): string[] => r.problems.map((p) => `${p.line}:${p.col} ${p.message}`);

describe('recipients files', () => {
  it('reads receiver, amount and an optional quoted reference, with their lines, and sums exactly', async () => {
    const r = await both(
      `receiver,amount,reference\n${party(1)},0.1,"inv, 1"\n\n${party(2)},0.2,\n${party(3)},1.0000000001,"say ""hi"""\n`,
    );
    expect(r.problems).toEqual([]);
    expect(r.recipients).toEqual([
      { line: 2, receiver: party(1), amount: '0.1', reference: 'inv, 1' },
      { line: 4, receiver: party(2), amount: '0.2', reference: null },
      { line: 5, receiver: party(3), amount: '1.0000000001', reference: 'say "hi"' },
    ]);
    expect(r.total).toBe('1.3000000001');
  });

  it('a field of millions of characters is reported at its start and not kept whole', async () => {
    const r = await both(
      `receiver,amount\n${party(1)},0.5\n${'a'.repeat(3_000_000)},1\n"${'b'.repeat(5000)}",2\n`,
    );
    expect(where(r)).toContain('3:1 a field longer than 4096 characters');
    expect(where(r)).toContain('4:1 a field longer than 4096 characters');
    // the line after is read as usual: the reader went on
    expect(r.recipients.map((x) => x.line)).toEqual([2]);
  });

  it('reports every problem with its line and column', async () => {
    const r = await both(
      [
        'receiver,amount',
        `${party(1)},0.5`,
        `not-a-party,1`,
        `${party(2)},0.12345678901`,
        `${party(3)},-1`,
        `${party(4)},0`,
        `${party(1)},2`,
        `${SENDER},1`,
        `${party(5)}`,
        `${party(6)},1e-3`,
        '',
      ].join('\n'),
    );
    expect(where(r)).toEqual([
      "3:1 'not-a-party' is not a party id",
      '4:82 "0.12345678901" has more than 10 fraction digits',
      '5:82 "-1" has a sign: an amount is a plain positive decimal',
      '6:82 the amount must be more than 0',
      `7:1 ${party(1)} is listed twice (first on line 2)`,
      '8:1 the receiver is the sender itself',
      '9:1 the line has 1 field, the header 2 (receiver,amount)',
      '10:82 "1e-3" is not a decimal amount (digits, an optional point and digits)',
    ]);
    expect(r.recipients.map((x) => x.line)).toEqual([2]);
  });

  it('refuses a receiver with an invisible or foreign character at its position, and two that differ only in case', async () => {
    const zeroWidth = party(1).replace('::', '\u200b::');
    const nbsp = party(2).replace('-', '\u00a0');
    const accent = party(3).replace('holder', 'hölder');
    const twin = party(4).replace('holder', 'Holder');
    const r = await both(
      ['receiver,amount', zeroWidth, nbsp, accent, party(4), twin, party(5)]
        .map((l, i) => (i ? `${l},1` : l))
        .join('\n') + '\n',
    );
    const shown = (text: string): string =>
      text.replace('\u200b', '\\u200b').replace('\u00a0', '\\u00a0').replace('ö', '\\u00f6');
    expect(where(r)).toEqual([
      `2:11 '${shown(zeroWidth)}' has an invisible character (U+200B) at position 11`,
      `3:7 '${shown(nbsp)}' has an invisible character (U+00A0) at position 7`,
      `4:2 '${shown(accent)}' has a character a party id cannot have ('ö', U+00F6) at position 2`,
      `6:1 ${twin} differs from the receiver on line 5 (${party(4)}) only in letter case`,
    ]);
    expect(r.problems[0]?.hint).toMatch(/letters, digits, - and _ before the ::/);
    expect(r.problems[3]?.hint).toMatch(/case-sensitive/);
    expect(r.recipients.map((x) => x.line)).toEqual([5, 7]);
    // the same in an inline list, at its pointer
    const inline = inlineRecipients(
      [
        { receiver: party(4), amount: '1' },
        { receiver: twin, amount: '1' },
        { receiver: zeroWidth, amount: '1' },
      ],
      { sender: SENDER },
    );
    expect(inline.problems.map((p) => [p.pointer, p.col])).toEqual([
      ['/1/receiver', 1],
      ['/2/receiver', 1],
    ]);
  });

  it('refuses a byte-order mark, CRLF line ends, an empty file, a missing column and text that is not UTF-8', async () => {
    expect(where(await both(`\uFEFFreceiver,amount\n${party(1)},1\n`))).toEqual([
      '1:1 the file starts with a byte-order mark (BOM)',
    ]);
    expect(where(await both(`receiver,amount\r\n${party(1)},1\r\n`))).toEqual([
      '1:16 the line ends with CRLF (\\r\\n): a recipients file has LF line endings',
    ]);
    expect(where(await both(''))).toEqual(['1:1 the file is empty']);
    expect(where(await both('receiver,amount\n'))).toEqual(['2:1 the file lists no recipient']);
    expect(where(await both(`receiver\n${party(1)}\n`))).toEqual(["1:1 the header has no 'amount' column"]);
    expect(where(await both(`receiver,amout\n${party(1)},1\n`))).toEqual(["1:10 unknown column 'amout'"]);
    expect((await both(`receiver,amout\n`)).problems[0]?.hint).toBe("did you mean 'amount'?");
    expect(where(await both(`${party(1)},1\n`))[0]).toBe('1:1 the first line is a recipient, not the header');
    const latin1 = Buffer.concat([
      Buffer.from(`receiver,amount,reference\n${party(1)},1,caf`),
      Buffer.from([0xe9, 0x0a]),
    ]);
    expect(where(await both(latin1))).toEqual(['2:87 the file is not UTF-8 text']);
    expect(where(await both(`receiver,amount,reference\n${party(1)},1,"open\n`))).toEqual([
      '2:84 a quoted field is never closed',
    ]);
  });

  it('keeps at most 1000 problems and counts the rest', async () => {
    const lines = ['receiver,amount', ...Array.from({ length: 1500 }, () => 'x,1')];
    const r = await both(`${lines.join('\n')}\n`);
    expect(r.problems).toHaveLength(1000);
    expect(r.more).toBe(500);
  });

  it('checks an inline list with pointers into it', () => {
    const r = inlineRecipients(
      [
        { receiver: party(1), amount: '1' },
        { receiver: party(1), amount: '0.00000000001' },
      ],
      { sender: SENDER },
    );
    expect(r.problems.map((p) => [p.pointer, p.message])).toEqual([
      ['/1/amount', '"0.00000000001" has more than 10 fraction digits'],
      ['/1/receiver', `${party(1)} is listed twice (first on line 1)`],
    ]);
  });
});
