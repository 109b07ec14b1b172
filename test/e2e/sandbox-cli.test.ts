/**
 * `ledgerbook sandbox up` through the real CLI, as a child process: the one JSON line and the URLs in it (a list in a terminal),
 * `--write-target` (a target that `validate` and `run` accept), `--faults`, `--insecure`, `--port` and its layout,
 * a clean and prompt stop on SIGTERM and SIGINT. And the committed playbooks/targets/sandbox.yaml, checked against
 * what the sandbox writes, so the two cannot drift.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadTarget } from '../../src/validation/target-load.js';
import { nodeIdentity } from '@ledgerbook/sandbox/testing';
import { startSandbox, type SandboxUrls, type TargetFileOptions } from '@ledgerbook/sandbox';
import { cli, spawnCli, tempDir, writePlaybook, type CliResult } from './cli.js';
import { inTerminal, stopTerminals } from './terminal-screen.js';

const ROOT = resolve(import.meta.dirname, '../..');
const COMMITTED_TARGET = join(ROOT, 'playbooks/targets/sandbox.yaml');
const COMMITTED_PORT = 7700;

/**
 * How the committed target differs from a `--write-target` file: schema and secret files named relative to
 * playbooks/targets/ (the target loader resolves `file:` against the target file's folder), and a comment on how
 * to start the sandbox it points at.
 */
const COMMITTED_TARGET_OPTIONS: TargetFileOptions = {
  schema: '../../schemas/target.schema.json',
  secretsDir: '../../.ledgerbook/sandbox/secrets',
  comment: [
    `The sandbox of \`ledgerbook sandbox up --port ${COMMITTED_PORT}\`, started from the repository root:`,
    '',
    `  npx ledgerbook sandbox up --port ${COMMITTED_PORT}`,
    '  npx ledgerbook run playbooks/onboard-party.yaml --target playbooks/targets/sandbox.yaml',
    '',
    'Every sandbox has these participant ids and keys (they derive from the node names), and the same token',
    'world: instrument admin, minter, holders (packages/sandbox/README.md). This target holds every operator’s',
    'password (one person trying the sandbox alone); operator1.yaml … operator3.yaml are those of three',
    'operators, each with only its own. The passwords and client secrets are generated per state dir: the',
    'files below are those of .ledgerbook/sandbox, the state `sandbox up` keeps by default. Generated:',
    'test/e2e/sandbox-cli.test.ts fails when it drifts from what the sandbox writes.',
  ],
};

/** playbooks/targets/operatorN.yaml: operator N's own target, only its node controlled, only its credentials */
function operatorTargetOptions(n: number): TargetFileOptions {
  return {
    schema: '../../schemas/target.schema.json',
    secretsDir: '../../.ledgerbook/sandbox/secrets',
    operator: n,
    comment: [
      `Operator ${n} of the sandbox of \`ledgerbook sandbox up --port ${COMMITTED_PORT}\`: it controls node${n} only, with`,
      `its own password (operator${n}) and node${n}’s own admin client (node${n}-admin, ParticipantAdmin on that`,
      'participant only); the other nodes are read, never written, with the read-only `viewer` login the',
      'operators give each other. Each operator runs the same playbooks with its own target and state dir:',
      '',
      `  npx ledgerbook run playbooks/onboard-party.yaml --target playbooks/targets/operator${n}.yaml \\`,
      `    --state-dir .ledgerbook/operator${n} --input keycloak_client_id=node${n}-admin \\`,
      `    --input ledger_user=service-account-node${n}-admin`,
      '',
      'The secret names are those of sandbox.yaml, their files this operator’s. Generated:',
      'test/e2e/sandbox-cli.test.ts fails when it drifts from what the sandbox writes.',
    ],
  };
}
const OPERATOR_TARGETS = [1, 2, 3].map((n) => ({
  n,
  file: join(ROOT, `playbooks/targets/operator${n}.yaml`),
  options: operatorTargetOptions(n),
}));

interface Up {
  child: ChildProcess;
  urls: SandboxUrls;
  /** the first stdout line, as printed */
  line: string;
  /** everything printed so far (stdout, stderr) */
  output(): { stdout: string; stderr: string };
}

/** `ledgerbook sandbox up …` until its URL line; fails with its output if it exits or stays silent first. */
async function up(args: string[], cwd: string): Promise<Up> {
  const child = spawnCli(['sandbox', 'up', ...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolveLine, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox up printed no line within 20 s\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, 20_000);
    const onData = (): void => {
      const end = stdout.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolveLine(stdout.slice(0, end));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `sandbox up exited (${code ?? signal}) before its line\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    });
  });
  return { child, urls: JSON.parse(line) as SandboxUrls, line, output: () => ({ stdout, stderr }) };
}

/** sends the signal and waits for the exit: the result and how long the exit took */
async function stop(sandbox: Up, signal: NodeJS.Signals): Promise<CliResult & { ms: number }> {
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    if (sandbox.child.exitCode !== null || sandbox.child.signalCode !== null) {
      done({ code: sandbox.child.exitCode, signal: sandbox.child.signalCode });
    } else sandbox.child.once('exit', (code, sig) => done({ code, signal: sig }));
  });
  const started = performance.now();
  sandbox.child.kill(signal);
  const result = await exited;
  const ms = performance.now() - started;
  return { ...result, ...sandbox.output(), ms };
}

async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** a port P with P..P+count-1 free on loopback right now */
async function freePortRange(count: number): Promise<number> {
  const listen = (port: number): Promise<Server | undefined> =>
    new Promise((done) => {
      const server = createServer();
      server.once('error', () => done(undefined));
      server.listen(port, '127.0.0.1', () => done(server));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const held: Server[] = [];
    for (let port = base; port < base + count; port++) {
      const server = await listen(port);
      if (server === undefined) break;
      held.push(server);
    }
    await Promise.all(held.map((s) => new Promise((done) => s.close(done))));
    if (held.length === count) return base;
  }
  throw new Error(`no ${count} consecutive free ports found on 127.0.0.1`);
}

describe('ledgerbook sandbox up', () => {
  let dir: string;
  let sandbox: Up;
  let targetFile: string;
  let password: string;

  beforeAll(async () => {
    dir = await tempDir('lb-sandbox-cli-');
    targetFile = join(dir, 'sandbox-target.yaml');
    sandbox = await up(['--state-dir', 'state', '--write-target', targetFile], dir);
    password = (await readFile(join(dir, 'state/sandbox/secrets/operator-password'), 'utf8')).trim();
  });
  afterAll(async () => {
    if (sandbox.child.exitCode === null && sandbox.child.signalCode === null) await stop(sandbox, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('prints exactly one JSON line: the identity provider, every node and the admin API', async () => {
    const { urls, line } = sandbox;
    expect(Object.keys(urls).sort()).toEqual([
      'admin',
      'bitcoin',
      'faucet',
      'gateway',
      'idp',
      'nodes',
      'registry',
      'rewards',
    ]);
    for (const service of ['registry', 'gateway', 'rewards', 'faucet', 'bitcoin'] as const) {
      expect(urls[service]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    expect(Object.keys(urls.idp).sort()).toEqual(['issuer', 'tokenUrl']);
    expect(urls.idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/realms\/ledgerbook$/);
    expect(urls.idp.tokenUrl).toBe(`${urls.idp.issuer}/protocol/openid-connect/token`);
    expect(urls.admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(urls.nodes.map((n) => n.name)).toEqual(['node1', 'node2', 'node3']);
    for (const [i, node] of urls.nodes.entries()) {
      expect(Object.keys(node).sort()).toEqual(['dpm', 'ledger', 'name', 'participantId']);
      expect(node.participantId).toBe(nodeIdentity(i).participantId);
      expect(node.dpm).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(node.ledger).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    // nothing else on stdout, however long it runs: a pipeline reads the line and keeps the process
    await new Promise((r) => setTimeout(r, 200));
    expect(sandbox.output().stdout).toBe(`${line}\n`);
    expect(sandbox.output().stderr).toContain('sandbox up (state in');
  });

  it('serves what the line names: each DPM, each ledger, the OIDC discovery, the admin API', async () => {
    const { urls } = sandbox;
    for (const node of urls.nodes) {
      const health = await fetch(`${node.dpm}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('cache-control')).toBe('no-store');
      expect(await health.json()).toEqual({ status: 'ok' });
      expect((await fetch(`${node.ledger}/livez`)).status).toBe(200);
      const config = await getJson(`${node.dpm}/node-config`);
      expect(config).toEqual({ status: 401, body: { error: 'missing bearer token' } });
    }
    const discovery = await getJson(`${urls.idp.issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({
      issuer: urls.idp.issuer,
      token_endpoint: urls.idp.tokenUrl,
      jwks_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/auth\/realms\/ledgerbook\//) as string,
    });
    expect(await getJson(`${urls.admin}/requests`)).toMatchObject({ status: 200 });
  });

  it('writes a target that validate and run accept; the run reads the secret file the target names', async () => {
    const text = await readFile(targetFile, 'utf8');
    expect(text).not.toContain(password);
    const target = parse(text) as { nodes: Record<string, { dpm: string; participantId: string }> };
    expect(target.nodes.node1).toMatchObject({
      dpm: sandbox.urls.nodes[0]!.dpm,
      participantId: sandbox.urls.nodes[0]!.participantId,
    });

    const playbook = await writePlaybook(
      dir,
      'ping.yaml',
      `name: ping
steps:
  - id: hello
    uses: core.log
    with: { message: "network \${{ target.network }}" }
  - id: node1-up
    uses: core.wait
    with:
      http: { url: "\${{ target.nodes.node1.dpm }}/healthz" }
      until: "\${{ response.status == 200 && response.body.status == 'ok' }}"
      interval: 50ms
      timeout: 10s
`,
    );
    await fetch(`${sandbox.urls.admin}/requests`, { method: 'DELETE' });
    const validated = await cli(['validate', '--target', targetFile, playbook], { cwd: dir });
    expect(validated.code, validated.stderr + validated.stdout).toBe(0);
    const ran = await cli(['run', playbook, '--target', targetFile, '--state-dir', 'runs'], { cwd: dir });
    expect(ran.code, ran.stderr + ran.stdout).toBe(0);
    expect(ran.stdout).toContain('network devnet');
    expect(ran.stdout + ran.stderr).not.toContain(password);
    const counts = await getJson(`${sandbox.urls.admin}/requests`);
    expect(counts.body).toEqual({
      requests: [{ node: 'node1', method: 'GET', route: '/healthz', count: expect.any(Number) as number }],
    });

    // the password comes from the file the target names: without it, nothing runs (65)
    const moved = join(dir, 'no-secret-target.yaml');
    await writeFile(moved, text.replaceAll('/secrets/operator-password', '/secrets/gone'));
    const refused = await cli(['run', playbook, '--target', moved, '--state-dir', 'runs2'], { cwd: dir });
    expect(refused.code).toBe(65);
    expect(refused.stdout + refused.stderr).toContain("secret 'SANDBOX_OPERATOR_PASSWORD' is not set");
  });

  it('stops on SIGTERM with exit 0, promptly, after serving requests', async () => {
    const stopped = await stop(sandbox, 'SIGTERM');
    expect(stopped, stopped.stderr).toMatchObject({ code: 0, signal: null });
    expect(stopped.stderr).toContain('sandbox stopped');
    expect(stopped.stderr).not.toContain(password);
    expect(stopped.ms).toBeLessThan(15_000); // not after an idle connection's 60 s keep-alive
    await expect(fetch(`${sandbox.urls.nodes[0]!.dpm}/healthz`)).rejects.toThrow();
  });
});

describe('ledgerbook sandbox up: options and signals', () => {
  let dir: string;
  afterEach(stopTerminals);
  beforeAll(async () => {
    dir = await tempDir('lb-sandbox-opts-');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops with exit 0 on %s sent the moment the line is read',
    async (signal) => {
      const sandbox = await up(['--state-dir', `state-${signal}`], dir);
      const stopped = await stop(sandbox, signal);
      expect(stopped, stopped.stderr).toMatchObject({ code: 0, signal: null });
      expect(stopped.stderr).toContain(`${signal}: stopping the sandbox`);
      expect(stopped.ms).toBeLessThan(15_000); // not after an idle connection's 60 s keep-alive
    },
  );

  it('in a terminal lists every URL a line, named, and stops on Ctrl-C with exit 0', async () => {
    const term = inTerminal(['sandbox', 'up', '--port', '0', '--state-dir', 'state-tty'], {
      cwd: dir,
      cols: 160,
      rows: 40,
      timeoutMs: 60_000,
    });
    const screen = (await term.waitFor((rows) => rows.join('\n').includes('Ctrl-C to stop'))).join('\n');
    for (const name of ['identity provider', 'node1 DPM API', 'node3 ledger API', 'registry', 'admin API'])
      expect(screen).toMatch(new RegExp(`^  ${name} +http://127\\.0\\.0\\.1:\\d+`, 'm'));
    expect(screen).toContain(`(${nodeIdentity(0).participantId})`);
    expect(screen).not.toContain('{"idp"');
    term.type('\u0003');
    expect((await term.done).code).toBe(0);
  });

  it('loads --faults and reports them through GET {admin}/faults', async () => {
    const faults = join(dir, 'faults.yaml');
    await writeFile(
      faults,
      '- { kind: decline, node: node3, workflow: Onboarding }\n- { kind: latency, node: node2, ms: 5 }\n',
    );
    const sandbox = await up(['--state-dir', 'state-faults', '--faults', faults], dir);
    try {
      const listed = await getJson(`${sandbox.urls.admin}/faults`);
      expect(listed.status).toBe(200);
      const specs = (listed.body as { faults: Array<Record<string, unknown>> }).faults;
      expect(specs).toHaveLength(2);
      expect(specs[0]).toMatchObject({ kind: 'decline', node: 'node3', workflow: 'Onboarding' });
      expect(specs[1]).toMatchObject({ kind: 'latency', node: 'node2', ms: 5 });
    } finally {
      expect((await stop(sandbox, 'SIGTERM')).code).toBe(0);
    }
  });

  it('refuses an invalid faults file with its position, exit 65, and starts nothing', async () => {
    const faults = join(dir, 'bad-faults.yaml');
    await writeFile(faults, '- { kind: latency, node: node2, ms: -5 }\n');
    const result = await cli(['sandbox', 'up', '--state-dir', 'state-bad', '--faults', faults], {
      cwd: dir,
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(65);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('bad-faults.yaml:1:');
  });

  it('--insecure on devnet: any token or none, as DECPM_INSECURE', async () => {
    const sandbox = await up(['--state-dir', 'state-insecure', '--insecure'], dir);
    try {
      const node = sandbox.urls.nodes[0]!;
      expect(await getJson(`${node.dpm}/auth-config`)).toEqual({
        status: 200,
        body: { auth_required: false },
      });
      const config = await getJson(`${node.dpm}/node-config`);
      expect(config.status).toBe(200);
      expect(config.body).toMatchObject({ test_mode: true, canton: { network: 'devnet' } });
      const garbage = await getJson(`${node.dpm}/workflows`, {
        headers: { authorization: 'Bearer nonsense' },
      });
      expect(garbage).toEqual({ status: 200, body: { runs: [] } });
    } finally {
      expect((await stop(sandbox, 'SIGTERM')).code).toBe(0);
    }
  });

  it('--insecure is refused off devnet (exit 64, nothing listens); the other networks run with tokens', async () => {
    for (const network of ['testnet', 'mainnet']) {
      const refused = await cli(
        ['sandbox', 'up', '--state-dir', `state-${network}`, '--insecure', '--network', network],
        { cwd: dir, timeoutMs: 20_000 },
      );
      expect(refused.code, refused.stderr).toBe(64);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`--insecure is refused on ${network}`);
    }
    const sandbox = await up(['--state-dir', 'state-testnet', '--network', 'testnet'], dir);
    try {
      const node = sandbox.urls.nodes[0]!;
      expect((await getJson(`${node.dpm}/auth-config`)).body).toMatchObject({ auth_required: true });
      expect((await getJson(`${node.dpm}/node-config`)).status).toBe(401);
    } finally {
      expect((await stop(sandbox, 'SIGTERM')).code).toBe(0);
    }
  });

  it('--port P lays the listeners out as documented: admin P, idp P+1, node i dpm P+2+2i, ledger P+3+2i, then the services', async () => {
    const port = await freePortRange(13);
    const sandbox = await up(['--state-dir', 'state-port', '--port', String(port)], dir);
    try {
      const at = (p: number): string => `http://127.0.0.1:${p}`;
      expect(sandbox.urls).toEqual({
        idp: {
          issuer: `${at(port + 1)}/auth/realms/ledgerbook`,
          tokenUrl: `${at(port + 1)}/auth/realms/ledgerbook/protocol/openid-connect/token`,
        },
        nodes: [0, 1, 2].map((i) => ({
          name: `node${i + 1}`,
          participantId: nodeIdentity(i).participantId,
          dpm: at(port + 2 + 2 * i),
          ledger: at(port + 3 + 2 * i),
        })),
        registry: at(port + 8),
        gateway: at(port + 9),
        rewards: at(port + 10),
        faucet: at(port + 11),
        bitcoin: at(port + 12),
        admin: at(port),
      });
      expect((await fetch(`${at(port + 2)}/healthz`)).status).toBe(200);
      expect((await fetch(`${at(port + 10)}/health`)).status).toBe(200);
    } finally {
      expect((await stop(sandbox, 'SIGTERM')).code).toBe(0);
    }
  });

  it('a --port whose block is taken is refused with the port and what to do (exit 64), nothing left listening', async () => {
    const port = await freePortRange(13);
    const blocker = createServer().listen(port + 5, '127.0.0.1');
    await once(blocker, 'listening');
    try {
      const refused = await cli(['sandbox', 'up', '--state-dir', 'state-taken', '--port', String(port)], {
        cwd: dir,
      });
      expect(refused.code, refused.stderr).toBe(64);
      expect(refused.stderr).toContain(`cannot listen on 127.0.0.1:${port + 5}: the port is in use`);
      expect(refused.stderr).toContain('--port 0');
      expect(refused.stderr).not.toContain('internal error');
      // everything it opened before the taken port is closed again
      const probe = createServer().listen(port, '127.0.0.1');
      await once(probe, 'listening');
      probe.close();
    } finally {
      blocker.close();
    }
  });
});

/** the target the sandbox writes with the committed options, its URLs moved to the `--port 7700` layout */
async function writtenFor7700(options = COMMITTED_TARGET_OPTIONS): Promise<string> {
  const stateDir = await tempDir('lb-sandbox-target-');
  const sandbox = await startSandbox({ stateDir });
  try {
    const { urls } = sandbox;
    // the listeners are on free ports (7700… may be taken by a sandbox someone runs); the layout of --port is
    // checked above, so the ports are mapped, not bound
    const moves = new Map<string, number>([
      [new URL(urls.idp.issuer).origin, COMMITTED_PORT + 1],
      ...urls.nodes.flatMap((n, i): Array<[string, number]> => [
        [n.dpm, COMMITTED_PORT + 2 + 2 * i],
        [n.ledger, COMMITTED_PORT + 3 + 2 * i],
      ]),
      ...(['registry', 'gateway', 'rewards', 'faucet', 'bitcoin'] as const).map(
        (service, k): [string, number] => [urls[service], COMMITTED_PORT + 2 + 2 * urls.nodes.length + k],
      ),
    ]);
    let text = sandbox.targetYaml(options);
    for (const [origin, port] of moves) text = text.replaceAll(origin, `http://127.0.0.1:${port}`);
    return text;
  } finally {
    await sandbox.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

describe('playbooks/targets/sandbox.yaml', () => {
  it('is exactly what the sandbox writes for --port 7700 (regenerate it from the expected text when this fails)', async () => {
    const committed = readFileSync(COMMITTED_TARGET, 'utf8');
    expect(committed.split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/target.schema.json');
    expect(committed).toBe(await writtenFor7700());
  });

  it('loads as a target; its secret files resolve to the default state dir of sandbox up', () => {
    const target = loadTarget(COMMITTED_TARGET);
    expect(target.network).toBe('devnet');
    expect(Object.keys(target.nodes ?? {})).toEqual(['node1', 'node2', 'node3']);
    expect(target.nodes?.node1?.dpm).toBe(`http://127.0.0.1:${COMMITTED_PORT + 2}`);
    const files = Object.values(target.secrets ?? {}).map((s) => ('file' in s ? s.file : s.env));
    expect(files.map((f) => resolve(join(ROOT, 'playbooks/targets'), f))).toEqual([
      join(ROOT, '.ledgerbook/sandbox/secrets/operator-password'),
      join(ROOT, '.ledgerbook/sandbox/secrets/operator2-password'),
      join(ROOT, '.ledgerbook/sandbox/secrets/operator3-password'),
      join(ROOT, '.ledgerbook/sandbox/secrets/ci-client-secret'),
    ]);
  });
});

describe('playbooks/targets/operator1.yaml … operator3.yaml', () => {
  it.each(OPERATOR_TARGETS)(
    'operator$n.yaml is exactly what the sandbox writes for that operator and --port 7700',
    async ({ file, options }) => {
      expect(readFileSync(file, 'utf8')).toBe(await writtenFor7700(options));
    },
  );

  it.each(OPERATOR_TARGETS)(
    'operator$n.yaml controls only its node and names only its own secret files (and the viewer’s)',
    ({ n, file }) => {
      const target = loadTarget(file);
      const controlled = Object.entries(target.nodes ?? {})
        .filter(([, node]) => node.controlled !== false)
        .map(([name]) => name);
      expect(controlled).toEqual([`node${n}`]);
      expect(target.auth).toMatchObject({ username: `operator${n}` });
      for (const [name, node] of Object.entries(target.nodes ?? {}))
        if (name !== `node${n}`) expect(node.auth).toMatchObject({ username: 'viewer' });
      const files = Object.values(target.secrets ?? {}).map((s) =>
        'file' in s ? resolve(join(ROOT, 'playbooks/targets'), s.file) : s.env,
      );
      const own = n === 1 ? 'operator-password' : `operator${n}-password`;
      expect(files).toEqual(
        [own, `node${n}-admin-secret`, 'viewer-password'].map((f) =>
          join(ROOT, '.ledgerbook/sandbox/secrets', f),
        ),
      );
    },
  );
});
