import { compareAmounts } from '../../clients/amount.js';
import type { BitcoinDeposit } from '../../clients/bitcoin.js';
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { requireBitcoinAddress } from '../token/common.js';
import { NO_CHAIN, sandboxBtcSendDeclaration, type With } from './btc-send.declaration.js';

interface Observed {
  /** an earlier payment of this amount to this address */
  sent: BitcoinDeposit | undefined;
}

async function findPayment(ctx: StepContext, w: With): Promise<BitcoinDeposit | undefined> {
  const deposits = await ctx.clients.bitcoin().depositsTo(w.address, { signal: ctx.signal });
  return deposits.find((d) => d.address === w.address && compareAmounts(d.amount, w.amount) === 0);
}

function outputs(deposit: BitcoinDeposit): Outputs {
  return {
    txid: deposit.txid,
    address: deposit.address,
    amount: deposit.amount,
    block: deposit.block ?? null,
    confirmations: deposit.confirmations,
    confirmations_required: deposit.confirmationsRequired ?? null,
    status: deposit.status ?? null,
  };
}

/**
 * sandbox.btc-send: one payment of `amount` to `address` on the simulated chain. The chain is the truth: in sync
 * when it holds a payment of this amount to this address (so a second run pays nothing); after a crash the
 * chain's payments to the address say whether the send happened.
 */
export const sandboxBtcSend = defineStep<With, Observed>({
  ...sandboxBtcSendDeclaration,
  async observe(ctx, w) {
    // a step with an `if:` is not held to the target statically: it refuses here, before anything is sent
    if (ctx.target?.services?.bitcoin === undefined)
      throw new StepError(NO_CHAIN.message, { hint: NO_CHAIN.hint });
    requireBitcoinAddress(w.address, ctx, 'address');
    return { sent: await findPayment(ctx, w) };
  },
  // the payment, not its confirmations: they grow with every block
  planState: ({ sent }) => (sent ? { txid: sent.txid, address: sent.address, amount: sent.amount } : null),
  plan(w, state) {
    if (state.sent) return { changes: [], outputs: outputs(state.sent) };
    return {
      changes: [
        {
          action: 'create',
          summary: `pay ${w.amount} BTC to ${w.address} on the sandbox chain`,
          details: { address: w.address, amount: w.amount },
        },
      ],
    };
  },
  async apply(ctx, w) {
    await ctx.record({ action: 'btc-send', address: w.address, amount: w.amount });
    const deposit = await ctx.clients.bitcoin().send(w.address, w.amount, { signal: ctx.signal });
    ctx.log('info', `paid ${deposit.amount} BTC to ${deposit.address}: ${deposit.txid}`);
    return outputs(deposit);
  },
  async reconcile(ctx, w) {
    const sent = await findPayment(ctx, w);
    if (sent) return { status: 'done', outputs: outputs(sent) };
    return { status: 'not-done', note: 'the chain holds no payment of this amount to the address' };
  },
});
