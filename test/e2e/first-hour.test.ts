/**
 * A newcomer's first hour (issue 21), each through the built CLI: what was seen on the tour and what it does now.
 * Tests that need no sandbox come first; the sandbox's own tests start theirs on free ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cli, collect, events, spawnCli, tempDir, writePlaybook } from './cli.js';

/** The CLI on a pseudo-terminal of 120 columns (`script`), as a person watches it: the text, escapes removed. */
async function inTerminal(args: string[], cwd: string): Promise<{ code: number | null; screen: string }> {
  const command = ['stty cols 120 rows 40;', 'exec', process.execPath, CLI, ...args]
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
  const [code] = (await once(child, 'close')) as [number | null];
  // eslint-disable-next-line no-control-regex
  return { code, screen: raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n') };
}

describe('YAML merge keys', () => {
  it('merge with or without an anchor in the file, and a finding inside a merged map is shown where it is written', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'merged.yaml',
      [
        'name: merged', //                                           1
        'steps:', //                                                 2
        '  - id: a', //                                              3
        '    <<: { uses: core.shell, timeout: 1m }', //              4
        '    with: { run: "echo from a" }', //                       5
        '  - id: b', //                                              6
        '    <<: [{ uses: core.shell }, { with: { run: "echo from b" } }]', // 7
        '',
      ].join('\n'),
    );
    const ran = await cli(['run', 'merged.yaml'], { cwd: dir });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain('✔ a: applied 1 change');
    expect(ran.stdout).toContain('✔ b: applied 1 change');

    await writePlaybook(
      dir,
      'bad.yaml',
      [
        'name: bad', //                                              1
        'steps:', //                                                 2
        '  - id: a', //                                              3
        '    <<: { uses: core.shell, timeout: soon }', //            4
        '    with: { run: "echo a" }', //                            5
        '',
      ].join('\n'),
    );
    const refused = await cli(['validate', 'bad.yaml'], { cwd: dir });
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain("bad.yaml:4:38 error: 'soon' is not a valid duration");
    expect(refused.stderr).toContain('at /steps/0/timeout');
    expect(refused.stderr).not.toContain("unknown key '<<'");
  });
});

describe('a missing secret', () => {
  it('names each place it was looked for once', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      't.yaml',
      'name: t\nnetwork: devnet\nsecrets:\n  LB_X_TOKEN: { env: LB_X_TOKEN }\n',
    );
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: "k ${{ secrets.LB_X_TOKEN }}" }\n',
    );
    const result = await cli(['run', 'p.yaml', '--target', 't.yaml'], {
      cwd: dir,
      env: { LB_X_TOKEN: undefined },
    });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain(
      'expected: a value from target secrets.LB_X_TOKEN: environment variable LB_X_TOKEN\n',
    );
  });
});

describe('files named on the command line', () => {
  it('one that cannot be used exits 65 before anything runs, whichever it is, and says which and why', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', 'name: f\nsteps:\n  - id: mesh\n    uses: dpm.network\n');
    await writePlaybook(dir, 'plan.json', '{"format": "not a plan"}\n');
    const cases: Array<[string[], string]> = [
      [['run', 'missing.yaml'], 'missing.yaml:1:1 error: cannot read the file: no such file'],
      [['validate', 'p.yaml', '--target', 'missing.yaml'], 'missing.yaml:1:1 error: cannot read the file'],
      [['plan', 'p.yaml', '--target', 'missing.yaml'], '`--target sandbox` is the built-in sandbox'],
      [['run', 'p.yaml', '--secrets-file', 'missing.env'], 'cannot read the secrets file missing.env'],
      [['run', 'p.yaml', '--summary', 'nowhere/s.md'], '--summary nowhere/s.md: the folder'],
      [['plan', 'p.yaml', '--out', 'nowhere/plan.json'], '--out nowhere/plan.json: the folder'],
      [['show', 'missing.json'], 'missing.json: cannot read the saved plan (no such file)'],
      [['show', 'plan.json'], 'plan.json is not a ledgerbook saved plan'],
      [['sandbox', 'up', '--write-target', 'nowhere/t.yaml'], '--write-target nowhere/t.yaml: the folder'],
      [['sandbox', 'up', '--faults', 'missing.yaml'], 'cannot read the faults file'],
    ];
    const results = await Promise.all(
      cases.map(([args]) => cli([...args, '--state-dir', 'state'], { cwd: dir, timeoutMs: 30_000 })),
    );
    cases.forEach(([args, says], i) => {
      const result = results[i]!;
      expect({ args, code: result.code }, result.stderr).toEqual({ args, code: 65 });
      expect(result.stderr, args.join(' ')).toContain(says);
      expect(result.stderr).not.toContain('internal error');
    });
    // nothing was started: no sandbox claimed the state dir, none wrote its files
    expect(existsSync(join(dir, 'state', 'sandbox'))).toBe(false);
  });
});

/** `ledgerbook sandbox up …` until its URL line: the child and the URLs it printed. */
async function sandboxUp(args: string[], cwd: string): Promise<{ child: ChildProcess; admin: string }> {
  const child = spawnCli(['sandbox', 'up', ...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolveLine, reject) => {
    const onData = (): void => {
      const end = stdout.indexOf('\n');
      if (end >= 0) resolveLine(stdout.slice(0, end));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`sandbox up exited ${code} before its line\n${stderr}`)));
  });
  return { child, admin: (JSON.parse(line) as { admin: string }).admin };
}

async function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const done = once(child, 'exit') as Promise<[number | null]>;
  child.kill(signal);
  return (await done)[0];
}

describe('one sandbox per state dir', () => {
  const MESH = 'name: mesh\nsteps:\n  - id: mesh\n    uses: dpm.network\n';

  it('a second sandbox up is refused with who runs the first; runs without --target use it; SIGKILL blocks nothing', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'mesh.yaml', MESH);
    const state = ['--state-dir', 'st'];
    // field conditions: the realistic profile's timings, a fiftieth of them
    const first = await sandboxUp([...state, '--profile', 'realistic', '--time-scale', '0.02'], dir);
    let killed = false;
    try {
      const second = await cli(['sandbox', 'up', ...state], { cwd: dir, timeoutMs: 30_000 });
      expect(second.code, second.stderr).toBe(75);
      expect(second.stderr).toContain(`is already running: `);
      expect(second.stderr).toContain(`(pid ${first.child.pid}) since `);
      expect(second.stderr).toContain('a run or plan without --target uses it');

      // a run without --target meets the running sandbox: its requests arrive there, no other simulator starts
      const run = await cli(['run', 'mesh.yaml', ...state], { cwd: dir, timeoutMs: 60_000 });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).toContain(`(pid ${first.child.pid}, since `);
      const { requests } = (await (await fetch(`${first.admin}/requests`)).json()) as {
        requests: Array<{ node: string; method: string; route: string; count: number }>;
      };
      for (const node of ['node1', 'node2', 'node3'])
        expect(requests, node).toContainEqual(
          expect.objectContaining({ node, method: 'POST', route: '/network-config', count: 1 }),
        );
      const lock = JSON.parse(await readFile(join(dir, 'st', 'sandbox', 'lock.json'), 'utf8')) as {
        pid: number;
      };
      expect(lock.pid).toBe(first.child.pid);

      // watched in a terminal, a plan says the same and changes nothing
      const watched = await inTerminal(['plan', 'mesh.yaml', ...state], dir);
      expect(watched.code, watched.screen).toBe(0);
      expect(watched.screen).toContain(`(pid ${first.child.pid}, since `);

      await exited(first.child, 'SIGKILL');
      killed = true;
    } finally {
      if (!killed) await exited(first.child, 'SIGTERM');
    }
    // the killed sandbox's lock and running file name a process that is gone: the next start takes over, and
    // the built-in sandbox of the run meets the same state (the mesh is in sync)
    const after = await cli(['run', 'mesh.yaml', ...state], { cwd: dir, timeoutMs: 60_000 });
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stderr).not.toContain('using the sandbox of');
    expect(after.stdout).toContain('Nothing to do: everything is in sync');
    const again = await sandboxUp(state, dir);
    expect(await exited(again.child, 'SIGTERM')).toBe(0);
    // a clean stop leaves neither its lock nor its running file
    expect(existsSync(join(dir, 'st', 'sandbox', 'lock.json'))).toBe(false);
    expect(existsSync(join(dir, 'st', 'sandbox', 'running.json'))).toBe(false);
  });

  it('sandbox up is refused while a run holds the built-in sandbox, naming that run', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'slow.yaml',
      `${MESH}  - id: hold\n    uses: core.shell\n    with: { run: "touch started; sleep 3" }\n`,
    );
    const run = spawnCli(['run', 'slow.yaml', '--state-dir', 'st'], { cwd: dir });
    const ran = collect(run, 60_000);
    while (!existsSync(join(dir, 'started'))) await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await cli(['sandbox', 'up', '--state-dir', 'st'], { cwd: dir, timeoutMs: 30_000 });
    expect(refused.code, refused.stderr).toBe(75);
    expect(refused.stderr).toContain('the built-in sandbox of');
    expect(refused.stderr).toContain(`(pid ${run.pid}) since `);
    expect(refused.stderr).toContain('run slow.yaml --state-dir st');
    expect((await ran).code).toBe(0);
  });
});

describe("core.shell's output", () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  const runbook = [
    'run',
    join(ROOT, 'playbooks/examples/runbook.yaml'),
    '--secrets-file',
    join(ROOT, 'playbooks/examples/runbook.secrets.env'),
  ];

  it('is shown under its step in plain output, in --summary and in --json, and on the screen of a terminal', async () => {
    const dir = await tempDir();
    const [plain, json, watched] = await Promise.all([
      cli([...runbook, '--state-dir', 'plain', '--summary', 'summary.md'], { cwd: dir }),
      cli([...runbook, '--state-dir', 'json', '--json'], { cwd: dir }),
      inTerminal([...runbook, '--state-dir', 'tty'], dir),
    ]);
    // the runbook pauses at its approval gate, after the command ran
    expect(plain.code, plain.stdout + plain.stderr).toBe(3);
    expect(plain.stdout).toMatch(
      /● check-token \(core\.shell\)\n.*\n {2}│ token of 28 characters\n✔ check-token/,
    );
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('**check-token** stdout:\n\n```text\ntoken of 28 characters\n```');
    expect(json.code).toBe(3);
    expect(events(json.stdout)).toContainEqual(
      expect.objectContaining({
        type: 'log',
        level: 'info',
        step: 'check-token',
        stream: 'stdout',
        message: 'token of 28 characters',
      }),
    );
    expect(watched.code, watched.screen).toBe(3);
    expect(watched.screen).toContain('token of 28 characters');
    // the secret the command used stays masked: its length is printed, never its value
    for (const text of [plain.stdout, summary, json.stdout, watched.screen])
      expect(text).not.toContain('example-token-not-a-real-one');
  });

  it('of a failing command is shown too, each item and stream apart, long output folded', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'fails.yaml',
      [
        'name: fails',
        'steps:',
        '  - id: each',
        '    uses: core.shell',
        '    for_each: [one, two]',
        '    with: { run: "seq 1 60; echo trouble in ${{ item }} >&2; test ${{ item }} = one" }',
        '',
      ].join('\n'),
    );
    const result = await cli(['run', 'fails.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  two ! trouble in two\n');
    expect(result.stdout).toContain('  one │ 1\n');
    expect(result.stdout).toContain('  one │ … 40 more lines (--json has every line)\n');
    expect(result.stdout).toContain('  one │ 60\n');
    expect(result.stdout).toContain('`seq 1 60; echo trouble in two >&2; test two = one` exited 1');
  });
});

describe('warnings that know what later steps do', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  let dir: string;
  let sandbox: { child: ChildProcess };
  beforeAll(async () => {
    dir = await tempDir();
    const onboard = await readFile(join(ROOT, 'playbooks', 'onboard-party.yaml'), 'utf8');
    const rights = onboard.indexOf('  - id: rights');
    const after = onboard.indexOf('  - id: done');
    expect(rights).toBeGreaterThan(0);
    await writePlaybook(dir, 'onboard-party.yaml', onboard);
    await writePlaybook(
      dir,
      'no-rights.yaml',
      (onboard.slice(0, rights) + onboard.slice(after)).replace('name: onboard-party', 'name: no-rights'),
    );
    // field conditions: the realistic profile's timings, a fiftieth of them
    sandbox = await sandboxUp(
      ['--state-dir', 'st', '--port', '0', '--profile', 'realistic', '--time-scale', '0.02'],
      dir,
    );
  });
  afterAll(async () => {
    await exited(sandbox.child, 'SIGTERM');
  });

  /** the log lines about the rights the party's user lacks, as `level message` */
  const rightsLines = async (...args: string[]): Promise<string[]> => {
    const result = await cli([...args, '--state-dir', 'st', '--json'], { cwd: dir, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    return events(result.stdout)
      .filter((e) => e.type === 'log' && e['step'] === 'credentials')
      .map((e) => `${String(e['level'])} ${String(e['message'])}`)
      .filter((line) => / lacks |^info the same on /.test(line))
      .map((line) => line.replace(/alpha::[0-9a-f]+/, 'alpha::…'));
  };

  it('missing rights no later step grants: said once per step, with the nodes', async () => {
    expect(await rightsLines('run', 'no-rights.yaml')).toEqual([
      expect.stringMatching(
        /^warn node\d: the ledger user of party alpha::… lacks .*grant them with dpm.grant-rights$/,
      ),
      expect.stringMatching(/^info the same on node\d, node\d$/),
    ]);
    expect(await rightsLines('plan', 'no-rights.yaml')).toEqual([
      expect.stringMatching(/^warn node1, node2, node3: the ledger user of party alpha::… lacks /),
    ]);
  });

  it('missing rights the playbook’s next step grants: news, not a warning, and not once per node', async () => {
    expect(await rightsLines('plan', 'onboard-party.yaml')).toEqual([
      expect.stringMatching(
        /^info node1, node2, node3: the ledger user of party alpha::… lacks .*: step rights \(dpm\.grant-rights\) grants them later in this playbook$/,
      ),
    ]);
  });
});

describe('status and errors when the state cannot be written', () => {
  const EACH = [
    'name: each',
    'steps:',
    '  - id: each',
    '    uses: core.shell',
    '    for_each: [a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16]',
    // a guard: after a crash the next run can tell whether each item's command took effect
    '    with: { run: "echo ${{ item }}; touch done-${{ item }}", unless: "test -e done-${{ item }}" }',
    '',
  ].join('\n');

  it('a full disk: the run and status say so, with the path; with room again the same command resumes', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'each.yaml', EACH);
    const disk = join(dir, 'disk');
    await mkdir(disk);
    // a disk of 4 KB under disk/: the journal fills it half-way through the step (test/e2e/full-disk.mjs)
    const small = {
      NODE_OPTIONS: `--import=${join(import.meta.dirname, 'full-disk.mjs')}`,
      LB_TEST_DISK_DIR: disk,
      LB_TEST_DISK_BYTES: '4000',
    };
    const state = ['--state-dir', 'disk/state'];
    const failed = await cli(['run', 'each.yaml', ...state], { cwd: dir, env: small });
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toContain(
      'cannot write the journal disk/state/each@sandbox/journal.ndjson: the disk is full (ENOSPC)',
    );
    expect(failed.stdout).toContain(
      'hint: free space on the disk holding disk/state/each@sandbox/journal.ndjson',
    );
    const status = await cli(['status', ...state], { cwd: dir, env: small });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(
      'each on sandbox: stopped without recording its end: the disk holding disk/state/each@sandbox is full (0 bytes free)',
    );
    expect(status.stdout).not.toContain('the process died');
    // room again: the same command carries the run on to its end
    const resumed = await cli(['run', 'each.yaml', ...state], { cwd: dir });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^resume each/);
    expect((await cli(['status', ...state], { cwd: dir })).stdout).toContain('each on sandbox: succeeded');
  });

  it('a read-only state dir is said to be read-only, for whom, not ENOENT', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'each.yaml', EACH);
    await writePlaybook(dir, 'mesh.yaml', 'name: mesh\nsteps:\n  - id: mesh\n    uses: dpm.network\n');
    // a real read-only folder: without write permission for the user that runs ledgerbook (as root, nobody)
    const root = process.getuid?.() === 0;
    const as = root ? { uid: 65534, gid: 65534 } : {};
    if (root) await chownTree(dir, 65534, 65534);
    const run = (...args: string[]) =>
      collect(
        spawn(process.execPath, [CLI, ...args, '--state-dir', 'st'], {
          cwd: dir,
          env: { ...process.env, CI: 'true', NO_COLOR: '1' },
          ...as,
        }),
      );
    expect((await run('run', 'each.yaml')).code).toBe(0);
    await chmod(join(dir, 'st', 'each@sandbox'), 0o555);
    await chmod(join(dir, 'st'), 0o555);
    const user = root ? 'nobody' : userInfo().username;
    const fresh = await run('run', 'each.yaml', '--fresh');
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toContain(
      `cannot create the lock file st/each@sandbox/lock.json: st/each@sandbox is read-only for ${user}: no permission to write (EACCES)`,
    );
    const sandbox = await run('run', 'mesh.yaml');
    expect(sandbox.code).toBe(1);
    expect(sandbox.stderr).toContain(
      `cannot create the state directory st/sandbox: st is read-only for ${user}`,
    );
    expect(sandbox.stderr + fresh.stderr).not.toContain('ENOENT');
    // reading it is still fine
    expect((await run('status')).stdout).toContain('each on sandbox: succeeded');
  });
});

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true }))
    if (entry.isDirectory()) await chownTree(join(path, entry.name), uid, gid);
    else await chown(join(path, entry.name), uid, gid);
}

describe('the quickstart', () => {
  it('ends saying where the state is and that `ledgerbook status` shows it, also when a playbook fails', async () => {
    const dir = await tempDir();
    const quickstart = join(import.meta.dirname, '..', '..', 'scripts', 'quickstart.mjs');
    // a target that does not exist stops the first playbook at once (exit 65), before anything starts
    const result = await collect(
      spawn(process.execPath, [quickstart, '--state-dir', join(dir, 'st'), '--target', 'missing.yaml'], {
        cwd: dir,
        env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      }),
    );
    expect(result.code).toBe(65);
    expect(result.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      `quickstart: the state of these runs is in ${join(dir, 'st')}/ (a journal per playbook; the sandbox's ledger in ${join(dir, 'st', 'sandbox')}/)`,
      expect.stringMatching(
        new RegExp(
          `^quickstart: \`npx ledgerbook status --state-dir ${join(dir, 'st')}\` \\(in .*\\) shows where each run stands$`,
        ),
      ),
    ]);
  });
});

describe('--help', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  const commands = [
    'validate',
    'plan',
    'run',
    'show',
    'status',
    'schema',
    'sandbox up',
    'state unlock',
    'state resolve',
    'state migrate',
    'state push',
    'state pull',
  ];

  it('of every command ends with real examples: its own flags, files that exist; the read-only ones run as written', async () => {
    const helps = await Promise.all(commands.map((c) => cli([...c.split(' '), '--help'], { cwd: ROOT })));
    const runnable: string[][] = [];
    commands.forEach((command, i) => {
      const help = helps[i]!.stdout;
      const at = help.indexOf('\nExamples:\n');
      expect(at, `${command} --help`).toBeGreaterThan(0);
      const options = help.slice(0, at);
      const examples = help
        .slice(at)
        .split('\n')
        .filter((line) => line.startsWith('  $ '))
        .map((line) =>
          line
            .slice(4)
            .replace(/\s+#.*$/, '')
            .replace(/^[A-Z_]+=\S+ /, '')
            .replace(/ >.*$/, ''),
        );
      expect(examples.length, command).toBeGreaterThan(0);
      for (const example of examples) {
        const words = example.split(' ');
        expect(words.slice(0, 1 + command.split(' ').length).join(' '), example).toBe(
          `ledgerbook ${command}`,
        );
        for (const flag of words.filter((w) => w.startsWith('--'))) expect(options, example).toContain(flag);
        for (const file of words.filter((w) => w.startsWith('playbooks/')))
          expect(existsSync(join(ROOT, file)), example).toBe(true);
        if (['validate', 'schema'].includes(command)) runnable.push(words.slice(1));
      }
    });
    const results = await Promise.all(runnable.map((args) => cli(args, { cwd: ROOT })));
    results.forEach((result, i) =>
      expect({ args: runnable[i], code: result.code }).toEqual({ args: runnable[i], code: 0 }),
    );
  });
});
