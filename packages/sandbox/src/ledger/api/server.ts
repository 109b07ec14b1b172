/**
 * A participant's JSON Ledger API v2 (canton-json-api.md §3): the routes of every module, token checks as the
 * participant does them, and Canton's error forms — 400 text/plain for a body or query that does not decode, a
 * JsCantonError with its HTTP status for everything else.
 */
import type { Call } from '../../http/listener.js';
import { type Reply, json, text } from '../../http/reply.js';
import { Router } from '../../http/router.js';
import { LedgerError } from '../errors.js';
import { BodyError, QueryError } from './body.js';
import { commandRoutes } from './commands.js';
import { Caller, authenticate, type LedgerNodeEnv, type LedgerRoute } from './context.js';
import { managementRoutes } from './management.js';
import { stateRoutes } from './state.js';
import { updateRoutes } from './updates.js';

export type { LedgerNodeEnv } from './context.js';

export function ledgerRouter(): Router<LedgerRoute> {
  const router = new Router<LedgerRoute>();
  for (const r of [...stateRoutes, ...commandRoutes, ...updateRoutes, ...managementRoutes]) router.add(r);
  return router;
}

export async function dispatchLedger(
  env: LedgerNodeEnv,
  router: Router<LedgerRoute>,
  call: Call,
): Promise<Reply> {
  const match = router.match(call.method, call.path);
  if (match === undefined) {
    // tapir's default reject handler (the JSON API is tapir on pekko-http): a path served with another method is 405
    if (router.hasPath(call.path)) return text(405, 'Method Not Allowed');
    return json(404, {
      code: 'NOT_FOUND',
      cause: `No route for ${call.method} ${call.path}`,
      context: {},
      errorCategory: 11,
      grpcCodeValue: 5,
    });
  }
  try {
    // a public route (a health probe) runs as nobody: no user, no right
    const caller = match.route.public
      ? new Caller('', undefined, false)
      : await authenticate(env, call.headers);
    return await match.route.handle({
      env,
      params: match.params,
      query: call.query,
      headers: call.headers,
      body: call.body,
      caller,
    });
  } catch (error) {
    if (error instanceof LedgerError || error instanceof BodyError || error instanceof QueryError) {
      if (error instanceof LedgerError) env.log(`${env.node} ${call.method} ${call.path}: ${error.message}`);
      return error.reply();
    }
    throw error;
  }
}
