/**
 * RegistryClient against a loopback server answering like the token-standard registry (wrapped-api.md §7, the
 * token-standard documents): paths, bodies, the SDK-shaped quirks it must accept, and the retry policy of §7.5.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import {
  ADMIN,
  ALICE,
  BOB,
  IDS,
  SYNC,
  choiceContext,
  registryDisclosed,
} from '../../test/clients/ledger-bodies.js';
import { ServiceError } from '../errors.js';
import { HttpService } from './http.js';
import { RegistryClient } from './registry.js';
import type { Transfer } from './token-wire.js';

let fake: FakeService;
const agent = new Agent();
const base = `/api/token-standard/v0/registrars/${ADMIN}/registry`;

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => fake.reset());

function registry(timeoutMs = 5000, url = fake.url): RegistryClient {
  return new RegistryClient(
    new HttpService({ service: 'registry', baseUrl: url, dispatcher: agent, timeoutMs }),
    ADMIN,
  );
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

const transfer: Transfer = {
  sender: ALICE,
  receiver: BOB,
  amount: '0.02',
  instrumentId: { admin: ADMIN, id: 'CBTC' },
  requestedAt: '2026-04-10T09:04:59.812Z',
  executeBefore: '2026-04-17T09:04:59.812Z',
  inputHoldingCids: ['00c5eb', '00d371'],
  meta: { values: { 'splice.lfdecentralizedtrust.org/reason': '' } },
};

describe('metadata', () => {
  it('info, instruments (paged) and one instrument, under the registrar base with the admin’s :: as is', async () => {
    fake
      .on('GET', `${base}/metadata/v1/info`, {
        body: { adminId: ADMIN, supportedApis: { 'splice-api-token-metadata-v1': 1 } },
      })
      .on('GET', `${base}/metadata/v1/instruments`, {
        body: {
          instruments: [{ id: 'CBTC', name: 'CBTC', symbol: 'CBTC', decimals: 10, supportedApis: {} }],
          nextPageToken: 'n2',
        },
      })
      .on('GET', /\/metadata\/v1\/instruments\/.+/, {
        body: { id: 'C B/T', name: 'x', symbol: 'x', decimals: 8, totalSupply: '21.5', supportedApis: {} },
      });
    const client = registry();
    expect((await client.info()).adminId).toBe(ADMIN);
    expect((await client.instruments({ pageSize: 25, pageToken: 'a&b' })).nextPageToken).toBe('n2');
    expect((await client.instrument('C B/T')).totalSupply).toBe('21.5');
    expect(fake.requests.map((r) => r.url)).toEqual([
      `${base}/metadata/v1/info`,
      `${base}/metadata/v1/instruments?pageSize=25&pageToken=a%26b`,
      `${base}/metadata/v1/instruments/C%20B%2FT`,
    ]);
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });
});

describe('transfer factory', () => {
  it('sends the choice arguments with empty extraArgs and excludeDebugFields, and reads the factory', async () => {
    fake.on('POST', `${base}/transfer-instruction/v1/transfer-factory`, {
      body: {
        factoryId: '000b99',
        transferKind: 'offer',
        choiceContext: choiceContext([
          {
            ...registryDisclosed('000b99', IDS.factory),
            debugPackageName: null,
            debugPayload: null,
            debugCreatedAt: null,
          },
          registryDisclosed('00eca7', IDS.instrumentConfiguration, ''),
        ]),
      },
    });
    const factory = await registry().transferFactory({ expectedAdmin: ADMIN, transfer });
    expect(fake.requests[0]?.body).toEqual({
      choiceArguments: {
        expectedAdmin: ADMIN,
        transfer,
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
      excludeDebugFields: true,
    });
    expect(factory.factoryId).toBe('000b99');
    expect(factory.transferKind).toBe('offer');
    expect(factory.choiceContext.disclosedContracts).toEqual([
      {
        templateId: IDS.factory,
        contractId: '000b99',
        createdEventBlob: 'CgMyLjESgAQKRQDEqC3b',
        synchronizerId: SYNC,
      },
      {
        templateId: IDS.instrumentConfiguration,
        contractId: '00eca7',
        createdEventBlob: 'CgMyLjESgAQKRQDEqC3b',
        synchronizerId: '',
      },
    ]);
    expect(factory.choiceContext.choiceContextData.values).toHaveProperty(
      ['utility.digitalasset.com/instrument-configuration'],
      { tag: 'AV_ContractId', value: '00eca7' },
    );
  });

  it('quirks it accepts: no transferKind, an AV_ tag it does not know, a disclosed contract without synchronizer', async () => {
    fake.on('POST', `${base}/transfer-instruction/v1/transfer-factory`, {
      body: {
        factoryId: '000b99',
        choiceContext: {
          choiceContextData: { values: { 'x/new': { tag: 'AV_Future', value: 1 } } },
          disclosedContracts: [{ templateId: IDS.factory, contractId: '000b99', createdEventBlob: 'CgMy' }],
        },
      },
    });
    const factory = await registry().transferFactory({ expectedAdmin: ADMIN, transfer });
    expect(factory.transferKind).toBeUndefined();
    expect(factory.choiceContext.choiceContextData.values).toEqual({
      'x/new': { tag: 'AV_Future', value: 1 },
    });
    expect(factory.choiceContext.disclosedContracts).toEqual([
      { templateId: IDS.factory, contractId: '000b99', createdEventBlob: 'CgMy' },
    ]);
  });

  it('an answer without a factory id is an unexpected response', async () => {
    fake.on('POST', `${base}/transfer-instruction/v1/transfer-factory`, { body: { transferKind: 'offer' } });
    const error = await failure(registry().transferFactory({ expectedAdmin: ADMIN, transfer }));
    expect(error).toMatchObject({ retryability: 'permanent' });
    expect(error.message).toMatch(/unexpected response: \/factoryId is missing/);
  });
});

describe('choice contexts', () => {
  it.each(['accept', 'reject', 'withdraw'] as const)(
    '%s: its own path, the offer id encoded, the document’s body',
    async (choice) => {
      fake.on('POST', /\/choice-contexts\//, {
        body: choiceContext([registryDisclosed('00aa', IDS.factory)]),
      });
      const context = await registry().transferInstructionContext('00fa/dd?x', choice);
      expect(context.disclosedContracts).toHaveLength(1);
      expect(fake.requests[0]?.path).toBe(
        `${base}/transfer-instruction/v1/00fa%2Fdd%3Fx/choice-contexts/${choice}`,
      );
      expect(fake.requests[0]?.body).toEqual({ meta: {}, excludeDebugFields: true });
    },
  );

  it('allocation factory and allocation contexts', async () => {
    fake
      .on('POST', `${base}/allocation-instruction/v1/allocation-factory`, {
        body: { factoryId: '00af', choiceContext: choiceContext([]) },
      })
      .on('POST', /\/allocations\/v1\//, { body: choiceContext([]) });
    const allocation = {
      settlement: {
        executor: BOB,
        settlementRef: { id: 'trade-1', cid: null },
        requestedAt: '2026-04-10T09:00:00Z',
        allocateBefore: '2026-04-11T09:00:00Z',
        settleBefore: '2026-04-12T09:00:00Z',
        meta: { values: {} },
      },
      transferLegId: 'leg-0',
      transferLeg: {
        sender: ALICE,
        receiver: BOB,
        amount: '1',
        instrumentId: { admin: ADMIN, id: 'CBTC' },
        meta: { values: {} },
      },
    };
    const factory = await registry().allocationFactory({
      expectedAdmin: ADMIN,
      allocation,
      requestedAt: '2026-04-10T09:00:00Z',
      inputHoldingCids: ['00c5eb'],
    });
    expect(factory.factoryId).toBe('00af');
    expect(fake.requests[0]?.body).toMatchObject({
      choiceArguments: { allocation, extraArgs: { context: { values: {} }, meta: { values: {} } } },
      excludeDebugFields: true,
    });
    for (const choice of ['execute-transfer', 'withdraw', 'cancel'] as const)
      await registry().allocationContext('00al', choice);
    expect(fake.requests.slice(1).map((r) => r.path)).toEqual([
      `${base}/allocations/v1/00al/choice-contexts/execute-transfer`,
      `${base}/allocations/v1/00al/choice-contexts/withdraw`,
      `${base}/allocations/v1/00al/choice-contexts/cancel`,
    ]);
  });
});

describe('errors and the retry policy (every call is a read: what may answer otherwise later is transient)', () => {
  it.each([
    [400, 'Invalid transfer: amount must be positive', /refused the request/],
    [404, 'Transfer instruction 00fadd not found', /read the live state again/],
  ] as const)('%i {"error": …} is permanent with the registry’s text', async (status, text, hint) => {
    fake.on('POST', /\/choice-contexts\//, { status, body: { error: text } });
    const error = await failure(registry().transferInstructionContext('00fadd', 'accept'));
    expect(error).toMatchObject({ status, retryability: 'permanent', serviceMessage: text });
    expect(error.hint).toMatch(hint);
  });

  it.each([
    [409, 'Contract 00eca7 is being reassigned', /reassigned/],
    [429, 'too many requests', undefined],
    [500, 'internal error', undefined],
    [503, 'maintenance', undefined],
  ] as const)('%i {"error": …} is transient with the registry’s text', async (status, text, hint) => {
    fake.on('POST', /\/transfer-factory$/, { status, body: { error: text } });
    const error = await failure(registry().transferFactory({ expectedAdmin: ADMIN, transfer }));
    expect(error).toMatchObject({ status, retryability: 'transient', serviceMessage: text });
    if (hint) expect(error.hint).toMatch(hint);
    expect(error.backpressure !== undefined).toBe(status === 429);
  });

  it('a hung registry is bounded by the timeout and transient; so are a refused connection and a lost answer', async () => {
    fake.on('POST', /\/choice-contexts\//, { hang: true });
    const started = Date.now();
    const hung = await failure(registry(300).transferInstructionContext('00fadd', 'accept'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hung).toMatchObject({ retryability: 'transient', status: undefined });
    expect(hung.message).toMatch(/no response within/);

    fake.on('POST', /\/choice-contexts\//, { drop: true });
    expect(await failure(registry().transferInstructionContext('00fadd', 'reject'))).toMatchObject({
      retryability: 'transient',
    });

    const gone = await FakeService.start();
    const url = gone.url;
    await gone.close();
    expect(await failure(registry(2000, url).info())).toMatchObject({ retryability: 'transient' });
  });
});
