/**
 * The lock and the state dir as a user meets them: private permissions, a damaged lock that the CLI can name and
 * remove, `state unlock --target <file>`, and two runs on the built-in sandbox at once.
 */
import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, collect, spawnCli, tempDir, writePlaybook } from './cli.js';

const SLOW = `name: slow
inputs:
  note: { default: x }
steps:
  - id: wait
    uses: core.shell
    with:
      run: "touch started; sleep 2"
`;

async function until(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the lock and the state dir', () => {
  it('the lock and the run directory are private to their user (they name the command line)', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', SLOW);
    const child = spawnCli(['run', 'p.yaml', '--input', 'note=private'], { cwd: dir });
    const done = collect(child);
    await until(() => existsSync(join(dir, 'started')));
    const runDirectory = join(dir, '.ledgerbook', 'slow@sandbox');
    expect((await stat(join(runDirectory, 'lock.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(runDirectory)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, '.ledgerbook'))).mode & 0o777).toBe(0o700);
    expect((await done).code).toBe(0);
  });

  it('a damaged lock is named by run and status, and removed by state unlock --force', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', SLOW.replace('sleep 2', 'true'));
    const runDirectory = join(dir, '.ledgerbook', 'slow@sandbox');
    await mkdir(runDirectory, { recursive: true });
    await writeFile(join(runDirectory, 'lock.json'), '');
    const refused = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('ledgerbook state unlock slow --target sandbox --force');
    const status = await cli(['status'], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout + status.stderr).toContain('is damaged');
    const withoutForce = await cli(['state', 'unlock', 'p.yaml'], { cwd: dir });
    expect(withoutForce.code).toBe(75);
    const unlocked = await cli(['state', 'unlock', 'p.yaml', '--force'], { cwd: dir });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect((await cli(['run', 'p.yaml'], { cwd: dir })).code).toBe(0);
  });

  it('state unlock --target <file> finds the lock of the target that file names', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', SLOW);
    await writeFile(join(dir, 'lab.yaml'), 'name: lab-net\n');
    const runDirectory = join(dir, '.ledgerbook', 'slow@lab-net');
    await mkdir(runDirectory, { recursive: true });
    const stale = {
      id: 'stale-lock',
      pid: 2 ** 22 + 17,
      host: hostname(),
      user: 'someone',
      at: new Date(0).toISOString(),
      command: 'ledgerbook run p.yaml --target lab.yaml',
      playbook: 'slow',
      target: 'lab-net',
    };
    await writeFile(join(runDirectory, 'lock.json'), JSON.stringify(stale));
    const result = await cli(['state', 'unlock', 'p.yaml', '--target', 'lab.yaml'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('removed lock stale-lock');
    expect(existsSync(join(runDirectory, 'lock.json'))).toBe(false);
  });

  it('a second run on the built-in sandbox while one runs is refused with exit 75 and how to share one', async () => {
    const dir = await tempDir();
    const onboard = `name: first
steps:
  - id: mesh
    uses: dpm.network
  - id: hold
    uses: core.shell
    with:
      run: "touch started; sleep 3"
`;
    await writePlaybook(dir, 'first.yaml', onboard);
    await writePlaybook(dir, 'second.yaml', onboard.replace('name: first', 'name: second'));
    const first = spawnCli(['run', 'first.yaml'], { cwd: dir });
    const firstDone = collect(first, 120_000);
    await until(() => existsSync(join(dir, 'started')), 60_000);
    const second = await cli(['run', 'second.yaml'], { cwd: dir });
    expect(second.code).toBe(75);
    expect(second.stderr).toContain('built-in sandbox');
    expect(second.stderr).toContain('sandbox up --write-target');
    expect(second.stderr).not.toContain('EADDRINUSE');
    const result = await firstDone;
    expect(result.code, result.stderr).toBe(0);
    // once the first is done, the sandbox is free again
    expect((await cli(['run', 'second.yaml'], { cwd: dir, timeoutMs: 120_000 })).code).toBe(0);
  });
});
