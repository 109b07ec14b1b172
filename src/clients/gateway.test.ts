/**
 * GatewayClient against a loopback server answering like the wrapped-token gateway (wrapped-api.md §6).
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import { IDS } from '../../test/clients/ledger-bodies.js';
import { ServiceError } from '../errors.js';
import { GatewayClient, UnknownDepositAccountError, disclosedFromGateway } from './gateway.js';
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

const gateway = () =>
  new GatewayClient(
    new HttpService({ service: 'gateway', baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 }),
  );

const info = (contractId: string, templateId: string) => ({
  contract_id: contractId,
  template_id: templateId,
  created_event_blob: 'CgMyLjES',
});

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

describe('gateway', () => {
  it('account rules, token-standard contracts and address data, read with their field names', async () => {
    fake
      .on('GET', '/wrapped/v1/account-contract-rules', {
        body: {
          da_rules: info('0085', IDS.depositRules),
          wa_rules: info('00c0', IDS.withdrawRules),
          extra: 1,
        },
      })
      .on('GET', '/wrapped/v1/token-standard-contracts', {
        body: {
          burn_mint_factory: info('00b1', 'x:M:BurnMintFactory'),
          instrument_configuration: info('00b2', IDS.instrumentConfiguration),
          issuer_credential: info('00b3', IDS.credential),
        },
      })
      .on('GET', '/wrapped/v1/address-calculation-data', {
        body: {
          chains: [
            { chain: 'devnet', xpub: 'tpubD6', addresses: [{ id: 'a1', address_for_verification: 'tb1p' }] },
          ],
          bitcoin_network: 'testnet',
        },
      });
    const client = gateway();
    const rules = await client.accountContractRules();
    expect(rules.da_rules.contract_id).toBe('0085');
    expect(disclosedFromGateway(rules.wa_rules)).toEqual({
      templateId: IDS.withdrawRules,
      contractId: '00c0',
      createdEventBlob: 'CgMyLjES',
      synchronizerId: '',
    });
    expect((await client.tokenStandardContracts()).issuer_credential.contract_id).toBe('00b3');
    expect((await client.addressCalculationData()).chains[0]?.addresses[0]?.id).toBe('a1');
    expect(fake.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it('a bitcoin address by encoded account id; a partial attestor answer is kept as is', async () => {
    fake.on('GET', /^\/wrapped\/v1\/bitcoin-address\//, {
      body: { bitcoin_address: 'bcrt1pxyz', attestors_requested: 3, attestors_responded: 2 },
    });
    expect(await gateway().bitcoinAddress('6f1c/..%')).toEqual({
      bitcoin_address: 'bcrt1pxyz',
      attestors_requested: 3,
      attestors_responded: 2,
    });
    expect(fake.requests[0]?.path).toBe('/wrapped/v1/bitcoin-address/6f1c%2F..%25');
  });

  it('404 on bitcoin-address is an unknown account: its own permanent error', async () => {
    fake.on('GET', /^\/wrapped\/v1\/bitcoin-address\//, {
      status: 404,
      body: { error: 'account not found' },
    });
    const error = await failure(gateway().bitcoinAddress('a1'));
    expect(error).toBeInstanceOf(UnknownDepositAccountError);
    expect(error).toMatchObject({ status: 404, retryability: 'permanent', accountId: 'a1' });
    expect(error.hint).toMatch(/contract id when id is null/);
  });

  it('5xx is transient (a read), a missing field is an unexpected response', async () => {
    fake.on('GET', '/wrapped/v1/account-contract-rules', { status: 502, text: 'Bad Gateway' });
    expect(await failure(gateway().accountContractRules())).toMatchObject({ retryability: 'transient' });
    fake.on('GET', '/wrapped/v1/account-contract-rules', {
      body: { da_rules: info('0085', IDS.depositRules) },
    });
    const error = await failure(gateway().accountContractRules());
    expect(error.message).toContain('/wa_rules is missing');
  });
});
