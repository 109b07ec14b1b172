import { compareAmounts } from '../../clients/amount.js';
import type { CreatedEvent, Transaction } from '../../clients/ledger-wire.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import { TOKEN_INTERFACES, sameEntity, type InstrumentId } from '../../clients/token-wire.js';
import { defineStep, type ItemContext, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { instrumentOf, requireAmount } from './common.js';
import { tokenFaucetDeclaration, type With } from './faucet.declaration.js';
import { pollUntil } from './wait.js';

interface Observed {
  party: string;
  instrument: InstrumentId;
  /** an earlier run's grant (same `with`), confirmed on the ledger */
  granted: Outputs | undefined;
}

const REQUEST = 'faucet-request';

interface Received {
  contractId: string;
  kind: 'offer' | 'holding';
  updateId: string;
}

function viewOf(event: CreatedEvent, interfaceId: string): Record<string, unknown> | undefined {
  const view = (event.interfaceViews ?? []).find((v) => sameEntity(v.interfaceId, interfaceId));
  const value = view?.viewValue;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** Transfers to the party of `amount` that another party sent: an offer for it, or a holding it received. */
export function transfersTo(
  transactions: readonly Transaction[],
  party: string,
  amount: string,
  instrument: InstrumentId,
): Received[] {
  const found: Received[] = [];
  for (const transaction of transactions) {
    // the party's own transactions (a self-transfer's change) are not gifts; a transaction it only witnesses
    // may show none of its exercises (only the contracts created for it)
    const root = transaction.events.find((e) => e.ExercisedEvent)?.ExercisedEvent;
    if (root !== undefined && (root.actingParties ?? []).includes(party)) continue;
    for (const event of transaction.events) {
      const created = event.CreatedEvent;
      if (!created) continue;
      const offer = viewOf(created, TOKEN_INTERFACES.transferInstruction)?.['transfer'] as
        { receiver?: string; amount?: string; instrumentId?: InstrumentId } | undefined;
      if (
        offer?.receiver === party &&
        typeof offer.amount === 'string' &&
        compareAmounts(offer.amount, amount) === 0 &&
        offer.instrumentId?.admin === instrument.admin &&
        offer.instrumentId.id === instrument.id
      ) {
        found.push({ contractId: created.contractId, kind: 'offer', updateId: transaction.updateId });
        continue;
      }
      const holding = viewOf(created, TOKEN_INTERFACES.holding) as
        { owner?: string; amount?: string; lock?: unknown; instrumentId?: InstrumentId } | undefined;
      if (
        holding?.owner === party &&
        holding.lock == null &&
        typeof holding.amount === 'string' &&
        compareAmounts(holding.amount, amount) === 0 &&
        holding.instrumentId?.admin === instrument.admin &&
        holding.instrumentId.id === instrument.id
      )
        found.push({ contractId: created.contractId, kind: 'holding', updateId: transaction.updateId });
    }
  }
  return found;
}

async function receivedSince(
  party: PartyLedger,
  w: With,
  instrument: InstrumentId,
  fromOffset: number,
  signal: AbortSignal,
): Promise<Received | undefined> {
  const transactions = await party.ledger.transactions(
    {
      parties: [party.party],
      beginExclusive: fromOffset,
      filters: [
        { interfaceId: TOKEN_INTERFACES.transferInstruction, includeInterfaceView: true },
        { interfaceId: TOKEN_INTERFACES.holding, includeInterfaceView: true },
      ],
    },
    { signal },
  );
  return transfersTo(transactions, party.party, w.amount, instrument)[0];
}

function outputs(received: Received, message: string | null): Outputs {
  return {
    contract_id: received.contractId,
    kind: received.kind,
    update_id: received.updateId,
    message,
  };
}

async function earlierGrant(ctx: StepContext, party: PartyLedger): Promise<Outputs | undefined> {
  const previous = ctx.previous?.outputs;
  const cid = previous?.['contract_id'];
  if (!previous || typeof cid !== 'string') return undefined;
  const events = await party.ledger.eventsByContractId(cid, [party.party], { signal: ctx.signal });
  return events?.created ? previous : undefined;
}

async function awaitTransfer(
  ctx: ItemContext,
  w: With,
  instrument: InstrumentId,
  fromOffset: number,
  message: string | null,
): Promise<Outputs> {
  const party = ctx.clients.party(w.party);
  return pollUntil(ctx, w, `waiting for the faucet's ${w.amount} to reach ${w.party}`, async () => {
    const received = await receivedSince(party, w, instrument, fromOffset, ctx.signal);
    return received
      ? { done: true, value: outputs(received, message) }
      : { done: false, seen: `no transfer of ${w.amount} to ${w.party} since offset ${fromOffset}` };
  });
}

/**
 * token.faucet: one request to the devnet faucet, then the wait until its transfer (an offer, or a holding for a
 * preapproved receiver) is on the ledger. The ledger offset before the request is recorded: after a crash the
 * transfers since then say whether the faucet served it (a request it never got is asked again). In sync when an
 * earlier run's transfer is on the ledger.
 */
export const tokenFaucet = defineStep<With, Observed>({
  ...tokenFaucetDeclaration,
  async observe(ctx, w) {
    requireAmount(w.amount, 'amount');
    const party = ctx.clients.party(w.party);
    return { party: party.party, instrument: instrumentOf(ctx), granted: await earlierGrant(ctx, party) };
  },
  plan(w, state) {
    if (state.granted) return { changes: [], outputs: state.granted };
    return {
      changes: [
        {
          action: 'create',
          summary: `ask the faucet for ${w.amount} for ${w.party} (${state.party})`,
          details: { party: state.party, amount: w.amount },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const network = w.network ?? ctx.target?.network ?? 'devnet';
    if (network !== 'devnet') {
      throw new StepError(`the faucet serves the devnet only; this target is ${network}`, {
        hint: 'on testnet and mainnet tokens are minted (token.wait-for-mint), not given',
      });
    }
    const fromOffset = await ctx.clients.party(w.party).ledger.ledgerEnd({ signal: ctx.signal });
    await ctx.record({ action: REQUEST, amount: w.amount, from_offset: fromOffset });
    const message = await ctx.clients
      .faucet()
      .request({ network, recipientParty: state.party, amount: w.amount }, { signal: ctx.signal });
    if (message) ctx.log('info', `faucet: ${message}`);
    return awaitTransfer(ctx, w, state.instrument, fromOffset, message ?? null);
  },
  async reconcile(ctx, w, _item, intents) {
    const request = intents.find((i) => i.action === REQUEST);
    const fromOffset = request?.['from_offset'];
    if (typeof fromOffset !== 'number') return { status: 'not-done' };
    const party = ctx.clients.party(w.party);
    const received = await receivedSince(party, w, instrumentOf(ctx), fromOffset, ctx.signal);
    if (received) return { status: 'done', outputs: outputs(received, null) };
    return { status: 'not-done', note: 'no transfer from the faucet reached the party: asking again' };
  },
});
