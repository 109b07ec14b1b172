import type { FromSchema } from 'json-schema-to-ts';
import type { BitcoinDeposit } from '../../clients/bitcoin.js';
import { compareAmounts, isZeroAmount } from '../../clients/amount.js';
import { defineStep, type Outputs, type StaticFinding, type StepContext } from '../../engine/step.js';
import { StepError } from '../../errors.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { btcAddressSchema, checkBitcoinAddress, requireBitcoinAddress } from '../token/common.js';

const withSchema = {
  type: 'object',
  description:
    'Sandbox only: pay BTC to an address on the sandbox’s simulated Bitcoin chain (`services.bitcoin`), e.g. to a deposit address so the attestors mint it. A real network has no such service: send the BTC from a wallet (the playbooks put a core.approve gate there instead).',
  properties: {
    address: {
      ...btcAddressSchema,
      description: 'The address to pay, e.g. `${{ steps.address.outputs.address }}`.',
    },
    amount: {
      type: 'string',
      pattern: '^\\d+(\\.\\d{1,8})?$',
      description: 'BTC to pay: a decimal string with at most 8 fraction digits, e.g. "0.05".',
    },
  },
  required: ['address', 'amount'],
  additionalProperties: false,
} as const;

type With = FromSchema<typeof withSchema>;

const NO_CHAIN = {
  message:
    'sandbox.btc-send needs the sandbox’s Bitcoin chain, and this target names none (services.bitcoin)',
  hint: 'run it against the sandbox; on a real network send the BTC from a wallet (guard the step with `if:`)',
};

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
  kind: 'sandbox.btc-send',
  summary: 'Sandbox only: pay BTC to an address on the simulated Bitcoin chain (once).',
  withSchema,
  outputs: {
    txid: 'the Bitcoin transaction id (follow it with token.wait-for-mint `txid`)',
    address: 'the address paid',
    amount: 'the BTC amount paid (8 fraction digits)',
    block: 'the block it was mined in, or null while unconfirmed',
    confirmations: 'its confirmations when the step looked',
    confirmations_required: 'the confirmations the attestors need before they mint (6)',
    status: 'what the attestors made of it: pending, minted or rejected',
  },
  needsTarget: true,
  check(w, target) {
    const findings: StaticFinding[] = [];
    if (target !== undefined && target.services?.bitcoin === undefined)
      findings.push({ pointer: '', ...NO_CHAIN, onlyIfRuns: true });
    if (typeof w.amount === 'string' && !hasExpression(w.amount) && isZeroAmount(w.amount))
      findings.push({ pointer: '/amount', message: 'the amount must be more than 0' });
    findings.push(...checkBitcoinAddress(w.address, target, '/address'));
    return findings;
  },
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
