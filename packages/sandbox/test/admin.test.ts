/** The admin API, the faults file, and what the host hands the CLI (urls, target file, secrets). */
import { statSync, writeFileSync, mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../src/errors.js';
import { loadFaultsFile } from '../src/index.js';
import { type World, bootstrapMesh, onboard, requestCounts, startWorld } from '../testing/helpers.js';
import { wsRequest } from '../testing/token-helpers.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.stop());

describe('GET /requests', () => {
  it('counts each request per node, method and route template', async () => {
    await world.admin.call('DELETE', '/requests');
    await world.dpm[0]!.get('/workflows');
    await world.dpm[0]!.get('/workflows');
    await world.dpm[1]!.post('/workflows/some-run/cancel');
    await world.ledger[2]!.get('/v2/version');
    expect(await requestCounts(world)).toEqual([
      { node: 'node1', method: 'GET', route: '/workflows', count: 2 },
      { node: 'node2', method: 'POST', route: '/workflows/{instance_name}/cancel', count: 1 },
      { node: 'node3', method: 'GET', route: '/v2/version', count: 1 },
    ]);
  });

  it('names who called each node’s DPM and ledger with a token it accepted; a refused token is not counted', async () => {
    await world.admin.call('DELETE', '/requests');
    await world.dpm[0]!.get('/workflows');
    await world.dpm[1]!.get('/workflows');
    await world.ledger[1]!.get('/v2/users');
    const viewer = await world.token('viewer');
    const seen = await fetch(`${world.sandbox.urls.nodes[2]!.dpm}/workflows`, {
      headers: { authorization: `Bearer ${viewer}` },
    });
    expect(seen.status).toBe(200);
    const refused = await fetch(`${world.sandbox.urls.nodes[2]!.dpm}/workflows`, {
      headers: { authorization: `Bearer ${viewer.slice(0, -4)}AAAA` },
    });
    expect(refused.status).toBe(401);
    // a stream's token travels in its subprotocol header; a stream without a token is not counted
    const acs = '/v2/state/active-contracts';
    await wsRequest(world.sandbox.urls.nodes[2]!.ledger, acs, await world.token('operator3'), {});
    const anonymous = await wsRequest(world.sandbox.urls.nodes[2]!.ledger, acs, '', {}, ['daml.ws.auth']);
    expect(anonymous).toEqual([expect.objectContaining({ code: 'UNAUTHENTICATED' })]);
    const { body } = await world.admin.get<{ callers: unknown[] }>('/callers');
    expect(body.callers).toEqual([
      { node: 'node1', api: 'dpm', who: 'operator1', count: 1 },
      { node: 'node2', api: 'dpm', who: 'operator2', count: 1 },
      { node: 'node2', api: 'ledger', who: 'operator2', count: 1 },
      { node: 'node3', api: 'dpm', who: 'viewer', count: 1 },
      { node: 'node3', api: 'ledger', who: 'operator3', count: 1 },
    ]);
  });

  it('proves a read-only pass sent nothing that changes state', async () => {
    await bootstrapMesh(world);
    await onboard(world, 'counted');
    await world.admin.call('DELETE', '/requests');
    for (const api of world.dpm) {
      await api.get('/decentralized-parties?prefix=counted');
      await api.get('/workflows');
      await api.get('/packages/vetted');
    }
    const counts = await requestCounts(world);
    expect(counts.filter((c) => c.method !== 'GET')).toEqual([]);
    expect(counts.map((c) => c.count)).toEqual(Array(9).fill(1));
  });
});

describe('faults over the admin API', () => {
  it('lists, adds with ids, removes one, clears all', async () => {
    const added = await world.admin.post<{ faults: Array<{ id: string }> }>('/faults', [
      { kind: 'latency', node: 'node2', ms: 1 },
      { kind: 'forbid', count: 2 },
    ]);
    expect(added.status).toBe(201);
    expect(added.body.faults).toEqual([
      { id: expect.stringMatching(/^f\d+$/) as string, kind: 'latency', node: 'node2', ms: 1 },
      { id: expect.stringMatching(/^f\d+$/) as string, kind: 'forbid', count: 2, remaining: 2 },
    ]);
    const [latency] = added.body.faults;
    expect((await world.admin.call('DELETE', `/faults/${latency!.id}`)).status).toBe(204);
    expect((await world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toHaveLength(1);
    expect((await world.admin.call('DELETE', '/faults')).status).toBe(204);
    expect((await world.admin.get<{ faults: unknown[] }>('/faults')).body.faults).toEqual([]);
  });

  it('refuses an invalid fault with every problem and its pointer', async () => {
    const response = await world.admin.post<{ problems: Array<{ pointer: string; message: string }> }>(
      '/faults',
      [
        { kind: 'declin', node: 'node3' },
        { kind: 'restart', node: 'node1', at: { workflow: 'Onboarding', step: 'Sign' } },
        { kind: 'latency', node: 'node9', ms: 5 },
      ],
    );
    expect(response.status).toBe(400);
    expect(response.body.problems.map((p) => [p.pointer, p.message])).toEqual([
      ['/0/kind', 'unknown fault kind "declin"'],
      ['/1/at/step', '`at.step` must be a step of Onboarding'],
      ['', 'unknown node node9'],
    ]);
  });

  it('latency delays every response of the node', async () => {
    await world.admin.post('/faults', { kind: 'latency', node: 'node3', ms: 150 });
    try {
      const started = performance.now();
      await world.dpm[2]!.get('/healthz');
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await world.admin.call('DELETE', '/faults');
    }
  });
});

describe('GET /state and the identity provider TTL', () => {
  it('dumps parties, packages and runs', async () => {
    const state = await world.admin.get<{
      canton: { parties: unknown[] };
      nodes: Record<string, { runs: unknown[] }>;
    }>('/state');
    expect(state.status).toBe(200);
    expect(state.body.canton.parties.length).toBeGreaterThan(0);
    expect(Object.keys(state.body.nodes)).toEqual(['node1', 'node2', 'node3']);
  });

  it('changes the access-token lifetime', async () => {
    expect((await world.admin.call('PUT', '/idp/access-token-ttl', { body: { seconds: 2 } })).status).toBe(
      200,
    );
    const response = await fetch(world.sandbox.urls.idp.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'ledgerbook-cli',
        username: 'operator1',
        password: world.password,
      }),
    });
    expect(((await response.json()) as { expires_in: number }).expires_in).toBe(2);
    await world.admin.call('PUT', '/idp/access-token-ttl', { body: { seconds: 300 } });
  });
});

describe('what the host hands the CLI', () => {
  it('has the URLs of every listener on loopback', () => {
    const { urls } = world.sandbox;
    expect(urls.idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/realms\/ledgerbook$/);
    expect(urls.idp.tokenUrl).toBe(`${urls.idp.issuer}/protocol/openid-connect/token`);
    expect(urls.nodes.map((n) => n.name)).toEqual(['node1', 'node2', 'node3']);
    for (const n of urls.nodes) {
      expect(n.participantId).toMatch(new RegExp(`^${n.name}::1220[0-9a-f]{64}$`));
      expect(n.dpm).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(n.ledger).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    expect(urls.admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  // that the CLI's target schema accepts this file is the CLI's to check: test/sandbox/target-file.test.ts
  it('writes a target file, with the password in a 0600 file', () => {
    const yaml = world.sandbox.targetYaml();
    expect(yaml.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=https://ledgerbook.dev/schemas/target.schema.json',
    );
    const target = parse(yaml) as Record<string, unknown> & {
      nodes: Record<string, { auth?: { username: string; password?: unknown } }>;
      secrets: Record<string, { file: string }>;
    };
    expect(target).toMatchObject({
      name: 'sandbox',
      network: 'devnet',
      auth: { clientId: 'ledgerbook-cli', username: 'operator1' },
    });
    expect(target.nodes.node2?.auth?.username).toBe('operator2');
    expect(target.nodes.node3).toMatchObject({
      participantId: world.participant[2],
      party: `operator3::${world.participant[2]!.split('::')[1]}`,
    });
    const file = target.secrets.SANDBOX_OPERATOR_PASSWORD!.file;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(world.password);
    expect(yaml).not.toContain(world.password);
    const secrets = world.sandbox.secrets();
    expect(secrets).toEqual({
      SANDBOX_OPERATOR_PASSWORD: world.password,
      SANDBOX_OPERATOR2_PASSWORD: expect.any(String) as string,
      SANDBOX_OPERATOR3_PASSWORD: expect.any(String) as string,
      SANDBOX_CI_CLIENT_SECRET: expect.any(String) as string,
    });
    // each operator has its own password
    expect(new Set(Object.values(secrets)).size).toBe(4);
    expect(target.nodes.node2?.auth?.password).toEqual({ secret: 'SANDBOX_OPERATOR2_PASSWORD' });
  });
});

describe('loadFaultsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerbook-faults-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('reads a list of faults', async () => {
    const file = write(
      'ok.yaml',
      '- { kind: decline, node: node3, workflow: Onboarding }\n- kind: restart\n  node: node1\n  at: { workflow: Onboarding, step: SignDns }\n  downMs: 500\n',
    );
    expect(await loadFaultsFile(file)).toEqual([
      { kind: 'decline', node: 'node3', workflow: 'Onboarding' },
      { kind: 'restart', node: 'node1', at: { workflow: 'Onboarding', step: 'SignDns' }, downMs: 500 },
    ]);
  });

  it('reports each problem with file:line:col', async () => {
    const file = write(
      'bad.yaml',
      '- kind: unreachable\n  node: node3\n- kind: latency\n  ms: -5\n- kind: http-error\n  status: 404\n  colour: red\n',
    );
    const error = await loadFaultsFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    const found = (error as SandboxError).problems.map((d) => [d.line, d.col, d.pointer, d.message]);
    expect(found).toEqual([
      [4, 7, '/1/ms', '`ms` must be a whole number of milliseconds ≥ 0'],
      [6, 11, '/2/status', '`status` must be an HTTP 5xx status'],
      [7, 3, '/2/colour', 'unknown field `colour` for a http-error fault'],
    ]);
  });

  it('reports YAML syntax errors and unreadable files', async () => {
    const syntax = await loadFaultsFile(write('syntax.yaml', '- kind: [unclosed\n')).catch((e: unknown) => e);
    expect((syntax as SandboxError).problems[0]).toMatchObject({
      rule: 'yaml',
      line: expect.any(Number) as number,
    });
    const missing = await loadFaultsFile(join(dir, 'nope.yaml')).catch((e: unknown) => e);
    expect((missing as SandboxError).problems[0]?.message).toMatch(/cannot read the faults file \(ENOENT\)/);
  });
});
