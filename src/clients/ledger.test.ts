/**
 * LedgerClient against a real loopback HTTP and WebSocket server (test/clients/fake-service.ts) answering with
 * bodies shaped like the JSON Ledger API documents: what is sent, how answers are read, how every failure is
 * classed.
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
  activeEntry,
  cantonError,
  createdEvent,
  holdingEntry,
  transaction,
} from '../../test/clients/ledger-bodies.js';
import { ServiceError } from '../errors.js';
import { HttpService, type TokenSource } from './http.js';
import { LedgerClient } from './ledger.js';
import type { Submission } from './ledger-request.js';
import { LedgerError, retryDelayMs, type LedgerErrorKind } from './ledger-errors.js';

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

/** An identity provider stand-in handing out JWT-shaped tokens `…t1…`, `…t2…`; a new one only after invalidate(). */
function tokens(): TokenSource & { issued: string[]; invalidations: number } {
  let current: string | undefined;
  const source = {
    issued: [] as string[],
    invalidations: 0,
    token: () => {
      if (current === undefined) {
        current = `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0${source.issued.length + 1}In0.c2lnbmF0dXJl`;
        source.issued.push(current);
      }
      return Promise.resolve(current);
    },
    invalidate: (rejected?: string) => {
      source.invalidations += 1;
      if (rejected === undefined || rejected === current) current = undefined;
    },
  };
  return source;
}

function client(
  auth: TokenSource | undefined = tokens(),
  options: { timeoutMs?: number; submitTimeoutMs?: number; streamTimeoutMs?: number } = {},
): LedgerClient {
  return new LedgerClient(
    new HttpService({
      service: 'ledger:node1',
      baseUrl: fake.url,
      auth,
      dispatcher: agent,
      timeoutMs: options.timeoutMs ?? 5000,
    }),
    {
      auth,
      dispatcher: agent,
      ...(options.submitTimeoutMs ? { submitTimeoutMs: options.submitTimeoutMs } : {}),
      ...(options.streamTimeoutMs ? { streamTimeoutMs: options.streamTimeoutMs } : {}),
    },
  );
}

async function failure(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('expected the call to fail');
}

const submission = (overrides: Partial<Submission> = {}): Submission => ({
  commandId: 'ledgerbook-transfer-3f0b2a4e',
  actAs: [ALICE],
  commands: [
    {
      ExerciseCommand: {
        templateId:
          '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
        contractId: '000b99',
        choice: 'TransferFactory_Transfer',
        choiceArgument: { expectedAdmin: ADMIN },
      },
    },
  ],
  ...overrides,
});

describe('reads', () => {
  it('version, ledger end (0 when the offset is absent), packages', async () => {
    fake
      .on('GET', '/v2/version', { body: { version: '3.5.1', features: {} } })
      .on('GET', '/v2/state/ledger-end', { body: { offset: 4251 } })
      .on('GET', '/v2/packages', { body: { packageIds: ['aa', 'bb'] } });
    const ledger = client();
    expect((await ledger.version()).version).toBe('3.5.1');
    expect(await ledger.ledgerEnd()).toBe(4251);
    expect(await ledger.packages()).toEqual(['aa', 'bb']);
    fake.on('GET', '/v2/state/ledger-end', { body: {} });
    expect(await ledger.ledgerEnd()).toBe(0);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(
      Array(4).fill(expect.stringMatching(/^Bearer eyJ/)),
    );
  });

  it('users: the authenticated user, a user by an encoded id, and rights flattened', async () => {
    fake
      .on('GET', '/v2/authenticated-user', { body: { user: { id: 'operator1', primaryParty: ALICE } } })
      .on('GET', /^\/v2\/users\/[^/]+$/, { body: { user: { id: 'svc@clients', isDeactivated: false } } })
      .on('GET', /^\/v2\/users\/[^/]+\/rights$/, {
        body: {
          rights: [
            { kind: { CanActAs: { value: { party: ALICE } } } },
            { kind: { CanReadAs: { value: { party: BOB } } } },
            { kind: { ParticipantAdmin: { value: {} } } },
          ],
        },
      });
    const ledger = client();
    expect(await ledger.authenticatedUser()).toMatchObject({ id: 'operator1', primaryParty: ALICE });
    expect((await ledger.user('svc@clients/x')).id).toBe('svc@clients');
    expect(await ledger.userRights('svc@clients/x')).toEqual([
      { kind: 'CanActAs', party: ALICE },
      { kind: 'CanReadAs', party: BOB },
      { kind: 'ParticipantAdmin' },
    ]);
    expect(fake.requests.map((r) => r.path)).toEqual([
      '/v2/authenticated-user',
      '/v2/users/svc%40clients%2Fx',
      '/v2/users/svc%40clients%2Fx/rights',
    ]);
  });

  it('parties: query parameters encoded, a party path keeps its ::, an unknown party is undefined', async () => {
    fake
      .on('GET', '/v2/parties', {
        body: { partyDetails: [{ party: ALICE, isLocal: true }], nextPageToken: 'p2' },
      })
      .on('GET', /^\/v2\/parties\/.+/, (r) => ({
        body: { partyDetails: r.path.includes('alice') ? [{ party: ALICE, isLocal: true }] : [] },
      }));
    const ledger = client();
    expect(await ledger.parties({ filterParty: 'al&ce=1', pageSize: 10 })).toMatchObject({
      nextPageToken: 'p2',
    });
    expect(fake.requests[0]?.query).toEqual({ 'filter-party': 'al&ce=1', pageSize: '10' });
    expect(await ledger.party(ALICE)).toEqual({ party: ALICE, isLocal: true });
    expect(fake.requests[1]?.path).toBe(`/v2/parties/${ALICE}`);
    expect(await ledger.party('ghost::1220ff/x')).toBeUndefined();
    expect(fake.requests[2]?.path).toBe('/v2/parties/ghost::1220ff%2Fx');
  });
});

describe('party lookup and pruning', () => {
  it('knownParties: every party looked up, a few per request, short URLs; only the known ones come back', async () => {
    const party = (n: number): string => `holder-${String(n).padStart(3, '0')}::1220${'ab'.repeat(32)}`;
    const wanted = Array.from({ length: 40 }, (_, i) => party(i));
    fake.on('GET', /^\/v2\/parties\/.+/, (r) => {
      const asked = [
        decodeURIComponent(r.path.slice('/v2/parties/'.length)),
        ...new URL(r.url, 'http://x').searchParams.getAll('parties'),
      ];
      return {
        body: { partyDetails: asked.filter((p) => !p.startsWith('holder-01')).map((p) => ({ party: p })) },
      };
    });
    const known = await client().knownParties([...wanted, party(1)]);
    expect([...known].sort()).toEqual(wanted.filter((p) => !p.startsWith('holder-01')).sort());
    expect(fake.requests.length).toBeGreaterThan(1);
    for (const r of fake.requests) expect(r.url.length).toBeLessThan(1700);
    const asked = fake.requests.flatMap((r) => [
      decodeURIComponent(r.path.slice('/v2/parties/'.length)),
      ...new URL(r.url, 'http://x').searchParams.getAll('parties'),
    ]);
    expect(asked.sort()).toEqual([...wanted].sort());
    fake.reset();
    expect(await client().knownParties([])).toEqual(new Set());
    expect(fake.requests).toHaveLength(0);
  });

  it('prunedOffset: the participant’s pruning offset, 0 when it says none', async () => {
    fake.on('GET', '/v2/state/latest-pruned-offsets', {
      body: { participantPrunedUpToInclusive: 120, allDivulgedContractsPrunedUpToInclusive: 120 },
    });
    expect(await client().prunedOffset()).toBe(120);
    fake.on('GET', '/v2/state/latest-pruned-offsets', { body: {} });
    expect(await client().prunedOffset()).toBe(0);
  });
});

describe('active contracts over HTTP', () => {
  it('reads the ledger end first and sends eventFormat (never filter/verbose) with each kind of filter', async () => {
    const holding = holdingEntry({ amount: '0.0500000000' });
    fake
      .on('GET', '/v2/state/ledger-end', { body: { offset: 4251 } })
      .on('POST', '/v2/state/active-contracts', { body: [holding] });
    const result = await client().activeContracts(
      {
        parties: [ALICE],
        filters: [
          { interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding' },
          { templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount', includeCreatedEventBlob: true },
          { wildcard: true },
        ],
      },
      { transport: 'http' },
    );
    expect(result.activeAtOffset).toBe(4251);
    expect(result.contracts.map((c) => c.createdEvent.templateId)).toEqual([IDS.registryHolding]);
    const sent = fake.requests[1]?.body as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['activeAtOffset', 'eventFormat']);
    expect(sent).toEqual({
      activeAtOffset: 4251,
      eventFormat: {
        filtersByParty: {
          [ALICE]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: {
                    value: {
                      interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
                      includeInterfaceView: true,
                      includeCreatedEventBlob: false,
                    },
                  },
                },
              },
              {
                identifierFilter: {
                  TemplateFilter: {
                    value: {
                      templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount',
                      includeCreatedEventBlob: true,
                    },
                  },
                },
              },
              { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
            ],
          },
        },
        verbose: false,
      },
    });
  });

  it('counts entries that are not active contracts and skips empty ones; an unknown entry is an error', async () => {
    fake.on('POST', '/v2/state/active-contracts', {
      body: [
        holdingEntry({ amount: '1' }),
        { workflowId: '', contractEntry: { JsEmpty: {} } },
        { workflowId: '' },
        { contractEntry: null },
        { contractEntry: { JsIncompleteUnassigned: { createdEvent: {}, unassignedEvent: {} } } },
      ],
    });
    const result = await client().activeContracts(
      { parties: [ALICE], activeAtOffset: 7 },
      { transport: 'http' },
    );
    expect(result.contracts).toHaveLength(1);
    expect(result.skipped).toEqual({ JsEmpty: 1, JsIncompleteUnassigned: 1 });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v2/state/active-contracts']);

    fake.on('POST', '/v2/state/active-contracts', { body: [{ contractEntry: { JsFuture: {} } }] });
    const error = await failure(
      client().activeContracts({ parties: [ALICE], activeAtOffset: 7 }, { transport: 'http' }),
    );
    expect(error).toMatchObject({ kind: 'unexpected-response', retryability: 'permanent' });
    expect(error.message).toContain('JsFuture');
  });

  it('413 (more than the node lists) says to use the WebSocket; a lost answer to a read is transient', async () => {
    // Canton's body: a retryable category (contention, ABORTED) that the client must not retry or pace on
    fake.on('POST', '/v2/state/active-contracts', {
      status: 413,
      body: cantonError(
        'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
        'The number of matching elements (201) is greater than the node limit (200).',
        2,
        { grpcCodeValue: 10, retryInfo: '1 second', definiteAnswer: false },
      ),
    });
    const big = await failure(
      client().activeContracts({ parties: [ALICE], activeAtOffset: 1 }, { transport: 'http' }),
    );
    expect(big).toMatchObject({
      kind: 'too-many-results',
      retryability: 'permanent',
      backpressure: undefined,
    });
    expect(big.hint).toMatch(/WebSocket/);
    fake.on('POST', '/v2/state/active-contracts', { status: 413, text: 'Content Too Large' });
    const text = await failure(
      client().activeContracts({ parties: [ALICE], activeAtOffset: 1 }, { transport: 'http' }),
    );
    expect(text).toMatchObject({ kind: 'too-many-results', retryability: 'permanent' });
    expect(text.hint).toMatch(/WebSocket/);

    fake.on('POST', '/v2/state/active-contracts', { drop: true });
    const lost = await failure(
      client().activeContracts({ parties: [ALICE], activeAtOffset: 1 }, { transport: 'http' }),
    );
    expect(lost).toMatchObject({ kind: 'no-response', retryability: 'transient' });
  });

  it('refuses a query without parties before sending anything', async () => {
    const error = await failure(client().activeContracts({ parties: [] }, { transport: 'http' }));
    expect(error).toMatchObject({ kind: 'invalid-request', retryability: 'permanent' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('active contracts over WebSocket', () => {
  it('authenticates with the jwt.token subprotocol, sends one request frame and reads one frame per contract', async () => {
    const auth = tokens();
    fake
      .on('GET', '/v2/state/ledger-end', { body: { offset: 99 } })
      .onWebSocket('/v2/state/active-contracts', {
        frames: [
          holdingEntry({ amount: '1.5' }),
          Buffer.from([1, 2, 3]),
          { workflowId: '', contractEntry: null },
          { workflowId: '', contractEntry: { JsEmpty: {} } },
          holdingEntry({ amount: '2' }),
        ],
      });
    const result = await client(auth).activeContracts({ parties: [ALICE], filters: [{ wildcard: true }] });
    expect(result.contracts).toHaveLength(2);
    expect(result.skipped).toEqual({ JsEmpty: 1 });
    expect(fake.wsRequests).toHaveLength(1);
    expect(fake.wsRequests[0]?.protocols).toEqual([`jwt.token.${auth.issued[0]}`, 'daml.ws.auth']);
    expect(fake.wsRequests[0]?.request).toEqual({
      activeAtOffset: 99,
      eventFormat: {
        filtersByParty: {
          [ALICE]: {
            cumulative: [
              { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
            ],
          },
        },
        verbose: false,
      },
    });
  });

  it('an error frame is the classified error, never an empty result', async () => {
    fake.onWebSocket('/v2/state/active-contracts', {
      frames: [cantonError('PERMISSION_DENIED', 'no read rights for the party', 7, { grpcCodeValue: 7 })],
      close: 1011,
    });
    const error = await failure(client().activeContracts({ parties: [BOB], activeAtOffset: 3 }));
    expect(error).toMatchObject({ kind: 'permission-denied', retryability: 'permanent', method: 'WS' });
    expect(error.cantonCode).toBe('PERMISSION_DENIED');
    expect(error.hint).toContain(BOB);
  });

  it('a stream refused as unauthenticated before its first frame is opened once more with a new token', async () => {
    const auth = tokens();
    fake.onWebSocket('/v2/state/active-contracts', (request) =>
      request.protocols[0] === `jwt.token.${auth.issued[0]}`
        ? { frames: [cantonError('UNAUTHENTICATED', 'token is not active', 6)], close: 1011 }
        : { frames: [holdingEntry({ amount: '1' })] },
    );
    const result = await client(auth).activeContracts({ parties: [ALICE], activeAtOffset: 3 });
    expect(result.contracts).toHaveLength(1);
    expect(fake.wsRequests).toHaveLength(2);
    expect(auth.issued).toHaveLength(2);
    // refused again with the new token: the error, not a third stream
    fake.onWebSocket('/v2/state/active-contracts', {
      frames: [cantonError('UNAUTHENTICATED', 'token is not active', 6)],
      close: 1011,
    });
    const error = await failure(client(auth).activeContracts({ parties: [ALICE], activeAtOffset: 3 }));
    expect(error).toMatchObject({ kind: 'unauthenticated', retryability: 'permanent', method: 'WS' });
    expect(fake.wsRequests).toHaveLength(4);
  });

  it('a security-sensitive error is an error', async () => {
    fake.onWebSocket('/v2/state/active-contracts', {
      frames: [
        holdingEntry({ amount: '1' }),
        cantonError(
          'UNKNOWN',
          'A security-sensitive error has been received. Please contact the operator.',
          -1,
        ),
      ],
    });
    const error = await failure(client().activeContracts({ parties: [ALICE], activeAtOffset: 3 }));
    expect(error.retryability).toBe('permanent');
    expect(error.message).toContain('security-sensitive');
  });

  it('a frame that is not JSON is an unexpected response; an abnormal close is transient', async () => {
    fake.onWebSocket('/v2/state/active-contracts', { frames: ['{not json'] });
    expect(await failure(client().activeContracts({ parties: [ALICE], activeAtOffset: 3 }))).toMatchObject({
      kind: 'unexpected-response',
      retryability: 'permanent',
    });
    fake.onWebSocket('/v2/state/active-contracts', {
      frames: [holdingEntry({ amount: '1' })],
      close: 'drop',
    });
    expect(await failure(client().activeContracts({ parties: [ALICE], activeAtOffset: 3 }))).toMatchObject({
      kind: 'no-response',
      retryability: 'transient',
    });
    fake.onWebSocket('/v2/state/active-contracts', { frames: [], close: 1011, closeReason: 'internal' });
    const closed = await failure(client().activeContracts({ parties: [ALICE], activeAtOffset: 3 }));
    expect(closed.message).toContain('1011');
  });

  it('a refused handshake and a stream that never ends are transient, and no token is in the error', async () => {
    const auth = tokens();
    fake.onWebSocket('/v2/state/active-contracts', { refuse: 401 });
    const refused = await failure(client(auth).activeContracts({ parties: [ALICE], activeAtOffset: 3 }));
    expect(refused).toMatchObject({ kind: 'no-response', retryability: 'transient' });
    fake.onWebSocket('/v2/state/active-contracts', { hang: true });
    const hung = await failure(
      client(auth, { streamTimeoutMs: 300 }).activeContracts({ parties: [ALICE], activeAtOffset: 3 }),
    );
    expect(hung).toMatchObject({ kind: 'no-response', retryability: 'transient' });
    for (const error of [refused, hung]) {
      expect(JSON.stringify({ m: error.message, h: error.hint, b: error.body })).not.toContain(
        auth.issued[0],
      );
    }
  });

  it('an opaque token that cannot be a subprotocol is refused before connecting', async () => {
    const opaque: TokenSource = {
      token: () => Promise.resolve('opaque/token=='),
      invalidate: () => undefined,
    };
    const error = await failure(client(opaque).activeContracts({ parties: [ALICE], activeAtOffset: 3 }));
    expect(error.hint).toMatch(/HTTP transport/);
    expect(error.message).not.toContain('opaque/token');
    expect(fake.wsRequests).toHaveLength(0);
  });
});

describe('submit and wait for the transaction', () => {
  it('sends the caller’s command id, actAs, disclosed contracts, deduplication and LEDGER_EFFECTS', async () => {
    const tx = transaction([{ CreatedEvent: createdEvent({ templateId: IDS.registryHolding }) }]);
    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', { body: { transaction: tx } });
    const disclosed = {
      templateId: IDS.factory,
      contractId: '000b99',
      createdEventBlob: 'CgMy',
      synchronizerId: SYNC,
    };
    const result = await client().submitAndWaitForTransaction(
      submission({ disclosedContracts: [disclosed], deduplication: { durationSeconds: 600 } }),
    );
    expect(result.updateId).toBe(tx.updateId);
    const sent = fake.requests[0];
    expect(sent?.path).toBe('/v2/commands/submit-and-wait-for-transaction');
    expect(sent?.body).toEqual({
      commands: {
        commands: submission().commands,
        commandId: 'ledgerbook-transfer-3f0b2a4e',
        actAs: [ALICE],
        disclosedContracts: [disclosed],
        deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
      },
      transactionFormat: {
        eventFormat: {
          filtersByParty: {
            [ALICE]: {
              cumulative: [
                { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
              ],
            },
          },
          verbose: true,
        },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
  });

  it('an offset deduplication and readAs are sent as the document names them', async () => {
    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', {
      body: { transaction: transaction([]) },
    });
    await client().submitAndWaitForTransaction(
      submission({ readAs: [BOB], deduplication: { offset: 4200 } }),
    );
    const commands = (fake.requests[0]?.body as { commands: Record<string, unknown> }).commands;
    expect(commands.readAs).toEqual([BOB]);
    expect(commands.deduplicationPeriod).toEqual({ DeduplicationOffset: { value: 4200 } });
  });

  it.each([
    ['a command id with a space', { commandId: 'two words' }],
    ['an empty actAs', { actAs: [] }],
    ['no command', { commands: [] }],
    ['a party that is not an id', { actAs: ['alice'] }],
    [
      'a disclosed contract without a blob',
      { disclosedContracts: [{ contractId: '00aa', createdEventBlob: '' }] },
    ],
    ['a negative deduplication', { deduplication: { durationSeconds: -1 } }],
  ] as const)('refuses %s before sending anything', async (_name, overrides) => {
    const error = await failure(client().submitAndWaitForTransaction(submission(overrides)));
    expect(error).toMatchObject({ kind: 'invalid-request', retryability: 'permanent' });
    expect(error.message).toContain('request not sent');
    expect(fake.requests).toHaveLength(0);
  });

  it('a body of another shape is an unexpected response', async () => {
    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', { body: { transactionTree: {} } });
    expect(await failure(client().submitAndWaitForTransaction(submission()))).toMatchObject({
      kind: 'unexpected-response',
      retryability: 'permanent',
    });
  });
});

describe('error classification', () => {
  const submit = '/v2/commands/submit-and-wait-for-transaction';
  const rows: Array<{
    name: string;
    status: number;
    body: unknown;
    kind: LedgerErrorKind;
    retryability: string;
    message?: RegExp;
    hint?: RegExp;
  }> = [
    {
      name: 'UNAVAILABLE',
      status: 503,
      body: cantonError('SERVICE_NOT_RUNNING', 'Ledger API server is shutting down', 1, {
        retryInfo: '1 second',
      }),
      kind: 'unavailable',
      retryability: 'transient',
    },
    {
      name: 'RESOURCE_EXHAUSTED (429)',
      status: 429,
      body: cantonError('PARTICIPANT_BACKPRESSURE', 'The participant is overloaded', 2, {
        grpcCodeValue: 8,
        retryInfo: '2 seconds',
      }),
      kind: 'resource-exhausted',
      retryability: 'transient',
    },
    {
      name: 'ABORTED contention',
      status: 409,
      body: cantonError('LOCAL_VERDICT_LOCKED_CONTRACTS', 'contracts locked by another transaction', 2),
      kind: 'contention',
      retryability: 'transient',
    },
    {
      name: 'CONTRACT_NOT_FOUND',
      status: 404,
      body: cantonError('CONTRACT_NOT_FOUND', 'Contract could not be found with id 00c5eb', 11),
      kind: 'contract-not-found',
      retryability: 'permanent',
      hint: /read the live state again/,
    },
    {
      name: 'DUPLICATE_COMMAND',
      status: 409,
      body: cantonError(
        'DUPLICATE_COMMAND',
        'A command with the given command id has already been successfully processed',
        10,
        {
          definiteAnswer: false,
        },
      ),
      kind: 'duplicate-command',
      retryability: 'ambiguous',
      hint: /reading the ledger/,
    },
    {
      name: 'interpretation error (insufficient funds)',
      status: 400,
      body: cantonError(
        'DAML_INTERPRETATION_ERROR',
        'Interpretation error: Error: User abort: Insufficient funds: 0.5 < 1.0',
        9,
      ),
      kind: 'interpretation',
      retryability: 'permanent',
      message: /DAML_INTERPRETATION_ERROR: Interpretation error: .*Insufficient funds/,
    },
    {
      name: 'interpretation error (expired offer, unhandled exception)',
      status: 400,
      body: cantonError('UNHANDLED_EXCEPTION', 'Unhandled Daml exception: executeBefore has passed', 9),
      kind: 'interpretation',
      retryability: 'permanent',
      message: /executeBefore has passed/,
    },
    {
      name: 'interpretation error (a limit)',
      status: 400,
      body: cantonError(
        'DAML_INTERPRETATION_ERROR',
        'Interpretation error: Error: User abort: Withdraw amount 5.0 exceeds maximum 1.0',
        9,
      ),
      kind: 'interpretation',
      retryability: 'permanent',
      message: /exceeds maximum/,
    },
    {
      name: 'interpretation error (a missing credential)',
      status: 400,
      body: cantonError(
        'DAML_INTERPRETATION_ERROR',
        'Interpretation error: Error: User abort: No valid Minter credential for the owner',
        9,
      ),
      kind: 'interpretation',
      retryability: 'permanent',
      message: /Minter credential/,
    },
    {
      name: 'a missing authorization (DAML_AUTHORIZATION_ERROR, category 8)',
      status: 400,
      body: cantonError(
        'DAML_AUTHORIZATION_ERROR',
        'Interpretation error: Error: node NodeId(0) requires authorizers venue, seller, buyer, but only venue were given',
        8,
      ),
      kind: 'interpretation',
      retryability: 'permanent',
      message: /requires authorizers/,
      hint: /acting as every one of them/,
    },
    {
      name: 'a submission with this id still in flight (ABORTED)',
      status: 409,
      body: cantonError('SUBMISSION_ALREADY_IN_FLIGHT', 'The submission is already in flight', 2),
      kind: 'in-flight',
      retryability: 'ambiguous',
      hint: /still in flight.*its completion settles it/,
    },
    {
      name: '403 actAs not granted',
      status: 403,
      body: cantonError('PERMISSION_DENIED', 'The user may not act as the party', 7),
      kind: 'permission-denied',
      retryability: 'permanent',
      hint: /CanActAs/,
    },
    {
      name: 'DEADLINE_EXCEEDED on a submission',
      status: 504,
      body: cantonError('REQUEST_TIME_OUT', 'The request timed out', 3),
      kind: 'deadline-exceeded',
      retryability: 'ambiguous',
    },
    {
      name: 'a body the participant could not decode (400 text/plain)',
      status: 400,
      body: undefined,
      kind: 'invalid-request',
      retryability: 'permanent',
    },
    {
      name: 'DEPRECATED_API_DISABLED',
      status: 400,
      body: cantonError('DEPRECATED_API_DISABLED', 'filter is deprecated', 8),
      kind: 'invalid-request',
      retryability: 'permanent',
      hint: /deprecated/,
    },
  ];

  it.each(rows)('$name → $kind, $retryability', async (row) => {
    fake.on(
      'POST',
      submit,
      row.body === undefined
        ? { status: row.status, text: 'Invalid value for: body (missing field commandId)' }
        : { status: row.status, body: row.body },
    );
    const error = await failure(client().submitAndWaitForTransaction(submission()));
    expect(error).toMatchObject({ kind: row.kind, retryability: row.retryability, status: row.status });
    if (row.body !== undefined) {
      expect(error.cantonCode).toBe((row.body as { code: string }).code);
      expect(error.body).toEqual(row.body);
    }
    if (row.message) expect(error.message).toMatch(row.message);
    if (row.hint) expect(error.hint).toMatch(row.hint);
    if (row.kind === 'permission-denied') expect(error.hint).toContain(ALICE);
  });

  it('a 429 carries the delay the ledger asks for', async () => {
    fake.on('POST', submit, {
      status: 429,
      body: cantonError('THROTTLED', 'slow down', 2, { grpcCodeValue: 8, retryInfo: '2 seconds' }),
    });
    expect((await failure(client().submitAndWaitForTransaction(submission()))).retryAfterMs).toBe(2000);
    expect(retryDelayMs('1 second')).toBe(1000);
    expect(retryDelayMs('500 milliseconds')).toBe(500);
    expect(retryDelayMs('PT1.5S')).toBe(1500);
    expect(retryDelayMs('soon')).toBeUndefined();
  });

  it('the same status reads transient on a read: DEADLINE_EXCEEDED of a list', async () => {
    fake.on('POST', '/v2/state/active-contracts', {
      status: 504,
      body: cantonError('REQUEST_TIME_OUT', 't', 3),
    });
    expect(
      await failure(client().activeContracts({ parties: [ALICE], activeAtOffset: 1 }, { transport: 'http' })),
    ).toMatchObject({ kind: 'deadline-exceeded', retryability: 'transient' });
  });

  it('a 503 without the participant’s error body (a proxy) on a submission stays ambiguous', async () => {
    fake.on('POST', submit, {
      status: 503,
      text: '<html>Service Unavailable</html>',
      contentType: 'text/html',
    });
    expect(await failure(client().submitAndWaitForTransaction(submission()))).toMatchObject({
      retryability: 'ambiguous',
    });
  });

  it('401: one re-authentication and one retry, then success; no token in what was recorded of errors', async () => {
    const auth = tokens();
    let calls = 0;
    fake.on('POST', submit, () => {
      calls += 1;
      return calls === 1
        ? { status: 401, body: cantonError('UNAUTHENTICATED', 'The token has expired', 6) }
        : { body: { transaction: transaction([]) } };
    });
    await client(auth).submitAndWaitForTransaction(submission());
    expect(auth.issued).toHaveLength(2);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${auth.issued[0]}`,
      `Bearer ${auth.issued[1]}`,
    ]);
  });

  it('401 after the re-authentication is permanent and unauthenticated', async () => {
    const auth = tokens();
    fake.on('POST', submit, { status: 401, body: cantonError('UNAUTHENTICATED', 'invalid token', 6) });
    const error = await failure(client(auth).submitAndWaitForTransaction(submission()));
    expect(error).toMatchObject({ kind: 'unauthenticated', retryability: 'permanent' });
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify({ m: error.message, h: error.hint })).not.toMatch(/eyJ/);
  });

  it('a submission that times out or loses its answer is ambiguous (never retried here)', async () => {
    fake.on('POST', submit, { hang: true });
    const timedOut = await failure(
      client(tokens(), { submitTimeoutMs: 300 }).submitAndWaitForTransaction(submission()),
    );
    expect(timedOut).toMatchObject({ kind: 'no-response', retryability: 'ambiguous' });
    expect(timedOut.hint).toMatch(/reconcile|reads the service state/);
    fake.on('POST', submit, { drop: true });
    const lost = await failure(client().submitAndWaitForTransaction(submission()));
    expect(lost).toMatchObject({ kind: 'no-response', retryability: 'ambiguous' });
    expect(fake.requests).toHaveLength(2);
  });

  it('a connection refused before anything was sent is transient', async () => {
    const closed = await FakeService.start();
    const url = closed.url;
    await closed.close();
    const ledger = new LedgerClient(
      new HttpService({ service: 'ledger:gone', baseUrl: url, timeoutMs: 2000 }),
    );
    expect(await failure(ledger.submitAndWaitForTransaction(submission()))).toMatchObject({
      kind: 'no-response',
      retryability: 'transient',
    });
  });

  it('an aborted token request for the WebSocket is a LedgerError, not a raw abort', async () => {
    const controller = new AbortController();
    const stuck: TokenSource = {
      token: (signal?: AbortSignal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
      invalidate: () => undefined,
    };
    const pending = client(stuck).activeContracts(
      { parties: [ALICE], activeAtOffset: 1 },
      { signal: controller.signal },
    );
    controller.abort();
    expect(await failure(pending)).toMatchObject({ kind: 'no-response', serviceMessage: 'request aborted' });
  });

  it('errors of the identity provider pass through unchanged', async () => {
    const broken: TokenSource = {
      token: () =>
        Promise.reject(
          new ServiceError({
            service: 'idp',
            method: 'POST',
            path: '/token',
            status: 401,
            retryability: 'permanent',
          }),
        ),
      invalidate: () => undefined,
    };
    await expect(client(broken).ledgerEnd()).rejects.toMatchObject({ service: 'idp', status: 401 });
  });
});

describe('reads that settle a submission', () => {
  it('completions: parties, beginExclusive, an idle timeout; findCompletion by command id', async () => {
    fake.on('POST', '/v2/commands/completions', {
      body: [
        { completionResponse: { OffsetCheckpoint: { value: { offset: 4260, synchronizerTimes: [] } } } },
        {
          completionResponse: {
            Completion: {
              value: {
                commandId: 'other',
                status: { code: 0, message: '' },
                updateId: 'u0',
                userId: 'operator1',
                actAs: [ALICE],
                offset: 4270,
                synchronizerTime: { synchronizerId: SYNC, recordTime: '2026-04-10T09:05:00Z' },
              },
            },
          },
        },
        {
          completionResponse: {
            Completion: {
              value: {
                commandId: 'ledgerbook-transfer-3f0b2a4e',
                status: { code: 0, message: '' },
                updateId: 'u1',
                userId: 'operator1',
                actAs: [ALICE],
                offset: 4300,
                synchronizerTime: { synchronizerId: SYNC, recordTime: '2026-04-10T09:05:00Z' },
              },
            },
          },
        },
      ],
    });
    const found = await client().findCompletion('ledgerbook-transfer-3f0b2a4e', {
      parties: [ALICE],
      beginExclusive: 4250,
    });
    expect(found).toMatchObject({ updateId: 'u1', status: { code: 0 } });
    expect(fake.requests[0]?.body).toEqual({ parties: [ALICE], beginExclusive: 4250 });
    expect(fake.requests[0]?.query).toEqual({ stream_idle_timeout_ms: '2000' });
    expect(
      await client().findCompletion(
        'never',
        { parties: [ALICE], beginExclusive: 4250, userId: 'operator1' },
        { limit: 50 },
      ),
    ).toBeUndefined();
    expect(fake.requests[1]?.body).toEqual({ parties: [ALICE], beginExclusive: 4250, userId: 'operator1' });
    expect(fake.requests[1]?.query).toEqual({ limit: '50', stream_idle_timeout_ms: '2000' });
  });

  it('transactions: bounded by the ledger end, updateFormat with LEDGER_EFFECTS, transactions only', async () => {
    const tx = transaction([{ CreatedEvent: createdEvent({ templateId: IDS.registryHolding }) }], 'cmd-9');
    fake.on('GET', '/v2/state/ledger-end', { body: { offset: 4400 } }).on('POST', '/v2/updates', {
      body: [
        { update: { OffsetCheckpoint: { value: { offset: 4301, synchronizerTimes: [] } } } },
        { update: { Transaction: { value: tx } } },
      ],
    });
    const found = await client().transactions({ parties: [ALICE], beginExclusive: 4250 });
    expect(found.map((t) => t.commandId)).toEqual(['cmd-9']);
    expect(fake.requests[1]?.body).toEqual({
      beginExclusive: 4250,
      endInclusive: 4400,
      updateFormat: {
        includeTransactions: {
          eventFormat: {
            filtersByParty: {
              [ALICE]: {
                cumulative: [
                  { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
                ],
              },
            },
            verbose: true,
          },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    fake.reset();
    fake.on('GET', '/v2/state/ledger-end', { body: { offset: 4250 } });
    expect(await client().transactions({ parties: [ALICE], beginExclusive: 4250 })).toEqual([]);
    expect(fake.requests.map((r) => r.path)).toEqual(['/v2/state/ledger-end']);
  });

  it('eachTransaction: streamed over the WebSocket up to the ledger end, transactions only; an error frame throws', async () => {
    const tx = (n: number) =>
      transaction([{ CreatedEvent: createdEvent({ templateId: IDS.registryHolding }) }], `cmd-${n}`);
    fake.on('GET', '/v2/state/ledger-end', { body: { offset: 4400 } }).onWebSocket('/v2/updates', {
      frames: [
        { update: { OffsetCheckpoint: { value: { offset: 4301, synchronizerTimes: [] } } } },
        { update: { Transaction: { value: tx(1) } } },
        { update: { Transaction: { value: tx(2) } } },
      ],
    });
    const seen: string[] = [];
    const { endInclusive } = await client().eachTransaction(
      { parties: [ALICE], beginExclusive: 4250, filters: [{ templateId: IDS.registryHolding }] },
      (t) => seen.push(t.commandId ?? ''),
    );
    expect(seen).toEqual(['cmd-1', 'cmd-2']);
    expect(endInclusive).toBe(4400);
    expect(fake.wsRequests[0]?.request).toMatchObject({
      beginExclusive: 4250,
      endInclusive: 4400,
      updateFormat: { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
    });
    fake.onWebSocket('/v2/updates', {
      frames: [cantonError('PARTICIPANT_PRUNED_DATA_ACCESSED', 'pruned up to 4300', 9)],
    });
    expect(
      await failure(
        client().eachTransaction({ parties: [ALICE], beginExclusive: 1, endInclusive: 9 }, () => {}),
      ),
    ).toMatchObject({ cantonCode: 'PARTICIPANT_PRUNED_DATA_ACCESSED' });
    // nothing to read: no stream
    fake.reset();
    await client().eachTransaction({ parties: [ALICE], beginExclusive: 9, endInclusive: 9 }, () => {});
    expect(fake.wsRequests).toHaveLength(0);
  });

  it('events by contract id: created and archived, or undefined when none is visible', async () => {
    const created = createdEvent({ templateId: IDS.transferOffer, contractId: '00fadd' });
    fake.on('POST', '/v2/events/events-by-contract-id', (r) =>
      (r.body as { contractId: string }).contractId === '00fadd'
        ? {
            body: {
              created: { createdEvent: created, synchronizerId: SYNC },
              archived: {
                archivedEvent: {
                  offset: 4400,
                  nodeId: 1,
                  contractId: '00fadd',
                  templateId: IDS.transferOffer,
                  witnessParties: [ALICE],
                  packageName: 'utility-registry-app-v0',
                },
                synchronizerId: SYNC,
              },
            },
          }
        : (r.body as { contractId: string }).contractId === '00dead'
          ? { status: 404, body: cantonError('CONTRACT_EVENTS_NOT_FOUND', 'Contract events not found', 11) }
          : { status: 404, text: 'Not Found' },
    );
    const events = await client().eventsByContractId('00fadd', [ALICE]);
    expect(events?.archived?.archivedEvent.contractId).toBe('00fadd');
    expect(fake.requests[0]?.body).toEqual({
      contractId: '00fadd',
      eventFormat: {
        filtersByParty: {
          [ALICE]: {
            cumulative: [
              { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
            ],
          },
        },
        verbose: false,
      },
    });
    expect(await client().eventsByContractId('00dead', [ALICE])).toBeUndefined();
    // a 404 that is not the participant's answer (a wrong URL, a proxy) is not "no events"
    await expect(client().eventsByContractId('00beef', [ALICE])).rejects.toMatchObject({ kind: 'not-found' });
  });
});

describe('a contract of the ACS as typed', () => {
  it('keeps createArgument null for interface-only queries and the view value', async () => {
    fake.on('POST', '/v2/state/active-contracts', {
      body: [
        activeEntry(
          createdEvent({
            templateId: IDS.registryHolding,
            views: [{ interfaceId: IDS.holdingInterface, viewValue: { amount: '1' } }],
          }),
        ),
      ],
    });
    const [contract] = (
      await client().activeContracts({ parties: [ALICE], activeAtOffset: 1 }, { transport: 'http' })
    ).contracts;
    expect(contract?.createdEvent.createArgument).toBeNull();
    expect(contract?.createdEvent.interfaceViews?.[0]?.viewValue).toEqual({ amount: '1' });
    expect(contract?.synchronizerId).toBe(SYNC);
  });
});
