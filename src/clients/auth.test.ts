import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../errors.js';
// The test starts the sandbox's identity provider and talks to it over HTTP only, as the layering rule intends.
import { sandboxRealm, startIdp, type IdpHandle } from '@ledgerbook/sandbox/testing';
import { isLoopback } from '../loopback.js';
import { TokenProvider, type Credentials } from './auth.js';

const PASSWORD = 'pw-Zr42-must-not-leak';
const CLIENT_SECRET = 'cs-Lm93-must-not-leak';
const TTL = 60;

let idp: IdpHandle;

beforeAll(async () => {
  idp = await startIdp({
    ...sandboxRealm(2, { password: PASSWORD, clientSecret: CLIENT_SECRET }),
    accessTokenTtlSeconds: TTL,
  });
});
afterAll(() => idp.close());
afterEach(() => {
  idp.setAccessTokenTtl(TTL);
  vi.restoreAllMocks();
});

function operator(overrides: Partial<Credentials> = {}): Credentials {
  return {
    issuer: idp.issuer,
    clientId: 'ledgerbook-cli',
    grant: 'password',
    username: 'operator1',
    password: PASSWORD,
    ...overrides,
  };
}

function ci(overrides: Partial<Credentials> = {}): Credentials {
  return {
    issuer: idp.issuer,
    clientId: 'ledgerbook-ci',
    grant: 'client_credentials',
    clientSecret: CLIENT_SECRET,
    ...overrides,
  };
}

function requests(grant: 'password' | 'client_credentials'): number {
  return idp.tokenRequests()[grant] ?? 0;
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TokenProvider against the sandbox identity provider', () => {
  it('password grant: a token for the user, reported to onToken', async () => {
    const seen: string[] = [];
    const provider = new TokenProvider(operator(), { onToken: (token) => seen.push(token) });
    const token = await provider.token();
    expect(decodeJwt(token)).toMatchObject({
      iss: idp.issuer,
      azp: 'ledgerbook-cli',
      preferred_username: 'operator1',
      realm_access: { roles: ['dpm-admin'] },
    });
    expect(seen).toEqual([token]);
  });

  it('client-credentials grant: a token for the service account', async () => {
    const token = await new TokenProvider(ci(), {}).token();
    expect(decodeJwt(token)).toMatchObject({ azp: 'ledgerbook-ci', sub: 'service-account-ledgerbook-ci' });
  });

  it('caches the token: one request for many calls', async () => {
    const provider = new TokenProvider(ci());
    const before = requests('client_credentials');
    const first = await provider.token();
    expect(await provider.token()).toBe(first);
    expect(await provider.token()).toBe(first);
    expect(requests('client_credentials')).toBe(before + 1);
  });

  it('invalidate(): the next call fetches a new token', async () => {
    const seen: string[] = [];
    const provider = new TokenProvider(operator(), { onToken: (token) => seen.push(token) });
    const first = await provider.token();
    const before = requests('password');
    provider.invalidate();
    const second = await provider.token();
    expect(second).not.toBe(first);
    expect(requests('password')).toBe(before + 1);
    expect(seen).toEqual([first, second]);
  });

  it('invalidate(rejected) keeps a token that was already renewed', async () => {
    const provider = new TokenProvider(operator());
    const first = await provider.token();
    provider.invalidate(first);
    const second = await provider.token();
    const before = requests('password');
    provider.invalidate(first); // a late 401 for the old token
    expect(await provider.token()).toBe(second);
    expect(requests('password')).toBe(before);
  });

  it('renews 30 s before expiry, or at 90 % of a short lifetime', async () => {
    let now = 1_000_000;
    const provider = new TokenProvider(ci(), { now: () => now });

    idp.setAccessTokenTtl(600);
    const long = await provider.token();
    now += 569_900;
    expect(await provider.token()).toBe(long);
    now += 200; // 570.1 s: inside the last 30 s
    const renewed = await provider.token();
    expect(renewed).not.toBe(long);

    idp.setAccessTokenTtl(10);
    provider.invalidate();
    const short = await provider.token();
    now += 8_900;
    expect(await provider.token()).toBe(short);
    now += 200; // 9.1 s: inside the last 10 %
    expect(await provider.token()).not.toBe(short);
  });

  it('fetches a new token after a 1 s token expired', async () => {
    idp.setAccessTokenTtl(1);
    const provider = new TokenProvider(operator({ username: 'operator2' }));
    const first = await provider.token();
    expect(decodeJwt(first).exp! - decodeJwt(first).iat!).toBe(1);
    await sleep(1_050);
    const second = await provider.token();
    expect(second).not.toBe(first);
    expect(decodeJwt(second).exp!).toBeGreaterThan(decodeJwt(first).exp!);
  });

  it('concurrent calls share one request', async () => {
    const provider = new TokenProvider(operator());
    const before = requests('password');
    const tokens = await Promise.all(Array.from({ length: 20 }, () => provider.token()));
    expect(new Set(tokens).size).toBe(1);
    expect(requests('password')).toBe(before + 1);
  });

  it('an aborted caller stops waiting; the shared request still serves the others', async () => {
    const provider = new TokenProvider(operator());
    const controller = new AbortController();
    const reason = new Error('step timed out');
    const aborted = provider.token(controller.signal);
    const other = provider.token();
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(typeof (await other)).toBe('string');
    await expect(provider.token(AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('discovers each issuer once', async () => {
    const other = await startIdp({
      ...sandboxRealm(2, { password: PASSWORD, clientSecret: CLIENT_SECRET }),
      accessTokenTtlSeconds: TTL,
    });
    try {
      const fetchSpy = vi.spyOn(globalThis, 'fetch');
      const { issuer } = other;
      await Promise.all([
        new TokenProvider(operator({ issuer })).token(),
        new TokenProvider(operator({ issuer, username: 'operator2' })).token(),
      ]);
      await new TokenProvider(ci({ issuer })).token();
      const urls = fetchSpy.mock.calls.map(([input]) =>
        input instanceof Request ? input.url : input.toString(),
      );
      expect(urls.filter((url) => url === other.discoveryUrl)).toHaveLength(1);
      expect(urls.filter((url) => url === other.tokenUrl)).toHaveLength(3);
    } finally {
      await other.close();
    }
  });
});

describe('TokenProvider errors', () => {
  it('wrong password: a permanent ServiceError that names the setting, never the value', async () => {
    const wrong = `${PASSWORD}-typo`;
    const error = await failure(new TokenProvider(operator({ password: wrong })).token());
    expect(error).toMatchObject({
      service: 'idp',
      method: 'POST',
      path: '/auth/realms/ledgerbook/protocol/openid-connect/token',
      status: 401,
      serviceMessage: 'invalid_grant: Invalid user credentials',
      retryability: 'permanent',
      code: 'LB_SERVICE',
    });
    expect(error.hint).toContain('auth.password');
    for (const text of [error.message, error.hint ?? '', JSON.stringify(error)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(PASSWORD);
    }
    expect(error.cause).toBeDefined();
  });

  it('wrong client secret: permanent, the hint names auth.clientSecret', async () => {
    const error = await failure(new TokenProvider(ci({ clientSecret: 'nope' })).token());
    expect(error).toMatchObject({ status: 401, retryability: 'permanent' });
    expect(error.serviceMessage).toMatch(/^unauthorized_client/);
    expect(error.hint).toContain('auth.clientSecret');
    expect(error.message).not.toContain('nope');
  });

  it('a grant the client may not use: permanent, the hint names auth.grant', async () => {
    const error = await failure(new TokenProvider(operator({ clientId: 'ledgerbook-ci' })).token());
    expect(error).toMatchObject({ status: 401, retryability: 'permanent' });
    const notAllowed = await failure(
      new TokenProvider(operator({ clientId: 'ledgerbook-ci', clientSecret: CLIENT_SECRET })).token(),
    );
    expect(notAllowed).toMatchObject({ status: 400, retryability: 'permanent' });
    expect(notAllowed.hint).toContain('auth.grant');
  });

  it('missing credentials: permanent, before any request', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const error = await failure(new TokenProvider(ci({ clientSecret: undefined })).token());
    expect(error.retryability).toBe('permanent');
    expect(error.hint).toContain('auth.clientSecret');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('unreachable issuer: transient', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const error = await failure(
      new TokenProvider(operator({ issuer: `http://127.0.0.1:${port}/auth/realms/ledgerbook` })).token(),
    );
    expect(error).toMatchObject({
      service: 'idp',
      method: 'GET',
      retryability: 'transient',
      status: undefined,
    });
    expect(error.serviceMessage).toContain('ECONNREFUSED');
  });

  it('plain http to a host that is not loopback: permanent, with a hint to use https, nothing sent', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const error = await failure(
      new TokenProvider(operator({ issuer: 'http://keycloak.example.com/auth/realms/canton' })).token(),
    );
    expect(error.retryability).toBe('permanent');
    expect(error.hint).toContain('https://');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('an issuer that does not match the discovery document: permanent', async () => {
    const error = await failure(new TokenProvider(operator({ issuer: `${idp.issuer}/` })).token());
    expect(error.retryability).toBe('permanent');
    expect(error.hint).toBe(`set auth.issuer to ${idp.issuer}, the provider's issuer exactly`);
  });

  it('an unknown realm: permanent, the hint names auth.issuer', async () => {
    const error = await failure(
      new TokenProvider(operator({ issuer: idp.issuer.replace(/ledgerbook$/, 'nope') })).token(),
    );
    expect(error).toMatchObject({ status: 404, retryability: 'permanent' });
    expect(error.hint).toContain('auth.issuer');
  });

  describe('a failing provider', () => {
    let server: Server;
    let issuer: string;
    let tokenStatus = 503;
    let tokenBody = '{"error":"temporarily_unavailable"}';

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url?.endsWith('/.well-known/openid-configuration')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ issuer, token_endpoint: `${issuer}/token` }));
        } else {
          const json = tokenBody.startsWith('{');
          res.writeHead(tokenStatus, { 'content-type': json ? 'application/json' : 'text/html' });
          res.end(tokenBody);
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/r`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('5xx with an OAuth error body: transient', async () => {
      tokenStatus = 503;
      tokenBody = '{"error":"temporarily_unavailable"}';
      const error = await failure(new TokenProvider(operator({ issuer })).token());
      expect(error).toMatchObject({ status: 503, retryability: 'transient', path: '/realms/r/token' });
    });

    it('5xx with an HTML page: transient', async () => {
      tokenStatus = 502;
      tokenBody = '<html>bad gateway</html>';
      const error = await failure(new TokenProvider(operator({ issuer })).token());
      expect(error).toMatchObject({ status: 502, retryability: 'transient' });
    });
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['[::1]', true],
    ['::1', true],
    ['localhost', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['keycloak.example.com', false],
    ['localhost.example.com', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});
