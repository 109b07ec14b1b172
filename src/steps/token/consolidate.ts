/**
 * token.consolidate — merge a party's spendable holdings of the target's instrument into one when it has
 * `threshold` or more (wrapped-api.md §8.16: the soft limit is 10 holdings per party and instrument). A
 * self-transfer moves no value; it is planned from the holdings read just before it, so a second run finds one
 * holding and does nothing.
 */
import type { Holding } from '../../clients/party-ledger.js';
import { defineStep, type Outputs } from '../contract.js';
import { instrumentOf } from './common.js';
import { tokenConsolidateDeclaration, type With } from './consolidate.declaration.js';
import { selfTransfer } from './merge-split.js';

interface Observed {
  unlocked: Holding[];
  total: string;
}

const DEFAULT_THRESHOLD = 10;

export const tokenConsolidate = defineStep<With, Observed>({
  ...tokenConsolidateDeclaration,
  async observe(ctx, w) {
    const holdings = await ctx.clients
      .party(w.party)
      .holdings(instrumentOf(ctx), { signal: ctx.signal, withLocked: false });
    return { unlocked: holdings.unlocked, total: holdings.unlockedTotal };
  },
  plan(w, state) {
    const count = state.unlocked.length;
    const outputs: Outputs = { holdings: count, merged: 0, total: state.total, holding: null };
    if (count < (w.threshold ?? DEFAULT_THRESHOLD) || count < 2) return { changes: [], outputs };
    return {
      changes: [
        {
          action: 'update',
          summary: `merge ${count} holdings (${state.total} in all) into one`,
          details: { holdings: count, total: state.total },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const inputs = state.unlocked.map((h) => h.contractId);
    await ctx.record({ action: 'merge', inputs, amount: state.total });
    const merged = await selfTransfer(
      {
        sender: ctx.clients.party(w.party),
        registry: ctx.clients.registry(),
        instrument: instrumentOf(ctx),
        clock: ctx.clock,
        signal: ctx.signal,
        commandId: (purpose, inputs) => ctx.commandId(purpose, inputs, ''),
      },
      inputs,
      state.total,
      'UTXO consolidation',
    );
    return { holdings: 1, merged: inputs.length, total: state.total, holding: merged.holding };
  },
  // a merge moves no value: whether or not it landed, the holdings are read again and merged if still many
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'reading the holdings again' }),
});
