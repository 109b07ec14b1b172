/**
 * Credentials never travel inside URLs, through the real CLI: a target whose URLs carry a user and password is
 * refused at validation (exit 65, at each line, with the hint to the target's secret sources) before anything is
 * sent — a listener standing in for the services sees no connection — and the password is in no output, event,
 * journal or status. A `core.wait` URL with credentials likewise. A URL with credentials that reaches a run as an
 * input is passed to its command as it is, and printed, journalled and recorded in the lock without them.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, collect, events, spawnCli, tempDir, writePlaybook } from './cli.js';

const PASSWORDS = ['idp-pa55word', 'ledger-t0ken-9', 'svc-s3cret-pw', 'wait-pa55-word'];

let listener: Server;
let connections = 0;
let port = 0;
beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

/** Every file under `dir` (the state dir), read as text. */
async function filesUnder(dir: string): Promise<string> {
  if (!existsSync(dir)) return '';
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    names.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')),
  );
  return texts.join('\n');
}

describe('credentials in URLs', () => {
  it('a target URL with a user and password is refused at its line; nothing is sent, printed or stored', async () => {
    const dir = await tempDir('lb-url-credentials-');
    const base = `http://127.0.0.1:${port}`;
    await writeFile(
      dir,
      'target.yaml',
      `name: lab
network: testnet
auth:
  issuer: http://operator:${PASSWORDS[0]}@127.0.0.1:${port}/realms/lab
  clientId: ledgerbook
  grant: password
  username: operator
  password: { secret: IDP_PASSWORD }
nodes:
  node1:
    participantId: participant1::1220${'1'.repeat(64)}
    dpm: ${base}/dpm
    ledger: http://${PASSWORDS[1]}@127.0.0.1:${port}/ledger
services:
  registry: http://svc:${PASSWORDS[2]}@127.0.0.1:${port}/registry
secrets:
  IDP_PASSWORD: { env: LB_TEST_IDP_PASSWORD }
`,
    );
    await writeFile(dir, 'p.yaml', 'name: mesh\nsteps:\n  - id: mesh\n    uses: dpm.network\n');
    const env = { LB_TEST_IDP_PASSWORD: 'a-long-enough-password' };
    const state = join(dir, 'state');
    const results = [
      await cli(['validate', 'p.yaml', '--target', 'target.yaml'], { cwd: dir, env }),
      await cli(['run', 'p.yaml', '--target', 'target.yaml', '--state-dir', state], { cwd: dir, env }),
      await cli(['plan', 'p.yaml', '--target', 'target.yaml', '--json', '--state-dir', state], {
        cwd: dir,
        env,
      }),
    ];
    for (const result of results) {
      expect(result.code, result.stdout + result.stderr).toBe(65);
      const output = result.stdout + result.stderr;
      for (const password of PASSWORDS) expect(output).not.toContain(password);
    }
    const validate = results[0]?.stderr ?? '';
    expect(validate).toContain(
      `target.yaml:4:11 error: http://***@127.0.0.1:${port}/realms/lab carries credentials in the URL`,
    );
    expect(validate).toContain('target.yaml:13:13 error: http://***@127.0.0.1');
    expect(validate).toContain('target.yaml:15:13 error: http://***@127.0.0.1');
    expect(validate).toContain('hint: remove');
    expect(validate).toContain('secrets:');
    // the --json error event carries the same diagnostics, without the passwords
    const error = events(results[2]?.stdout ?? '').find((e) => e.type === 'error');
    expect(error?.['exitCode']).toBe(65);
    expect(JSON.stringify(error)).toContain('url-credentials');
    expect(connections).toBe(0);
    for (const password of PASSWORDS) expect(await filesUnder(state)).not.toContain(password);
    const status = await cli(['status', '--json', '--state-dir', state], { cwd: dir });
    expect(events(status.stdout)[1]).toMatchObject({ runs: [] });
  });

  it('a core.wait URL with credentials is refused at validation; nothing is sent', async () => {
    const dir = await tempDir('lb-url-credentials-');
    await writePlaybook(
      dir,
      'wait.yaml',
      `name: wait
steps:
  - id: ready
    uses: core.wait
    with:
      http: { url: "http://watch:${PASSWORDS[3]}@127.0.0.1:${port}/health" }
      timeout: 2s
`,
    );
    const result = await cli(['run', 'wait.yaml', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain('wait.yaml:6:20 error: http://***@127.0.0.1');
    expect(result.stderr).toContain('send a credential in a header');
    expect(result.stdout + result.stderr).not.toContain(PASSWORDS[3]);
    expect(connections).toBe(0);
  });

  it('a URL with credentials given as an input reaches the command as it is, and no output, event, journal or lock record', async () => {
    const dir = await tempDir('lb-url-credentials-');
    const hook = 'https://bot:h00k-t0ken-77@hooks.example/notify';
    await writePlaybook(
      dir,
      'hooks.yaml',
      `name: hooks
inputs:
  hook: { default: "" }
steps:
  - id: say
    uses: core.log
    with: { message: "posting to \${{ inputs.hook }}" }
  - id: post
    uses: core.shell
    with:
      run: "echo \${{ inputs.hook }} | tee hook.txt; touch started; sleep 1"
`,
    );
    const state = join(dir, 'state');
    const child = spawnCli(['run', 'hooks.yaml', '--input', `hook=${hook}`, '--json', '--state-dir', state], {
      cwd: dir,
    });
    const done = collect(child);
    while (!existsSync(join(dir, 'started'))) await new Promise((r) => setTimeout(r, 25));
    const running = await cli(['status', '--json', '--state-dir', state], { cwd: dir });
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    // the command got the value as it is
    expect((await readFile(join(dir, 'hook.txt'), 'utf8')).trim()).toBe(hook);
    const lock = (events(running.stdout)[1]?.['runs'] as Array<{ lock?: { command: string } }>)[0]?.lock;
    expect(lock?.command).toContain('hook=https://***@hooks.example/notify');
    const log = events(result.stdout).find((e) => e.type === 'log' && e['step'] === 'say');
    expect(log?.['message']).toBe('posting to https://***@hooks.example/notify');
    const journal = await filesUnder(state);
    expect(journal).toContain('https://***@hooks.example/notify');
    for (const text of [result.stdout, result.stderr, running.stdout, journal])
      expect(text).not.toContain('h00k-t0ken-77');
  });
});

async function writeFile(dir: string, name: string, text: string): Promise<void> {
  await writePlaybook(dir, name, text);
}
