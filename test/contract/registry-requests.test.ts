/**
 * Contract: every request the registry client sends validates against the token-standard documents (metadata,
 * transfer instruction, allocation, allocation instruction), and the answers its tests rely on against their
 * responses. Also the answers the reference says real registries give that the documents would refuse, which the
 * client must still accept.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpService } from '../../src/clients/http.js';
import { REGISTRY_PATHS, RegistryClient } from '../../src/clients/registry.js';
import { FakeService, type Recorded } from '../clients/fake-service.js';
import { ADMIN, ALICE, BOB, IDS, choiceContext, registryDisclosed } from '../clients/ledger-bodies.js';
import { validateRequest, validateResponse, type SpecName } from './openapi.js';

const base = `/api/token-standard/v0/registrars/${ADMIN}`;
let fake: FakeService;
const agent = new Agent();
const answers: Array<{ method: string; url: string; body: unknown }> = [];
/** the requests of every call of the client, once */
const sent: Recorded[] = [];

const transfer = {
  sender: ALICE,
  receiver: BOB,
  amount: '0.02',
  instrumentId: { admin: ADMIN, id: 'CBTC' },
  requestedAt: '2026-04-10T09:04:59.812Z',
  executeBefore: '2026-04-17T09:04:59.812Z',
  inputHoldingCids: ['00c5eb'],
  meta: { values: { 'splice.lfdecentralizedtrust.org/reason': '' } },
};
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

/** The document that declares a registry path (relative to the registrar base). */
function specOf(path: string): SpecName {
  if (path.startsWith('/registry/metadata/')) return 'token-metadata';
  if (path.startsWith('/registry/transfer-instruction/')) return 'token-transfer-instruction';
  if (path.startsWith('/registry/allocation-instruction/')) return 'token-allocation-instruction';
  return 'token-allocation';
}

function answer(method: string, path: string | RegExp, body: unknown): void {
  fake.on(method, path, (r: Recorded) => {
    answers.push({ method, url: r.url.slice(base.length), body });
    return { body };
  });
}

const registry = () =>
  new RegistryClient(
    new HttpService({ service: 'registry', baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 }),
    ADMIN,
  );

beforeAll(async () => {
  fake = await FakeService.start();
  const ctx = choiceContext([
    registryDisclosed('000b99', IDS.factory),
    registryDisclosed('00eca7', IDS.instrumentConfiguration),
  ]);
  answer('GET', `${base}/registry/metadata/v1/info`, {
    adminId: ADMIN,
    supportedApis: { 'splice-api-token-metadata-v1': 1, 'splice-api-token-transfer-instruction-v1': 1 },
  });
  const instrument = {
    id: 'CBTC',
    name: 'CBTC',
    symbol: 'CBTC',
    totalSupply: '21.5',
    totalSupplyAsOf: '2026-04-10T09:00:00Z',
    decimals: 10,
    supportedApis: { 'splice-api-token-holding-v1': 1 },
  };
  answer('GET', `${base}/registry/metadata/v1/instruments`, {
    instruments: [instrument],
    nextPageToken: 'n2',
  });
  answer('GET', /\/metadata\/v1\/instruments\/.+/, instrument);
  answer('POST', `${base}/registry/transfer-instruction/v1/transfer-factory`, {
    factoryId: '000b99',
    transferKind: 'offer',
    choiceContext: ctx,
  });
  answer('POST', `${base}/registry/allocation-instruction/v1/allocation-factory`, {
    factoryId: '00af',
    choiceContext: ctx,
  });
  answer('POST', /\/choice-contexts\//, ctx);

  const client = registry();
  await client.info();
  await client.instruments({ pageSize: 25, pageToken: 'n1' });
  await client.instrument('CBTC');
  await client.transferFactory({ expectedAdmin: ADMIN, transfer });
  for (const choice of ['accept', 'reject', 'withdraw'] as const)
    await client.transferInstructionContext('00fadd', choice);
  await client.allocationFactory({
    expectedAdmin: ADMIN,
    allocation,
    requestedAt: '2026-04-10T09:00:00Z',
    inputHoldingCids: ['00c5eb'],
  });
  for (const choice of ['execute-transfer', 'withdraw', 'cancel'] as const)
    await client.allocationContext('00al', choice);
  sent.push(...fake.requests);
});

afterAll(async () => {
  await fake.close();
  await agent.close();
});

describe('registry requests against the token-standard documents', () => {
  it('every request is under the registrar base and validates against its document', async () => {
    expect(sent).toHaveLength(11);
    for (const request of sent) {
      expect(request.url.startsWith(`${base}/registry/`)).toBe(true);
      const url = request.url.slice(base.length);
      const verdict = await validateRequest(specOf(url), request.method, url, request.body);
      expect(verdict, `${request.method} ${url}: ${JSON.stringify(verdict.findings)}`).toMatchObject({
        valid: true,
      });
      expect(verdict.operationId).toBeDefined();
    }
  });

  it('every route of the client was exercised', () => {
    const paths = sent.map((r) => r.path.slice(base.length));
    for (const template of Object.values(REGISTRY_PATHS)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      expect(
        paths.some((p) => pattern.test(p)),
        template,
      ).toBe(true);
    }
  });

  it('the answers the tests give validate against the documents’ responses', async () => {
    for (const a of answers) {
      const verdict = await validateResponse(specOf(a.url), a.method, a.url, 200, a.body);
      expect(verdict, `${a.method} ${a.url}: ${JSON.stringify(verdict.findings)}`).toMatchObject({
        valid: true,
      });
    }
  });
});

describe('answers of real registries that the documents refuse, which the client accepts', () => {
  const factoryPath = '/registry/transfer-instruction/v1/transfer-factory';

  it.each([
    [
      'no transferKind',
      { factoryId: '000b99', choiceContext: choiceContext([registryDisclosed('000b99', IDS.factory)]) },
      (f: Awaited<ReturnType<RegistryClient['transferFactory']>>) => expect(f.transferKind).toBeUndefined(),
    ],
    [
      'a disclosed contract without synchronizerId',
      {
        factoryId: '000b99',
        transferKind: 'offer',
        choiceContext: choiceContext([
          { templateId: IDS.factory, contractId: '000b99', createdEventBlob: 'CgMy' },
        ]),
      },
      (f: Awaited<ReturnType<RegistryClient['transferFactory']>>) =>
        expect(f.choiceContext.disclosedContracts[0]).not.toHaveProperty('synchronizerId'),
    ],
  ] as const)('%s', async (_name, body, check) => {
    expect((await validateResponse('token-transfer-instruction', 'POST', factoryPath, 200, body)).valid).toBe(
      false,
    );
    fake.on('POST', `${base}${factoryPath}`, { body });
    check(await registry().transferFactory({ expectedAdmin: ADMIN, transfer }));
  });

  it('a context value with an AV_ tag the client does not know is passed on untouched', async () => {
    const body = {
      choiceContextData: { values: { 'x/new': { tag: 'AV_Future', value: { nested: [1, 2] } } } },
      disclosedContracts: [],
    };
    fake.on('POST', /\/choice-contexts\//, { body });
    expect((await registry().transferInstructionContext('00fadd', 'accept')).choiceContextData).toEqual(
      body.choiceContextData,
    );
  });
});
