/**
 * The sandbox-only Bitcoin API (no real service has it): send coins to an address, look at deposits and whether
 * they were minted, mine blocks, see the payouts of withdrawals. Errors are `{"error": "<text>"}`.
 */
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { json } from '../http/reply.js';
import { type ServiceRoute, ServiceFailure, jsonBody } from '../service/route.js';
import type { Attestors } from './attestors.js';
import { CONFIRMATIONS } from './attestors.js';
import type { BitcoinChain, Deposit } from './chain.js';

const BTC_AMOUNT = /^\d{1,8}(\.\d{1,8})?$/;
const ADDRESS = /^(bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}$/;

const bad = (error: string): ServiceFailure => new ServiceFailure(400, { error });

function describe(chain: BitcoinChain, attestors: Attestors, d: Deposit): Record<string, unknown> {
  const account = attestors.accountOfAddress(d.address);
  const due = attestors.dueAt(d);
  const confirmations = chain.confirmations(d);
  return {
    txid: d.txid,
    vout: d.vout,
    address: d.address,
    amount: d.amount,
    // as a chain explorer reports it: no block until the transaction is mined
    block: confirmations > 0 ? d.height : null,
    confirmations,
    confirmationsRequired: CONFIRMATIONS,
    status: d.status,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    ...(d.holdingCid !== undefined ? { holdingCid: d.holdingCid } : {}),
    ...(d.status === 'pending' && due !== undefined ? { mintDueAt: new Date(due).toISOString() } : {}),
    depositAccount:
      account === undefined
        ? null
        : { contractId: account.cid, id: account.arg.id, owner: account.arg.owner },
  };
}

export function bitcoinRoutes(chain: BitcoinChain, attestors: Attestors): ServiceRoute[] {
  const catchUp = (): Promise<void> => attestors.catchUp();
  return [
    {
      method: 'GET',
      template: '/status',
      handle: async () => {
        await catchUp();
        return json(200, attestors.status());
      },
    },
    {
      method: 'POST',
      template: '/send',
      handle: async ({ body }) => {
        const request = jsonBody(body, bad) as { address?: unknown; amount?: unknown };
        if (typeof request.address !== 'string' || !ADDRESS.test(request.address)) {
          throw bad(
            '`address` must be a bech32 Bitcoin address (a deposit address from GET /wrapped/v1/bitcoin-address/{accountId})',
          );
        }
        if (
          typeof request.amount !== 'string' ||
          !BTC_AMOUNT.test(request.amount) ||
          new Decimal(request.amount).lessThanOrEqualTo(0)
        ) {
          throw bad(
            '`amount` must be a positive BTC amount as a string with at most 8 decimals, e.g. "0.01"',
          );
        }
        await catchUp();
        const now = Date.now();
        const txid = createHash('sha256')
          .update(`ledgerbook-sandbox/btc-tx/${chain.txCount()}/${now}/${request.address}`)
          .digest('hex');
        const deposit: Deposit = {
          txid,
          vout: 0,
          address: request.address,
          amount: new Decimal(request.amount).toFixed(8),
          sentAtMs: now,
          height: chain.height(now) + 1,
          status: 'pending',
        };
        chain.recordDeposit(deposit);
        return json(200, describe(chain, attestors, deposit));
      },
    },
    {
      method: 'GET',
      template: '/deposits',
      handle: async ({ query }) => {
        await catchUp();
        const address = query.get('address');
        const deposits = chain.allDeposits().filter((d) => address === null || d.address === address);
        return json(200, { deposits: deposits.map((d) => describe(chain, attestors, d)) });
      },
    },
    {
      method: 'GET',
      template: '/deposits/{txid}',
      handle: async ({ params }) => {
        await catchUp();
        const deposit = chain.deposit(params.txid ?? '');
        if (deposit === undefined) throw new ServiceFailure(404, { error: `no deposit ${params.txid}` });
        return json(200, describe(chain, attestors, deposit));
      },
    },
    {
      method: 'POST',
      template: '/mine',
      handle: async ({ body }) => {
        const request = (body.length === 0 ? {} : jsonBody(body, bad)) as { blocks?: unknown };
        const blocks = request.blocks ?? 1;
        if (!Number.isInteger(blocks) || (blocks as number) < 1 || (blocks as number) > 10_000) {
          throw bad('`blocks` must be a whole number from 1 to 10000');
        }
        if (chain.stalled)
          throw new ServiceFailure(409, {
            error: 'the chain is stalled (a stall-chain fault is active): no blocks can be mined',
          });
        const height = chain.mine(blocks as number);
        await catchUp();
        return json(200, { height });
      },
    },
    {
      method: 'GET',
      template: '/payouts',
      handle: async () => {
        await catchUp();
        return json(200, { payouts: chain.allPayouts() });
      },
    },
  ];
}
