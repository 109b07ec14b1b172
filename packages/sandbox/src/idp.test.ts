import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandboxRealm, serviceAccountSubject, startIdp, userSubject, type IdpHandle } from './idp.js';

const PASSWORD = 'pw-Xq81-never-logged';
const CLIENT_SECRET = 'cs-7Hd2-never-logged';
const TTL = 60;

interface TokenResponse {
  status: number;
  body: Record<string, unknown>;
}

async function tokenRequest(
  idp: IdpHandle,
  form: Record<string, string>,
  url = idp.tokenUrl,
): Promise<TokenResponse> {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(form) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function passwordGrant(idp: IdpHandle, username = 'operator1', password = PASSWORD): Promise<TokenResponse> {
  return tokenRequest(idp, { grant_type: 'password', client_id: 'ledgerbook-cli', username, password });
}

function clientCredentialsGrant(idp: IdpHandle, secret = CLIENT_SECRET): Promise<TokenResponse> {
  return tokenRequest(idp, {
    grant_type: 'client_credentials',
    client_id: 'ledgerbook-ci',
    client_secret: secret,
  });
}

async function discovery(idp: IdpHandle): Promise<Record<string, unknown>> {
  const response = await fetch(idp.discoveryUrl);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Verifies a token the way the DPM server does: the issuer's discovery document → its JWKS → signature, iss. */
async function verifyAsDpm(idp: IdpHandle, token: string): Promise<JWTPayload> {
  const jwksUri = (await discovery(idp)).jwks_uri as string;
  const jwks = (await (await fetch(jwksUri)).json()) as JSONWebKeySet;
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: idp.issuer });
  return payload;
}

function accessToken(response: TokenResponse): string {
  expect(response.status).toBe(200);
  const token = response.body.access_token;
  expect(typeof token).toBe('string');
  return token as string;
}

describe('sandbox identity provider', () => {
  let idp: IdpHandle;
  let refreshInactive = 0;

  beforeAll(async () => {
    idp = await startIdp({
      ...sandboxRealm(3, { password: PASSWORD, clientSecret: CLIENT_SECRET }),
      accessTokenTtlSeconds: TTL,
      refreshInactive: () => refreshInactive-- > 0,
    });
  });

  it('issues a refresh token with the password grant; the refresh grant gives the same user a new access token', async () => {
    const first = await passwordGrant(idp);
    expect(first.body).toMatchObject({ refresh_expires_in: 1800, token_type: 'Bearer' });
    const refreshToken = first.body.refresh_token as string;
    expect(typeof refreshToken).toBe('string');
    const refreshed = await tokenRequest(idp, {
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: refreshToken,
    });
    const payload = await verifyAsDpm(idp, accessToken(refreshed));
    expect(payload).toMatchObject({ sub: userSubject('ledgerbook', 'operator1'), azp: 'ledgerbook-cli' });
    expect(typeof refreshed.body.refresh_token).toBe('string');
    // client-credentials tokens come without one, as Keycloak's
    expect((await clientCredentialsGrant(idp)).body.refresh_token).toBeUndefined();
  });

  it('answers an unknown or inactive refresh token 400 invalid_grant "Token is not active" (the text clients match)', async () => {
    const unknown = await tokenRequest(idp, {
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: 'nope',
    });
    expect(unknown).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token is not active' },
    });
    const valid = (await passwordGrant(idp)).body.refresh_token as string;
    refreshInactive = 1;
    const refused = await tokenRequest(idp, {
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: valid,
    });
    expect(refused).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token is not active' },
    });
    const again = await tokenRequest(idp, {
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: valid,
    });
    expect(again.status).toBe(200);
  });
  afterAll(() => idp.close());
  afterEach(() => idp.setAccessTokenTtl(TTL));

  it('serves a discovery document at Keycloak-style paths', async () => {
    expect(idp.issuer).toBe(`http://127.0.0.1:${idp.port}/auth/realms/ledgerbook`);
    const doc = await discovery(idp);
    expect(doc.issuer).toBe(idp.issuer);
    expect(doc.token_endpoint).toBe(`${idp.issuer}/protocol/openid-connect/token`);
    expect(doc.token_endpoint).toBe(idp.tokenUrl);
    expect(doc.jwks_uri).toBe(`${idp.issuer}/protocol/openid-connect/certs`);
    expect(doc.jwks_uri).toBe(idp.jwksUri);
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['password', 'client_credentials']));
    expect(doc.userinfo_endpoint).toBeUndefined();
  });

  it('publishes signing keys with kid, alg and use', async () => {
    const jwks = (await (await fetch(idp.jwksUri)).json()) as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({
      kty: 'EC',
      alg: 'ES256',
      use: 'sig',
      kid: expect.any(String) as string,
    });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  it('password grant: a signed JWT with the claims the DPM server reads', async () => {
    const response = await passwordGrant(idp);
    const token = accessToken(response);
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: TTL });

    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('ES256');
    expect(typeof header.kid).toBe('string');

    const claims = await verifyAsDpm(idp, token);
    expect(claims).toMatchObject({
      iss: idp.issuer,
      sub: userSubject('ledgerbook', 'operator1'),
      azp: 'ledgerbook-cli',
      preferred_username: 'operator1',
      typ: 'Bearer',
      realm_access: { roles: ['dpm-admin'] },
    });
    expect(claims.scope).toBe('profile email');
    expect(claims.exp! - claims.iat!).toBe(TTL);
  });

  it('password grant: the viewer carries no admin role', async () => {
    const claims = await verifyAsDpm(idp, accessToken(await passwordGrant(idp, 'viewer')));
    expect(claims).toMatchObject({ preferred_username: 'viewer', realm_access: { roles: [] } });
  });

  it('password grant: a requested scope outside the realm is not granted', async () => {
    const response = await tokenRequest(idp, {
      grant_type: 'password',
      client_id: 'ledgerbook-cli',
      username: 'viewer',
      password: PASSWORD,
      scope: 'openid dpm-admin',
    });
    const claims = await verifyAsDpm(idp, accessToken(response));
    expect((claims.scope as string).split(' ').sort()).toEqual(['email', 'openid', 'profile']);
  });

  it('client-credentials grant: a signed JWT for the service account', async () => {
    const response = await clientCredentialsGrant(idp);
    const token = accessToken(response);
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: TTL });
    const claims = await verifyAsDpm(idp, token);
    expect(claims).toMatchObject({
      iss: idp.issuer,
      sub: serviceAccountSubject('ledgerbook-ci'),
      azp: 'ledgerbook-ci',
      typ: 'Bearer',
      realm_access: { roles: ['dpm-admin'] },
      scope: 'profile email',
    });
    expect(claims.exp! - claims.iat!).toBe(TTL);
  });

  it('a token’s exp is its iat plus the lifespan, as Keycloak issues it, even when the clock ticks while it is made', async () => {
    // every read of the clock 0.7 s after the one before: the provider's reads straddle a second's boundary
    const now = Date.now.bind(Date);
    let reads = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now() + 700 * reads++);
    try {
      for (const grant of [() => clientCredentialsGrant(idp), () => passwordGrant(idp)]) {
        // unverified: jose's checks read the moved clock too
        const claims = decodeJwt(accessToken(await grant()));
        expect(claims.exp! - claims.iat!).toBe(TTL);
      }
    } finally {
      clock.mockRestore();
    }
  });

  describe('the Auth0 variant: POST /oauth/token with a JSON body (wrapped-api.md §3.2)', () => {
    async function auth0(body: unknown, method = 'POST'): Promise<TokenResponse> {
      const response = await fetch(idp.auth0TokenUrl, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }
    const credentials = {
      grant_type: 'client_credentials',
      client_id: 'ledgerbook-ci',
      client_secret: CLIENT_SECRET,
    };

    it('with an audience: the service account’s signed JWT, in Auth0’s shape (no refresh token)', async () => {
      const response = await auth0({ ...credentials, audience: 'http://127.0.0.1:7575' });
      const token = accessToken(response);
      expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: TTL });
      expect(await verifyAsDpm(idp, token)).toMatchObject({ sub: serviceAccountSubject('ledgerbook-ci') });
    });

    it('without an audience: an opaque token, which no participant accepts', async () => {
      const token = accessToken(await auth0(credentials));
      expect(token.split('.')).toHaveLength(1);
      await expect(verifyAsDpm(idp, token)).rejects.toThrow();
    });

    it('refuses a wrong secret, an unknown client, another grant, a bad body and another method', async () => {
      const denied = { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
      expect(await auth0({ ...credentials, client_secret: 'wrong', audience: 'a' })).toEqual(denied);
      expect(await auth0({ ...credentials, client_id: 'nope', audience: 'a' })).toEqual(denied);
      expect(await auth0({ ...credentials, grant_type: 'password', audience: 'a' })).toMatchObject({
        status: 403,
        body: { error: 'unauthorized_client' },
      });
      expect(await auth0({ client_id: 'ledgerbook-cli', grant_type: 'client_credentials' })).toEqual(denied);
      expect(await auth0('{"grant_type":')).toMatchObject({
        status: 400,
        body: { error: 'invalid_request' },
      });
      expect(await auth0({})).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect((await auth0(undefined, 'GET')).status).toBe(404);
    });
  });

  it('wrong or unknown user credentials: 401 invalid_grant, as Keycloak answers', async () => {
    const expected = { error: 'invalid_grant', error_description: 'Invalid user credentials' };
    expect(await passwordGrant(idp, 'operator1', 'wrong')).toEqual({ status: 401, body: expected });
    expect(await passwordGrant(idp, 'nobody', PASSWORD)).toEqual({ status: 401, body: expected });
    const missing = await tokenRequest(idp, {
      grant_type: 'password',
      client_id: 'ledgerbook-cli',
      username: 'viewer',
    });
    expect(missing).toEqual({ status: 401, body: expected });
  });

  it('wrong client secret: 401 unauthorized_client; unknown client: 401 invalid_client', async () => {
    const description = 'Invalid client or Invalid client credentials';
    expect(await clientCredentialsGrant(idp, 'wrong')).toEqual({
      status: 401,
      body: { error: 'unauthorized_client', error_description: description },
    });
    const unknown = await tokenRequest(idp, {
      grant_type: 'client_credentials',
      client_id: 'nope',
      client_secret: 'x',
    });
    expect(unknown).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: description },
    });
  });

  it('a grant the client may not use: 400 unauthorized_client', async () => {
    const response = await tokenRequest(idp, {
      grant_type: 'client_credentials',
      client_id: 'ledgerbook-cli',
    });
    expect(response).toEqual({
      status: 400,
      body: {
        error: 'unauthorized_client',
        error_description: 'Client not enabled to retrieve service account',
      },
    });
  });

  it('honours the access token lifetime and its change at run time', async () => {
    idp.setAccessTokenTtl(2);
    for (const response of [await passwordGrant(idp), await clientCredentialsGrant(idp)]) {
      expect(response.body.expires_in).toBe(2);
      const claims = await verifyAsDpm(idp, accessToken(response));
      expect(claims.exp! - claims.iat!).toBe(2);
    }
    expect(() => idp.setAccessTokenTtl(0)).toThrow(RangeError);
    expect(() => idp.setAccessTokenTtl(1.5)).toThrow(RangeError);
  });

  it('serves the same realm under /realms/{realm} (Keycloak ≥ 17) and 404s other realms', async () => {
    const modern = idp.tokenUrl.replace('/auth/realms/', '/realms/');
    const claims = await verifyAsDpm(
      idp,
      accessToken(
        await tokenRequest(
          idp,
          { grant_type: 'password', client_id: 'ledgerbook-cli', username: 'operator2', password: PASSWORD },
          modern,
        ),
      ),
    );
    expect(claims.iss).toBe(idp.issuer);
    const other = await fetch(idp.discoveryUrl.replace('/realms/ledgerbook/', '/realms/other/'));
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 'Realm does not exist' });
  });

  it('counts token requests by grant, failures included', async () => {
    const before = idp.tokenRequests();
    await passwordGrant(idp);
    await passwordGrant(idp, 'operator1', 'wrong');
    await clientCredentialsGrant(idp);
    const after = idp.tokenRequests();
    expect(after.password).toBe((before.password ?? 0) + 2);
    expect(after.client_credentials).toBe((before.client_credentials ?? 0) + 1);
  });

  it('issues many tokens concurrently, each distinct', async () => {
    const responses = await Promise.all(Array.from({ length: 100 }, () => passwordGrant(idp, 'operator3')));
    const tokens = new Set(responses.map(accessToken));
    expect(tokens.size).toBe(100);
  });

  it('never writes a password or client secret to the console', async () => {
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation(capture),
      vi.spyOn(process.stderr, 'write').mockImplementation(capture),
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => capture(args.join(' '))),
      ),
    ];
    try {
      await passwordGrant(idp);
      await passwordGrant(idp, 'nobody', PASSWORD);
      await clientCredentialsGrant(idp);
      await tokenRequest(idp, {
        grant_type: 'client_credentials',
        client_id: 'nope',
        client_secret: CLIENT_SECRET,
      });
      await tokenRequest(idp, {
        grant_type: 'password',
        client_id: 'ledgerbook-ci',
        username: 'x',
        password: PASSWORD,
      });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const output = written.join('\n');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(CLIENT_SECRET);
  });
});

describe('sandbox identity provider: signing keys', () => {
  const realm = sandboxRealm(1, { password: PASSWORD, clientSecret: CLIENT_SECRET });
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'ledgerbook-idp-'));
  });
  afterAll(() => rm(stateDir, { recursive: true, force: true }));

  async function kidOf(idp: IdpHandle): Promise<string> {
    const jwks = (await (await fetch(idp.jwksUri)).json()) as JSONWebKeySet;
    return jwks.keys[0]!.kid!;
  }

  it('keeps its key in the state dir (mode 0600) across a restart', async () => {
    const first = await startIdp({ ...realm, accessTokenTtlSeconds: TTL, stateDir });
    const token = accessToken(await passwordGrant(first));
    const kid = await kidOf(first);
    const port = first.port;
    await first.close();

    const mode = (await stat(join(stateDir, 'idp-signing-key.json'))).mode & 0o777;
    expect(mode).toBe(0o600);

    const second = await startIdp({ ...realm, accessTokenTtlSeconds: TTL, stateDir, port });
    try {
      expect(second.issuer).toBe(first.issuer);
      expect(await kidOf(second)).toBe(kid);
      const claims = await verifyAsDpm(second, token);
      expect(claims.preferred_username).toBe('operator1');
    } finally {
      await second.close();
    }
  });

  it('generates a new key on every start without a state dir', async () => {
    const a = await startIdp({ ...realm, accessTokenTtlSeconds: TTL });
    const b = await startIdp({ ...realm, accessTokenTtlSeconds: TTL });
    try {
      expect(await kidOf(a)).not.toBe(await kidOf(b));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('sandboxRealm', () => {
  it('has one admin operator per node, a viewer, a public CLI client and a CI client', () => {
    const realm = sandboxRealm(3, { password: 'p', clientSecret: 's' });
    expect(realm.realm).toBe('ledgerbook');
    expect(realm.users.map((u) => [u.username, u.roles])).toEqual([
      ['operator1', ['dpm-admin']],
      ['operator2', ['dpm-admin']],
      ['operator3', ['dpm-admin']],
      ['viewer', []],
    ]);
    expect(realm.clients).toEqual([
      { clientId: 'ledgerbook-cli', grants: ['password', 'refresh_token'] },
      { clientId: 'ledgerbook-ci', secret: 's', grants: ['client_credentials'], roles: ['dpm-admin'] },
    ]);
    expect(() => sandboxRealm(0, { password: 'p', clientSecret: 's' })).toThrow(RangeError);
  });
});
