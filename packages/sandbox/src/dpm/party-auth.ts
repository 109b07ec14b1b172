/**
 * Outbound authentication for a decentralized party: the node fetches a token from the party's identity provider
 * with the credentials saved by PUT /party-config (password grant with the username, else client credentials),
 * as the real node does before talking to Canton for that party. In insecure mode the node uses a mock token.
 */
import type { PartyCredentials } from './types.js';

export type TokenResult = { ok: true; subject: string } | { ok: false; error: string };

/** Keycloak's token endpoint of a realm */
export function keycloakTokenUrl(url: string, realm: string): string {
  return `${url.replace(/\/+$/, '')}/realms/${realm}/protocol/openid-connect/token`;
}

export async function fetchPartyToken(row: PartyCredentials): Promise<TokenResult> {
  if (row.keycloak_url === '' || row.keycloak_realm === '' || row.keycloak_client_id === '') {
    return { ok: false, error: 'Keycloak URL, realm and client id are required' };
  }
  const tokenUrl = keycloakTokenUrl(row.keycloak_url, row.keycloak_realm);
  const form = new URLSearchParams({ client_id: row.keycloak_client_id });
  if (row.keycloak_username !== undefined && row.keycloak_password !== undefined) {
    form.set('grant_type', 'password');
    form.set('username', row.keycloak_username);
    form.set('password', row.keycloak_password);
  } else if (row.keycloak_client_secret !== undefined) {
    form.set('grant_type', 'client_credentials');
  } else {
    return { ok: false, error: 'no client secret and no username/password configured' };
  }
  if (row.keycloak_client_secret !== undefined) form.set('client_secret', row.keycloak_client_secret);
  return requestToken(tokenUrl, form, row.user_id);
}

/** A token grant at a Keycloak-style endpoint; the subject is the token's `sub` (else `fallbackSubject`). */
export async function requestToken(
  tokenUrl: string,
  form: URLSearchParams,
  fallbackSubject = '',
): Promise<TokenResult> {
  let response: Response;
  try {
    response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    return { ok: false, error: `token request to ${tokenUrl} failed: ${(error as Error).message}` };
  }
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    const what = typeof body.error === 'string' ? body.error : 'no access token';
    return { ok: false, error: `token exchange failed (${response.status} from Keycloak: ${what})` };
  }
  const payload = body.access_token.split('.')[1] ?? '';
  let subject = fallbackSubject;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    if (typeof claims.sub === 'string') subject = claims.sub;
  } catch (error) {
    return {
      ok: false,
      error: `the identity provider returned an access token that is not a JWT (${(error as Error).message})`,
    };
  }
  return { ok: true, subject };
}
