/**
 * token.balance — a party's holdings, read from the ledger: what it can spend and what is locked (in pending offers
 * or allocations) of the target's instrument, and the same per instrument it holds, for `core.assert` and for
 * people. A read: it never changes anything.
 */
import type { Holdings } from '../../clients/party-ledger.js';
import { instrumentKey } from '../../clients/party-ledger.js';
import { defineStep, type Outputs } from '../contract.js';
import { tokenBalanceDeclaration, type With } from './balance.declaration.js';
import { instrumentOf } from './common.js';

/** The soft limit of holdings per party and instrument (wrapped-api.md §5.4). */
const HOLDING_LIMIT = 10;

interface Observed {
  party: string;
  instrument: string;
  mine: Holdings | undefined;
  byInstrument: Map<string, Holdings>;
  unreadable: number;
}

function outputs(state: Observed): Outputs {
  const mine = state.mine;
  return {
    party: state.party,
    spendable: mine?.unlockedTotal ?? '0',
    locked: mine?.lockedTotal ?? '0',
    holdings: mine?.unlocked.length ?? 0,
    locked_holdings: mine?.lockedCount ?? 0,
    instruments: [...state.byInstrument].map(([key, h]) => {
      const [admin, id] = key.split('|');
      return {
        admin: admin ?? '',
        id: id ?? '',
        spendable: h.unlockedTotal,
        locked: h.lockedTotal,
        holdings: h.unlocked.length,
        locked_holdings: h.lockedCount,
      };
    }),
    unreadable: state.unreadable,
  };
}

export const tokenBalance = defineStep<With, Observed>({
  ...tokenBalanceDeclaration,
  async observe(ctx, w) {
    const party = ctx.clients.party(w.party);
    const instrument = instrumentKey(instrumentOf(ctx));
    const read = await party.holdingsByInstrument({ signal: ctx.signal, withLocked: false });
    const mine = read.byInstrument.get(instrument);
    for (const u of read.unreadable) ctx.log('warn', `holding ${u.contractId} is unreadable: ${u.reason}`);
    const count = mine?.unlocked.length ?? 0;
    if (count >= HOLDING_LIMIT)
      ctx.log(
        'warn',
        `${w.party} has ${count} spendable holdings (the soft limit is ${HOLDING_LIMIT}): merge them with token.consolidate`,
      );
    return {
      party: party.party,
      instrument,
      mine,
      byInstrument: read.byInstrument,
      unreadable: read.unreadable.length,
    };
  },
  plan: (_w, state) => ({ changes: [], outputs: outputs(state) }),
  apply: (_ctx, _w, _item, _plan, state) => Promise.resolve(outputs(state)),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
