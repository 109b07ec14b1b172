/**
 * token.accept-offers, token.reject-offers (as the receiver) and token.cancel-offers (as the sender, withdrawing):
 * the party's pending transfer offers that match the filters — counterparty, instrument, amount range, expiry,
 * distribution, contract ids — each acted on once. An offer can be consumed only once, so the ledger keeps this
 * exact: a run after a crash or a lost answer reads the offers again and acts on those still there. Offers go
 * up to five per transaction (each with the choice context the registry gives for it); when such a transaction
 * is refused, its offers are tried one by one so that only the offending one fails.
 */
import { AmountDecimal, amountValue, compareAmounts, formatAmount } from '../../clients/amount.js';
import { isLedgerError } from '../../clients/ledger-errors.js';
import type { TransferOffer } from '../../clients/party-ledger.js';
import { combineCommands, transferInstructionCommand } from '../../clients/token-commands.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import {
  defineStep,
  type AnyStepKind,
  type Change,
  type ItemContext,
  type Outputs,
  type StepContext,
} from '../contract.js';
import { LedgerbookError, StepError } from '../../errors.js';
import type { Target } from '../../playbook/target.js';
import { instrumentOf, short } from './common.js';
import { resolvePartyRef } from './common.declaration.js';
import { DISTRIBUTION_META } from './distribution.js';

import type { StepDeclaration } from '../../playbook/step-declaration.js';
import { ACTIONS, counterpartyOf, offerDeclarations, type Action, type With } from './offers.declaration.js';

/** Offers per transaction (the reference's batches; one refused offer refuses its batch). */
const BATCH = 5;
/** Batches in flight at once. */
const BATCHES_AT_ONCE = 4;

interface Observed {
  party: string;
  /** the matching offers, by contract id */
  offers: TransferOffer[];
}

interface Acted {
  offer: string;
  counterparty: string;
  amount: string;
}

/**
 * What each item of this execution of the step did, kept across its attempts (a retry re-reads the offers that
 * are left): the step's session, by item key.
 */
type Acting = Map<string, Acted[]>;

function isExpired(offer: TransferOffer, now: number): boolean {
  return offer.executeBefore !== undefined && Date.parse(offer.executeBefore) <= now;
}

function matches(
  action: Action,
  w: With,
  target: Target | undefined,
  now: number,
  offer: TransferOffer,
): boolean {
  if (offer.direction !== action.direction) return false;
  const counterparty = counterpartyOf(action, w);
  if (counterparty !== undefined) {
    const id = resolvePartyRef(target, counterparty);
    if ((action.counterparty === 'sender' ? offer.sender : offer.receiver) !== id) return false;
  }
  if (w.min_amount !== undefined && compareAmounts(offer.amount, w.min_amount) < 0) return false;
  if (w.max_amount !== undefined && compareAmounts(offer.amount, w.max_amount) > 0) return false;
  const expired = w.expired ?? (action.skipExpiredByDefault ? false : undefined);
  if (expired !== undefined && isExpired(offer, now) !== expired) return false;
  if (w.distribution !== undefined && offer.meta[DISTRIBUTION_META.distribution] !== w.distribution)
    return false;
  if (w.offers !== undefined && !w.offers.includes(offer.contractId)) return false;
  return true;
}

function instrumentFor(ctx: StepContext, w: With): InstrumentId {
  return w.instrument ?? instrumentOf(ctx);
}

function describe(action: Action, offer: TransferOffer): string {
  const other = action.counterparty === 'sender' ? `from ${offer.sender}` : `to ${offer.receiver}`;
  const expiry = offer.executeBefore === undefined ? '' : `, until ${offer.executeBefore}`;
  return `${action.verb} ${offer.amount} ${other} (offer ${short(offer.contractId)}${expiry})`;
}

function outputs(action: Action, acted: readonly Acted[], remaining: number): Outputs {
  const amount = acted.reduce((sum, a) => sum.plus(amountValue(a.amount)), new AmountDecimal(0));
  return {
    count: acted.length,
    amount: formatAmount(amount),
    offers: acted.map((a) => ({ offer: a.offer, [action.counterparty]: a.counterparty, amount: a.amount })),
    remaining,
  };
}

/** Acts on one batch of offers in one transaction; a refused batch is split into single offers. */
async function actOnBatch(
  ctx: ItemContext<Acting>,
  action: Action,
  w: With,
  batch: readonly TransferOffer[],
  acted: Acted[],
  failed: Array<{ offer: TransferOffer; error: LedgerbookError }>,
): Promise<void> {
  const party = ctx.clients.party(w.party);
  const registry = ctx.clients.registry();
  const cids = batch.map((o) => o.contractId).sort();
  const commandId = ctx.commandId(action.choice, { offers: cids });
  try {
    const contexts = [];
    for (const offer of batch)
      contexts.push(
        transferInstructionCommand(
          action.choice,
          offer.contractId,
          await registry.transferInstructionContext(offer.contractId, action.choice, { signal: ctx.signal }),
        ),
      );
    await ctx.record({ action: action.choice, commandId, offers: cids });
    await party.submit(commandId, combineCommands(contexts), { signal: ctx.signal });
  } catch (error) {
    if (!(error instanceof LedgerbookError)) throw error;
    if (error.retryability === 'ambiguous') {
      // the offers that are still there are read again before anything is sent again
      throw new StepError(`${error.message}: the offers are read again before anything is sent again`, {
        retryability: 'transient',
        cause: error,
      });
    }
    if (error.retryability === 'transient' && !isLedgerError(error, 'contract-not-found')) throw error;
    if (batch.length > 1) {
      for (const offer of batch) await actOnBatch(ctx, action, w, [offer], acted, failed);
      return;
    }
    const [offer] = batch;
    if (offer !== undefined) failed.push({ offer, error });
    return;
  }
  for (const offer of batch)
    acted.push({
      offer: offer.contractId,
      counterparty: action.counterparty === 'sender' ? offer.sender : offer.receiver,
      amount: offer.amount,
    });
  ctx.progress(`${acted.length} ${action.past}`);
}

function offerKind(action: Action, declaration: StepDeclaration<With>): AnyStepKind {
  return defineStep<With, Observed, With, Acting>({
    ...declaration,
    session: { open: () => new Map() },
    async observe(ctx, w) {
      const party = ctx.clients.party(w.party);
      const now = ctx.clock.now();
      const offers: TransferOffer[] = [];
      await party.eachTransferOffer(
        instrumentFor(ctx, w),
        (offer) => {
          if (matches(action, w, ctx.target, now, offer)) offers.push(offer);
        },
        { signal: ctx.signal },
      );
      offers.sort((a, b) => a.contractId.localeCompare(b.contractId));
      return { party: party.party, offers };
    },
    plan(_w, state) {
      if (state.offers.length === 0) return { changes: [], outputs: outputs(action, [], 0) };
      const changes: Change[] = state.offers.map((offer) => ({
        action: 'update',
        summary: describe(action, offer),
        details: {
          offer: offer.contractId,
          sender: offer.sender,
          receiver: offer.receiver,
          amount: offer.amount,
        },
      }));
      return { changes };
    },
    async apply(ctx, w, item, _plan, state) {
      const acted = ctx.session.get(item.key) ?? [];
      ctx.session.set(item.key, acted);
      const failed: Array<{ offer: TransferOffer; error: LedgerbookError }> = [];
      const batches: TransferOffer[][] = [];
      for (let i = 0; i < state.offers.length; i += BATCH) batches.push(state.offers.slice(i, i + BATCH));
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < batches.length) {
          const batch = batches[next++] as TransferOffer[];
          await actOnBatch(ctx, action, w, batch, acted, failed);
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCHES_AT_ONCE, batches.length) }, worker));
      if (failed.length > 0) {
        const lines = failed
          .slice(0, 10)
          .map(({ offer, error }) => `${describe(action, offer)}: ${error.message}`);
        throw new StepError(
          `${failed.length} of ${state.offers.length} offers could not be ${action.past} (${acted.length} were): ${lines.join('; ')}`,
          { hint: failed[0]?.error.hint ?? 'see the ledger’s reason above' },
        );
      }
      ctx.session.delete(item.key);
      return outputs(action, acted, 0);
    },
    reconcile(ctx, _w, item) {
      // an offer is consumed once: what an earlier attempt did shows as offers that are gone
      return Promise.resolve({
        status: 'not-done',
        note: `reading the offers still pending (${ctx.session.get(item.key)?.length ?? 0} ${action.past} so far)`,
      });
    },
  });
}

export const offerKinds: readonly AnyStepKind[] = ACTIONS.map((action, index) =>
  offerKind(action, offerDeclarations[index]!),
);
