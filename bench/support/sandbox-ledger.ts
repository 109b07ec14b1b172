/** What the sandbox benchmarks use in-process (one bundle, so the template objects are shared). */
export { Synchronizer } from '../../src/sandbox/canton.js';
export { nodeIdentity } from '../../src/sandbox/identity.js';
export { Ledger } from '../../src/sandbox/ledger/ledger.js';
export { tokenCatalog } from '../../src/sandbox/token/catalog.js';
export { Holding, holdingArg } from '../../src/sandbox/token/holding.js';
export { HoldingI } from '../../src/sandbox/token/interfaces.js';
export { TOKEN_PACKAGES } from '../../src/sandbox/token/packages.js';
export { describeWorld, ensureWorld } from '../../src/sandbox/token/world.js';
export { activeContractEntry } from '../../src/sandbox/ledger/encode.js';
export { select, parseEventFormat, resolverFor } from '../../src/sandbox/ledger/filters.js';
