import type { DepositAccount } from '../../clients/party-ledger.js';
import { createDepositAccount } from '../../clients/token-flows.js';
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { describeLimits } from './common.js';
import { tokenDepositAccountDeclaration, type With } from './deposit-account.declaration.js';
import { minterCredentialCids } from './minter.js';
import { submitOnce } from './submit.js';

interface Observed {
  party: string;
  accounts: DepositAccount[];
}

async function observeAccounts(ctx: StepContext, w: With): Promise<Observed> {
  const party = ctx.clients.party(w.party);
  const accounts = await party.depositAccounts({ signal: ctx.signal });
  // attestors re-create an account on every mint: its id is stable, its contract id is not
  accounts.sort((a, b) => a.accountId.localeCompare(b.accountId));
  return { party: party.party, accounts };
}

export function depositAccountOutputs(account: DepositAccount, count: number): Outputs {
  return {
    account_id: account.accountId,
    contract_id: account.contractId,
    last_processed_block: account.lastProcessedBitcoinBlock,
    limits: account.limits === null ? null : { ...account.limits },
    accounts: count,
  };
}

/**
 * token.deposit-account: in sync when the party owns a deposit account (the first by account id when it owns
 * several); otherwise `CBTCDepositAccountRules_CreateDepositAccount` on the gateway's rules, presenting the party's
 * Minter credentials, under a command id derived from the party.
 */
export const tokenDepositAccount = defineStep<With, Observed>({
  ...tokenDepositAccountDeclaration,
  observe: observeAccounts,
  plan(w, state) {
    const account = state.accounts[0];
    if (account) return { changes: [], outputs: depositAccountOutputs(account, state.accounts.length) };
    return {
      changes: [
        {
          action: 'create',
          summary: `create a deposit account for ${w.party} (${state.party})`,
          details: { party: state.party },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const party = ctx.clients.party(w.party);
    const credentialCids = await minterCredentialCids(party, w.credential_cids, ctx.signal);
    const commandId = ctx.commandId('create-deposit-account', { party: state.party });
    await submitOnce(ctx, party, { action: 'create-deposit-account', commandId }, async () => {
      const created = await createDepositAccount(party, ctx.clients.gateway(), credentialCids, {
        commandId,
        signal: ctx.signal,
      });
      return created.transaction;
    });
    const after = await observeAccounts(ctx, w);
    const account = after.accounts[0];
    if (!account) {
      throw new StepError(`the deposit account of ${w.party} was created but the ledger does not list it`, {
        hint: 'run again: the step reads the ledger before it creates anything',
      });
    }
    ctx.log('info', `deposit account ${account.accountId} (${describeLimits(account.limits)})`);
    return depositAccountOutputs(account, after.accounts.length);
  },
  async reconcile(ctx, w) {
    const state = await observeAccounts(ctx, w);
    const account = state.accounts[0];
    if (account) return { status: 'done', outputs: depositAccountOutputs(account, state.accounts.length) };
    return { status: 'not-done', note: 'the party has no deposit account yet' };
  },
});
