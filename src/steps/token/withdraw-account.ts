import type { WithdrawAccount } from '../../clients/party-ledger.js';
import { createWithdrawAccount } from '../../clients/token-flows.js';
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { requireBitcoinAddress } from './common.js';
import { minterCredentialCids } from './minter.js';
import { submitOnce } from './submit.js';
import { tokenWithdrawAccountDeclaration, type With } from './withdraw-account.declaration.js';

interface Observed {
  party: string;
  /** the party's accounts paying out to `destination` */
  accounts: WithdrawAccount[];
}

async function observeAccounts(ctx: StepContext, w: With): Promise<Observed> {
  const party = ctx.clients.party(w.party);
  const accounts = (await party.withdrawAccounts({ signal: ctx.signal })).filter(
    (a) => a.destinationBtcAddress === w.destination,
  );
  accounts.sort((a, b) => a.accountId.localeCompare(b.accountId));
  return { party: party.party, accounts };
}

function outputs(account: WithdrawAccount): Outputs {
  return {
    account_id: account.accountId,
    contract_id: account.contractId,
    destination: account.destinationBtcAddress,
    pending_balance: account.pendingBalance,
    limits: account.limits === null ? null : { ...account.limits },
  };
}

/**
 * token.withdraw-account: in sync when the party owns a withdraw account paying out to `destination`; otherwise
 * `CBTCWithdrawAccountRules_CreateWithdrawAccount` on the gateway's rules with the party's Minter credentials,
 * under a command id derived from the party and the address.
 */
export const tokenWithdrawAccount = defineStep<With, Observed>({
  ...tokenWithdrawAccountDeclaration,
  async observe(ctx, w) {
    const observed = await observeAccounts(ctx, w);
    // an address an expression computed, before an account that can never change pays out to it
    if (observed.accounts.length === 0) requireBitcoinAddress(w.destination, ctx, 'destination');
    return observed;
  },
  plan(w, state) {
    const account = state.accounts[0];
    if (account) return { changes: [], outputs: outputs(account) };
    return {
      changes: [
        {
          action: 'create',
          summary: `create a withdraw account for ${w.party} paying out to ${w.destination}`,
          details: { party: state.party, destination: w.destination },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const party = ctx.clients.party(w.party);
    const credentialCids = await minterCredentialCids(party, w.credential_cids, ctx.signal);
    const commandId = ctx.commandId('create-withdraw-account', {
      party: state.party,
      destination: w.destination,
    });
    await submitOnce(
      ctx,
      party,
      { action: 'create-withdraw-account', commandId, destination: w.destination },
      async () => {
        const created = await createWithdrawAccount(
          party,
          ctx.clients.gateway(),
          { destinationBtcAddress: w.destination, credentialCids },
          { commandId, signal: ctx.signal },
        );
        return created.transaction;
      },
    );
    const account = (await observeAccounts(ctx, w)).accounts[0];
    if (!account) {
      throw new StepError(`the withdraw account of ${w.party} was created but the ledger does not list it`, {
        hint: 'run again: the step reads the ledger before it creates anything',
      });
    }
    return outputs(account);
  },
  async reconcile(ctx, w) {
    const account = (await observeAccounts(ctx, w)).accounts[0];
    if (account) return { status: 'done', outputs: outputs(account) };
    return {
      status: 'not-done',
      note: `the party has no withdraw account paying out to ${w.destination} yet`,
    };
  },
});
