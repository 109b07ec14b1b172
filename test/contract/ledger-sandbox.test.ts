/**
 * The sandbox's participant JSON Ledger API and token registry against the published documents: every response
 * the sandbox returns on these routes (successes and JsCantonError failures, HTTP and WebSocket frames) validates
 * against the Canton 3.5.1 and 3.4.12 OpenAPI documents, and the registry's against the token-standard documents;
 * the requests, shaped as the wrapped SDK sends them (quirks included) and in the newer eventFormat form, are
 * requests the documents declare, and the sandbox accepts them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '@ledgerbook/sandbox/testing';
import {
  HOLDING_INTERFACE,
  REGISTRY_HOLDING,
  Registry,
  acsBody,
  rootResult,
  tokenWorld,
  transfer,
  transferArgument,
  walletFor,
  wsRequest,
  type TokenWorld,
  type Wallet,
} from '@ledgerbook/sandbox/testing';
import { sdkDisclosed, transferFactoryCommand } from '@ledgerbook/sandbox/testing';
import { type SpecName, validateRequest, validateResponse } from './openapi.js';

const LEDGER_SPECS: SpecName[] = ['ledger-3.5.1', 'ledger-3.4.12'];

let world: World;
let tokens: TokenWorld;
let minter: Wallet;
let registry: Registry;
let me: string;

beforeAll(async () => {
  world = await startWorld();
  tokens = await tokenWorld(world);
  minter = walletFor(world, tokens, tokens.minter);
  registry = new Registry(world.sandbox.urls.registry, tokens.admin);
  me = (await minter.ledger.get<{ user: { id: string } }>('/v2/authenticated-user')).body.user.id;
});
afterAll(async () => world?.stop());

/** calls node1's ledger API and checks the response against both Canton documents */
async function call(method: string, path: string, body?: unknown, expected = 200): Promise<unknown> {
  const response = await minter.ledger.call(method, path, body === undefined ? {} : { body });
  expect(response.status, `${method} ${path}: ${response.text}`).toBe(expected);
  for (const spec of LEDGER_SPECS) {
    const verdict = await validateResponse(spec, method, path, response.status, response.body);
    expect(
      verdict.valid,
      `${spec} ${method} ${path} → ${response.status}: ${JSON.stringify(verdict.findings)}`,
    ).toBe(true);
  }
  return response.body;
}

/** the minter's JsCommands for a transfer of `argument` through the registry's factory */
async function transferCommands(argument: Record<string, unknown>): Promise<Record<string, unknown>> {
  const factory = await registry.transferFactory(argument);
  return {
    actAs: [minter.party],
    commandId: randomUUID(),
    disclosedContracts: sdkDisclosed(factory.choiceContext.disclosedContracts),
    commands: [transferFactoryCommand(factory, argument)],
  };
}

async function requestIsDeclared(spec: SpecName, method: string, path: string, body: unknown): Promise<void> {
  const verdict = await validateRequest(spec, method, path, body);
  expect(verdict.valid, `${spec} request ${method} ${path}: ${JSON.stringify(verdict.findings)}`).toBe(true);
}

describe('JSON Ledger API responses validate against 3.5.1 and 3.4.12', () => {
  it('version, ledger end, pruning, synchronizers, participant id, packages, parties, users', async () => {
    await call('GET', '/v2/version');
    await call('GET', '/v2/state/ledger-end');
    await call('GET', '/v2/state/latest-pruned-offsets');
    await call('GET', `/v2/state/connected-synchronizers?party=${encodeURIComponent(minter.party)}`);
    await call('GET', '/v2/parties/participant-id');
    await call('GET', '/v2/packages');
    await call('GET', '/v2/parties?filter-party=minter');
    await call('GET', `/v2/parties/${encodeURIComponent(minter.party)}`);
    await call('GET', '/v2/users');
    await call('GET', '/v2/authenticated-user');
    await call('GET', `/v2/users/${encodeURIComponent(me)}`);
    await call('GET', `/v2/users/${encodeURIComponent(me)}/rights`);
    const allocate = { partyIdHint: `contract-${Date.now()}`, userId: me };
    await requestIsDeclared('ledger-3.5.1', 'POST', '/v2/parties', allocate);
    await call('POST', '/v2/parties', allocate);
  });

  it('active contracts: the SDK’s filter/verbose body, the eventFormat body, template and interface filters', async () => {
    const offset = await minter.ledgerEnd();
    for (const shape of ['legacy', 'eventFormat'] as const) {
      for (const filter of [{ interface: HOLDING_INTERFACE }, { template: REGISTRY_HOLDING }]) {
        const body = acsBody(minter.party, filter, offset, shape);
        await requestIsDeclared('ledger-3.5.1', 'POST', '/v2/state/active-contracts', body);
        const entries = (await call('POST', '/v2/state/active-contracts', body)) as unknown[];
        expect(entries.length).toBeGreaterThan(0);
      }
    }
    await requestIsDeclared(
      'ledger-3.4.12',
      'POST',
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat'),
    );
  });

  it('WebSocket active-contracts frames are the documents’ JsGetActiveContractsResponse; error frames JsCantonError', async () => {
    const offset = await minter.ledgerEnd();
    const frames = await wsRequest(
      minter.ledger.base,
      '/v2/state/active-contracts',
      await minter.token(),
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    expect(frames.length).toBeGreaterThan(0);
    for (const spec of LEDGER_SPECS) {
      const verdict = await validateResponse(spec, 'POST', '/v2/state/active-contracts', 200, frames);
      expect(verdict.valid, JSON.stringify(verdict.findings)).toBe(true);
    }
    const error = await wsRequest(minter.ledger.base, '/v2/state/active-contracts', await minter.token(), {
      activeAtOffset: offset + 100,
      eventFormat: { filtersByParty: { [minter.party]: {} } },
    });
    expect(error).toHaveLength(1);
    const verdict = await validateResponse(
      'ledger-3.5.1',
      'POST',
      '/v2/state/active-contracts',
      400,
      error[0],
    );
    expect(verdict.valid, JSON.stringify(verdict.findings)).toBe(true);
  });

  it('submissions (flat, wait, tree), their failures, completions, updates, update by id, events by contract id', async () => {
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    const commands = await transferCommands(
      transferArgument(tokens.admin, minter.party, tokens.holders[2]!, '0.01', inputs),
    );
    const request = {
      commands,
      transactionFormat: {
        eventFormat: { filtersByParty: { [minter.party]: {} }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    };
    for (const spec of LEDGER_SPECS)
      await requestIsDeclared(spec, 'POST', '/v2/commands/submit-and-wait-for-transaction', request);
    const begin = await minter.ledgerEnd();
    const body = await call('POST', '/v2/commands/submit-and-wait-for-transaction', request);
    const updateId = (body as { transaction: { updateId: string } }).transaction.updateId;
    const offer = rootResult(body).output.value.transferInstructionCid as string;
    // the same command again: 409 DUPLICATE_COMMAND; its inputs again under a new id: 404 CONTRACT_NOT_FOUND
    await call('POST', '/v2/commands/submit-and-wait-for-transaction', request, 409);
    await call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { ...request, commands: { ...commands, commandId: randomUUID() } },
      404,
    );
    await call(
      'POST',
      '/v2/commands/submit-and-wait-for-transaction',
      { ...request, commands: { ...commands, actAs: [tokens.admin], commandId: randomUUID() } },
      403,
    );
    // submit-and-wait and the deprecated tree form, with an ACS_DELTA default format
    const self = async (path: string) => {
      const holdings = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
      const jsCommands = await transferCommands(
        transferArgument(tokens.admin, minter.party, minter.party, '0.01', holdings),
      );
      // the flat form wraps JsCommands; without a transactionFormat it answers the default ACS_DELTA shape
      const body = path.endsWith('-for-transaction') ? { commands: jsCommands } : jsCommands;
      await requestIsDeclared('ledger-3.5.1', 'POST', path, body);
      return call('POST', path, body);
    };
    await self('/v2/commands/submit-and-wait');
    await self('/v2/commands/submit-and-wait-for-transaction-tree');
    await self('/v2/commands/submit-and-wait-for-transaction');
    const completions = { userId: me, parties: [minter.party], beginExclusive: begin };
    await requestIsDeclared('ledger-3.5.1', 'POST', '/v2/commands/completions', completions);
    expect(((await call('POST', '/v2/commands/completions', completions)) as unknown[]).length).toBe(4);
    const updatesRequest = {
      beginExclusive: begin,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [minter.party]: {} }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
        includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [minter.party] } },
      },
    };
    for (const spec of LEDGER_SPECS) await requestIsDeclared(spec, 'POST', '/v2/updates', updatesRequest);
    expect(((await call('POST', '/v2/updates', updatesRequest)) as unknown[]).length).toBe(4);
    await call('POST', '/v2/updates/flats', {
      beginExclusive: begin,
      filter: { filtersByParty: { [minter.party]: {} } },
      verbose: false,
    });
    await call('POST', '/v2/updates/trees', {
      beginExclusive: begin,
      filter: { filtersByParty: { [minter.party]: {} } },
      verbose: false,
    });
    // the deprecated endpoints read updateFormat too, with the deprecated `verbose: false` beside it (Canton's
    // JSON layer cannot tell that default from an absent field)
    for (const path of ['/v2/updates/flats', '/v2/updates/trees']) {
      const body = { ...updatesRequest, verbose: false };
      for (const spec of LEDGER_SPECS) await requestIsDeclared(spec, 'POST', path, body);
      expect(((await call('POST', path, body)) as unknown[]).length, path).toBe(4);
    }
    await call('POST', '/v2/updates/update-by-id', { updateId, updateFormat: updatesRequest.updateFormat });
    await call(
      'POST',
      '/v2/updates/update-by-id',
      { updateId: `1220${'0'.repeat(64)}`, updateFormat: updatesRequest.updateFormat },
      404,
    );
    const eventsRequest = {
      contractId: offer,
      eventFormat: { filtersByParty: { [minter.party]: {} }, verbose: true },
    };
    await requestIsDeclared('ledger-3.5.1', 'POST', '/v2/events/events-by-contract-id', eventsRequest);
    await call('POST', '/v2/events/events-by-contract-id', eventsRequest);
    const archived = inputs[0]!;
    const both = (await call('POST', '/v2/events/events-by-contract-id', {
      ...eventsRequest,
      contractId: archived,
    })) as Record<string, unknown>;
    expect(Object.keys(both).sort()).toEqual(['archived', 'created']);
  });
});

describe('token registry responses validate against the token-standard documents', () => {
  async function reg(
    spec: SpecName,
    method: string,
    path: string,
    body: unknown,
    expected = 200,
  ): Promise<unknown> {
    if (body !== undefined) {
      const declared = await validateRequest(spec, method, path, body);
      expect(declared.valid, `${spec} request ${path}: ${JSON.stringify(declared.findings)}`).toBe(true);
    }
    const response = await registry.api.call(
      method,
      path.replace(/^\/registry/, ''),
      body === undefined ? {} : { body },
    );
    expect(response.status, `${method} ${path}: ${response.text}`).toBe(expected);
    const verdict = await validateResponse(spec, method, path, response.status, response.body);
    expect(
      verdict.valid,
      `${spec} ${method} ${path} → ${response.status}: ${JSON.stringify(verdict.findings)}`,
    ).toBe(true);
    return response.body;
  }

  it('metadata: info, instruments, one instrument, an unknown one', async () => {
    await reg('token-metadata', 'GET', '/registry/metadata/v1/info', undefined);
    await reg('token-metadata', 'GET', '/registry/metadata/v1/instruments?pageSize=25', undefined);
    const instrument = (await reg(
      'token-metadata',
      'GET',
      '/registry/metadata/v1/instruments/CBTC',
      undefined,
    )) as { decimals: number };
    expect(instrument.decimals).toBe(10);
    await reg('token-metadata', 'GET', '/registry/metadata/v1/instruments/NOPE', undefined, 404);
  });

  it('transfer factory (offer, self, direct), the SDK’s choice-context quirk, a 404 and a 400', async () => {
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    for (const [receiver, kind] of [
      [tokens.holders[2]!, 'offer'],
      [minter.party, 'self'],
      [tokens.preapproved, 'direct'],
    ] as const) {
      const body = {
        choiceArguments: transferArgument(tokens.admin, minter.party, receiver, '0.01', inputs),
        excludeDebugFields: true,
      };
      const factory = (await reg(
        'token-transfer-instruction',
        'POST',
        '/registry/transfer-instruction/v1/transfer-factory',
        body,
      )) as { transferKind: string };
      expect(factory.transferKind).toBe(kind);
    }
    const result = await transfer(minter, registry, tokens.holders[2]!, '0.01', inputs);
    const offer = rootResult(result.body).output.value.transferInstructionCid as string;
    for (const choice of ['accept', 'reject', 'withdraw']) {
      const path = `/registry/transfer-instruction/v1/${offer}/choice-contexts/${choice}`;
      await reg('token-transfer-instruction', 'POST', path, { meta: { values: '' } });
      await reg('token-transfer-instruction', 'POST', path, { meta: {}, excludeDebugFields: true });
    }
    await reg(
      'token-transfer-instruction',
      'POST',
      `/registry/transfer-instruction/v1/00${'9'.repeat(64)}/choice-contexts/accept`,
      { meta: { values: '' } },
      404,
    );
    await reg(
      'token-transfer-instruction',
      'POST',
      '/registry/transfer-instruction/v1/transfer-factory',
      { choiceArguments: { expectedAdmin: tokens.holders[0] } },
      400,
    );
    const unknownAdmin = await new Registry(world.sandbox.urls.registry, tokens.holders[0]!).api.get(
      '/metadata/v1/info',
    );
    expect(unknownAdmin.status).toBe(404);
    expect(unknownAdmin.body).toEqual({ error: expect.stringContaining(tokens.holders[0]!) as unknown });
  });

  it('allocation factory and allocation choice contexts', async () => {
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const body = {
      choiceArguments: {
        expectedAdmin: tokens.admin,
        allocation: {
          settlement: {
            executor: tokens.holders[4],
            settlementRef: { id: 's-1', cid: null },
            requestedAt: at(-1000),
            allocateBefore: at(60_000),
            settleBefore: at(120_000),
            meta: { values: {} },
          },
          transferLegId: 'leg',
          transferLeg: {
            sender: minter.party,
            receiver: tokens.holders[4],
            amount: '0.01',
            instrumentId: tokens.instrument,
            meta: { values: {} },
          },
        },
        requestedAt: at(-1000),
        inputHoldingCids: inputs,
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
      excludeDebugFields: true,
    };
    await reg(
      'token-allocation-instruction',
      'POST',
      '/registry/allocation-instruction/v1/allocation-factory',
      body,
    );
    await reg(
      'token-allocation',
      'POST',
      `/registry/allocations/v1/00${'8'.repeat(64)}/choice-contexts/execute-transfer`,
      { meta: { values: '' } },
      404,
    );
  });
});
