/**
 * `@ledgerbook/sandbox/testing`: what tests outside the package use to drive a sandbox and look into it — a
 * started world with a client per API, the token and governance helpers, and the few simulator facts they
 * compare with (node identities, the identity provider on its own). For tests only (TypeScript source, run by
 * vitest); the CLI uses the package's main entry.
 */
export * from './helpers.js';
export * from './token-helpers.js';
export * from './governance-helpers.js';
export * from './transfer-factory.js';
export { nodeIdentity } from '../src/identity.js';
export { sandboxRealm, startIdp, type IdpHandle } from '../src/idp.js';
