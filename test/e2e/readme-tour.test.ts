/**
 * The README followed word for word, as a new user does: its first set-up command and then every command of "A
 * five-minute tour", in order, on a fresh copy of the repository, each expected to do what the README says of it:
 * once piped, as a pipeline runs it, and once in a terminal (a pseudo-terminal read through a terminal emulator,
 * terminal-screen.ts), as a person at a keyboard does — the text a command must show is looked for on what the
 * terminal holds when it ends, its screen and scrollback.
 * A command the README gains or loses must be added here or removed, with what the README promises for it.
 *
 * `npx ledgerbook` is run as the built bin (what the README tells scripts to call); `npm ci` is what this suite
 * already ran (the copy's node_modules link to its packages; the quickstart builds the copy's dist itself).
 * Afterwards the copy has no file that git would show: what the tour writes is ignored.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, collect, tempDir } from './cli.js';
import { inTerminal, stopTerminals } from './terminal-screen.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Expected {
  exit: number;
  /** text the command prints (stdout and stderr together) */
  says?: string[];
  /** text it must not print */
  never?: string[];
  /** runs until stopped: started, its first line awaited, stopped with Ctrl-C after the rest of its block */
  serves?: boolean;
}

const SECRETS = 'playbooks/examples/runbook.secrets.env';

/** The tour's commands in the README's order, each with what the README says of it. */
const tour: [string, Expected][] = [
  // the quickstart, first on a fresh clone: the party playbooks, then mint-and-distribute
  [
    'npm run quickstart',
    {
      exit: 0,
      says: [
        // the README: `npm ci` built the CLI already, and a build whose sources have not changed is skipped
        'dist/ is up to date',
        'run onboard-party',
        'run deploy-contracts',
        'recipients 200 · amount 9.93 · sent 200',
        'agree with the receipts: 200 offers',
        'quickstart: 4 playbooks in',
        'quickstart: the state of these runs is in .ledgerbook/',
        'quickstart: `npx ledgerbook status` shows where each run stands',
      ],
      // no line per recipient, in a terminal either: progress, in flight and totals instead
      never: ['reference "airdrop-'],
    },
  ],
  [
    'npx ledgerbook validate playbooks/onboard-party.yaml playbooks/distribute-dars.yaml',
    {
      exit: 0,
      says: ['✔ playbooks/onboard-party.yaml', '✔ playbooks/distribute-dars.yaml'],
      never: ['warning'],
    },
  ],
  // after the main job everything is in sync: 0, not 2
  [
    'npx ledgerbook plan playbooks/onboard-party.yaml --detailed-exitcode',
    { exit: 0, says: ['No changes: everything is in sync'] },
  ],
  // the tour's run block: the quickstart did all of it already
  [
    'npx ledgerbook run playbooks/onboard-party.yaml',
    { exit: 0, says: ['Nothing to do: everything is in sync'] },
  ],
  [
    'npx ledgerbook run playbooks/distribute-dars.yaml --json --summary summary.md   # summary.md: for a PR comment',
    { exit: 0, says: ['"type":"run.done"'] },
  ],
  [
    'npx ledgerbook run playbooks/deploy-contracts.yaml',
    { exit: 0, says: ['Nothing to do: everything is in sync'] },
  ],
  ['npx ledgerbook status', { exit: 0, says: ['onboard-party', 'distribute-dars', 'deploy-contracts'] }],
  [
    'npx ledgerbook run playbooks/change-threshold.yaml --input threshold=3',
    { exit: 0, says: ['now needs 3 signatures'] },
  ],
  [
    'npx ledgerbook plan playbooks/onboard-party.yaml --input threshold=3 --detailed-exitcode',
    { exit: 0, says: ['No changes: everything is in sync'] },
  ],
  [
    `npx ledgerbook run playbooks/examples/runbook.yaml --secrets-file ${SECRETS}`,
    { exit: 3, says: ['Paused (exit 3)', '--approve confirm'], never: ['example-token-not-a-real-one'] },
  ],
  [
    `npx ledgerbook run playbooks/examples/runbook.yaml --secrets-file ${SECRETS} --approve confirm`,
    { exit: 0, says: ['ticket OPS-1234 approved by'], never: ['example-token-not-a-real-one'] },
  ],
  ['npx ledgerbook sandbox up --write-target sandbox-target.yaml', { exit: 0, serves: true }],
  [
    'npx ledgerbook run playbooks/distribute-dars.yaml --target sandbox-target.yaml',
    // the same state as the built-in sandbox's: the packages distributed above
    { exit: 0, says: ['Nothing to do: everything is in sync'] },
  ],
];

/** The shell blocks of the README a new user runs: the set-up block at the top, then the tour's. */
function tourCommands(readme: string): string[][] {
  const tour = readme.slice(readme.indexOf('## A five-minute tour'));
  const blocks = (text: string): string[][] =>
    [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
      m[1]!.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#')),
    );
  const setup = blocks(readme.slice(0, readme.indexOf('## ')))[0] ?? [];
  const main = setup
    .map((line) => line.replace(/^npm ci && /, ''))
    .filter((line) => line !== 'npm test' && !line.startsWith('npm ci'));
  const tourBlocks = blocks(tour.slice(0, tour.indexOf('\n## ', 1)));
  return [main, ...tourBlocks];
}

/** A copy of the repository's files as a clone has them (tracked and new, not ignored), with a git index. */
function freshCopy(into: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '');
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(into, file));
    } catch (error) {
      // a file deleted in the work tree but not yet from the index
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: into, encoding: 'utf8' });
  // what `npm ci` gives a clone: its packages (linked one by one, so `node_modules/` stays an ignored folder), and
  // the build its `prepare` script makes (the one the tests run, made from these very files: the quickstart's build
  // finds it up to date, as it does after `npm ci`)
  mkdirSync(join(into, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules', entry), join(into, 'node_modules', entry));
  for (const built of ['dist', join('packages', 'sandbox', 'dist')])
    cpSync(join(ROOT, built), join(into, built), { recursive: true });
  git('init', '-q');
  git('add', '-A');
  git(
    '-c',
    'user.name=tour',
    '-c',
    'user.email=tour@localhost',
    'commit',
    '-q',
    '--no-verify',
    '-m',
    'fresh clone',
  );
}

/** `npx ledgerbook` → the built bin: the same program, without npx's second of start-up per command */
function commandLine(command: string): string {
  return command.replace(/^npx ledgerbook /, `exec "${process.execPath}" "${CLI}" `);
}

/** A command of the tour as it runs, piped or in a terminal: what it printed once it ended, and how to stop it. */
interface Running {
  /** resolves once it printed something */
  started(): Promise<void>;
  /** Ctrl-C (a SIGINT to it) */
  interrupt(): void;
  result: Promise<{ code: number | null; text: string }>;
}

/** Piped, as a pipeline runs it: no terminal, CI set, no colours. */
function piped(command: string, cwd: string): Running {
  const child = spawn('sh', ['-c', commandLine(command)], {
    cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: undefined },
    stdio: 'pipe',
  });
  const result = collect(child, 180_000).then((r) => ({ code: r.code, text: r.stdout + r.stderr }));
  return {
    started: () =>
      new Promise<void>((ready, fail) => {
        child.stdout.once('data', () => ready());
        child.once('exit', (code) => fail(new Error(`${command} exited ${code} before serving`)));
      }),
    interrupt: () => child.kill('SIGINT'),
    result,
  };
}

/** In a terminal of 120 × 40, as a person types it: what is read is the terminal's screen and scrollback. */
function inATerminal(command: string, cwd: string): Running {
  const term = inTerminal([], {
    cwd,
    cols: 120,
    rows: 40,
    command: ['sh', '-c', commandLine(command)],
    timeoutMs: 180_000,
  });
  return {
    started: () => term.waitFor((screen) => screen.length > 0).then(() => undefined),
    interrupt: () => term.type('\u0003'),
    result: term.done.then(({ code }) => ({ code, text: term.everything().join('\n') })),
  };
}

afterEach(stopTerminals);

for (const [how, run] of [
  ['piped', piped],
  ['in a terminal', inATerminal],
] as const) {
  describe(`the README, followed word for word on a fresh copy, ${how}`, () => {
    let copy: string;
    beforeAll(async () => {
      copy = await tempDir('lb-tour-');
      freshCopy(copy);
    });
    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    it('every command of the tour is known here, with what the README says it does', () => {
      const commands = tourCommands(readFileSync(join(ROOT, 'README.md'), 'utf8')).flat();
      expect(commands).toEqual(tour.map(([command]) => command));
    });

    it('each command, in order, does what the README says; the tour leaves nothing for git to show', async () => {
      const blocks = tourCommands(readFileSync(join(copy, 'README.md'), 'utf8'));
      let index = 0;
      for (const block of blocks) {
        const serving: Running[] = [];
        for (const command of block) {
          const [known, want] = tour[index++]!;
          expect(command).toBe(known);
          const running = run(command, copy);
          if (want.serves === true) {
            await running.started();
            serving.push(running);
            continue;
          }
          const { code, text } = await running.result;
          expect({ command, exit: code }, text).toEqual({ command, exit: want.exit });
          for (const s of want.says ?? []) expect(text, command).toContain(s);
          for (const s of want.never ?? []) expect(text, command).not.toContain(s);
        }
        for (const running of serving) {
          running.interrupt();
          expect((await running.result).code).toBe(0);
        }
      }
      expect(readFileSync(join(copy, 'summary.md'), 'utf8')).toContain('distribute-dars');
      const status = execFileSync('git', ['status', '--porcelain'], { cwd: copy, encoding: 'utf8' });
      expect(status).toBe('');
    }, 300_000);
  });
}
