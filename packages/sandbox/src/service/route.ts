/**
 * The token services' HTTP plumbing (registry, gateway, rewards, faucet, bitcoin): route templates, a request
 * with its decoded JSON body, and failures that carry the service's own error body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Call } from '../http/listener.js';
import { type Reply, json } from '../http/reply.js';
import { Router } from '../http/router.js';

export interface ServiceRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ServiceRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  template: string;
  handle(request: ServiceRequest): Reply | Promise<Reply>;
}

/** an answer other than 200, with the service's error body */
export class ServiceFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(JSON.stringify(body));
  }
}

export function serviceRouter(routes: ServiceRoute[]): Router<ServiceRoute> {
  const router = new Router<ServiceRoute>();
  for (const r of routes) router.add(r);
  return router;
}

export async function dispatchService(
  router: Router<ServiceRoute>,
  call: Call,
  notFound: (method: string, path: string) => Reply,
): Promise<Reply> {
  const match = router.match(call.method, call.path);
  if (match === undefined) return notFound(call.method, call.path);
  try {
    return await match.route.handle({
      params: match.params,
      query: call.query,
      headers: call.headers,
      body: call.body,
    });
  } catch (error) {
    if (error instanceof ServiceFailure) return json(error.status, error.body);
    throw error;
  }
}

/** the JSON body of a request, or a ServiceFailure built by `invalid` */
export function jsonBody(body: Buffer, invalid: (why: string) => ServiceFailure): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') throw invalid('the request has no body');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw invalid(`the body is not JSON: ${(error as Error).message}`);
  }
}
