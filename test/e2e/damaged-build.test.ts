/**
 * The CLI whose build was damaged after it was made (a module cut short or deleted, as a failed copy or a stray
 * edit leaves it): it says which file and what to do (exit 70), not "this is a bug" with a stack trace; an intact
 * copy of the same build works.
 */
import { spawnSync } from 'node:child_process';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyOfBuild } from './cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;
let cliDir: string;

beforeAll(async () => {
  dir = await copyOfBuild('lb-damaged-build-');
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  cliDir = join(dir, 'dist', 'cli');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(process.execPath, [join(cliDir, 'main.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });

/** runs `check` with the file cut to its first half (or deleted), then puts it back */
async function damaged(file: string, how: 'cut' | 'deleted', check: () => void): Promise<void> {
  const path = join(cliDir, file);
  const bytes = await readFile(path);
  if (how === 'cut') await writeFile(path, bytes.subarray(0, Math.floor(bytes.length / 2)));
  else await rm(path);
  try {
    check();
  } finally {
    await writeFile(path, bytes);
  }
}

function expectDamaged(result: ReturnType<typeof cli>, what: string): void {
  expect(result.status).toBe(70);
  expect(result.stderr).toContain(`error: ledgerbook's build is damaged: ${what}`);
  expect(result.stderr).toContain('hint: build it again (`npm run build -- --force` in its repository)');
  expect(result.stderr).not.toContain('this is a bug');
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

it('an intact copy validates', () => {
  expect(cli('validate', 'playbooks/governance.yaml').status).toBe(0);
});

it('a validator index cut short: validate names the file', async () => {
  await damaged(join('validators', 'packs.cjs'), 'cut', () => {
    expectDamaged(
      cli('validate', 'playbooks/governance.yaml'),
      `${join(cliDir, 'validators', 'packs.cjs')} does not compile`,
    );
    const json = cli('validate', 'playbooks/governance.yaml', '--json');
    expect(json.status).toBe(70);
    const event = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(event).toMatchObject({ type: 'error', code: 'LB_INTERNAL', exitCode: 70 });
    expect(event['message']).toContain("ledgerbook's build is damaged");
  });
  expect(cli('validate', 'playbooks/governance.yaml').status).toBe(0);
});

it('the command line cut short or deleted: even --help names it', async () => {
  await damaged('cli.js', 'cut', () => {
    expectDamaged(cli('--help'), `${join(cliDir, 'cli.js')} does not compile`);
  });
  await damaged('cli.js', 'deleted', () => {
    expectDamaged(cli('--help'), `./cli.js, which ${join(cliDir, 'main.js')} loads, is missing`);
  });
  expect(cli('--help').status).toBe(0);
});
