/**
 * The engine through the real CLI, as a child process: crash and resume, exactly-once items, idempotent
 * reruns, the lock, secrets, approvals, plan exit codes, timeouts. Side effects are counted in files the test
 * owns, not in ledgerbook's own bookkeeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { eventsSchema } from '../../src/engine/events.js';
import { cli, collect, events, lines, spawnCli, tempDir, writePlaybook } from './cli.js';

/** A fan-out of N items; each appends its key to effects.txt once, guarded so a rerun can check. */
function fanout(n: number, delaySeconds: number, concurrency = 2): string {
  const items = Array.from({ length: n }, (_, i) => `item-${String(i).padStart(3, '0')}`);
  return `name: fanout
steps:
  - id: pay
    uses: core.shell
    for_each: ${JSON.stringify(items)}
    concurrency: ${concurrency}
    with:
      run: "echo \${{ item }} >> effects.txt; sleep ${delaySeconds}"
      unless: "grep -qx \${{ item }} effects.txt"
  - id: total
    uses: core.shell
    with:
      run: "wc -l < effects.txt > total.txt"
      creates: total.txt
`;
}

/** Polls until the predicate holds; fails at once if the child it watches exits first. */
async function waitFor(
  predicate: () => Promise<boolean>,
  child?: ChildProcess,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (child && child.exitCode !== null)
      throw new Error(`ledgerbook exited (${child.exitCode}) before the condition held`);
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function counts(values: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

describe('crash and resume', () => {
  it('a run killed with SIGKILL in the middle of a fan-out, run again, performs every item exactly once', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(40, 0.05));
    const child = spawnCli(['run', playbook], { cwd: dir });
    const first = collect(child);
    await waitFor(async () => (await lines(join(dir, 'effects.txt'))).length >= 12, child);
    child.kill('SIGKILL');
    const killed = await first;
    expect(killed.signal).toBe('SIGKILL');
    const before = await lines(join(dir, 'effects.txt'));
    expect(before.length).toBeLessThan(40);

    const second = await cli(['run', playbook], { cwd: dir });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('resume fanout');
    const effects = await lines(join(dir, 'effects.txt'));
    expect(effects).toHaveLength(40);
    expect([...counts(effects).values()].every((n) => n === 1)).toBe(true);
    expect((await readFile(join(dir, 'total.txt'), 'utf8')).trim()).toBe('40');
  });

  it('a second run of a finished playbook executes nothing and exits 0', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(5, 0));
    expect((await cli(['run', playbook], { cwd: dir })).code).toBe(0);
    const again = await cli(['run', playbook, '--json'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(await lines(join(dir, 'effects.txt'))).toHaveLength(5);
    const done = events(again.stdout).filter((e) => e.type === 'item.done');
    expect(done.map((e) => e['status'])).toEqual(Array(6).fill('in-sync'));
    expect(events(again.stdout).at(-1)).toMatchObject({ type: 'run.done', status: 'succeeded', changes: 0 });
  });

  it('a failed step is fixed and the run resumes after the steps that finished', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'resume.yaml',
      `name: resume
steps:
  - id: first
    uses: core.shell
    with: { run: "echo once >> first.txt" }
  - id: second
    uses: core.shell
    with: { run: "test -f ready || { echo 'ready is missing' >&2; exit 3; }" }
`,
    );
    const failed = await cli(['run', playbook], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('ready is missing');
    await writeFile(join(dir, 'ready'), '');
    const resumed = await cli(['run', playbook], { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(await lines(join(dir, 'first.txt'))).toEqual(['once']);
  });

  /** Ten payments, two at a time; each writes a start line, takes a while, then an end line (its effect). */
  const PAYMENTS = `name: payments
steps:
  - id: pay
    uses: core.shell
    for_each: [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9]
    concurrency: 2
    with:
      run: "echo start-\${{ item }} >> effects.txt; sleep 1; echo end-\${{ item }} >> effects.txt"
      unless: "grep -qx end-\${{ item }} effects.txt"
`;
  const pairs = (effects: string[]): { started: string[]; ended: string[] } => ({
    started: effects.filter((l) => l.startsWith('start-')).map((l) => l.slice(6)),
    ended: effects.filter((l) => l.startsWith('end-')).map((l) => l.slice(4)),
  });

  it('Ctrl-C at the terminal: the payments in flight finish and are journalled, none starts after, exit 130; the next run does the rest, each once', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'payments.yaml', PAYMENTS);
    const child = spawnCli(['run', playbook], { cwd: dir, processGroup: true });
    const first = collect(child);
    await waitFor(async () => pairs(await lines(join(dir, 'effects.txt'))).started.length >= 1, child);
    // a terminal signals the whole foreground process group, the commands' shells included
    process.kill(-(child.pid as number), 'SIGINT');
    const stopped = await first;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain(
      'SIGINT: stopping once the steps in flight finish (Ctrl-C again to stop at once)',
    );
    expect(stopped.stdout).toMatch(/stopping: no new step or item starts; waiting for .*pay p0/);
    expect(stopped.stdout).toContain('pay: interrupted before it finished');
    expect(stopped.stdout).toContain('Interrupted (exit 130)');
    const { started, ended } = pairs(await lines(join(dir, 'effects.txt')));
    // what was in flight finished; nothing started after the signal
    expect([...ended].sort()).toEqual([...started].sort());
    expect(started.length).toBeLessThanOrEqual(4);
    const journal = await lines(join(dir, '.ledgerbook', 'payments@sandbox', 'journal.ndjson'));
    const done = journal
      .map((l) => JSON.parse(l) as { t: string; item?: string })
      .filter((r) => r.t === 'done');
    expect(done.map((r) => r.item).sort()).toEqual([...started].sort());

    const second = await cli(['run', playbook], { cwd: dir });
    expect(second.code, second.stdout).toBe(0);
    expect(second.stdout).toContain('resume payments');
    const all = pairs(await lines(join(dir, 'effects.txt')));
    expect(all.ended).toHaveLength(10);
    expect(new Set(all.ended).size).toBe(10);
    expect(all.started).toHaveLength(10);
  });

  it('Ctrl-C twice stops at once: the commands in flight get SIGTERM, exit 130; the next run reconciles them and finishes every payment once', async () => {
    const dir = await tempDir();
    // each payment takes as long as delay.txt says: long now, short for the run that resumes
    await writeFile(join(dir, 'delay.txt'), '30\n');
    const playbook = await writePlaybook(
      dir,
      'payments.yaml',
      PAYMENTS.replace('sleep 1', 'sleep $(cat delay.txt)'),
    );
    const child = spawnCli(['run', playbook], { cwd: dir, processGroup: true });
    const first = collect(child);
    await waitFor(async () => pairs(await lines(join(dir, 'effects.txt'))).started.length >= 2, child);
    const pressed = Date.now();
    process.kill(-(child.pid as number), 'SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    process.kill(-(child.pid as number), 'SIGINT');
    const stopped = await first;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(Date.now() - pressed).toBeLessThan(20_000); // not after the commands' 30 s
    expect(stopped.stderr).toContain('SIGINT: stopping at once; the steps in flight are cancelled');
    const { started, ended } = pairs(await lines(join(dir, 'effects.txt')));
    expect(started).toHaveLength(2);
    expect(ended).toEqual([]);

    await writeFile(join(dir, 'delay.txt'), '0\n');
    const second = await cli(['run', playbook], { cwd: dir });
    expect(second.code, second.stdout).toBe(0);
    const all = pairs(await lines(join(dir, 'effects.txt')));
    expect([...all.ended].sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
  });

  it('SIGTERM (a cancelled CI job): the payments in flight get 5 s to finish, then are stopped; exit 130', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'delay.txt'), '30\n');
    const playbook = await writePlaybook(
      dir,
      'payments.yaml',
      PAYMENTS.replace('sleep 1', 'sleep $(cat delay.txt)'),
    );
    const child = spawnCli(['run', playbook], { cwd: dir });
    const first = collect(child);
    await waitFor(async () => pairs(await lines(join(dir, 'effects.txt'))).started.length >= 2, child);
    const sent = Date.now();
    child.kill('SIGTERM');
    const stopped = await first;
    const took = Date.now() - sent;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(took).toBeGreaterThanOrEqual(4900);
    expect(took).toBeLessThan(20_000);
    expect(stopped.stderr).toContain('SIGTERM: stopping once the steps in flight finish for up to 5 s');
    expect(stopped.stderr).toContain('SIGTERM 5 s ago: stopping at once');
    expect(pairs(await lines(join(dir, 'effects.txt'))).ended).toEqual([]);
  });

  it('a command without guards killed mid-way is an ambiguous outcome (exit 4): the report shows the command that ran and the exact command that resolves it', async () => {
    const dir = await tempDir();
    const text = `name: unguarded
steps:
  - id: slow
    uses: core.shell
    with: { run: "echo started >> ran.txt; sleep 0.5; echo ran >> ran.txt" }
`;
    await writePlaybook(dir, 'unguarded.yaml', text);
    const child = spawnCli(['run', 'unguarded.yaml', '--state-dir', 'state'], { cwd: dir });
    const first = collect(child);
    // the command itself is running (its gate opened) once it wrote its first line
    await waitFor(async () => (await lines(join(dir, 'ran.txt'))).length > 0, child);

    child.kill('SIGKILL');
    await first;
    // the playbook changes meanwhile: the report is about what ran, not what the playbook says now
    await writePlaybook(dir, 'unguarded.yaml', text.replace('echo ran >>', 'echo changed >>'));
    const stopped = await cli(['run', 'unguarded.yaml', '--state-dir', 'state'], { cwd: dir });
    expect(stopped.code).toBe(4);
    expect(stopped.stdout).toContain(
      'seen: `echo started >> ran.txt; sleep 0.5; echo ran >> ran.txt` started (pid',
    );
    expect(stopped.stdout).toContain('recorded before the side effect: started (pid ');
    expect(stopped.stdout).not.toContain('echo changed');
    expect(stopped.stdout).not.toMatch(/<playbook>|<id>|<target>/);
    const resolve = /`(ledgerbook state resolve [^`]* --done)`/.exec(stopped.stdout)?.[1];
    expect(resolve).toBe('ledgerbook state resolve unguarded.yaml --state-dir state --step slow --done');
    expect(await lines(join(dir, 'ran.txt'))).toEqual(['started', 'ran']); // the orphaned command finished, once

    // the command as printed, run as printed
    const resolved = await cli((resolve as string).split(' ').slice(1), { cwd: dir });
    expect(resolved.code, resolved.stderr).toBe(0);
    const after = await cli(['run', 'unguarded.yaml', '--state-dir', 'state'], { cwd: dir });
    expect(after.code).toBe(0);
    expect(await lines(join(dir, 'ran.txt'))).toEqual(['started', 'ran']);
  });
});

describe('lock', () => {
  it('refuses a second concurrent run of the same playbook and target, saying who holds it', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'slow.yaml',
      `name: slow
steps:
  - id: wait
    uses: core.shell
    with: { run: "sleep 1.5; touch done", creates: done }
`,
    );
    const child = spawnCli(['run', playbook], { cwd: dir });
    const first = collect(child);
    await waitFor(
      () => Promise.resolve(existsSync(join(dir, '.ledgerbook', 'slow@sandbox', 'lock.json'))),
      child,
    );
    const second = await cli(['run', playbook], { cwd: dir });
    expect(second.code).toBe(75);
    expect(second.stderr).toContain(`pid ${String(child.pid)}`);
    expect(second.stderr).toContain('ledgerbook run');
    expect((await first).code).toBe(0);
  });
});

describe('secrets', () => {
  it('a secret value appears nowhere: stdout, stderr, events, summary, journal', async () => {
    const secret = 'Zq7-very-secret-token-0042';
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'secret.yaml',
      `name: secret
steps:
  - id: use
    uses: core.shell
    with:
      run: "echo token=$TOKEN; echo \${{ secrets.LB_TEST_TOKEN }} | base64"
      env: { TOKEN: "\${{ secrets.LB_TEST_TOKEN }}" }
  - id: say
    uses: core.log
    with: { message: "using \${{ secrets.LB_TEST_TOKEN }} and \${{ steps.use.outputs.stdout }}" }
  - id: fail
    uses: core.shell
    with: { run: "echo 'bad token \${{ secrets.LB_TEST_TOKEN }}' >&2; exit 2" }
`,
    );
    const env = { LB_TEST_TOKEN: secret };
    const plain = await cli(['run', playbook, '--summary', 'summary.md'], { cwd: dir, env });
    const json = await cli(['run', playbook, '--json', '--fresh'], { cwd: dir, env });
    expect(plain.code).toBe(1);
    expect(json.code).toBe(1);
    expect(plain.stdout).toContain('using *** and token=***');
    expect(plain.stdout).toContain('bad token ***');
    const stateFiles = await readdir(join(dir, '.ledgerbook', 'secret@sandbox'));
    const texts = [
      plain.stdout,
      plain.stderr,
      json.stdout,
      json.stderr,
      await readFile(join(dir, 'summary.md'), 'utf8'),
      ...(await Promise.all(
        stateFiles.map((f) => readFile(join(dir, '.ledgerbook', 'secret@sandbox', f), 'utf8')),
      )),
    ];
    const encoded = Buffer.from(`${secret}\n`).toString('base64');
    for (const text of texts) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encoded);
      expect(text).not.toContain(Buffer.from(secret).toString('base64'));
    }
  });

  it('a missing secret is refused before anything runs (exit 65)', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'secret.yaml',
      `name: secret
steps:
  - id: use
    uses: core.shell
    with: { run: "touch ran; echo \${{ secrets.LB_NOT_SET }}" }
`,
    );
    const result = await cli(['run', playbook], { cwd: dir, env: { LB_NOT_SET: undefined } });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain("secret 'LB_NOT_SET' is not set");
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(existsSync(join(dir, '.ledgerbook'))).toBe(false);
  });
});

describe('gates, plans and limits', () => {
  it('core.approve pauses with exit 3 until --approve, and the approval holds for the same playbook and inputs', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'gate.yaml',
      `name: gate
inputs:
  amount: { type: integer, default: 5 }
steps:
  - id: check
    uses: core.approve
    with: { message: "send \${{ inputs.amount }}" }
  - id: send
    uses: core.shell
    with: { run: "echo \${{ inputs.amount }} >> sent.txt", unless: "grep -qx \${{ inputs.amount }} sent.txt" }
`,
    );
    const paused = await cli(['run', playbook], { cwd: dir });
    expect(paused.code).toBe(3);
    expect(paused.stdout).toContain('--approve check');
    expect(existsSync(join(dir, 'sent.txt'))).toBe(false);
    const approved = await cli(['run', playbook, '--approve', 'check'], { cwd: dir });
    expect(approved.code).toBe(0);
    expect(await lines(join(dir, 'sent.txt'))).toEqual(['5']);
    expect((await cli(['run', playbook], { cwd: dir })).code).toBe(0);
    const changed = await cli(['run', playbook, '--input', 'amount=7'], { cwd: dir });
    expect(changed.code).toBe(3);
  });

  it('plan --detailed-exitcode: 2 while something would change, 0 once in sync; plan changes nothing', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(3, 0));
    const before = await cli(['plan', playbook, '--detailed-exitcode'], { cwd: dir });
    expect(before.code).toBe(2);
    expect(before.stdout).toContain('item-000: run');
    expect(existsSync(join(dir, 'effects.txt'))).toBe(false);
    expect((await cli(['run', playbook], { cwd: dir })).code).toBe(0);
    const after = await cli(['plan', playbook, '--detailed-exitcode'], { cwd: dir });
    expect(after.code).toBe(0);
    expect((await cli(['plan', playbook], { cwd: dir })).code).toBe(0);
  });

  it('a step over its timeout is retried as transient, then fails with exit 1', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(
      dir,
      'timeout.yaml',
      `name: timeout
steps:
  - id: slow
    uses: core.shell
    timeout: 300ms
    retry: { attempts: 2, delay: 50ms }
    with: { run: "sleep 60", creates: never }
`,
    );
    const started = Date.now();
    const result = await cli(['run', playbook, '--json'], { cwd: dir });
    expect(result.code).toBe(1);
    // both attempts were stopped at their timeout: run to their end, they take two minutes
    expect(Date.now() - started).toBeLessThan(30_000);
    const all = events(result.stdout);
    expect(all.filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(JSON.stringify(all.at(-1))).toContain('took longer than its timeout');
  });

  it('--json writes only schema-valid events, the first one a version event', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(3, 0));
    const result = await cli(['run', playbook, '--json'], { cwd: dir });
    const all = events(result.stdout);
    expect(all[0]?.type).toBe('version');
    const validate = new Ajv2020({ strict: false }).compile(eventsSchema);
    for (const event of all) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(result.stderr).toContain('● pay');
  });

  it('status shows where each run stands', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(3, 0));
    await cli(['run', playbook], { cwd: dir });
    const status = await cli(['status'], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('fanout on sandbox: succeeded');
    expect(status.stdout).toContain('pay: applied 3/3 items');
  });
});

describe('core steps and CLI surfaces', () => {
  it('core.wait polls an HTTP GET until its condition holds, and fails with what it last saw on timeout', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(requests < 3 ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ready: requests >= 3 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
    try {
      const dir = await tempDir();
      const playbook = await writePlaybook(
        dir,
        'wait.yaml',
        `name: wait
steps:
  - id: ready
    uses: core.wait
    with:
      http: { url: "${url}" }
      until: "\${{ response.status == 200 && response.body.ready }}"
      interval: 50ms
      timeout: 10s
  - id: never
    uses: core.wait
    with:
      http: { url: "${url}" }
      until: "\${{ response.body.ready == false }}"
      interval: 50ms
      timeout: 300ms
`,
      );
      const result = await cli(['run', playbook, '--json'], { cwd: dir });
      expect(result.code).toBe(1);
      const all = events(result.stdout);
      const ready = all.find((e) => e.type === 'step.done' && e['step'] === 'ready');
      // one GET to observe (503), then the wait: 503, 200; it sent nothing, so it changed nothing: in sync now
      expect(ready).toMatchObject({ status: 'in-sync', outputs: { attempts: 2, response: { status: 200 } } });
      const never = all.find((e) => e.type === 'step.done' && e['step'] === 'never');
      expect(JSON.stringify(never)).toContain('did not hold within 300ms');
    } finally {
      server.close();
    }
  });

  it('prints the schema of a step kind, and lists them all', async () => {
    const dir = await tempDir();
    const one = await cli(['schema', 'core.shell'], { cwd: dir });
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ properties: { run: {}, creates: {}, unless: {} } });
    const list = await cli(['schema', '--list'], { cwd: dir });
    expect(list.stdout.split('\n')).toEqual(
      expect.arrayContaining(['playbook', 'target', 'events', 'core.wait']),
    );
    const unknown = await cli(['schema', 'core.shel'], { cwd: dir });
    expect(unknown.code).toBe(64);
  });

  it('appends the Markdown summary to GITHUB_STEP_SUMMARY', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(2, 0));
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, '# earlier job output\n');
    const result = await cli(['run', playbook], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(result.code).toBe(0);
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('# earlier job output\n')).toBe(true);
    expect(text).toContain('### ledgerbook run: fanout on sandbox');
    expect(text).toContain('| pay | core.shell | ✅ applied | 2 |');
  });

  it('a lock left by a dead process is reported as stale by status, and the next run takes it over', async () => {
    const dir = await tempDir();
    const playbook = await writePlaybook(dir, 'fanout.yaml', fanout(2, 0));
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const lockDir = join(dir, '.ledgerbook', 'fanout@sandbox');
    await mkdir(lockDir, { recursive: true });
    const lock = {
      id: 'stale-lock-1',
      pid: dead.pid,
      host: hostname(),
      user: 'someone',
      at: '2026-01-01T00:00:00.000Z',
      command: 'ledgerbook run fanout.yaml',
      playbook: 'fanout',
      target: 'sandbox',
    };
    await writeFile(join(lockDir, 'lock.json'), JSON.stringify(lock));
    const status = await cli(['status'], { cwd: dir });
    expect(status.stdout).toContain('stale');
    expect(status.stdout).toContain('ledgerbook state unlock fanout --target sandbox');
    const run = await cli(['run', playbook], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`the run of pid ${String(dead.pid)}`);
  });
});
