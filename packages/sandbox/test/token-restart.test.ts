/**
 * The embedded sandbox lives for one CLI run: work that falls due while no sandbox process runs (a mint after 6
 * confirmations, a withdraw request after a burn) is done by the next one when it starts — exactly once.
 */
import { rmSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { Api, startWorld } from '../testing/helpers.js';
import {
  Gateway,
  WITHDRAW_REQUEST,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  minterCredential,
  tokenWorld,
  walletFor,
} from '../testing/token-helpers.js';

describe('attestor work across sandbox restarts', () => {
  it('mints a deposit and creates a withdraw request that fell due while the sandbox was down, once', async () => {
    const first = await startWorld({ nodes: 2 });
    const stateDir = first.stateDir;
    let t = await tokenWorld(first);
    let minter = walletFor(first, t, t.minter);
    const gateway = new Gateway(first.sandbox.urls.gateway);
    const credential = await minterCredential(minter);
    const account = await createDepositAccount(minter, gateway, credential);
    const withdraw = await createWithdrawAccount(
      minter,
      gateway,
      credential,
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    );
    const { bitcoin_address: address } = await gateway.address(account.id);
    const balance = await minter.balance(t.instrument);
    const sent = await new Api(first.sandbox.urls.bitcoin, () => Promise.resolve(undefined)).post<{
      txid: string;
    }>('/send', {
      address,
      amount: '1.25',
    });
    expect(sent.status).toBe(200);
    const burned = await burn(
      minter,
      gateway,
      withdraw,
      (await minter.holdings(t.instrument)).map((h) => h.contractId),
      '0.25',
      credential,
    );
    expect(burned.status, burned.text).toBe(200);
    await first.sandbox.stop();
    // 6 blocks of 250 ms and the attestors' delays pass while nothing runs
    await new Promise((r) => setTimeout(r, 2500));
    const expected = new Decimal(balance).plus('1.25').minus('0.25').toFixed(10);
    try {
      for (let round = 0; round < 2; round++) {
        const again = await startWorld({ nodes: 2, stateDir });
        try {
          t = await tokenWorld(again);
          minter = walletFor(again, t, t.minter);
          expect(await minter.balance(t.instrument)).toBe(expected);
          const requests = (await minter.acs({ template: WITHDRAW_REQUEST })).map(
            (e) => e.contractEntry.JsActiveContract.createdEvent.createArgument,
          );
          expect(requests).toHaveLength(1);
          expect(requests[0]).toMatchObject({
            amount: '0.2500000000',
            btcTxId: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
          });
          const deposit = await new Api(again.sandbox.urls.bitcoin, () => Promise.resolve(undefined)).get<{
            status: string;
          }>(`/deposits/${sent.body.txid}`);
          expect(deposit.body.status).toBe('minted');
        } finally {
          await again.sandbox.stop();
        }
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
