/**
 * Bearer-token checks as the real DPM makes them (dpm-api.md §0.2), against the sandbox's identity provider and
 * against a second OIDC issuer of this test, trusted through a party_credentials row.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import { SandboxError } from '../src/errors.js';
import { type World, startWorld } from '../testing/helpers.js';

interface TestIssuer {
  keycloakUrl: string;
  issuer: string;
  sign(
    claims: Record<string, unknown>,
    options?: { kid?: string | null; key?: CryptoKey; expIn?: number },
  ): Promise<string>;
  close(): Promise<void>;
}

/** a minimal OIDC issuer at Keycloak-style paths: discovery and JWKS, an ES256 key made here */
async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', use: 'sig', alg: 'ES256' };
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/auth/realms/test/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          issuer: `${base}/auth/realms/test`,
          jwks_uri: `${base}/auth/realms/test/protocol/openid-connect/certs`,
        }),
      );
    } else if (path === '/auth/realms/test/protocol/openid-connect/certs') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/auth/realms/test`;
  return {
    keycloakUrl: `${base}/auth`,
    issuer,
    sign: async (claims, options = {}) => {
      const header: { alg: string; kid?: string } = { alg: 'ES256' };
      if (options.kid !== null) header.kid = options.kid ?? 'test-key';
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        sub: 'tester',
        azp: 'test-client',
        exp: now + (options.expIn ?? 300),
        ...claims,
      })
        .setProtectedHeader(header)
        .setIssuedAt()
        .sign(options.key ?? privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let world: World;
let issuer: TestIssuer;
const admin = { realm_access: { roles: ['dpm-admin'] } };

beforeAll(async () => {
  world = await startWorld({ nodes: 1 });
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await world.stop();
  await issuer.close();
});

const get = (token: string | null, path = '/workflows') => world.dpm[0]!.call('GET', path, { token });

describe('before any party credentials', () => {
  it('lets the first PUT /party-config through without a token (bootstrap), not the second', async () => {
    const body = {
      dec_party_id: `boot::1220${'00'.repeat(32)}`,
      member_party_id: world.participant[0],
      user_id: 'tester',
      keycloak_url: issuer.keycloakUrl,
      keycloak_realm: 'test',
      keycloak_client_id: 'test-client',
      keycloak_client_secret: 'irrelevant',
    };
    const first = await world.dpm[0]!.call('PUT', '/party-config', { body, token: null });
    expect([first.status, first.body]).toEqual([200, { success: true }]);
    const second = await world.dpm[0]!.call('PUT', '/party-config', { body, token: null });
    expect([second.status, second.body]).toEqual([401, { error: 'missing bearer token' }]);
    const config = await world.dpm[0]!.get(`/party-config/${body.dec_party_id}`);
    expect(config.body).toMatchObject({
      dec_party_id: body.dec_party_id,
      has_client_secret: true,
      has_username: false,
    });
    expect(JSON.stringify(config.body)).not.toContain('irrelevant');
  });
});

describe('JWT validation', () => {
  it('accepts a token of the sandbox IdP (operator1)', async () => {
    expect((await get(await world.token('operator1'))).status).toBe(200);
  });

  it.each([
    ['no token', null, 'missing bearer token'],
    ['a token that is not a JWT', 'not-a-jwt', 'malformed bearer token'],
  ])('refuses %s', async (_, token, text) => {
    const response = await get(token);
    expect([response.status, response.body]).toEqual([401, { error: text }]);
  });

  it('refuses an untrusted issuer', async () => {
    const token = await new SignJWT({ iss: 'https://elsewhere.example/realms/x/', azp: 'x', exp: 9999999999 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k' })
      .sign(new TextEncoder().encode('secret-secret-secret-secret-32by'));
    expect((await get(token)).body).toEqual({
      error: 'token issuer not trusted: https://elsewhere.example/realms/x',
    });
  });

  it('trusts the issuer of a party_credentials row, with its client id as azp', async () => {
    expect((await get(await issuer.sign(admin))).status).toBe(200);
  });

  it('allows 60 s of clock skew on exp, not more', async () => {
    expect((await get(await issuer.sign(admin, { expIn: -30 }))).status).toBe(200);
    const expired = await get(await issuer.sign(admin, { expIn: -120 }));
    expect([expired.status, expired.body]).toEqual([401, { error: 'token is not active' }]);
  });

  it('refuses a wrong azp, a missing kid, and a signature by another key', async () => {
    expect((await get(await issuer.sign({ ...admin, azp: 'other-client' }))).body).toEqual({
      error: 'token is not active',
    });
    expect((await get(await issuer.sign(admin, { kid: null }))).body).toEqual({
      error: 'malformed bearer token',
    });
    const other = await generateKeyPair('ES256');
    expect((await get(await issuer.sign(admin, { key: other.privateKey }))).body).toEqual({
      error: 'token is not active',
    });
  });

  it('needs the dpm-admin role on admin-gated routes only (roles from realm_access, roles or scope)', async () => {
    const plain = await issuer.sign({});
    const refused = await world.dpm[0]!.call('POST', '/workflows/x/cancel', { token: plain });
    expect([refused.status, refused.body]).toEqual([403, { error: 'missing required role: dpm-admin' }]);
    expect((await get(plain)).status).toBe(200);
    const viaScope = await world.dpm[0]!.call('POST', '/workflows/x/cancel', {
      token: await issuer.sign({ scope: 'openid dpm-admin' }),
    });
    expect(viaScope.status).toBe(409);
  });

  it('says so when discovery fails for a trusted issuer', async () => {
    const token = await issuer.sign(admin, { kid: 'rotated' });
    await issuer.close();
    const response = await get(token);
    expect(response.status).toBe(401);
    expect((response.body as { error: string }).error).toMatch(
      new RegExp(`^OIDC discovery failed for ${issuer.issuer}: `),
    );
  });
});

describe('token faults', () => {
  it('expire-tokens answers the next N authenticated requests with 401, public routes untouched', async () => {
    const token = await world.token('operator1');
    await world.admin.post('/faults', { kind: 'expire-tokens', node: 'node1', count: 2 });
    expect((await world.dpm[0]!.call('GET', '/healthz', { token: null })).status).toBe(200);
    expect((await get(token)).body).toEqual({ error: 'token is not active' });
    expect((await get(token)).status).toBe(401);
    expect((await get(token)).status).toBe(200);
  });

  it('forbid strips the admin role once', async () => {
    await world.admin.post('/faults', { kind: 'forbid', node: 'node1', count: 1 });
    const first = await world.dpm[0]!.post('/workflows/x/cancel');
    expect([first.status, first.body]).toEqual([403, { error: 'missing required role: dpm-admin' }]);
    expect((await world.dpm[0]!.post('/workflows/x/cancel')).status).toBe(409);
  });

  it('http-error answers matching requests with the status, before or after the request takes effect', async () => {
    await world.admin.post('/faults', {
      kind: 'http-error',
      node: 'node1',
      method: 'GET',
      route: '/workflows',
      status: 503,
      count: 1,
    });
    expect((await world.dpm[0]!.get('/workflows')).status).toBe(503);
    expect((await world.dpm[0]!.get('/workflows')).status).toBe(200);
    await world.admin.post('/faults', {
      kind: 'http-error',
      node: 'node1',
      route: '/dars/upload',
      status: 502,
      count: 1,
      phase: 'after',
    });
    expect((await world.dpm[0]!.post('/dars/upload', { dar_files: [] })).status).toBe(502);
  });
});

describe('the participant ledger API', () => {
  it('answers /v2/version with a token, 401 JsCantonError without, /livez without', async () => {
    const version = await world.ledger[0]!.get<{ version: string; features: Record<string, unknown> }>(
      '/v2/version',
    );
    expect(version.status).toBe(200);
    expect(version.body.version).toBe('3.5.1');
    expect(Object.keys(version.body.features).sort()).toEqual(
      ['experimental', 'offsetCheckpoint', 'packageFeature', 'partyManagement', 'userManagement'].sort(),
    );
    const anonymous = await world.ledger[0]!.call('GET', '/v2/version', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHENTICATED', errorCategory: 6, grpcCodeValue: 16 });
    expect((await world.ledger[0]!.call('GET', '/livez', { token: null })).status).toBe(200);
  });
});

describe('insecure mode', () => {
  it('accepts any token or none, and says auth_required: false', async () => {
    const insecure = await startWorld({ nodes: 1, insecure: true });
    try {
      expect((await insecure.dpm[0]!.call('GET', '/workflows', { token: null })).status).toBe(200);
      expect(
        (await insecure.dpm[0]!.call('POST', '/dars/upload', { body: { dar_files: [] }, token: 'garbage' }))
          .status,
      ).toBe(200);
      expect((await insecure.dpm[0]!.get('/auth-config')).body).toEqual({ auth_required: false });
      expect((await insecure.dpm[0]!.get<{ test_mode: boolean }>('/node-config')).body.test_mode).toBe(true);
      const status = await insecure.dpm[0]!.get<{ parties: Array<{ status: unknown }> }>('/auth/status');
      expect(status.body.parties).toEqual([expect.objectContaining({ status: { status: 'mock' } })]);
    } finally {
      await insecure.stop();
    }
  });

  it('is refused unless the network is devnet, like the real server', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'ledgerbook-sandbox-'));
    try {
      await expect(startSandbox({ stateDir, insecure: true, network: 'testnet' })).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof SandboxError && error.kind === 'usage' && /devnet only/.test(error.message),
      );
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('refuses invalid faults and faults naming a node it does not have', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'ledgerbook-sandbox-'));
    try {
      await expect(
        startSandbox({ stateDir, faults: [{ kind: 'latency', ms: -1 } as never] }),
      ).rejects.toThrow('invalid faults: /0/ms: `ms` must be a whole number of milliseconds ≥ 0');
      await expect(
        startSandbox({ stateDir, nodes: 2, faults: [{ kind: 'unreachable', node: 'node3' }] }),
      ).rejects.toThrow(/names node3, but the sandbox has node1, node2/);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('refuses a host that is not loopback', async () => {
    await expect(startSandbox({ stateDir: '/nonexistent', host: '0.0.0.0' })).rejects.toThrow(
      /loopback only/,
    );
  });
});
