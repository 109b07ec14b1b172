/**
 * Bearer-token validation as the DPM server does it (dpm-api.md §0.2): the issuer read from the unverified
 * payload must be trusted; its signing keys come from OIDC discovery → JWKS (cached one hour per issuer, fetched
 * again for an unknown kid); then signature, exp (60 s leeway), iss, and azp = the client id configured for that
 * issuer. The audience is not checked. Every failure has the real server's text.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type JWK, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

export interface TrustedIssuer {
  /** without a trailing slash */
  issuer: string;
  clientId: string;
}

export interface Principal {
  sub: string;
  issuer: string;
  roles: string[];
}

export class AuthFailure extends Error {}

const JWKS_TTL_MS = 60 * 60 * 1000;
const ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256', 'PS384', 'PS512', 'EdDSA'];

interface CachedKeys {
  keys: JWK[];
  fetchedAt: number;
}

export class TokenVerifier {
  private readonly jwks = new Map<string, CachedKeys>();

  constructor(private readonly trusted: () => TrustedIssuer[]) {}

  async verify(token: string): Promise<Principal> {
    if (token === '') throw new AuthFailure('missing bearer token');
    const payload = decodeUnverifiedPayload(token);
    const rawIss = payload?.iss;
    if (typeof rawIss !== 'string' || rawIss === '') throw new AuthFailure('malformed bearer token');
    const iss = rawIss.replace(/\/+$/, '');
    const configs = this.trusted().filter((t) => t.issuer === iss);
    if (configs.length === 0) throw new AuthFailure(`token issuer not trusted: ${iss}`);

    let header: { kid?: string; alg?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new AuthFailure('malformed bearer token');
    }
    if (typeof header.kid !== 'string' || header.kid === '') throw new AuthFailure('malformed bearer token');

    const jwk = await this.keyFor(iss, header.kid);
    const alg = jwk?.alg ?? (jwk?.kty === 'EC' ? 'ES256' : 'RS256');
    if (jwk === undefined || header.alg !== alg || !ALGS.includes(alg))
      throw new AuthFailure('token is not active');

    let claims: Record<string, unknown>;
    try {
      const key = await importJWK(jwk, alg);
      ({ payload: claims } = await jwtVerify(token, key, {
        algorithms: [alg],
        clockTolerance: 60,
        issuer: [iss, `${iss}/`],
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new AuthFailure('token is not active', { cause: error });
    }
    if (!configs.some((c) => c.clientId === claims.azp)) throw new AuthFailure('token is not active');
    return { sub: typeof claims.sub === 'string' ? claims.sub : '', issuer: iss, roles: rolesOf(claims) };
  }

  private async keyFor(issuer: string, kid: string): Promise<JWK | undefined> {
    const cached = this.jwks.get(issuer);
    const fresh = cached !== undefined && Date.now() - cached.fetchedAt < JWKS_TTL_MS;
    const find = (keys: JWK[]): JWK | undefined =>
      keys.find((k) => k.kid === kid && (k.use === undefined || k.use === 'sig'));
    if (fresh) {
      const hit = find(cached.keys);
      if (hit !== undefined) return hit;
    }
    const keys = await fetchJwks(issuer);
    this.jwks.set(issuer, { keys, fetchedAt: Date.now() });
    return find(keys);
  }
}

/** Discovery, then the JWKS; the jwks_uri's host is replaced by the discovery host, as the real server does. */
async function fetchJwks(issuer: string): Promise<JWK[]> {
  const fail = (message: string): never => {
    throw new AuthFailure(`OIDC discovery failed for ${issuer}: ${message}`);
  };
  const discoveryUrl = `${issuer}/.well-known/openid-configuration`;
  const discovery = await getJson(discoveryUrl).catch((error: Error) => fail(error.message));
  const jwksUri = (discovery as { jwks_uri?: unknown }).jwks_uri;
  if (typeof jwksUri !== 'string') return fail('discovery document has no jwks_uri');
  const rewritten = new URL(jwksUri);
  const base = new URL(discoveryUrl);
  rewritten.protocol = base.protocol;
  rewritten.host = base.host;
  const jwks = await getJson(rewritten.toString()).catch((error: Error) => fail(error.message));
  const keys = (jwks as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) return fail('JWKS has no keys');
  return keys as JWK[];
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

function decodeUnverifiedPayload(token: string): Record<string, unknown> | undefined {
  const part = token.split('.')[1];
  if (part === undefined || part === '') return undefined;
  try {
    const normalized = part.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    const value: unknown = JSON.parse(Buffer.from(normalized, 'base64').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    // not JSON: the caller answers `malformed bearer token`
    return undefined;
  }
}

/** realm_access.roles ∪ roles ∪ the space-separated scope, deduplicated, order kept */
function rolesOf(claims: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (value: unknown): void => {
    if (typeof value === 'string' && value !== '' && !out.includes(value)) out.push(value);
  };
  const realm = claims.realm_access as { roles?: unknown } | undefined;
  if (Array.isArray(realm?.roles)) realm.roles.forEach(add);
  if (Array.isArray(claims.roles)) claims.roles.forEach(add);
  if (typeof claims.scope === 'string') claims.scope.split(' ').forEach(add);
  return out;
}

/** the token of an `Authorization: Bearer …` header, or `''` */
export function bearerToken(headers: IncomingHttpHeaders): string {
  const value = headers.authorization?.trim() ?? '';
  const match = /^bearer\s+(.*)$/is.exec(value);
  return match?.[1]?.trim() ?? '';
}
