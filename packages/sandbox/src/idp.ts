/**
 * The sandbox's identity provider: a real OpenID Connect provider (oidc-provider) at Keycloak-style paths, with
 * the password and client-credentials grants and signed JWT access tokens carrying the claims the DPM server reads
 * (issuer, kid, exp, azp, realm_access.roles). Error bodies on the token endpoint are Keycloak's. Beside it, the
 * Auth0 variant the vendor library also speaks (wrapped-api.md §3.2): `POST /oauth/token` with a JSON body.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import type {
  Account,
  ClientMetadata,
  Configuration,
  KoaContextWithOIDC,
  ResourceServer,
  TokenEndpointGrantContext,
} from 'oidc-provider';
import { readBody } from './http/listener.js';
import { loadOidcProvider } from './idp/load-provider.js';
import { memoryAdapterFactory } from './idp/memory-adapter.js';
import { SIGNING_ALG, loadOrCreateSigningKey } from './idp/signing-key.js';

export interface IdpUser {
  username: string;
  password: string;
  roles: string[];
}

export interface IdpClient {
  clientId: string;
  /** absent: a public client (password grant only) */
  secret?: string;
  /** `refresh_token`: password-grant tokens come with a refresh token (Keycloak's default for its clients) */
  grants: Array<'password' | 'client_credentials' | 'refresh_token'>;
  /** service-account roles for client_credentials */
  roles?: string[];
}

export interface IdpOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 (the default) = a free port */
  port?: number;
  realm: string;
  users: IdpUser[];
  clients: IdpClient[];
  accessTokenTtlSeconds: number;
  /** keeps the signing key here (mode 0600) so that a restarted sandbox signs with the same key */
  stateDir?: string;
  /** an internal error of the provider (a bug, answered with 500); default: one line on stderr */
  onServerError?: (error: Error) => void;
  /** true when this refresh grant must fail `Token is not active` (the refresh-inactive fault; consumes one) */
  refreshInactive?: () => boolean;
  /** refresh tokens' lifetime; default 1800 s (Keycloak's SSO session idle) */
  refreshTokenTtlSeconds?: number;
}

export interface IdpHandle {
  issuer: string;
  tokenUrl: string;
  /** Auth0's machine-to-machine endpoint (`POST /oauth/token`, JSON) on the same listener */
  auth0TokenUrl: string;
  jwksUri: string;
  discoveryUrl: string;
  port: number;
  setAccessTokenTtl(seconds: number): void;
  /** counts of token requests by grant, for tests */
  tokenRequests(): Record<string, number>;
  close(): Promise<void>;
}

/** Keycloak's endpoint paths, relative to the issuer. */
const PATHS = {
  token: '/protocol/openid-connect/token',
  jwks: '/protocol/openid-connect/certs',
  authorization: '/protocol/openid-connect/auth',
  discovery: '/.well-known/openid-configuration',
} as const;

/** The one resource server every access token is issued for; its audience is Keycloak's default, `account`. */
const RESOURCE = 'urn:ledgerbook:sandbox';
const AUDIENCE = 'account';
/** Scopes a token may carry; Keycloak's default client scopes are always granted. */
const KNOWN_SCOPES = ['openid', 'profile', 'email'];
const DEFAULT_SCOPES = ['profile', 'email'];
const INVALID_CLIENT_DESCRIPTION = 'Invalid client or Invalid client credentials';

/** A user's `sub`: stable per realm and username, UUID-shaped like Keycloak's user ids. */
export function userSubject(realm: string, username: string): string {
  const hex = createHash('sha256').update(`${realm}/${username}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A service account's `sub` (client-credentials tokens). */
export function serviceAccountSubject(clientId: string): string {
  return `service-account-${clientId}`;
}

/**
 * The sandbox's realm: `ledgerbook-cli` (password grant, public), `ledgerbook-ci` (client credentials, with
 * the `dpm-admin` role), `nodeN-admin` (client credentials, one per node, with `dpm-admin`), `operator1..N` with
 * `dpm-admin`, and `viewer` without it. Each operator and the viewer have their own password; the passwords and
 * the client secrets come from the caller, who generates them per sandbox.
 */
export function sandboxRealm(
  nodeCount: number,
  secrets: {
    /** one password for every operator and the viewer, or each operator's own */
    password: string | readonly string[];
    viewerPassword?: string;
    clientSecret: string;
    /** each node's admin client's secret; without it there are no `nodeN-admin` clients */
    nodeAdminSecrets?: readonly string[];
  },
): Pick<IdpOptions, 'realm' | 'users' | 'clients'> {
  if (!Number.isInteger(nodeCount) || nodeCount < 1) {
    throw new RangeError(`nodeCount must be a positive integer, got ${nodeCount}`);
  }
  const passwords = typeof secrets.password === 'string' ? [] : secrets.password;
  if (typeof secrets.password !== 'string' && passwords.length < nodeCount)
    throw new RangeError(`one password per operator is needed (${nodeCount} nodes)`);
  if (secrets.nodeAdminSecrets !== undefined && secrets.nodeAdminSecrets.length < nodeCount)
    throw new RangeError(`one admin client secret per node is needed (${nodeCount} nodes)`);
  const shared = typeof secrets.password === 'string' ? secrets.password : undefined;
  const operators = Array.from({ length: nodeCount }, (_, i) => ({
    username: `operator${i + 1}`,
    password: shared ?? passwords[i]!,
    roles: ['dpm-admin'],
  }));
  const nodeAdmins = (secrets.nodeAdminSecrets ?? []).slice(0, nodeCount).map((secret, i): IdpClient => ({
    clientId: `node${i + 1}-admin`,
    secret,
    grants: ['client_credentials'],
    roles: ['dpm-admin'],
  }));
  const viewerPassword = secrets.viewerPassword ?? shared ?? passwords[0]!;
  return {
    realm: 'ledgerbook',
    users: [...operators, { username: 'viewer', password: viewerPassword, roles: [] }],
    clients: [
      { clientId: 'ledgerbook-cli', grants: ['password', 'refresh_token'] },
      {
        clientId: 'ledgerbook-ci',
        secret: secrets.clientSecret,
        grants: ['client_credentials'],
        roles: ['dpm-admin'],
      },
      ...nodeAdmins,
    ],
  };
}

export async function startIdp(options: IdpOptions): Promise<IdpHandle> {
  checkOptions(options);
  const { Provider, errors } = await loadOidcProvider();
  const signingKey = await loadOrCreateSigningKey(options.stateDir);

  let ttlSeconds = options.accessTokenTtlSeconds;
  const counts: Record<string, number> = {};
  const users = new Map(options.users.map((user) => [user.username, user]));
  const usersBySubject = new Map(
    options.users.map((user) => [userSubject(options.realm, user.username), user]),
  );
  const clients = new Map(options.clients.map((client) => [client.clientId, client]));
  const onServerError =
    options.onServerError ??
    ((error: Error) => process.stderr.write(`sandbox idp: internal error: ${error.message}\n`));

  // Refresh tokens: opaque, kept in memory (a restarted sandbox has none: clients log in again, as after a
  // Keycloak session ends)
  const refreshTokens = new Map<
    string,
    { username: string; clientId: string; scope: string; expiresAt: number }
  >();
  const refreshTtl = options.refreshTokenTtlSeconds ?? 1800;
  const issueRefreshToken = (username: string, clientId: string, scope: string): string => {
    const now = Date.now();
    for (const [key, entry] of refreshTokens) if (entry.expiresAt <= now) refreshTokens.delete(key);
    const token = randomBytes(32).toString('base64url');
    refreshTokens.set(token, { username, clientId, scope, expiresAt: now + refreshTtl * 1000 });
    return token;
  };

  class InvalidUserCredentials extends errors.OIDCProviderError {
    constructor() {
      super(401, 'invalid_grant');
      this.error_description = 'Invalid user credentials';
    }
  }

  const resourceServer: ResourceServer = {
    scope: KNOWN_SCOPES.join(' '),
    audience: AUDIENCE,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg: SIGNING_ALG } },
  };

  // Listen first: with port 0 the issuer URL is known only once the port is.
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = createServer((req, res) => handle(req, res));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const realmPath = `/auth/realms/${options.realm}`;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const issuer = `${origin}${realmPath}`;
  const tokenUrl = `${issuer}${PATHS.token}`;

  const configuration: Configuration = {
    adapter: memoryAdapterFactory(),
    jwks: { keys: [signingKey] },
    clients: options.clients.map(clientMetadata),
    clientDefaults: { id_token_signed_response_alg: SIGNING_ALG, grant_types: [], response_types: [] },
    responseTypes: ['none'],
    scopes: KNOWN_SCOPES,
    claims: { openid: ['sub'], profile: ['preferred_username'], email: [] },
    routes: { token: PATHS.token, jwks: PATHS.jwks, authorization: PATHS.authorization },
    features: {
      // Token endpoint only: no login pages, sessions, userinfo, pushed requests or proof-of-possession.
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== RESOURCE) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return resourceServer;
        },
      },
    },
    ttl: { AccessToken: () => ttlSeconds, ClientCredentials: () => ttlSeconds },
    formats: {
      customizers: {
        jwt: (_ctx, token, { payload }) => {
          // Keycloak issues at one instant: exp is iat plus the lifespan. oidc-provider reads the clock twice (exp
          // when it saves the token, iat when it formats it), and across a second's boundary exp - iat was 59
          if (typeof payload.exp === 'number') payload.iat = payload.exp - ttlSeconds;
          const clientId = token.clientId ?? '';
          let roles: string[];
          if (token.kind === 'AccessToken') {
            const user = usersBySubject.get(token.accountId);
            payload.preferred_username = user?.username;
            roles = user?.roles ?? [];
          } else {
            payload.sub = serviceAccountSubject(clientId);
            payload.preferred_username = serviceAccountSubject(clientId);
            roles = clients.get(clientId)?.roles ?? [];
          }
          payload.azp = clientId;
          payload.typ = 'Bearer';
          payload.realm_access = { roles: [...roles] };
          payload.scope = withDefaultScopes(typeof payload.scope === 'string' ? payload.scope : undefined);
        },
      },
    },
    findAccount: (_ctx, sub): Account | undefined => {
      const user = usersBySubject.get(sub);
      if (user === undefined) return undefined;
      return { accountId: sub, claims: () => ({ sub, preferred_username: user.username }) };
    },
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };

  const provider = new Provider(issuer, configuration);

  provider.registerGrantType<{ username?: string; password?: string }>(
    'password',
    async (ctx: TokenEndpointGrantContext<{ username?: string; password?: string }>) => {
      const { params } = ctx.oidc;
      if (typeof params.username !== 'string' || params.username === '') {
        throw new errors.InvalidRequest('Missing parameter: username');
      }
      const user = users.get(params.username);
      if (
        user === undefined ||
        typeof params.password !== 'string' ||
        !sameSecret(params.password, user.password)
      ) {
        throw new InvalidUserCredentials();
      }
      const scope = withDefaultScopes(params.scope);
      ctx.body = await issueTokens(ctx, user.username, scope, 'password');
    },
    ['username', 'password', 'scope'],
  );

  /** a signed JWT access token for a user, and a refresh token when the client may refresh */
  async function issueTokens(
    ctx: TokenEndpointGrantContext<object>,
    username: string,
    scope: string,
    gty: string,
  ): Promise<Record<string, unknown>> {
    const { client } = ctx.oidc;
    if (client === undefined) throw new errors.InvalidClient('client not found');
    // A JWT access token is self-contained: nothing is stored, so its grant id only names this authentication.
    const token = new provider.AccessToken({
      accountId: userSubject(options.realm, username),
      client,
      gty,
      grantId: randomUUID(),
      scope,
    });
    token.resourceServer = new provider.ResourceServer(RESOURCE, resourceServer);
    ctx.oidc.entity('AccessToken', token);
    const accessToken = await token.save();
    const refreshes = client.grantTypeAllowed('refresh_token');
    return {
      access_token: accessToken,
      expires_in: token.expiration,
      ...(refreshes
        ? {
            refresh_expires_in: refreshTtl,
            refresh_token: issueRefreshToken(username, client.clientId, scope),
          }
        : {}),
      token_type: token.tokenType,
      scope,
    };
  }

  provider.registerGrantType<{ refresh_token?: string; scope?: string }>(
    'refresh_token',
    async (ctx: TokenEndpointGrantContext<{ refresh_token?: string; scope?: string }>) => {
      const { client, params } = ctx.oidc;
      const presented = typeof params.refresh_token === 'string' ? params.refresh_token : '';
      if (presented === '') throw new errors.InvalidRequest('Missing parameter: refresh_token');
      const entry = refreshTokens.get(presented);
      const inactive =
        options.refreshInactive?.() === true ||
        entry === undefined ||
        entry.expiresAt <= Date.now() ||
        entry.clientId !== client?.clientId;
      if (inactive || !users.has(entry.username)) {
        const error = new errors.InvalidGrant();
        error.error_description = 'Token is not active';
        throw error;
      }
      ctx.body = await issueTokens(ctx, entry.username, entry.scope, 'refresh_token');
    },
    ['refresh_token', 'scope'],
  );

  provider.use(async (ctx, next) => {
    await next();
    const { oidc } = ctx as Partial<KoaContextWithOIDC>;
    if (oidc?.route !== 'token') return;
    const grantType = typeof oidc.params?.grant_type === 'string' ? oidc.params.grant_type : 'unknown';
    counts[grantType] = (counts[grantType] ?? 0) + 1;
    asKeycloakError(ctx as KoaContextWithOIDC, grantType);
  });
  provider.on('server_error', (_ctx, error) => onServerError(error));
  // Koa's own 'error' event (an error outside oidc-provider's handlers); its default listener prints a stack.
  (provider as unknown as EventEmitter).on('error', (error: Error) => onServerError(error));

  const callback = provider.callback();
  const auth0Realm = { clients, tokenUrl };
  handle = (req, res) => {
    if ((req.url ?? '/').split('?')[0] === AUTH0_TOKEN_PATH) {
      auth0Token(req, res, auth0Realm).catch((error: unknown) => {
        onServerError(error as Error);
        if (!res.headersSent) auth0Answer(res, 500, AUTH0_NOT_ISSUED);
      });
      return;
    }
    const rest = realmRelativePath(req.url ?? '/', options.realm);
    if (rest === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Realm does not exist"}');
      return;
    }
    // oidc-provider derives its mount path from originalUrl minus url (as under express).
    Object.assign(req, { originalUrl: `${realmPath}${rest}`, url: rest });
    void callback(req, res);
  };

  return {
    issuer,
    tokenUrl,
    auth0TokenUrl: `${origin}${AUTH0_TOKEN_PATH}`,
    jwksUri: `${issuer}${PATHS.jwks}`,
    discoveryUrl: `${issuer}${PATHS.discovery}`,
    port,
    setAccessTokenTtl(seconds) {
      checkTtl(seconds);
      ttlSeconds = seconds;
    },
    tokenRequests: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };

  function clientMetadata(client: IdpClient): ClientMetadata {
    return {
      client_id: client.clientId,
      ...(client.secret === undefined
        ? { token_endpoint_auth_method: 'none' }
        : { client_secret: client.secret, token_endpoint_auth_method: 'client_secret_post' }),
      grant_types: [...client.grants],
      response_types: [],
      redirect_uris: [],
    };
  }

  /** Keycloak's bodies for a failed client authentication and for a grant the client may not use. */
  function asKeycloakError(ctx: KoaContextWithOIDC, grantType: string): void {
    const body = ctx.body as { error?: unknown } | undefined;
    const client = ctx.oidc.client;
    if (ctx.status === 401 && body?.error === 'invalid_client') {
      // A known client with a wrong secret is `unauthorized_client` in Keycloak; an unknown one `invalid_client`.
      ctx.body = {
        error: client === undefined ? 'invalid_client' : 'unauthorized_client',
        error_description: INVALID_CLIENT_DESCRIPTION,
      };
    } else if (ctx.status === 400 && client !== undefined && !client.grantTypeAllowed(grantType)) {
      const known = clients.get(client.clientId);
      if (known === undefined) return;
      ctx.body = {
        error: 'unauthorized_client',
        error_description:
          grantType === 'password'
            ? 'Client not allowed for direct access grants'
            : grantType === 'client_credentials'
              ? 'Client not enabled to retrieve service account'
              : `Client not allowed to use grant type ${grantType}`,
      };
    }
  }
}

const AUTH0_TOKEN_PATH = '/oauth/token';
const AUTH0_BODY_LIMIT = 64 * 1024;
const AUTH0_DENIED = { error: 'access_denied', error_description: 'Unauthorized' };
const AUTH0_NOT_ISSUED = { error: 'server_error', error_description: 'the token could not be issued' };

function auth0Answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Auth0's machine-to-machine token endpoint: a JSON body `{grant_type: client_credentials, client_id,
 * client_secret, audience}`. The token is the realm's own client-credentials token (the same signed JWT, asked of
 * the provider over loopback), answered in Auth0's shape; without `audience` Auth0 hands out an opaque token that
 * no participant accepts, and so does this. Errors have Auth0's `{error, error_description}` bodies.
 */
async function auth0Token(
  req: IncomingMessage,
  res: ServerResponse,
  realm: { clients: ReadonlyMap<string, IdpClient>; tokenUrl: string },
): Promise<void> {
  const answer = (status: number, body: Record<string, unknown>) => auth0Answer(res, status, body);
  const grantRefused = (grantType: string) =>
    answer(403, {
      error: 'unauthorized_client',
      error_description: `Grant type '${grantType}' not allowed for the client.`,
    });
  if (req.method !== 'POST') {
    answer(404, {
      error: 'not_found',
      error_description: `Cannot ${req.method ?? 'GET'} ${AUTH0_TOKEN_PATH}`,
    });
    return;
  }
  let body: unknown;
  try {
    const raw = await readBody(req, AUTH0_BODY_LIMIT);
    if (raw === undefined) throw new Error(`the request body exceeds ${AUTH0_BODY_LIMIT} bytes`);
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    answer(400, { error: 'invalid_request', error_description: (error as Error).message });
    return;
  }
  const field = (name: string): string | undefined => {
    const value =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const grantType = field('grant_type');
  if (grantType === undefined) {
    answer(400, { error: 'invalid_request', error_description: 'Missing required parameter: grant_type' });
    return;
  }
  if (grantType !== 'client_credentials') {
    grantRefused(grantType);
    return;
  }
  const clientId = field('client_id');
  const client = clientId === undefined ? undefined : realm.clients.get(clientId);
  const secret = field('client_secret');
  if (client?.secret === undefined || secret === undefined || !sameSecret(secret, client.secret)) {
    answer(401, AUTH0_DENIED);
    return;
  }
  if (!client.grants.includes('client_credentials')) {
    grantRefused('client_credentials');
    return;
  }
  if (field('audience') === undefined) {
    answer(200, {
      access_token: randomBytes(24).toString('base64url'),
      expires_in: 86400,
      token_type: 'Bearer',
    });
    return;
  }
  const issued = await fetch(realm.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: secret,
    }),
  });
  const token = (await issued.json()) as { access_token?: string; expires_in?: number; scope?: string };
  if (!issued.ok || typeof token.access_token !== 'string') {
    answer(500, AUTH0_NOT_ISSUED);
    return;
  }
  answer(200, {
    access_token: token.access_token,
    expires_in: token.expires_in,
    token_type: 'Bearer',
    ...(token.scope === undefined ? {} : { scope: token.scope }),
  });
}

/**
 * The path below the realm for `/auth/realms/{realm}/…` and Keycloak ≥ 17's `/realms/{realm}/…` (same
 * handler, as the reference's simulator notes ask); `undefined` for any other realm or path.
 */
function realmRelativePath(url: string, realm: string): string | undefined {
  for (const prefix of [`/auth/realms/${realm}`, `/realms/${realm}`]) {
    if (url === prefix) return '/';
    if (url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`)) {
      const rest = url.slice(prefix.length);
      return rest.startsWith('?') ? `/${rest}` : rest;
    }
  }
  return undefined;
}

function withDefaultScopes(requested: string | undefined): string {
  const granted = new Set(DEFAULT_SCOPES);
  for (const scope of requested?.split(' ') ?? []) {
    if (KNOWN_SCOPES.includes(scope)) granted.add(scope);
  }
  return [...granted].join(' ');
}

/** Constant-time comparison of a presented and a stored secret. */
function sameSecret(presented: string, stored: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(stored));
}

function checkTtl(seconds: number): void {
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw new RangeError(`access token lifetime must be a whole number of seconds ≥ 1, got ${seconds}`);
  }
}

function checkOptions(options: IdpOptions): void {
  checkTtl(options.accessTokenTtlSeconds);
  if (!/^[A-Za-z0-9_-]+$/.test(options.realm)) {
    throw new RangeError(
      `realm name must be letters, digits, '_' or '-', got ${JSON.stringify(options.realm)}`,
    );
  }
  const usernames = new Set<string>();
  for (const user of options.users) {
    if (usernames.has(user.username)) throw new RangeError(`duplicate user ${user.username}`);
    usernames.add(user.username);
  }
  const clientIds = new Set<string>();
  for (const client of options.clients) {
    if (clientIds.has(client.clientId)) throw new RangeError(`duplicate client ${client.clientId}`);
    clientIds.add(client.clientId);
    if (client.grants.length === 0) throw new RangeError(`client ${client.clientId} has no grant`);
    if (client.grants.includes('client_credentials') && client.secret === undefined) {
      throw new RangeError(`client ${client.clientId} uses client_credentials and needs a secret`);
    }
  }
}
