/**
 * Dispatches one HTTP request to a DPM route: middleware, extractor, admin gate, handler; an unknown GET path is
 * the web UI's index page (200), an unknown path of another method is an empty 404 (dpm-api.md §0.1).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { authenticate, requireAdmin } from '../auth/middleware.js';
import { type Reply, empty, json, jsonError, spaPage, text } from '../http/reply.js';
import { SWAGGER_UI_PAGE, openApiDocument } from './openapi.js';
import { Router } from '../http/router.js';
import { DecodeError, type DecodedQuery, decodeJsonBody, decodeQuery } from '../http/serde.js';
import type { DpmNode } from './node.js';
import { authRoutes } from './routes/auth.js';
import { configRoutes } from './routes/config.js';
import { controlRoutes } from './routes/control.js';
import { governanceRoutes } from './routes/governance.js';
import { invitationRoutes } from './routes/invitations.js';
import { ledgerReadRoutes } from './routes/ledger-reads.js';
import { packageRoutes } from './routes/packages.js';
import { partyRoutes } from './routes/parties.js';
import { route, type DpmRoute } from './routes/route.js';
import { startRoutes } from './routes/start.js';
import { queryOf } from './wire.generated.js';

/** actix's JSON payload limit; the listener answers 413 above it */
export const MAX_JSON_BYTES = 100 * 1024 * 1024;

export function dpmRouter(): Router<DpmRoute> {
  const router = new Router<DpmRoute>();
  const routes: DpmRoute[] = [
    ...configRoutes,
    ...authRoutes,
    ...partyRoutes,
    ...startRoutes,
    ...controlRoutes,
    ...invitationRoutes,
    ...packageRoutes,
    ...governanceRoutes,
    ...ledgerReadRoutes,
  ];
  routes.push(...apiDocRoutes(routes));
  for (const r of routes) router.add(r);
  return router;
}

/** served in insecure mode only; otherwise these GETs are the web UI's like any unknown path */
function apiDocRoutes(routes: readonly DpmRoute[]): DpmRoute[] {
  return [
    route({
      method: 'GET',
      template: '/swagger-ui/',
      access: 'public',
      handle: ({ node }) =>
        node.env.auth.insecure
          ? { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: SWAGGER_UI_PAGE }
          : spaPage(),
    }),
    route({
      method: 'GET',
      template: '/api-docs/openapi.json',
      access: 'public',
      handle: ({ node }) => (node.env.auth.insecure ? json(200, openApiDocument(routes)) : spaPage()),
    }),
  ];
}

export interface IncomingCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function dispatchDpm(
  node: DpmNode,
  router: Router<DpmRoute>,
  call: IncomingCall,
): Promise<Reply> {
  const auth = await authenticate(node, call.method, call.path, call.headers);
  if (auth.kind === 'rejected') return auth.reply;
  const match = router.match(call.method, call.path);
  if (match === undefined) return call.method === 'GET' ? spaPage() : empty(404);
  const route = match.route;

  let body: unknown;
  if (route.body !== undefined) {
    if (!isJsonContentType(call.headers['content-type'])) return text(400, 'Content type error');
    try {
      body = decodeJsonBody(call.body.toString('utf8'), route.body);
    } catch (error) {
      if (error instanceof DecodeError) return text(400, error.message);
      throw error;
    }
  }

  let q: DecodedQuery = {};
  const querySpec = queryOf[`${route.method} ${route.template}`];
  if (querySpec !== undefined) {
    try {
      q = decodeQuery(call.query, querySpec);
    } catch (error) {
      if (error instanceof DecodeError) return text(400, error.message);
      throw error;
    }
  }

  if (route.access === 'admin') {
    const refused = requireAdmin(node, auth, { method: call.method, route: route.template });
    if (refused !== undefined) return refused;
  }

  if (route.template === '/party-config' && auth.kind === 'bootstrap') {
    if (node.bootstrapInProgress) return jsonError(409, 'bootstrap already in progress');
    node.bootstrapInProgress = true;
    try {
      return await route.handle({ node, ...call, params: match.params, q, auth, body } as never);
    } finally {
      node.bootstrapInProgress = false;
    }
  }
  return route.handle({ node, ...call, params: match.params, q, auth, body } as never);
}

/** actix's JSON extractor accepts application/json and any `+json` type */
function isJsonContentType(value: string | undefined): boolean {
  const mime = (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}
