import type { FromSchema } from 'json-schema-to-ts';
import type { DepositAccount } from '../../clients/party-ledger.js';
import { createDepositAccount } from '../../clients/token-flows.js';
import { StepError } from '../../errors.js';
import { defineStep, type Outputs, type StepContext } from '../../engine/step.js';
import { checkActingParty, describeLimits, partyNameSchema } from './common.js';
import { credentialCidsSchema, minterCredentialCids } from './minter.js';
import { submitOnce } from './submit.js';

const withSchema = {
  type: 'object',
  description:
    'The party’s deposit account (wrapped-api.md §8.4): the account BTC deposits are minted through. In sync when the party has one; otherwise it is created with the party’s Minter credentials.',
  properties: {
    party: partyNameSchema,
    credential_cids: credentialCidsSchema,
  },
  required: ['party'],
  additionalProperties: false,
} as const;

type With = FromSchema<typeof withSchema>;

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
  kind: 'token.deposit-account',
  summary: 'Make sure the party has a deposit account (create it with its Minter credentials).',
  withSchema,
  outputs: {
    account_id:
      'the account id the gateway knows it by (its `id`, or its contract id for an account without one)',
    contract_id: 'its current contract id (attestors re-create the account on every mint)',
    last_processed_block: 'the last Bitcoin block the attestors processed for it',
    limits: 'the account’s deposit limits {minAmount, maxAmount}, or null',
    accounts: 'how many deposit accounts the party owns',
  },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
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
