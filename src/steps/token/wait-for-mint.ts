import { compareAmounts } from '../../clients/amount.js';
import type { BitcoinDeposit } from '../../clients/bitcoin.js';
import type { DepositAccount } from '../../clients/party-ledger.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { defineStep, type ItemContext, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { selectAccount } from './accounts.js';
import { describeLimits, instrumentOf, limitProblem, requireAmount } from './common.js';
import { holdingWasCreated, mintedTotal, mintsSince, type Mint } from './mints.js';
import { tokenWaitForMintDeclaration, type With } from './wait-for-mint.declaration.js';
import { pollUntil } from './wait.js';

function txidOf(w: With): string | undefined {
  return w.txid ?? undefined;
}

interface Observed {
  party: string;
  instrument: InstrumentId;
  account: DepositAccount;
  /** the deposit on the sandbox chain, when `txid` is given and the target has one */
  deposit: BitcoinDeposit | undefined;
  /** a mint that already happened (the deposit's holding, or the one an earlier run saw), checked on the ledger */
  minted: Outputs | undefined;
}

/** What the chain says of the deposit, for messages. */
function describeDeposit(deposit: BitcoinDeposit | undefined, txid: string | undefined): string {
  if (txid === undefined) return '';
  if (deposit === undefined) return `the chain does not know ${txid} (yet)`;
  const required = deposit.confirmationsRequired ?? 6;
  return `deposit ${deposit.txid.slice(0, 12)}… of ${deposit.amount} BTC: ${deposit.confirmations}/${required} confirmations, ${deposit.status ?? 'pending'}`;
}

function rejection(deposit: BitcoinDeposit | undefined): StepError | undefined {
  if (deposit?.status !== 'rejected') return undefined;
  return new StepError(
    `the attestors will not mint deposit ${deposit.txid} of ${deposit.amount} BTC: ${deposit.reason ?? 'no reason given'}`,
    {
      hint: 'a deposit outside the account’s limits, or to an address no account has, is never minted: ask the operators of the wrapped token to return it',
    },
  );
}

function outputsOf(
  w: With,
  account: DepositAccount,
  mints: readonly Mint[],
  txid: string | undefined,
): Outputs {
  return {
    minted: mintedTotal(mints),
    holding_cids: mints.map((m) => m.holdingCid),
    update_ids: [...new Set(mints.map((m) => m.updateId))],
    account_id: account.accountId,
    txid: txid ?? null,
    expected: w.amount,
  };
}

async function chainDeposit(ctx: StepContext, txid: string | undefined): Promise<BitcoinDeposit | undefined> {
  if (txid === undefined || ctx.target?.services?.bitcoin === undefined) return undefined;
  return ctx.clients.bitcoin().status(txid, { signal: ctx.signal });
}

/** A mint that already happened: the chain's holding for `txid`, or the holdings an earlier run of the step saw. */
async function earlierMint(
  ctx: StepContext,
  w: With,
  state: Omit<Observed, 'minted'>,
): Promise<Outputs | undefined> {
  const party = ctx.clients.party(w.party);
  const { deposit } = state;
  if (deposit?.status === 'minted' && deposit.holdingCid !== undefined) {
    if (await holdingWasCreated(party, deposit.holdingCid, ctx.signal)) {
      const mint: Mint = { updateId: '', offset: 0, holdingCid: deposit.holdingCid, amount: deposit.amount };
      return { ...outputsOf(w, state.account, [mint], txidOf(w)), update_ids: [] };
    }
  }
  const previous = ctx.previous?.outputs;
  const cids = previous?.['holding_cids'];
  if (previous && Array.isArray(cids) && typeof cids[0] === 'string') {
    if (await holdingWasCreated(party, cids[0], ctx.signal)) return previous;
  }
  return undefined;
}

async function observeMint(ctx: StepContext, w: With): Promise<Observed> {
  requireAmount(w.amount, 'amount');
  const party = ctx.clients.party(w.party);
  const instrument = instrumentOf(ctx);
  const accounts = await party.depositAccounts({ signal: ctx.signal });
  const account = selectAccount(accounts, w.account_id, { kind: 'deposit', party: w.party });
  const deposit = await chainDeposit(ctx, txidOf(w));
  const base = { party: party.party, instrument, account, deposit };
  return { ...base, minted: await earlierMint(ctx, w, base) };
}

/** Poll the ledger (and the chain) for mints to the account after `fromOffset`. */
async function waitForMint(ctx: ItemContext, w: With, state: Observed, fromOffset: number): Promise<Outputs> {
  const party = ctx.clients.party(w.party);
  return pollUntil(
    ctx,
    w,
    `waiting for ${w.amount} to be minted to ${w.party}'s deposit account`,
    async () => {
      const deposit = await chainDeposit(ctx, txidOf(w));
      const refused = rejection(deposit);
      if (refused) throw refused;
      const mints = await mintsSince(party, state.instrument, state.account, fromOffset, ctx.signal);
      const total = mintedTotal(mints);
      if (mints.length > 0 && compareAmounts(total, w.amount) >= 0)
        return { done: true, value: outputsOf(w, state.account, mints, txidOf(w)) };
      if (deposit?.status === 'minted' && deposit.holdingCid !== undefined) {
        // minted before this wait began (a fast chain): the chain names the holding, the ledger confirms it
        if (await holdingWasCreated(party, deposit.holdingCid, ctx.signal)) {
          const mint: Mint = {
            updateId: '',
            offset: 0,
            holdingCid: deposit.holdingCid,
            amount: deposit.amount,
          };
          return { done: true, value: { ...outputsOf(w, state.account, [mint], txidOf(w)), update_ids: [] } };
        }
      }
      const chain = describeDeposit(deposit, txidOf(w));
      return {
        done: false,
        seen: `${chain ? `${chain}; ` : ''}minted to the account since offset ${fromOffset}: ${total} of ${w.amount}`,
      };
    },
  );
}

/**
 * token.wait-for-mint: done when mints to the party's deposit account since the wait began add up to `amount`
 * (read from the ledger: the holdings `CBTCDepositAccount_CompleteDeposit` created). The offset it started from is
 * recorded, so a paused or crashed run carries on from it. An amount outside the account's limits, or a deposit the
 * sandbox's attestors refused, fails at once instead of waiting forever. In sync when the chain's deposit, or the
 * holdings an earlier run saw, are on the ledger.
 */
export const tokenWaitForMint = defineStep<With, Observed>({
  ...tokenWaitForMintDeclaration,
  observe: observeMint,
  // the deposit by its id only: its confirmations grow with every block
  planState: ({ party, instrument, account, deposit, minted }) => ({
    party,
    instrument,
    account: account.contractId,
    limits: account.limits,
    deposit: deposit?.txid ?? null,
    minted: minted ?? null,
  }),
  plan(w, state) {
    const outOfLimits = limitProblem('deposit', w.amount, state.account.limits);
    if (outOfLimits && !state.minted) {
      throw new StepError(
        `${outOfLimits} (${describeLimits(state.account.limits)}): the attestors will not mint it`,
        {
          hint: 'deposit an amount within the limits; BTC already sent outside them is not minted (ask the operators of the wrapped token)',
        },
      );
    }
    const refused = rejection(state.deposit);
    if (refused && !state.minted) throw refused;
    const depositOutOfLimits =
      state.deposit && limitProblem('deposit', state.deposit.amount, state.account.limits);
    if (depositOutOfLimits && !state.minted) {
      throw new StepError(
        `deposit ${state.deposit?.txid ?? ''}: ${depositOutOfLimits} (${describeLimits(state.account.limits)}): the attestors will not mint it`,
        {
          hint: 'BTC sent outside the limits is not minted: ask the operators of the wrapped token to return it',
        },
      );
    }
    if (state.minted) return { changes: [], outputs: state.minted };
    const chain = describeDeposit(state.deposit, txidOf(w));
    return {
      changes: [
        {
          action: 'wait',
          summary: `wait until ${w.amount} is minted to ${w.party}'s deposit account ${state.account.accountId}${chain ? ` (${chain})` : ''}`,
          details: { party: state.party, account_id: state.account.accountId, amount: w.amount },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const fromOffset = await ctx.clients.party(w.party).ledger.ledgerEnd({ signal: ctx.signal });
    await ctx.record({
      action: 'wait-for-mint',
      account_id: state.account.accountId,
      amount: w.amount,
      from_offset: fromOffset,
    });
    return waitForMint(ctx, w, state, fromOffset);
  },
  async reconcile(ctx, w, _item, intents) {
    const started = intents.find((i) => i.action === 'wait-for-mint');
    const fromOffset = started?.['from_offset'];
    if (typeof fromOffset !== 'number') return { status: 'not-done', note: 'no wait was under way' };
    const state = await observeMint(ctx, w);
    if (state.minted) return { status: 'done', outputs: state.minted };
    ctx.log('info', `carrying on the wait begun at offset ${fromOffset}`);
    return { status: 'done', outputs: await waitForMint(ctx, w, state, fromOffset) };
  },
});
