/**
 * The DSO's AmuletRules contract (splice-amulet): the one contract of the Canton Coin side the sandbox keeps, so
 * that what names it (the DPM's GET /network-info, a disclosure) has a real contract and blob to show. It has no
 * choices here: the sandbox does not simulate Canton Coin.
 */
import { T } from '../ledger/lf.js';
import { template } from '../ledger/model.js';
import { PKG } from './packages.js';

export const AmuletRules = template<{ dso: string }>({
  pkg: PKG.amulet,
  name: { module: 'Splice.AmuletRules', entity: 'AmuletRules' },
  argType: T.record('AmuletRules', { dso: T.party }),
  signatories: (a) => [a.dso],
  observers: () => [],
});
