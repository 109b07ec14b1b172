/**
 * token.split — make sure a party holds a holding of each of the given amounts (wrapped-api.md §8.17), split off
 * its larger holdings one self-transfer at a time. In sync when such holdings exist already, so a second run
 * splits nothing.
 */
import { amountValue, compareAmounts } from '../../clients/amount.js';
import type { Holding } from '../../clients/party-ledger.js';
import { defineStep, type JsonValue, type Outputs } from '../contract.js';
import { StepError } from '../../errors.js';
import { instrumentOf } from './common.js';
import { selfTransfer } from './merge-split.js';
import { tokenSplitDeclaration, type With } from './split.declaration.js';

interface Observed {
  unlocked: Holding[];
}

/** For each wanted amount, an existing holding of exactly that amount (each used once), or undefined. */
function matchAmounts(amounts: readonly string[], holdings: readonly Holding[]): Array<Holding | undefined> {
  const free = [...holdings];
  return amounts.map((amount) => {
    const i = free.findIndex((h) => compareAmounts(h.amount, amount) === 0);
    return i < 0 ? undefined : free.splice(i, 1)[0];
  });
}

function outputsOf(holdings: ReadonlyArray<Holding | { contractId: string } | undefined>): Outputs {
  return { holdings: holdings.map((h) => h?.contractId ?? null) };
}

export const tokenSplit = defineStep<With, Observed>({
  ...tokenSplitDeclaration,
  async observe(ctx, w) {
    const holdings = await ctx.clients
      .party(w.party)
      .holdings(instrumentOf(ctx), { signal: ctx.signal, withLocked: false });
    return { unlocked: holdings.unlocked };
  },
  plan(w, state) {
    const matched = matchAmounts(w.amounts, state.unlocked);
    const missing = w.amounts.filter((_a, i) => matched[i] === undefined);
    if (missing.length === 0) return { changes: [], outputs: outputsOf(matched) };
    return {
      changes: missing.map((amount) => ({
        action: 'create',
        summary: `split a holding of ${amount} off a larger one`,
        details: { amount },
      })),
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const matched: Array<Holding | { contractId: string } | undefined> = matchAmounts(
      w.amounts,
      state.unlocked,
    );
    const used = new Set(matched.flatMap((h) => (h === undefined ? [] : [h.contractId])));
    let spare = state.unlocked
      .filter((h) => !used.has(h.contractId))
      .map((h) => ({ contractId: h.contractId, amount: amountValue(h.amount) }));
    const self = {
      sender: ctx.clients.party(w.party),
      registry: ctx.clients.registry(),
      instrument: instrumentOf(ctx),
      clock: ctx.clock,
      signal: ctx.signal,
      commandId: (purpose: string, inputs: JsonValue) => ctx.commandId(purpose, inputs, ''),
    };
    for (const [i, amount] of w.amounts.entries()) {
      if (matched[i] !== undefined) continue;
      const wanted = amountValue(amount);
      spare.sort((a, b) => b.amount.comparedTo(a.amount));
      const source = spare.find((h) => h.amount.greaterThan(wanted));
      if (source === undefined) {
        throw new StepError(`no spendable holding of ${w.party} is larger than ${amount}`, {
          hint: 'consolidate first (token.consolidate), or fund the party',
        });
      }
      await ctx.record({ action: 'split', input: source.contractId, amount });
      const done = await selfTransfer(self, [source.contractId], amount, 'merge-split');
      matched[i] = { contractId: done.holding };
      spare = spare.filter((h) => h !== source);
      const change = done.change[0];
      if (change !== undefined) spare.push({ contractId: change, amount: source.amount.minus(wanted) });
    }
    return outputsOf(matched);
  },
  // a split moves no value: the holdings are read again, and what is still missing is split off
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'reading the holdings again' }),
});
