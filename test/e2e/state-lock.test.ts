/**
 * The lock and the state dir as a user meets them: private permissions, a damaged lock that the CLI can name and
 * remove, `state unlock --target <file>`, two runs on the built-in sandbox at once, a live run whose lock was
 * removed by hand, and two files with the same name (and one file in two checkouts) sharing a state.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { eventsSchema } from '../../src/engine/events.js';
import { cli, collect, events, spawnCli, tempDir, writePlaybook } from './cli.js';

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
    expect(refused.stderr).toContain('`ledgerbook state unlock p.yaml --force`');
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

  it('status --json prints only events of schemas/events.schema.json: runs, their steps and a stale lock', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', SLOW.replace('sleep 2', 'true'));
    expect((await cli(['run', 'p.yaml'], { cwd: dir })).code).toBe(0);
    const runDirectory = join(dir, '.ledgerbook', 'slow@sandbox');
    const stale = {
      id: 'stale-lock',
      pid: 2 ** 22 + 17,
      host: hostname(),
      user: `someone@${hostname()}`,
      at: new Date(0).toISOString(),
      command: 'ledgerbook run p.yaml',
      playbook: 'slow',
      target: 'sandbox',
    };
    await writeFile(join(runDirectory, 'lock.json'), JSON.stringify(stale));
    const status = await cli(['status', '--json'], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    const validate = new Ajv2020({ strict: false }).compile(eventsSchema);
    const lines = events(status.stdout);
    for (const line of lines) expect(validate(line), JSON.stringify(validate.errors)).toBe(true);
    expect(lines.map((e) => e.type)).toEqual(['version', 'status']);
    expect(lines[1]).toMatchObject({
      state: '.ledgerbook',
      runs: [
        {
          playbook: 'slow',
          target: 'sandbox',
          lock: stale,
          lockHolder: 'gone',
          last: { status: 'succeeded' },
        },
      ],
    });
    // and in words: the holder once, the command that clears the stale lock
    const plain = await cli(['status'], { cwd: dir });
    expect(plain.stdout).toContain(`lock stale-lock: someone@${hostname()}, pid ${stale.pid}`);
    expect(plain.stdout).toContain('`ledgerbook state unlock p.yaml --target sandbox --id stale-lock`');
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
    expect(second.stderr).toContain('start one shared sandbox (`ledgerbook sandbox up`)');
    expect(second.stderr).not.toContain('EADDRINUSE');
    const result = await firstDone;
    expect(result.code, result.stderr).toBe(0);
    // once the first is done, the sandbox is free again
    expect((await cli(['run', 'second.yaml'], { cwd: dir, timeoutMs: 120_000 })).code).toBe(0);
  });

  it('a live run whose lock was removed by hand (unlock --force) is not taken for stopped: the next run is refused (exit 75) naming it, status says it runs; it records nothing more and stops', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      SLOW.replace('sleep 2', 'sleep 3; touch finished').replace('run:', 'creates: finished\n      run:'),
    );
    const child = spawnCli(['run', 'p.yaml'], { cwd: dir });
    const first = collect(child);
    await until(() => existsSync(join(dir, 'started')));
    const pid = child.pid as number;

    const unlocked = await cli(['state', 'unlock', 'p.yaml', '--force'], { cwd: dir });
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stdout).toContain(`warning: its holder, pid ${pid}`);
    const status = await cli(['status'], { cwd: dir });
    expect(status.stdout).toContain(
      `slow on sandbox: running (pid ${pid} on ${hostname()}), though its lock was removed`,
    );

    const journal = join(dir, '.ledgerbook', 'slow@sandbox', 'journal.ndjson');
    const before = await readFile(journal, 'utf8');
    const second = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(second.code, second.stdout + second.stderr).toBe(75);
    expect(second.stderr).toContain(`is still being run by`);
    expect(second.stderr).toContain(`(pid ${pid})`);
    expect(second.stderr).toContain('though its lock was removed');
    expect(second.stderr).toContain(`kill -INT ${pid}`);
    expect(await readFile(journal, 'utf8')).toBe(before);

    // its lock gone, the first run records nothing more: its command ends, and the run stops at its next write
    const firstResult = await first;
    expect(firstResult.code, firstResult.stdout).toBe(1);
    expect(firstResult.stderr).toContain('this run no longer holds its lock');
    expect(firstResult.stderr).toContain('it was removed (`ledgerbook state unlock --force`)');
    expect(await readFile(journal, 'utf8')).toBe(before);
    // the next run reconciles what it left in flight: the command ran to its end, so it is done
    const third = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('resume slow');
  });

  it('another file with the same name is refused, naming both; the same file from another checkout resumes its run', async () => {
    const root = await tempDir();
    const state = join(root, 'shared-state');
    const playbook = `name: rollout
steps:
  - id: prepare
    uses: core.shell
    with: { run: "echo prepared >> prepared.txt", creates: prepared.txt }
  - id: finish
    uses: core.shell
    with: { run: "test -f ready || { echo 'ready is missing' >&2; exit 3; }" }
`;
    // two checkouts of one repository (the same playbook at the same path), on different paths
    const alice = join(root, 'alice', 'ops');
    await mkdir(join(alice, 'playbooks'), { recursive: true });
    execFileSync('git', ['init', '-q', alice]);
    await writeFile(join(alice, 'playbooks', 'rollout.yaml'), playbook);
    const runner = join(root, 'ci', 'checkout');
    await mkdir(join(runner, '..'), { recursive: true });
    await cp(alice, runner, { recursive: true });

    const failed = await cli(['run', 'playbooks/rollout.yaml', '--state-dir', state], { cwd: alice });
    expect(failed.code).toBe(1);
    await writeFile(join(runner, 'playbooks', 'ready'), '');
    const resumed = await cli(['run', join(runner, 'playbooks', 'rollout.yaml'), '--state-dir', state], {
      cwd: root,
    });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('resume rollout');
    expect(existsSync(join(runner, 'playbooks', 'prepared.txt'))).toBe(false); // its step was done already

    // another file of the repository with the same name
    await writeFile(join(alice, 'playbooks', 'rollout-v2.yaml'), playbook);
    const other = await cli(['run', 'playbooks/rollout-v2.yaml', '--state-dir', state], { cwd: alice });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      'playbooks/rollout-v2.yaml and playbooks/rollout.yaml both have `name: rollout`',
    );
    expect(other.stderr).toContain('run playbooks/rollout-v2.yaml again with --fresh');
    const plan = await cli(['plan', 'playbooks/rollout-v2.yaml', '--state-dir', state], { cwd: alice });
    expect(plan.code).toBe(1);
    const fresh = await cli(['run', 'playbooks/rollout-v2.yaml', '--state-dir', state, '--fresh'], {
      cwd: alice,
    });
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(1); // its own run: `ready` is missing in alice's folder
    const back = await cli(['run', 'playbooks/rollout.yaml', '--state-dir', state], { cwd: alice });
    expect(back.code).toBe(1);
    expect(back.stderr).toContain(
      'playbooks/rollout.yaml and playbooks/rollout-v2.yaml both have `name: rollout`',
    );
  });
});
