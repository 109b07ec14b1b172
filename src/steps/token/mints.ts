/**
 * Mints on the ledger (wrapped-api.md §8.6): the attestors exercise `CBTCDepositAccount_CompleteDeposit` on the
 * owner's deposit account, which creates a holding for the owner and re-creates the account (same `id`). Read from
 * the party's transactions after an offset, so only what landed after that offset counts.
 */
import { sumAmounts } from '../../clients/amount.js';
import type { CreatedEvent, Transaction } from '../../clients/ledger-wire.js';
import type { DepositAccount, PartyLedger } from '../../clients/party-ledger.js';
import {
  TOKEN_INTERFACES,
  TOKEN_TEMPLATES,
  sameEntity,
  type InstrumentId,
} from '../../clients/token-wire.js';

export const COMPLETE_DEPOSIT = 'CBTCDepositAccount_CompleteDeposit';

export interface Mint {
  updateId: string;
  offset: number;
  holdingCid: string;
  amount: string;
}

interface HoldingFacts {
  owner: string;
  admin: string;
  id: string;
  amount: string;
}

/** A created holding's owner, instrument and amount: from its Holding view, else from the registry payload. */
function holdingFacts(event: CreatedEvent): HoldingFacts | undefined {
  const view = (event.interfaceViews ?? []).find((v) => sameEntity(v.interfaceId, TOKEN_INTERFACES.holding));
  const value = view?.viewValue as
    { owner?: unknown; instrumentId?: { admin?: unknown; id?: unknown }; amount?: unknown } | undefined;
  if (value && typeof value.owner === 'string' && typeof value.amount === 'string') {
    const admin = value.instrumentId?.admin;
    const id = value.instrumentId?.id;
    if (typeof admin === 'string' && typeof id === 'string')
      return { owner: value.owner, admin, id, amount: value.amount };
  }
  if (!sameEntity(event.templateId, TOKEN_TEMPLATES.registryHolding)) return undefined;
  const arg = event.createArgument as
    { owner?: unknown; amount?: unknown; instrument?: { source?: unknown; id?: unknown } } | null | undefined;
  if (
    arg &&
    typeof arg.owner === 'string' &&
    typeof arg.amount === 'string' &&
    typeof arg.instrument?.source === 'string' &&
    typeof arg.instrument.id === 'string'
  )
    return { owner: arg.owner, admin: arg.instrument.source, id: arg.instrument.id, amount: arg.amount };
  return undefined;
}

/** The account this transaction re-created, by its stable id (an account without one matches by owner only). */
function touchesAccount(transaction: Transaction, account: DepositAccount): boolean {
  if (account.id === null) return true;
  return transaction.events.some((e) => {
    const created = e.CreatedEvent;
    if (!created || !sameEntity(created.templateId, TOKEN_TEMPLATES.depositAccount)) return false;
    const arg = created.createArgument as { id?: unknown } | null | undefined;
    return arg?.id === account.id;
  });
}

/** The mints to `account` after `fromOffset`: the holdings each CompleteDeposit created for the party. */
export function mintsIn(
  transactions: readonly Transaction[],
  party: string,
  instrument: InstrumentId,
  account: DepositAccount,
): Mint[] {
  const mints: Mint[] = [];
  for (const transaction of transactions) {
    const isMint = transaction.events.some(
      (e) =>
        e.ExercisedEvent?.choice === COMPLETE_DEPOSIT &&
        sameEntity(e.ExercisedEvent.templateId, TOKEN_TEMPLATES.depositAccount),
    );
    if (!isMint || !touchesAccount(transaction, account)) continue;
    for (const event of transaction.events) {
      const created = event.CreatedEvent;
      if (!created) continue;
      const facts = holdingFacts(created);
      if (!facts || facts.owner !== party || facts.admin !== instrument.admin || facts.id !== instrument.id)
        continue;
      mints.push({
        updateId: transaction.updateId,
        offset: transaction.offset,
        holdingCid: created.contractId,
        amount: facts.amount,
      });
    }
  }
  return mints;
}

export async function mintsSince(
  party: PartyLedger,
  instrument: InstrumentId,
  account: DepositAccount,
  fromOffset: number,
  signal: AbortSignal,
): Promise<Mint[]> {
  const transactions = await party.ledger.transactions(
    {
      parties: [party.party],
      beginExclusive: fromOffset,
      filters: [{ wildcard: true }, { interfaceId: TOKEN_INTERFACES.holding, includeInterfaceView: true }],
    },
    { signal },
  );
  return mintsIn(transactions, party.party, instrument, account);
}

export function mintedTotal(mints: readonly Mint[]): string {
  return sumAmounts(mints.map((m) => m.amount));
}

/** Whether the ledger shows the creation of this holding to the party (archived since or not). */
export async function holdingWasCreated(
  party: PartyLedger,
  holdingCid: string,
  signal: AbortSignal,
): Promise<boolean> {
  const events = await party.ledger.eventsByContractId(holdingCid, [party.party], { signal });
  return events?.created !== undefined && events.created !== null;
}
