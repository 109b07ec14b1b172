/** What the fork benchmark uses in-process to give the original network many holdings (one bundle, shared templates). */
export { startSandbox } from '../../packages/sandbox/src/index.js';
export { Synchronizer } from '../../packages/sandbox/src/canton.js';
export { Ledger } from '../../packages/sandbox/src/ledger/ledger.js';
export { sandboxCatalog } from '../../packages/sandbox/src/token-side.js';
export { Holding, holdingArg } from '../../packages/sandbox/src/token/holding.js';
export { describeWorld } from '../../packages/sandbox/src/token/world.js';
export { nodeIdentity } from '../../packages/sandbox/src/identity.js';
