import { amountValue, compareAmounts, formatAmount } from '../../clients/amount.js';
import type { Holdings, PartyLedger, WithdrawAccount } from '../../clients/party-ledger.js';
import { isMinterCredential } from '../../clients/party-ledger.js';
import { wireProblems } from '../../clients/schema-check.js';
import { burn } from '../../clients/token-flows.js';
import type { WithdrawRequestPayload } from '../../clients/token-wire.js';
import { TOKEN_TEMPLATES, sameEntity, withdrawRequestPayloadSchema } from '../../clients/token-wire.js';
import { defineStep, type ItemContext, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { selectAccount } from './accounts.js';
import { describeLimits, instrumentOf, limitProblem, requireAmount, selectTokens } from './common.js';
import { settle, submitIntents, submitOnce } from './submit.js';
import { pollUntil } from './wait.js';
import { tokenWithdrawDeclaration, type With } from './withdraw.declaration.js';

interface Observed {
  party: string;
  account: WithdrawAccount;
  holdings: Holdings;
  /** an earlier run's redemption of this very `with`, confirmed on the ledger */
  done: Outputs | undefined;
}

const BURN = 'burn';

function selectWithdrawAccount(w: With, accounts: WithdrawAccount[]): WithdrawAccount {
  if (w.destination !== undefined) {
    const matching = accounts.filter((a) => a.destinationBtcAddress === w.destination);
    if (matching.length === 0) {
      throw new StepError(`${w.party} has no withdraw account paying out to ${w.destination}`, {
        hint: 'create it first with token.withdraw-account',
      });
    }
    return selectAccount(matching, undefined, { kind: 'withdraw', party: w.party });
  }
  return selectAccount(accounts, w.account_id, { kind: 'withdraw', party: w.party });
}

async function observeWithdraw(ctx: StepContext, w: With): Promise<Observed> {
  requireAmount(w.amount, 'amount');
  const party = ctx.clients.party(w.party);
  const options = { signal: ctx.signal };
  const account = selectWithdrawAccount(w, await party.withdrawAccounts(options));
  const holdings = await party.holdings(instrumentOf(ctx), options);
  return { party: party.party, account, holdings, done: await earlierRedemption(ctx, party) };
}

/** The outputs of an earlier finished run of this step (same `with`) when the ledger shows its withdraw request. */
async function earlierRedemption(ctx: StepContext, party: PartyLedger): Promise<Outputs | undefined> {
  const previous = ctx.previous?.outputs;
  const request = previous?.['withdraw_request_cid'];
  if (!previous || typeof request !== 'string') return undefined;
  const events = await party.ledger.eventsByContractId(request, [party.party], { signal: ctx.signal });
  return events?.created ? previous : undefined;
}

interface RequestSeen {
  contractId: string;
  payload: WithdrawRequestPayload;
}

/** Withdraw requests the attestors created for the account after `fromOffset` (archived since or not). */
async function requestsSince(
  ctx: StepContext,
  party: PartyLedger,
  account: WithdrawAccount,
  fromOffset: number,
): Promise<RequestSeen[]> {
  const transactions = await party.ledger.transactions(
    {
      parties: [party.party],
      beginExclusive: fromOffset,
      filters: [{ templateId: TOKEN_TEMPLATES.withdrawRequest }],
      shape: 'ACS_DELTA',
    },
    { signal: ctx.signal },
  );
  const seen: RequestSeen[] = [];
  for (const transaction of transactions) {
    for (const event of transaction.events) {
      const created = event.CreatedEvent;
      if (!created || !sameEntity(created.templateId, TOKEN_TEMPLATES.withdrawRequest)) continue;
      if (wireProblems(withdrawRequestPayloadSchema, created.createArgument).length > 0) continue;
      const payload = created.createArgument as WithdrawRequestPayload;
      const source = payload.sourceAccountId ?? null;
      if (payload.owner !== party.party) continue;
      if (source !== null && source !== account.accountId && source !== account.id) continue;
      seen.push({ contractId: created.contractId, payload });
    }
  }
  return seen;
}

function outputsOf(
  w: With,
  account: WithdrawAccount,
  burnUpdateId: string | null,
  request: RequestSeen,
): Outputs {
  return {
    burned: w.amount,
    btc_txid: request.payload.btcTxId ?? null,
    withdraw_request_cid: request.contractId,
    request_amount: request.payload.amount,
    destination: request.payload.destinationBtcAddress,
    account_id: account.accountId,
    burn_update_id: burnUpdateId,
  };
}

/** After the burn: wait for the attestors' withdraw request and its Bitcoin transaction id. */
async function followPayout(
  ctx: ItemContext,
  w: With,
  account: WithdrawAccount,
  fromOffset: number,
  burnUpdateId: string | null,
): Promise<Outputs> {
  const party = ctx.clients.party(w.party);
  return pollUntil(ctx, w, `waiting for the payout of the ${w.amount} burned by ${w.party}`, async () => {
    const requests = await requestsSince(ctx, party, account, fromOffset);
    const paid = requests.find((r) => r.payload.btcTxId);
    if (paid) return { done: true, value: outputsOf(w, account, burnUpdateId, paid) };
    if (requests.length > 0) {
      return {
        done: false,
        seen: `withdraw request ${requests[0]?.contractId ?? ''} exists but carries no Bitcoin transaction yet`,
      };
    }
    const current = (await party.withdrawAccounts({ signal: ctx.signal })).find(
      (a) => a.accountId === account.accountId,
    );
    return {
      done: false,
      seen: `burned; the account's pending balance is ${current?.pendingBalance ?? 'unknown'}, no withdraw request yet`,
    };
  });
}

/**
 * token.withdraw: burns `amount` from the party's unlocked holdings through its withdraw account (limits and
 * balance checked before anything is sent), under a command id derived from the party, the account, the amount
 * and the reference; then follows the attestors' withdraw request to its Bitcoin transaction id. A crash or a
 * pause is settled from the burn's intent: its completion says whether it landed, and the wait carries on from
 * the offset recorded before it. In sync when an earlier run's withdraw request is on the ledger.
 */
export const tokenWithdraw = defineStep<With, Observed>({
  ...tokenWithdrawDeclaration,
  observe: observeWithdraw,
  plan(w, state) {
    if (state.done) return { changes: [], outputs: state.done };
    const outOfLimits = limitProblem('withdrawal', w.amount, state.account.limits);
    if (outOfLimits) {
      throw new StepError(`${outOfLimits} (${describeLimits(state.account.limits)})`, {
        hint: 'the ledger refuses a burn outside the account’s limits: withdraw an amount within them',
      });
    }
    if (compareAmounts(state.holdings.unlockedTotal, w.amount) < 0) {
      throw new StepError(
        `${w.party} holds ${state.holdings.unlockedTotal} unlocked, less than the ${w.amount} to withdraw`,
        {
          hint: `locked in pending offers or allocations: ${state.holdings.lockedTotal}; withdraw less, or wait until they settle`,
        },
      );
    }
    return {
      changes: [
        {
          action: 'delete',
          summary: `burn ${w.amount} of ${w.party}'s holdings through withdraw account ${state.account.accountId} (pays out to ${state.account.destinationBtcAddress})`,
          details: { party: state.party, amount: w.amount, account_id: state.account.accountId },
        },
        {
          action: 'wait',
          summary: 'wait for the attestors’ withdraw request and its Bitcoin transaction id',
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const party = ctx.clients.party(w.party);
    const tokens = selectTokens(state.holdings.unlocked, w.amount);
    if (tokens.length === 0)
      throw new StepError(`${w.party} holds too little to burn ${w.amount}`, { retryability: 'transient' });
    const credentialCids =
      w.credential_cids ??
      (await party.credentials({ signal: ctx.signal })).filter(isMinterCredential).map((c) => c.contractId);
    const commandId = ctx.commandId(BURN, {
      party: state.party,
      account: state.account.accountId,
      amount: formatAmount(amountValue(w.amount)),
      reference: w.reference ?? null,
    });
    const transaction = await submitOnce(
      ctx,
      party,
      { action: BURN, commandId, account_id: state.account.accountId, amount: w.amount },
      async () =>
        (
          await burn(
            party,
            ctx.clients.gateway(),
            {
              withdrawAccountCid: state.account.contractId,
              tokens: tokens.map((t) => t.contractId),
              amount: w.amount,
              credentialCids: credentialCids.length > 0 ? credentialCids : null,
            },
            { commandId, signal: ctx.signal },
          )
        ).transaction,
    );
    ctx.log('info', `burned ${w.amount} (${transaction.updateId}); waiting for the payout`);
    return followPayout(ctx, w, state.account, transaction.offset, transaction.updateId);
  },
  async reconcile(ctx, w, _item, intents) {
    const last = submitIntents(intents, BURN).at(-1);
    if (last === undefined) return { status: 'not-done', note: 'no burn was sent' };
    const party = ctx.clients.party(w.party);
    const settled = await settle(ctx, party, last);
    if (settled.status === 'rejected')
      return { status: 'not-done', note: `the ledger rejected the burn: ${settled.reason}` };
    if (settled.status === 'unknown')
      return {
        status: 'not-done',
        note: 'the burn did not land (sending it again under the same command id)',
      };
    const account = selectWithdrawAccount(w, await party.withdrawAccounts({ signal: ctx.signal }));
    ctx.log('info', 'the burn landed before; carrying on waiting for its payout');
    return {
      status: 'done',
      outputs: await followPayout(ctx, w, account, last.offset, settled.updateId ?? null),
    };
  },
});
