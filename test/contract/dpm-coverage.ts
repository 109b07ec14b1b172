/**
 * Which contract test drives which DPM route: dpm-governance.test.ts drives the governance, auth and §12 routes
 * (its own sandbox, a governed party); dpm-sandbox.test.ts the rest. Each checks that its routes answered their
 * success shape; dpm-sandbox.test.ts also that every route of routeResponseSchemas belongs to one of them or is
 * listed as not simulated.
 */
import type { RouteKey } from '../../src/clients/dpm-wire.js';

export const GOVERNANCE_TEST_ROUTES: RouteKey[] = [
  'GET /governance/known-members',
  'GET /governance/audit',
  'GET /governance/chain-audit',
  'GET /governance/transfer-instructions',
  'GET /governance/mint-requests',
  'GET /governance/burn-requests',
  'POST /governance/propose',
  'POST /governance/confirm',
  'POST /governance/execute',
  'POST /governance/expire',
  'POST /governance/cancel',
  'POST /governance/cancel-proposal',
  'POST /auth/grant-rights',
  'POST /party-config/discover-member-party',
  'GET /external-parties',
  'GET /vaults',
  'GET /services/provider',
  'GET /services/user',
  'GET /services/registrar',
  'GET /credential-offers',
  'GET /credentials',
  'GET /registrar-service-requests',
  'GET /provider-configurations',
  'GET /instruments',
  'GET /transfer-factories',
  'GET /transfer-preapprovals',
  'GET /holdings',
  'GET /contracts/query',
  'GET /coupon-reassignment-delegation',
  'GET /network-info',
  'GET /operator-info',
];

/** routes of routeResponseSchemas the sandbox does not simulate: unknown paths to it (GET → SPA page, else 404) */
export const NOT_SIMULATED: RouteKey[] = ['POST /token-standard-contracts'];
