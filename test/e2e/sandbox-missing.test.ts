/**
 * The CLI installed without the sandbox package (a production install of the product alone): what needs no
 * sandbox works, and what needs it says which package is missing (exit 64) instead of a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyOfBuild } from './cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  dir = await copyOfBuild('lb-no-sandbox-');
  // the product's dependencies, but not @ledgerbook/sandbox
  await mkdir(join(dir, 'node_modules'));
  for (const name of await readdir(join(ROOT, 'node_modules'))) {
    if (name !== '@ledgerbook' && name !== '.bin') {
      await symlink(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    }
  }
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(process.execPath, [join(dir, 'dist', 'cli', 'main.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });

it('validates without the sandbox', () => {
  expect(cli('validate', 'playbooks/onboard-party.yaml').status).toBe(0);
});

it.each([
  ['sandbox up', ['sandbox', 'up']],
  ['a run without --target', ['run', 'playbooks/onboard-party.yaml']],
])('%s names the missing package, exit 64', (_name, args) => {
  const result = cli(...args);
  expect(result.status).toBe(64);
  expect(result.stderr).toContain('the sandbox is not installed: it is the package @ledgerbook/sandbox');
  expect(result.stderr).not.toMatch(/\n\s+at /);
});
