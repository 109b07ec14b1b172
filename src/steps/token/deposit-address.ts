import type { BitcoinAddress } from '../../clients/gateway.js';
import type { DepositAccount } from '../../clients/party-ledger.js';
import { defineStep, type Outputs } from '../contract.js';
import { StepError } from '../../errors.js';
import { selectAccount } from './accounts.js';
import { describeLimits, limitProblem } from './common.js';
import { tokenDepositAddressDeclaration, type With } from './deposit-address.declaration.js';

interface Observed {
  account: DepositAccount;
  address: BitcoinAddress;
}

function outputs(state: Observed): Outputs {
  return {
    address: state.address.bitcoin_address,
    account_id: state.account.accountId,
    attestors_requested: state.address.attestors_requested,
    attestors_responded: state.address.attestors_responded,
    limits: state.account.limits === null ? null : { ...state.account.limits },
  };
}

/**
 * token.deposit-address: reads the deposit account from the ledger and asks the gateway for its address
 * (`GET /wrapped/v1/bitcoin-address/{accountId}`, the account's id or, for an account without one, its contract
 * id). Changes nothing; a partial answer of the attestors is reported.
 */
export const tokenDepositAddress = defineStep<With, Observed>({
  ...tokenDepositAddressDeclaration,
  async observe(ctx, w) {
    const party = ctx.clients.party(w.party);
    const accounts = await party.depositAccounts({ signal: ctx.signal });
    const account = selectAccount(accounts, w.account_id, { kind: 'deposit', party: w.party });
    const address = await ctx.clients.gateway().bitcoinAddress(account.accountId, { signal: ctx.signal });
    const partial =
      address.attestors_responded < address.attestors_requested
        ? ` (only ${address.attestors_responded} of ${address.attestors_requested} attestors answered)`
        : '';
    ctx.log(
      partial ? 'warn' : 'info',
      `deposit address of ${w.party}: ${address.bitcoin_address}${partial}; ${describeLimits(account.limits)}`,
    );
    return { account, address };
  },
  plan(w, state) {
    const problem =
      w.amount === undefined ? undefined : limitProblem('deposit', w.amount, state.account.limits);
    if (problem) {
      throw new StepError(
        `${problem} (${describeLimits(state.account.limits)}): the attestors would not mint it`,
        {
          hint: 'deposit an amount within the account’s limits',
        },
      );
    }
    return { changes: [], outputs: outputs(state) };
  },
  apply: (_ctx, _w, _item, _plan, state) => Promise.resolve(outputs(state)),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
