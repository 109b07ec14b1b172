/**
 * Files and command lines a hostile tester sends: every one is refused with exit 65 (or 64 for usage) and the
 * line and column of the problem, never a crash (70) or a silent acceptance.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cli, collect, spawnCli, tempDir } from './cli.js';

const HEAD = 'name: hostile\nsteps:\n  - id: a\n    uses: core.log\n    with:\n';

function laughs(levels: number): string {
  let text = 'name: lol\nx0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n';
  for (let i = 1; i < levels; i++)
    text += `x${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]\n`;
  return `${text}steps:\n  - id: a\n    uses: core.log\n    with: { message: hi }\n`;
}

const CASES: Array<{ name: string; body: string | Buffer; where: RegExp; says: RegExp }> = [
  {
    name: '2,000 nested flow lists',
    body: `${HEAD}      message: hi\n      extra: ${'['.repeat(2000)}${']'.repeat(2000)}\n`,
    where: /:7:\d+ error/,
    says: /nest 65 levels deep/,
  },
  {
    name: '1,500 nested mappings',
    body: `${HEAD}      message: hi\n${Array.from({ length: 1500 }, (_, i) => `${'  '.repeat(i + 3)}k${i}:\n`).join('')}`,
    where: /:\d+:\d+ error/,
    says: /this line nests 65 levels deep/,
  },
  {
    name: '2,000 nested parentheses in an expression',
    body: `${HEAD}      message: "\${{ ${'('.repeat(2000)}1${')'.repeat(2000)} }}"\n`,
    where: /:6:20 error/,
    says: /expression too long/,
  },
  {
    name: '40 nested parentheses in an expression',
    body: `${HEAD}      message: "\${{ ${'('.repeat(40)}1${')'.repeat(40)} }}"\n`,
    where: /:6:\d+ error/,
    says: /nests deeper than 32 levels/,
  },
  { name: 'a billion laughs', body: laughs(10), where: /:3:\d+ error/, says: /alias bomb/ },
  {
    name: 'a byte that is not UTF-8',
    body: Buffer.concat([
      Buffer.from(`${HEAD}      message: "h`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('i"\n'),
    ]),
    where: /:6:\d+ error/,
    says: /not UTF-8: byte 0xFF/,
  },
  {
    name: '__proto__ as an input name',
    body: 'name: p\ninputs:\n  __proto__: { default: x }\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: hi }\n',
    where: /:3:3 error/,
    says: /'__proto__' cannot be an input name/,
  },
  {
    name: 'constructor as a step id',
    body: 'name: p\nsteps:\n  - id: constructor\n    uses: core.log\n    with: { message: hi }\n',
    where: /:3:\d+ error/,
    says: /'constructor' cannot be a step id/,
  },
];

describe('hostile playbooks', () => {
  for (const c of CASES) {
    it(`${c.name}: exit 65 with the position`, async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'p.yaml'), c.body);
      for (const command of ['validate', 'run']) {
        const result = await cli([command, 'p.yaml'], { cwd: dir });
        expect(result.code, result.stderr).toBe(65);
        expect(result.stderr).toMatch(c.where);
        expect(result.stderr).toMatch(c.says);
        expect(result.stderr).not.toMatch(/internal error|stack size/i);
      }
    });
  }

  it('a UTF-8 byte order mark and CRLF line ends are fine', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'p.yaml'), `\uFEFF${HEAD}      message: hi\n`.replace(/\n/g, '\r\n'));
    const result = await cli(['validate', 'p.yaml'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('values that would drive the terminal', () => {
  // set the window title, clear the screen, go back to the start of the line, reverse the text that follows
  const CONTROL_CHARS = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f\\u202e]';
  const CONTROL = new RegExp(CONTROL_CHARS);
  const NASTY = '\u001b]0;pwned\u0007\u001b[2J\rok\u202e';
  const playbook = `name: loud
inputs:
  note: { default: quiet }
steps:
  - id: say
    uses: core.log
    with: { message: '\${{ inputs.note }}' }
  - id: wait
    uses: core.wait
    with: { until: '\${{ true }}', interval: '\${{ inputs.note }}' }
`;

  it('are shown as escapes in text output and in refusals, and kept exactly in --json events', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'p.yaml'), playbook);
    const refused = await cli(['run', 'p.yaml', '--input', `note=${NASTY}`], { cwd: dir });
    expect(refused.code, refused.stderr).toBe(65);
    expect(refused.stderr).toContain(
      "'\\u001b]0;pwned\\u0007\\u001b[2J\\u000dok\\u202e' is not a valid duration",
    );

    await writeFile(join(dir, 'p.yaml'), playbook.slice(0, playbook.indexOf('  - id: wait')));
    const text = await cli(['run', 'p.yaml', '--input', `note=${NASTY}`], { cwd: dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout + text.stderr).not.toMatch(CONTROL);
    expect(text.stdout).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\u000dok\\u202e');

    const json = await cli(['run', 'p.yaml', '--fresh', '--json', '--input', `note=${NASTY}`], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const logged = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: string })
      .find((e) => e.type === 'log');
    expect(logged?.message).toBe(NASTY);
    expect(json.stderr).not.toMatch(CONTROL);
  });
});

describe('files that are not files', () => {
  it.each([
    ['a playbook', ['validate', '/dev/zero']],
    ['a target', ['validate', 'p.yaml', '--target', '/dev/zero']],
    ['a secrets file', ['validate', 'p.yaml', '--secrets-file', '/dev/zero']],
    ['a playbook that is a folder', ['validate', '.']],
  ])('%s: refused at once (exit 65), not read for ever', async (_what, args) => {
    const dir = await tempDir();
    await writeFile(join(dir, 'p.yaml'), `${HEAD}      message: hi\n`);
    const result = await cli(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(65);
    expect(result.stderr).toMatch(/it is not a regular file \(a device\)|it is a folder, not a file/);
    expect(result.stderr).not.toMatch(/internal error|Invalid string length/i);
  });

  it('a playbook and a secrets file through pipes (stdin, a FIFO) are read as cat reads them', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'p.yaml'), `${HEAD}      message: hi\n`);
    // a shell pipe (node's own stdio pipes are sockets, which /dev/stdin cannot be opened on)
    const piped = execFileSync(
      'sh',
      ['-c', 'cat "$1" | "$2" "$3" validate /dev/stdin', 'sh', 'p.yaml', process.execPath, CLI],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect(piped).toContain('/dev/stdin: 1 step valid');

    execFileSync('mkfifo', [join(dir, 'secrets.fifo')]);
    const withSecrets = spawnCli(['validate', 'p.yaml', '--secrets-file', 'secrets.fifo'], { cwd: dir });
    await writeFile(join(dir, 'secrets.fifo'), 'LB_SOME_TOKEN=a-long-enough-value-1\n');
    const result = await collect(withSecrets);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('usage errors exit 64', () => {
  for (const args of [
    ['run'],
    ['validate', '--bogus', 'x.yaml'],
    ['status', 'a', 'b', 'c'],
    ['frobnicate'],
  ]) {
    it(`ledgerbook ${args.join(' ')}`, async () => {
      const result = await cli(args, { cwd: await tempDir() });
      expect(result.code).toBe(64);
      expect(result.stderr).toMatch(/error: /);
    });
  }
});
