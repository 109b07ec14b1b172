/**
 * The DPM's authentication middleware and admin gate (dpm-api.md §0.2): public paths, the bootstrap exemption of
 * PUT /party-config, insecure mode (any token, admin always), JWT mode; then, inside admin-gated handlers, the
 * exact role check. Token faults (expire-tokens, forbid) act here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { DpmNode } from '../dpm/node.js';
import { type Reply, jsonError } from '../http/reply.js';
import { AuthFailure, bearerToken, type Principal } from './verifier.js';

const PUBLIC_PATHS = new Set([
  '/',
  '/index.html',
  '/favicon.ico',
  '/favicon.svg',
  '/auth-config',
  '/healthz',
]);
const PUBLIC_PREFIXES = ['/assets/', '/swagger-ui/', '/api-docs/', '/.well-known/', '/v0/tenant/'];

export type AuthOutcome =
  | { kind: 'public' }
  | { kind: 'bootstrap' }
  | { kind: 'principal'; principal: Principal }
  | { kind: 'rejected'; reply: Reply };

function isPublicPath(path: string): boolean {
  return PUBLIC_PATHS.has(path) || PUBLIC_PREFIXES.some((p) => path.startsWith(p));
}

/** `Bearer <token>`, scheme case-insensitive, surrounding whitespace tolerated; '' when absent */
export async function authenticate(
  node: DpmNode,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
): Promise<AuthOutcome> {
  if (isPublicPath(path)) return { kind: 'public' };
  if (method === 'PUT' && path === '/party-config' && node.state.party_credentials.length === 0) {
    return { kind: 'bootstrap' };
  }
  if (node.env.faults.takeExpiredToken(node.name)) {
    return { kind: 'rejected', reply: jsonError(401, 'token is not active') };
  }
  const auth = node.env.auth;
  if (auth.insecure) {
    return {
      kind: 'principal',
      principal: { sub: 'ledger-api-user', issuer: 'mock', roles: [auth.adminRole ?? ''] },
    };
  }
  try {
    const principal = await node.verifier.verify(bearerToken(headers));
    node.env.noteCaller('dpm', principal.sub);
    return { kind: 'principal', principal };
  } catch (error) {
    if (error instanceof AuthFailure) return { kind: 'rejected', reply: jsonError(401, error.message) };
    throw error;
  }
}

/** `require_admin`: undefined when the caller may proceed, else the 401/403 reply */
export function requireAdmin(
  node: DpmNode,
  outcome: AuthOutcome,
  request: { method: string; route: string },
): Reply | undefined {
  if (outcome.kind === 'bootstrap') return undefined;
  if (outcome.kind !== 'principal') return jsonError(401, 'authentication required');
  const role = node.env.auth.adminRole;
  if (role === undefined || role === '') return undefined;
  const stripped = node.env.faults.takeForbid(node.name, request.method, request.route);
  if (stripped || !outcome.principal.roles.includes(role))
    return jsonError(403, `missing required role: ${role}`);
  return undefined;
}
