import type { AnyStepKind } from '../contract.js';
import { tokenBalance } from './balance.js';
import { tokenConsolidate } from './consolidate.js';
import { tokenDistribute } from './distribute.js';
import { offerKinds } from './offers.js';
import { tokenSplit } from './split.js';
import { tokenTransfer } from './transfer.js';

/** The transfer side of the token: balances, transfers, distributions, offers, merging and splitting holdings. */
export const transferKinds: readonly AnyStepKind[] = [
  tokenBalance,
  tokenTransfer,
  tokenDistribute,
  ...offerKinds,
  tokenConsolidate,
  tokenSplit,
];
