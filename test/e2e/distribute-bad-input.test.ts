/**
 * Broken recipient files and playbooks through the CLI: each is refused with its file, line and column and exit
 * 65, and the participants receive no submission (counted by the sandbox, not by ledgerbook).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli.js';
import { tokenSandbox, type TokenSandbox } from './token-setup.js';

let sb: TokenSandbox;
beforeAll(async () => {
  sb = await tokenSandbox();
});
afterAll(() => sb?.stop());

function distribute(recipients: string, extra = ''): string {
  return `name: bad-input
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ${recipients}
${extra}`;
}

/** Runs a playbook and expects it refused at these positions, with nothing sent. */
async function refused(playbook: string, ...where: Array<string | RegExp>): Promise<string> {
  const before = await sb.submissions();
  const result = await sb.run(playbook);
  const output = result.stdout + result.stderr;
  expect(result.code, output).toBe(65);
  for (const w of where) expect(output).toMatch(w);
  expect(await sb.submissions()).toBe(before);
  return output;
}

async function csvCase(name: string, text: string | Buffer): Promise<string> {
  await writeFile(join(sb.dir, `${name}.csv`), text);
  return sb.playbook(`${name}.yaml`, distribute(`${name}.csv`));
}

const holder = (i: number): string => sb.tokens.holders[i] as string;

describe('token.distribute refuses broken recipient files with their position, before anything is sent', () => {
  const cases: Array<[string, string, () => string | Buffer, RegExp]> = [
    [
      'a receiver that is no party id',
      'bad-party',
      () => `receiver,amount\n${holder(1)},1\nalice,1\n`,
      /bad-party\.csv:3:1 error: 'alice' is not a party id/,
    ],
    [
      '11 fraction digits',
      'eleven',
      () => `receiver,amount\n${holder(1)},0.12345678901\n`,
      /eleven\.csv:2:\d+ error: "0\.12345678901" has more than 10 fraction digits/,
    ],
    [
      'a negative amount',
      'negative',
      () => `receiver,amount\n${holder(1)},-1\n`,
      /negative\.csv:2:\d+ error: "-1" has a sign/,
    ],
    [
      'a zero amount',
      'zero',
      () => `receiver,amount\n${holder(1)},0.000\n`,
      /zero\.csv:2:\d+ error: the amount must be more than 0/,
    ],
    [
      'an amount in exponent notation',
      'exponent',
      () => `receiver,amount\n${holder(1)},1e-3\n`,
      /exponent\.csv:2:\d+ error: "1e-3" is not a decimal amount/,
    ],
    [
      'a duplicate receiver',
      'duplicate',
      () => `receiver,amount\n${holder(1)},1\n${holder(2)},1\n${holder(1)},2\n`,
      /duplicate\.csv:4:1 error: .* is listed twice \(first on line 2\)/,
    ],
    [
      'the sender among the receivers',
      'sender',
      () => `receiver,amount\n${sb.tokens.minter},1\n`,
      /sender\.csv:2:1 error: the receiver is the sender itself/,
    ],
    [
      'a missing column',
      'missing-column',
      () => `receiver\n${holder(1)}\n`,
      /missing-column\.csv:1:1 error: the header has no 'amount' column/,
    ],
    [
      'a misspelled column',
      'typo',
      () => `receiver,amout\n${holder(1)},1\n`,
      /typo\.csv:1:10 error: unknown column 'amout'[\s\S]*did you mean 'amount'/,
    ],
    [
      'a line with too few fields',
      'fields',
      () => `receiver,amount\n${holder(1)},1\n${holder(2)}\n`,
      /fields\.csv:3:1 error: the line has 1 field, the header 2/,
    ],
    [
      'a byte-order mark',
      'bom',
      () => `\uFEFFreceiver,amount\n${holder(1)},1\n`,
      /bom\.csv:1:1 error: the file starts with a byte-order mark/,
    ],
    [
      'CRLF line ends',
      'crlf',
      () => `receiver,amount\r\n${holder(1)},1\r\n`,
      /crlf\.csv:1:16 error: the line ends with CRLF/,
    ],
    ['an empty file', 'empty', () => '', /empty\.csv:1:1 error: the file is empty/],
    [
      'a header and no recipient',
      'header-only',
      () => 'receiver,amount\n',
      /header-only\.csv:2:1 error: the file lists no recipient/,
    ],
    [
      'text that is not UTF-8',
      'latin1',
      () =>
        Buffer.concat([
          Buffer.from(`receiver,amount,reference\n${holder(1)},1,caf`),
          Buffer.from([0xe9, 0x0a]),
        ]),
      /latin1\.csv:2:\d+ error: the file is not UTF-8 text/,
    ],
    [
      'a quoted field never closed',
      'unclosed',
      () => `receiver,amount,reference\n${holder(1)},1,"open\n`,
      /unclosed\.csv:2:\d+ error: a quoted field is never closed/,
    ],
  ];
  it.each(cases)('%s', async (_what, name, text, where) => {
    await refused(await csvCase(name, text()), where);
  });

  it('every problem of a file at once, each at its line', async () => {
    const output = await refused(
      await csvCase('many', `receiver,amount\nx,1\n${holder(1)},0\n${holder(2)},1.00000000001\n`),
      /many\.csv:2:1 /,
      /many\.csv:3:\d+ /,
      /many\.csv:4:\d+ /,
    );
    expect(output).toContain('3 problems found');
  });

  it('a total above the sender’s spendable balance, before anything is sent', async () => {
    await refused(
      await csvCase('too-much', `receiver,amount\n${holder(1)},60\n${holder(2)},60\n`),
      /too-much\.csv:1:1 error: the 2 recipients still to pay need 120, but minter \(.*\) can spend 100/,
    );
  });
});

describe('receivers the network cannot pay are refused before the first step sends anything', () => {
  /** a well-formed party id no participant has allocated */
  const ghost = (n: number): string => `ghost-${n}::1220${'d'.repeat(63)}${n}`;

  it('unknown receivers: each at its line, with the party, even behind a step that would send first', async () => {
    await writeFile(
      join(sb.dir, 'ghosts.csv'),
      `receiver,amount\n${holder(6)},0.01\n${ghost(1)},0.01\n${holder(7)},0.01\n${ghost(2)},0.01\n`,
    );
    // a transfer first: it would be sent, and the distribution stop half-way, were the receivers looked up late
    const playbook = await sb.playbook(
      'ghosts.yaml',
      `name: ghosts
steps:
  - id: first
    uses: token.transfer
    with: { sender: minter, receiver: ${holder(8)}, amount: "0.01" }
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: ghosts.csv
`,
    );
    const output = await refused(
      playbook,
      new RegExp(`ghosts\\.csv:3:1 error: step 'pay': ${ghost(1)} is not known to the network`),
      new RegExp(`ghosts\\.csv:5:1 error: step 'pay': ${ghost(2)} is not known to the network`),
      /the participant of node1 has no such party/,
    );
    expect(output).toContain('2 problems found');
    expect(output).not.toContain(holder(6));
  });

  it('a file an earlier step names is looked up when its step starts, before that step sends', async () => {
    await writeFile(join(sb.dir, 'later.csv'), `receiver,amount\n${ghost(5)},0.01\n`);
    const playbook = await sb.playbook(
      'later.yaml',
      `name: later
steps:
  - id: name
    uses: core.shell
    with: { run: "echo later.csv" }
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients: \${{ steps.name.outputs.stdout }}
`,
    );
    await refused(playbook, new RegExp(`later\\.csv:2:1 error: step 'pay': ${ghost(5)} is not known`));
  });

  it('receivers that differ only in letter case, or carry an invisible character', async () => {
    const twin = holder(1).replace('holder', 'Holder');
    const hidden = holder(2).replace('::', '\u200b::');
    await refused(
      await csvCase('twins', `receiver,amount\n${holder(1)},1\n${twin},1\n${hidden},1\n`),
      /twins\.csv:3:1 error: Holder-.* differs from the receiver on line 2 \(holder-.*\) only in letter case/,
      /twins\.csv:4:11 error: 'holder-\d+\\u200b::1220[0-9a-f]+' has an invisible character \(U\+200B\) at position 11/,
    );
  });

  it('the same for the parties a transfer or a DvP leg names', async () => {
    const playbook = await sb.playbook(
      'ghost-legs.yaml',
      `name: ghost-legs
steps:
  - id: give
    uses: token.transfer
    with: { sender: minter, receiver: ${ghost(3)}, amount: "0.01" }
  - id: leg
    uses: token.allocate
    with:
      party: minter
      receiver: ${holder(9)}
      executor: ${ghost(4)}
      amount: "0.01"
      settlement_id: ghost-dvp
      leg_id: leg-1
`,
    );
    await refused(
      playbook,
      /ghost-legs\.yaml:5:\d+ error: step 'give' with\.receiver: ghost-3::1220d+3 is not known to the network/,
      /ghost-legs\.yaml:11:\d+ error: step 'leg' with\.executor: ghost-4::1220d+4 is not known to the network/,
    );
  });
});

describe('token.distribute refuses broken playbooks with their position', () => {
  it('an inline list with a duplicate receiver', async () => {
    const playbook = await sb.playbook(
      'inline.yaml',
      `name: inline
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients:
        - { receiver: ${holder(1)}, amount: "1" }
        - { receiver: ${holder(1)}, amount: "2" }
`,
    );
    await refused(playbook, /inline\.yaml:9:\d+ error: .* is listed twice \(first on line 1\)/);
  });

  it('an inline amount of 11 fraction digits', async () => {
    const playbook = await sb.playbook(
      'inline-amount.yaml',
      `name: inline
steps:
  - id: pay
    uses: token.distribute
    with:
      sender: minter
      recipients:
        - { receiver: ${holder(1)}, amount: "0.12345678901" }
`,
    );
    await refused(playbook, /inline-amount\.yaml:8:\d+ error: /, /at most 10 fraction digits|\\d\{1,10\}/);
  });

  it('a recipients file that does not exist', async () => {
    await refused(
      await sb.playbook('nofile.yaml', distribute('nowhere.csv')),
      /nofile\.yaml:7:\d+ error: cannot read nowhere\.csv: no such file/,
    );
  });

  it('a sender the target does not act as', async () => {
    await writeFile(join(sb.dir, 'one.csv'), `receiver,amount\n${holder(1)},1\n`);
    const playbook = await sb.playbook(
      'sender.yaml',
      distribute('one.csv').replace('sender: minter', 'sender: admin'),
    );
    await refused(playbook, /sender\.yaml:6:\d+ error: party 'admin' is only named in the target/);
  });

  it('a line changed after the distribution paid it: explained, nothing more sent', async () => {
    await writeFile(join(sb.dir, 'edited.csv'), `receiver,amount\n${holder(3)},0.5\n${holder(4)},0.25\n`);
    // its own name: the state of a name belongs to one file, and the files above ran under `bad-input`
    const playbook = await sb.playbook(
      'edited.yaml',
      distribute('edited.csv').replace('name: bad-input', 'name: edited-recipients'),
    );
    expect((await sb.run(playbook)).code).toBe(0);
    await writeFile(
      join(sb.dir, 'edited.csv'),
      `receiver,amount\n${holder(3)},0.75\n${holder(4)},0.25\n${holder(5)},1\n`,
    );
    const output = await refused(
      playbook,
      /edited\.csv:2:1 error: .* was already sent 0\.5.* by this distribution; the line now says 0\.75/,
      /restore the line to finish this distribution, or pay the difference with another one/,
    );
    // the added recipient was not paid either: nothing is sent before the whole file agrees with the ledger
    expect(output).not.toContain('applied');
  });
});

describe('validate finds what needs no ledger', () => {
  it('reports the recipients file’s problems at their lines', async () => {
    await writeFile(join(sb.dir, 'v.csv'), `receiver,amount\n${holder(1)},1.5\nnobody,0\n`);
    const playbook = await sb.playbook('v.yaml', distribute('v.csv'));
    const result = await cli(['validate', playbook, '--target', sb.targetFile], { cwd: sb.dir });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(/v\.csv:3:1 error: 'nobody' is not a party id/);
    expect(result.stderr).toMatch(/v\.csv:3:8 error: the amount must be more than 0/);
  });

  it('checks the file without a target too (the built-in sandbox, which validate does not start)', async () => {
    await writeFile(join(sb.dir, 'w.csv'), `receiver,amount\n${holder(1)},1.5\nnobody,0\n`);
    const playbook = await sb.playbook('w.yaml', distribute('w.csv'));
    const result = await cli(['validate', playbook], { cwd: sb.dir });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(/w\.csv:3:1 error: 'nobody' is not a party id/);
    expect(result.stderr).not.toMatch(/the target/);
  });
});
