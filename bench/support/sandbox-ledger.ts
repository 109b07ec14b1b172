/** What the sandbox benchmarks use in-process (one bundle, so the template objects are shared). */
export { Synchronizer } from '../../packages/sandbox/src/canton.js';
export { nodeIdentity } from '../../packages/sandbox/src/identity.js';
export { Ledger } from '../../packages/sandbox/src/ledger/ledger.js';
export { tokenCatalog } from '../../packages/sandbox/src/token/catalog.js';
export { Holding, holdingArg } from '../../packages/sandbox/src/token/holding.js';
export { HoldingI } from '../../packages/sandbox/src/token/interfaces.js';
export { TOKEN_PACKAGES } from '../../packages/sandbox/src/token/packages.js';
export { describeWorld, ensureWorld } from '../../packages/sandbox/src/token/world.js';
export { activeContractEntry } from '../../packages/sandbox/src/ledger/encode.js';
export { select, parseEventFormat, resolverFor } from '../../packages/sandbox/src/ledger/filters.js';
