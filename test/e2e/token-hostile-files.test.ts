/**
 * Hostile files the token kinds read or write themselves — token.dar-check's expected list, token.distribute's
 * recipients, rewards.report's receipts and its CSV/SVG — through the CLI: each is refused with exit 65 and where
 * (the file and its line, or the playbook's line), at once (a FIFO or /dev/zero does not hang the run), and the
 * sandbox receives no request at all (counted by the sandbox, not by ledgerbook).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { tokenSandbox, type TokenSandbox } from './token-setup.js';

let sb: TokenSandbox;
beforeAll(async () => {
  sb = await tokenSandbox();
  await mkdir(join(sb.dir, 'a-folder'));
  execFileSync('mkfifo', [join(sb.dir, 'fifo')]);
  await symlink('/dev/zero', join(sb.dir, 'zero'));
});
afterAll(() => sb?.stop());

async function requests(): Promise<number> {
  return (await requestCounts(sb.world)).reduce((n, r) => n + r.count, 0);
}

/** Runs a playbook and expects it refused with these texts in its output, nothing sent, no stack trace. */
async function refused(name: string, playbook: string, ...where: RegExp[]): Promise<string> {
  await sb.playbook(name, playbook);
  const before = await requests();
  const result = await sb.run(name);
  const output = result.stdout + result.stderr;
  expect(result.code, output).toBe(65);
  for (const w of where) expect(output).toMatch(w);
  expect(output).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
  expect(await requests()).toBe(before);
  return output;
}

const darCheck = (file: string): string => `name: dar-check
steps:
  - id: check
    uses: token.dar-check
    with:
      expected_file: ${file}
`;

const distribute = (file: string): string => `name: distribute
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${file}
`;

const report = (lines: string): string => `name: report
steps:
  - id: report
    uses: rewards.report
    with:
      parties: [minter]
      days: 2
${lines}
`;

describe('token.dar-check: an expected_file that is no list file', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a folder', 'a-folder', /dc-a-folder\.yaml:6:\d+ error: a-folder: it is a folder, not a file/],
    [
      'a FIFO nobody writes to',
      'fifo',
      /dc-fifo\.yaml:6:\d+ error: fifo: it is not a regular file \(a FIFO\)/,
    ],
    [
      'a symlink to /dev/zero',
      'zero',
      /dc-zero\.yaml:6:\d+ error: zero: it is not a regular file \(a device\)/,
    ],
  ];
  for (const [what, file, message] of cases)
    it(`${what}: refused at once`, async () => {
      await refused(`dc-${file}.yaml`, darCheck(file), message);
    });

  it('a file far larger than any list: refused without reading it', async () => {
    await writeFile(join(sb.dir, 'huge.json'), Buffer.alloc(50 * 1024 * 1024, 0x20));
    await refused('dc-huge.yaml', darCheck('huge.json'), /huge\.json: it is 50 MiB: more than the 4 MiB/);
  });

  it('bytes that are not UTF-8 inside a name: at their line and column of the file', async () => {
    const id = 'a'.repeat(64);
    await writeFile(
      join(sb.dir, 'latin1.json'),
      Buffer.concat([
        Buffer.from(`[\n  {"package_id": "${id}", "name": "caf`),
        Buffer.from([0xe9]),
        Buffer.from('", "version": "1.0.0"}\n]\n'),
      ]),
    );
    await refused(
      'dc-latin1.yaml',
      darCheck('latin1.json'),
      /latin1\.json:2:\d+ error: .*not UTF-8: byte 0xE9/,
    );
  });
});

describe('token.distribute: a recipients path that is no file', () => {
  for (const [what, file, message] of [
    ['a FIFO nobody writes to', 'fifo', /it is not a regular file \(a FIFO\)/],
    ['a symlink to /dev/zero', 'zero', /it is not a regular file \(a device\)/],
    ['a folder', 'a-folder', /it is a folder, not a file/],
  ] as const)
    it(`${what}: refused at once with the playbook's line`, async () => {
      await refused(
        `pay-${file}.yaml`,
        distribute(file),
        /pay-[a-z-]+\.yaml:7:\d+ error: cannot read /,
        message,
      );
    });
});

describe('rewards.report: receipts that are no receipts', () => {
  const receipt = JSON.stringify({ receiver: sb?.tokens.holders[1] ?? 'holder', status: 'offered' });
  const cases: Array<[string, () => string | Buffer, RegExp]> = [
    [
      'a line of valid JSON that is no object',
      () => `${receipt}\n[1, 2]\n`,
      /:2:1 error: not a receipt of token\.distribute/,
    ],
    [
      'a line of 1 MB',
      () => `${receipt}\n{"receiver": "${'x'.repeat(1 << 20)}"}\n`,
      /:2:1 error: the line is longer than 65536 characters/,
    ],
    [
      'bytes that are not UTF-8',
      () =>
        Buffer.concat([
          Buffer.from(`${receipt}\n${receipt}\n{"receiver": "`),
          Buffer.from([0xff, 0x22, 0x7d]),
        ]),
      /:3:1 error: the file is not UTF-8 text/,
    ],
  ];
  cases.forEach(([what, text, message], i) =>
    it(`${what}: refused at the file's line before anything is asked`, async () => {
      await writeFile(join(sb.dir, `receipts-${i}.jsonl`), text());
      await refused(
        `report-${i}.yaml`,
        report(`      receipts: receipts-${i}.jsonl`),
        new RegExp(`receipts-${i}\\.jsonl${message.source}`),
      );
    }),
  );

  it('a FIFO, /dev/zero and a folder among the receipt files: each refused at its entry', async () => {
    await refused(
      'report-files.yaml',
      report('      receipts: [fifo, zero, a-folder]'),
      /report-files\.yaml:8:\d+ error: cannot read the receipts: it is not a regular file \(a FIFO\)/,
      /report-files\.yaml:8:\d+ error: cannot read the receipts: it is not a regular file \(a device\)/,
      /report-files\.yaml:8:\d+ error: cannot read the receipts: it is a folder, not a file/,
    );
  });
});

describe('rewards.report: CSV and SVG paths it cannot write, refused before anything runs', () => {
  it('a CSV path that is a folder, an SVG path under a file', async () => {
    await mkdir(join(sb.dir, 'out.csv'));
    await writeFile(join(sb.dir, 'plain'), 'a file');
    await refused(
      'report-out.yaml',
      report('      csv: out.csv\n      svg: plain/chart.svg'),
      /report-out\.yaml:8:\d+ error: cannot write out\.csv: it is a folder/,
      /report-out\.yaml:9:\d+ error: cannot write plain\/chart\.svg: .*plain is a file, not a folder/,
    );
  });

  it('a missing folder is created (the shipped playbook writes reports/), with spaces, quotes and $(…) kept as data', async () => {
    const result = await sb.run(
      await sb.playbook('report-new.yaml', report(`      csv: "new folder/it's $(touch pwned).csv"`)),
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const written = execFileSync('ls', [join(sb.dir, 'new folder')], { encoding: 'utf8' });
    expect(written.trim()).toBe("it's $(touch pwned).csv");
    expect(execFileSync('ls', [sb.dir], { encoding: 'utf8' })).not.toMatch(/^pwned$/m);
  });
});

describe('values that reach a URL path', () => {
  it('a txid of token.wait-for-mint that would climb out of its path segment is refused', async () => {
    await refused(
      'wait-txid.yaml',
      `name: wait-txid
steps:
  - id: wait
    uses: token.wait-for-mint
    with:
      party: minter
      amount: "0.1"
      txid: "../../deposits?x=1"
`,
      /wait-txid\.yaml:8:\d+ error: .* is not a valid value here/,
      /expected: a string matching \/\^\[0-9a-fA-F\]\{64\}\$\//,
    );
  });
});
