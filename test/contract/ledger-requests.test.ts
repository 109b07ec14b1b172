/**
 * Contract: every request the ledger client and the token flows send to a participant validates against the
 * published JSON Ledger API documents of both supported releases (3.5.1 and 3.4.12, openapi-backend), and the
 * WebSocket request and frames against their AsyncAPI documents. The answers the clients' tests rely on are held
 * to the 3.5.1 document too, so that the tests speak the real wire format.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/clients/gateway.js';
import { HttpService } from '../../src/clients/http.js';
import { LedgerClient } from '../../src/clients/ledger.js';
import { LEDGER_PATHS } from '../../src/clients/ledger-request.js';
import { PartyLedger } from '../../src/clients/party-ledger.js';
import { RegistryClient } from '../../src/clients/registry.js';
import { acceptCredentialOfferCommand, transferOf } from '../../src/clients/token-commands.js';
import {
  actOnTransferInstruction,
  allocate,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  sendTransfer,
  settleAllocation,
} from '../../src/clients/token-flows.js';
import { FakeService, type Recorded } from '../clients/fake-service.js';
import {
  ADMIN,
  ALICE,
  BOB,
  IDS,
  INSTRUMENT,
  OPERATOR,
  SYNC,
  activeEntry,
  cantonError,
  choiceContext,
  createdEvent,
  exercisedEvent,
  holdingEntry,
  offerEntry,
  registryDisclosed,
  transaction,
} from '../clients/ledger-bodies.js';
import { validateMessage, type AsyncApiName } from './asyncapi.js';
import { validateRequest, validateResponse } from './openapi.js';

const RELEASES = ['ledger-3.5.1', 'ledger-3.4.12'] as const;

let fake: FakeService;
const agent = new Agent();
/** every answer given on a /v2 route, to hold it to the document */
const answers: Array<{ method: string; url: string; status: number; body: unknown }> = [];
/** every WebSocket frame sent */
const frames: unknown[] = [];

function answer(method: string, path: string | RegExp, body: unknown, status = 200): void {
  fake.on(method, path, (r: Recorded) => {
    answers.push({ method, url: r.url, status, body });
    return { status, body };
  });
}

const rulesInfo = (id: string, templateId: string) => ({
  contract_id: id,
  template_id: templateId,
  created_event_blob: `blob-${id}`,
});

function resultOf(choice: string, output: unknown) {
  return transaction([
    {
      ExercisedEvent: exercisedEvent({
        nodeId: 0,
        lastDescendantNodeId: 1,
        templateId: IDS.factory,
        interfaceId: IDS.factoryInterface,
        choice,
        exerciseResult: { output, senderChangeCids: [], meta: { values: {} } },
      }),
    },
    { CreatedEvent: createdEvent({ templateId: IDS.registryHolding, nodeId: 1 }) },
  ]);
}

const completion = {
  completionResponse: {
    Completion: {
      value: {
        commandId: 'send-1',
        status: { code: 0, message: '', details: [] },
        updateId: 'u1',
        userId: 'operator1',
        actAs: [ALICE],
        offset: 4300,
        synchronizerTime: { synchronizerId: SYNC, recordTime: '2026-04-10T09:05:00Z' },
      },
    },
  },
};

beforeAll(async () => {
  fake = await FakeService.start();
  const registryBase = `/api/token-standard/v0/registrars/${ADMIN}/registry`;
  const holdingFrames = [
    holdingEntry({ amount: '1.5' }),
    holdingEntry({ amount: '0.5', locked: true }),
    { workflowId: '', contractEntry: { JsEmpty: {} } },
  ];
  const offerFrames = [offerEntry({ sender: BOB, receiver: ALICE, amount: '0.25' })];
  frames.push(...holdingFrames, ...offerFrames);
  fake.onWebSocket('/v2/state/active-contracts', (ws) => ({
    frames: String(JSON.stringify(ws.request)).includes('TransferInstruction') ? offerFrames : holdingFrames,
  }));
  fake.onWebSocket('/v2/updates', { frames: [] });
  answer('GET', '/v2/version', {
    version: '3.5.1',
    features: {
      experimental: { staticTime: { supported: false }, commandInspectionService: { supported: true } },
      userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
      partyManagement: { maxPartiesPageSize: 10000 },
      offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0 } },
      packageFeature: { maxVettedPackagesPageSize: 100 },
    },
  });
  answer('GET', '/v2/state/ledger-end', { offset: 4251 });
  answer('GET', '/v2/state/latest-pruned-offsets', {
    participantPrunedUpToInclusive: 0,
    allDivulgedContractsPrunedUpToInclusive: 0,
  });
  answer('GET', '/v2/packages', {
    packageIds: ['f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313'],
  });
  answer('GET', '/v2/authenticated-user', {
    user: { id: 'operator1', primaryParty: ALICE, isDeactivated: false },
  });
  answer('GET', /^\/v2\/users\/[^/]+$/, { user: { id: 'operator1' } });
  answer('GET', /^\/v2\/users\/[^/]+\/rights$/, {
    rights: [
      { kind: { CanActAs: { value: { party: ALICE } } } },
      { kind: { ParticipantAdmin: { value: {} } } },
    ],
  });
  answer('GET', '/v2/parties', { partyDetails: [{ party: ALICE, isLocal: true }], nextPageToken: '' });
  answer('GET', /^\/v2\/parties\/.+/, { partyDetails: [{ party: ALICE, isLocal: true }] });
  answer('POST', '/v2/commands/completions', [completion]);
  answer('POST', '/v2/updates', [
    { update: { OffsetCheckpoint: { value: { offset: 4301, synchronizerTimes: [] } } } },
    {
      update: {
        Transaction: {
          value: resultOf('TransferFactory_Transfer', { tag: 'TransferInstructionResult_Failed', value: {} }),
        },
      },
    },
  ]);
  answer('POST', '/v2/events/events-by-contract-id', {
    created: { createdEvent: createdEvent({ templateId: IDS.transferOffer }), synchronizerId: SYNC },
  });
  // HTTP ACS: answered by template
  fake.on('POST', '/v2/state/active-contracts', (r: Recorded) => {
    const text = JSON.stringify(r.body);
    const payload = (templateId: string, createArgument: unknown) => [
      activeEntry(createdEvent({ templateId, createArgument, blob: 'CgMy' })),
    ];
    const body = text.includes('CBTCDepositAccount')
      ? payload(IDS.depositAccount, {
          id: null,
          owner: ALICE,
          operator: OPERATOR,
          registrar: ADMIN,
          lastProcessedBitcoinBlock: '0',
          limits: null,
        })
      : text.includes('CBTCWithdrawAccount')
        ? payload(IDS.withdrawAccount, {
            owner: ALICE,
            operator: OPERATOR,
            registrar: ADMIN,
            destinationBtcAddress: 'bcrt1q',
          })
        : text.includes('CBTCWithdrawRequest')
          ? payload(IDS.withdrawRequest, {
              owner: ALICE,
              registrar: ADMIN,
              amount: '1',
              destinationBtcAddress: 'bcrt1q',
              btcTxId: 'ab'.repeat(32),
            })
          : text.includes('UserService')
            ? payload(IDS.userService, { operator: OPERATOR, user: ALICE, dso: ADMIN })
            : text.includes('Credential')
              ? payload(IDS.credential, { issuer: ADMIN, holder: ALICE, claims: [] })
              : [holdingEntry({ amount: '2' }), { workflowId: '', contractEntry: { JsEmpty: {} } }];
    answers.push({ method: 'POST', url: r.url, status: 200, body });
    return { body };
  });
  fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', (r: Recorded) => {
    const choice = JSON.stringify(r.body).match(/"choice":"([^"]+)"/)?.[1] ?? '';
    const body = {
      transaction: resultOf(choice, {
        tag: 'TransferInstructionResult_Pending',
        value: { transferInstructionCid: '00fadd' },
      }),
    };
    answers.push({ method: 'POST', url: r.url, status: 200, body });
    return { body };
  });
  // the registry and the gateway the flows fetch from
  const ctx = choiceContext([registryDisclosed('000b99', IDS.factory)]);
  fake
    .on('POST', `${registryBase}/transfer-instruction/v1/transfer-factory`, {
      body: { factoryId: '000b99', transferKind: 'offer', choiceContext: ctx },
    })
    .on('POST', `${registryBase}/allocation-instruction/v1/allocation-factory`, {
      body: { factoryId: '00af', choiceContext: ctx },
    })
    .on('POST', /\/choice-contexts\//, { body: ctx })
    .on('GET', '/wrapped/v1/account-contract-rules', {
      body: { da_rules: rulesInfo('0085', IDS.depositRules), wa_rules: rulesInfo('00c0', IDS.withdrawRules) },
    })
    .on('GET', '/wrapped/v1/token-standard-contracts', {
      body: {
        burn_mint_factory: rulesInfo('00b1', 'p:M:BurnMintFactory'),
        instrument_configuration: rulesInfo('00b2', IDS.instrumentConfiguration),
        issuer_credential: rulesInfo('00b3', IDS.credential),
      },
    });
  await exerciseEveryCall();
});

afterAll(async () => {
  await fake.close();
  await agent.close();
});

/** Every call of the ledger client and every token flow, once. */
async function exerciseEveryCall(): Promise<void> {
  const http = (service: string) =>
    new HttpService({ service, baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 });
  const token = {
    token: () => Promise.resolve('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0MSJ9.c2ln'),
    invalidate: () => undefined,
  };
  const ledger = new LedgerClient(
    new HttpService({ service: 'ledger:node1', baseUrl: fake.url, dispatcher: agent, auth: token }),
    { auth: token, dispatcher: agent },
  );
  const alice = new PartyLedger(ledger, ALICE);
  const registry = new RegistryClient(http('registry'), ADMIN);
  const gateway = new GatewayClient(http('gateway'));

  await ledger.version();
  await ledger.ledgerEnd();
  await ledger.packages();
  await ledger.authenticatedUser();
  await ledger.user('operator1');
  await ledger.userRights('operator1');
  await ledger.parties({ filterParty: 'alice', pageSize: 100, pageToken: 'p1' });
  await ledger.party(ALICE);
  await ledger.knownParties([ALICE, BOB]);
  await ledger.prunedOffset();
  await ledger.activeContracts(
    {
      parties: [ALICE, BOB],
      filters: [{ templateId: IDS.transferOffer }, { interfaceId: IDS.holdingInterface }],
    },
    { transport: 'http' },
  );
  await ledger.activeContracts({
    parties: [ALICE],
    filters: [{ wildcard: true, includeCreatedEventBlob: true }],
  });
  await ledger.findCompletion(
    'send-1',
    { parties: [ALICE], beginExclusive: 4250, userId: 'operator1' },
    { limit: 10 },
  );
  await ledger.transactions({
    parties: [ALICE],
    beginExclusive: 4250,
    filters: [{ templateId: IDS.transferOffer }],
  });
  await ledger.transactions({
    parties: [ALICE],
    beginExclusive: 4000,
    endInclusive: 4251,
    shape: 'ACS_DELTA',
  });
  await ledger.eventsByContractId('00fadd', [ALICE]);
  await ledger.submitAndWaitForTransaction({
    commandId: 'create-1',
    actAs: [ALICE],
    readAs: [BOB],
    commands: [{ CreateCommand: { templateId: '#pkg:Mod:T', createArguments: { owner: ALICE } } }],
    deduplication: { offset: 4200 },
    synchronizerId: SYNC,
    workflowId: 'wf-1',
  });

  await alice.holdings(INSTRUMENT);
  await alice.transferOffers(INSTRUMENT);
  await alice.eachTransferEvent(INSTRUMENT, { beginExclusive: 4200, endInclusive: 4251 }, () => undefined);
  await alice.depositAccounts();
  await alice.withdrawAccounts();
  await alice.withdrawRequests();
  await alice.credentials();
  await alice.credentialOffers();
  const [userService] = await alice.userServices();
  const options = (commandId: string) => ({ commandId, deduplication: { durationSeconds: 86_400 } });
  await sendTransfer(
    alice,
    registry,
    transferOf({
      sender: ALICE,
      receiver: BOB,
      amount: '0.02',
      instrument: INSTRUMENT,
      requestedAt: '2026-04-10T09:04:59Z',
      executeBefore: '2026-04-17T09:04:59Z',
      inputHoldingCids: ['00c5eb'],
    }),
    options('send-1'),
  );
  for (const choice of ['accept', 'reject', 'withdraw'] as const)
    await actOnTransferInstruction(alice, registry, choice, '00fadd', options(`${choice}-1`));
  await allocate(
    alice,
    registry,
    {
      allocation: {
        settlement: {
          executor: BOB,
          settlementRef: { id: 'trade-1' },
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
          instrumentId: INSTRUMENT,
          meta: { values: {} },
        },
      },
      requestedAt: '2026-04-10T09:00:00Z',
      inputHoldingCids: ['00c5eb'],
    },
    options('allocate-1'),
  );
  await settleAllocation(alice, registry, 'execute-transfer', '00al', options('settle-1'));
  await createDepositAccount(alice, gateway, ['00cred'], options('cmd-deposit'));
  await createWithdrawAccount(
    alice,
    gateway,
    { destinationBtcAddress: 'bcrt1q', credentialCids: [] },
    options('cmd-wa'),
  );
  await burn(
    alice,
    gateway,
    { withdrawAccountCid: '00wa', tokens: ['00h1'], amount: '0.001' },
    options('cmd-burn'),
  );
  await alice.submit(
    'cmd-credential',
    acceptCredentialOfferCommand({
      userService: { contractId: userService?.contractId ?? '00us', templateId: IDS.userService },
      credentialOfferCid: '00co',
    }),
  );
}

const ledgerRequests = () => fake.requests.filter((r) => r.path.startsWith('/v2/'));

describe('ledger requests against the published documents', () => {
  it.each(RELEASES)('every request validates against %s', async (release) => {
    const requests = ledgerRequests();
    expect(requests.length).toBeGreaterThan(30);
    for (const request of requests) {
      const verdict = await validateRequest(release, request.method, request.url, request.body);
      expect(verdict, `${request.method} ${request.url}: ${JSON.stringify(verdict.findings)}`).toMatchObject({
        valid: true,
      });
      expect(verdict.operationId).toBeDefined();
    }
  });

  it('every route of the client was exercised', () => {
    const templates = Object.values(LEDGER_PATHS).map(
      (template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    );
    const seen = new Set(ledgerRequests().map((r) => r.path));
    for (const template of templates)
      expect(
        [...seen].some((p) => template.test(p)),
        String(template),
      ).toBe(true);
    expect(fake.wsRequests.length).toBeGreaterThan(0);
  });

  it('never the deprecated filter/verbose body, never the -tree endpoint', () => {
    for (const request of ledgerRequests()) {
      expect(request.path).not.toMatch(/tree/);
      const body = request.body as Record<string, unknown> | undefined;
      if (body && typeof body === 'object') {
        expect(body).not.toHaveProperty('filter');
        expect(body).not.toHaveProperty('verbose');
      }
    }
    for (const ws of fake.wsRequests) expect(ws.request).not.toHaveProperty('filter');
  });

  it('the answers the tests give are shaped like the 3.5.1 document’s responses', async () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const a of answers) {
      const verdict = await validateResponse('ledger-3.5.1', a.method, a.url, a.status, a.body);
      expect(verdict, `${a.method} ${a.url}: ${JSON.stringify(verdict.findings)}`).toMatchObject({
        valid: true,
      });
    }
  });

  it('error bodies of the classification tests are JsCantonErrors of the document', async () => {
    for (const [status, body] of [
      [404, cantonError('CONTRACT_NOT_FOUND', 'gone', 11)],
      [409, cantonError('DUPLICATE_COMMAND', 'dup', 10, { definiteAnswer: false })],
      [429, cantonError('THROTTLED', 'slow down', 2, { grpcCodeValue: 8, retryInfo: '2 seconds' })],
    ] as const) {
      const verdict = await validateResponse(
        'ledger-3.5.1',
        'POST',
        '/v2/commands/submit-and-wait-for-transaction',
        status,
        body,
      );
      expect(verdict.valid, JSON.stringify(verdict.findings)).toBe(true);
    }
  });
});

describe('the WebSocket active-contracts channel against the AsyncAPI documents', () => {
  it.each(['ledger-3.5.1', 'ledger-3.4.12'] as AsyncApiName[])(
    'the request frames and the frames answered validate against %s',
    (release) => {
      expect(fake.wsRequests.length).toBeGreaterThanOrEqual(3);
      for (const ws of fake.wsRequests) {
        const message = ws.path === '/v2/updates' ? 'GetUpdatesRequest' : 'GetActiveContractsRequest';
        const verdict = validateMessage(release, message, ws.request);
        expect(verdict.valid, `${ws.path}: ${JSON.stringify(verdict.findings)}`).toBe(true);
      }
      expect(fake.wsRequests.map((ws) => ws.path)).toContain('/v2/updates');
      for (const frame of frames) {
        const verdict = validateMessage(release, 'Either_JsCantonError_JsGetActiveContractsResponse', frame);
        expect(verdict.valid, JSON.stringify(verdict.findings)).toBe(true);
      }
      // quirk: the document's `oneOf` cannot tell an error frame from a response, whose fields are all optional,
      // so an error frame matches both branches; it is checked against the error branch itself
      const errorFrame = cantonError('PERMISSION_DENIED', 'no', 7);
      expect(validateMessage(release, 'JsCantonError', errorFrame).valid).toBe(true);
      expect(
        validateMessage(release, 'Either_JsCantonError_JsGetActiveContractsResponse', errorFrame).findings,
      ).toEqual([{ at: '', message: 'must match exactly one schema in oneOf' }]);
    },
  );

  it('the validator refuses what the documents refuse', () => {
    expect(validateMessage('ledger-3.4.12', 'GetActiveContractsRequest', { activeAtOffset: 1 }).valid).toBe(
      false,
    );
    expect(
      validateMessage('ledger-3.5.1', 'GetActiveContractsRequest', {
        activeAtOffset: 'latest',
        eventFormat: {},
      }).valid,
    ).toBe(false);
  });
});
