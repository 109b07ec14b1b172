/**
 * FaucetClient and the sandbox's BitcoinClient against a loopback server.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import { ALICE } from '../../test/clients/ledger-bodies.js';
import { ServiceError } from '../errors.js';
import { BITCOIN_WIRE, BitcoinClient } from './bitcoin.js';
import { FaucetClient } from './faucet.js';
import { HttpService } from './http.js';

let fake: FakeService;
const agent = new Agent();

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => fake.reset());

const http = (service: string) =>
  new HttpService({ service, baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 });

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

describe('faucet', () => {
  it('asks with the faucet’s field names and returns its message', async () => {
    fake.on('POST', '/api/faucet', { body: { success: true, message: 'offer created' } });
    const faucet = new FaucetClient(http('faucet'));
    expect(await faucet.request({ network: 'devnet', recipientParty: ALICE, amount: '0.001' })).toBe(
      'offer created',
    );
    expect(fake.requests[0]?.body).toEqual({ network: 'devnet', recipient_party: ALICE, amount: '0.001' });
  });

  it('success:false surfaces the message; a lost answer is ambiguous (it creates an offer)', async () => {
    fake.on('POST', '/api/faucet', { body: { success: false, message: 'rate limited: try again in 1h' } });
    const faucet = new FaucetClient(http('faucet'));
    const refused = await failure(faucet.request({ network: 'devnet', recipientParty: ALICE, amount: '1' }));
    expect(refused).toMatchObject({
      retryability: 'permanent',
      serviceMessage: 'rate limited: try again in 1h',
    });
    fake.on('POST', '/api/faucet', { drop: true });
    expect(
      await failure(faucet.request({ network: 'devnet', recipientParty: ALICE, amount: '1' })),
    ).toMatchObject({ retryability: 'ambiguous' });
  });

  it('refuses an amount with 11 fraction digits before sending', async () => {
    const faucet = new FaucetClient(http('faucet'));
    const error = await failure(
      faucet.request({ network: 'devnet', recipientParty: ALICE, amount: '0.00000000001' }),
    );
    expect(error.message).toContain('more than 10 fraction digits');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('sandbox bitcoin chain', () => {
  it('sends to an address and looks the deposit up by its encoded id; unknown is undefined', async () => {
    const deposit = {
      txid: 'ab'.repeat(32),
      vout: 0,
      address: 'bcrt1pxyz',
      amount: '0.50000000',
      block: null,
      confirmations: 0,
      confirmationsRequired: 6,
      status: 'pending',
    };
    fake
      .on(BITCOIN_WIRE.send.method, BITCOIN_WIRE.send.path, { body: deposit })
      .on('GET', /^\/deposits\//, (r) =>
        r.path.endsWith('ab'.repeat(32))
          ? { body: { ...deposit, confirmations: 6, block: 106, status: 'minted' } }
          : { status: 404, body: { error: 'no deposit' } },
      );
    const chain = new BitcoinClient(http('bitcoin'));
    expect(await chain.send('bcrt1pxyz', '0.5')).toEqual(deposit);
    expect(fake.requests[0]?.body).toEqual({ address: 'bcrt1pxyz', amount: '0.5' });
    expect(await chain.status('ab'.repeat(32))).toMatchObject({ confirmations: 6, status: 'minted' });
    expect(await chain.status('no/such')).toBeUndefined();
    expect(fake.requests[2]?.path).toBe('/deposits/no%2Fsuch');
  });

  it('refuses a BTC amount with more than 8 fraction digits before sending', async () => {
    const error = await failure(new BitcoinClient(http('bitcoin')).send('bcrt1pxyz', '0.000000001'));
    expect(error.message).toContain('more than 8 fraction digits');
    expect(fake.requests).toHaveLength(0);
  });
});
