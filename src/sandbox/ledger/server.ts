/**
 * A participant's JSON Ledger API v2, minimal for now: version, the packages uploaded to this participant, and
 * liveness. Tokens are checked as the DPM checks them in JWT mode (no admin role); a refusal is a JsCantonError.
 */
import type { Synchronizer } from '../canton.js';
import { bearerToken } from '../auth/middleware.js';
import { AuthFailure, type TokenVerifier } from '../auth/verifier.js';
import type { FaultBook } from '../faults.js';
import type { Call } from '../http/listener.js';
import { type Reply, empty, json } from '../http/reply.js';
import { Router } from '../http/router.js';

export interface LedgerEnv {
  node: string;
  participantId: string;
  network: 'devnet' | 'testnet' | 'mainnet';
  insecure: boolean;
  canton: Synchronizer;
  faults: FaultBook;
  verifier: TokenVerifier;
}

interface LedgerRoute {
  method: 'GET';
  template: string;
  public: boolean;
  handle(env: LedgerEnv): Reply;
}

/** Canton release per network (canton-json-api.md §1) */
const VERSION: Record<LedgerEnv['network'], string> = {
  devnet: '3.5.1',
  testnet: '3.4.12',
  mainnet: '3.4.12',
};

const routes: LedgerRoute[] = [
  {
    method: 'GET',
    template: '/v2/version',
    public: false,
    handle: (env) =>
      json(200, {
        version: VERSION[env.network],
        features: {
          experimental: { staticTime: { supported: false }, commandInspectionService: { supported: true } },
          userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
          partyManagement: { maxPartiesPageSize: 10000 },
          offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0 } },
          packageFeature: { maxVettedPackagesPageSize: 100 },
        },
      }),
  },
  {
    method: 'GET',
    template: '/v2/packages',
    public: false,
    handle: (env) =>
      json(200, { packageIds: env.canton.uploadedPackages(env.participantId).map((p) => p.packageId) }),
  },
  { method: 'GET', template: '/livez', public: true, handle: () => empty(200) },
];

export function ledgerRouter(): Router<LedgerRoute> {
  const router = new Router<LedgerRoute>();
  for (const r of routes) router.add(r);
  return router;
}

function unauthenticated(cause: string): Reply {
  return json(401, {
    code: 'UNAUTHENTICATED',
    cause,
    context: {},
    errorCategory: 6,
    grpcCodeValue: 16,
  });
}

export async function dispatchLedger(
  env: LedgerEnv,
  router: Router<LedgerRoute>,
  call: Call,
): Promise<Reply> {
  const match = router.match(call.method, call.path);
  if (match === undefined) {
    return json(404, {
      code: 'NOT_FOUND',
      cause: `No route for ${call.method} ${call.path}`,
      context: {},
      errorCategory: 11,
      grpcCodeValue: 5,
    });
  }
  if (!match.route.public) {
    if (env.faults.takeExpiredToken(env.node))
      return unauthenticated('The command is missing a (valid) JWT token: token is not active');
    if (!env.insecure) {
      try {
        await env.verifier.verify(bearerToken(call.headers));
      } catch (error) {
        if (error instanceof AuthFailure)
          return unauthenticated(`The command is missing a (valid) JWT token: ${error.message}`);
        throw error;
      }
    }
  }
  return match.route.handle(env);
}
