/**
 * The shape of a DPM route and the request a handler sees. Order of checks, as in the real server: the auth
 * middleware, then the JSON body extractor (400 text/plain), then the handler's admin gate (401/403), then the
 * handler's own checks.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthOutcome } from '../../auth/middleware.js';
import type { Reply } from '../../http/reply.js';
import type { DecodedQuery, Shape } from '../../http/serde.js';
import type { DpmNode } from '../node.js';

export interface DpmRequest<B = unknown> {
  node: DpmNode;
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** the query parameters the document lists for this route, decoded as the server's extractor does */
  q: DecodedQuery;
  headers: IncomingHttpHeaders;
  auth: AuthOutcome;
  /** the decoded JSON body when the route declares one */
  body: B;
}

export interface DpmRoute {
  method: 'GET' | 'POST' | 'PUT';
  template: string;
  /** `admin`: the handler calls require_admin (after the body is decoded) */
  access: 'public' | 'auth' | 'admin';
  /** a JSON body extractor (web::Json<T>): content type and shape are checked before the handler */
  body?: Shape;
  handle(request: DpmRequest<never>): Reply | Promise<Reply>;
}

/** declares a route whose handler receives the body typed as B */
export function route<B = undefined>(definition: {
  method: DpmRoute['method'];
  template: string;
  access: DpmRoute['access'];
  body?: Shape;
  handle(request: DpmRequest<B>): Reply | Promise<Reply>;
}): DpmRoute {
  return definition;
}
