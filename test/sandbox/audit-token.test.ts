/**
 * An audit of the token half of the sandbox against the references, over plain HTTP as an outside auditor would
 * do it (fetch and WebSocket, no ledgerbook client): one check per statement of wrapped-api.md (§4 ledger usage,
 * §5 holdings, §6 gateway, §7 registry and rewards, §9 limits, §10 simulator notes) and canton-json-api.md (§2–§5)
 * that a client can observe — routes, status codes, error envelopes, field names and types, decimals, auth,
 * malformed bodies, profiles — and every response the published OpenAPI documents cover is validated against them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type Response, startWorld, waitFor, type World } from '@ledgerbook/sandbox/testing';
import {
  DEPOSIT_ACCOUNT,
  Gateway,
  HOLDING_INTERFACE,
  REGISTRY_HOLDING,
  Registry,
  TRANSFER_FACTORY,
  TRANSFER_INSTRUCTION,
  TRANSFER_OFFER,
  WITHDRAW_ACCOUNT,
  WITHDRAW_REQUEST,
  acsBody,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  createdOf,
  minterCredential,
  rootResult,
  settleOffers,
  tokenWorld,
  transfer,
  transferArgument,
  walletFor,
  wsRequest,
  type ActiveContractEntry,
  type TokenWorld,
  type TransactionBody,
  type Wallet,
} from '@ledgerbook/sandbox/testing';
import { sdkDisclosed, transferFactoryCommand } from '@ledgerbook/sandbox/testing';
import { type SpecName, validateResponse } from '../contract/openapi.js';

let world: World;
let tokens: TokenWorld;
let minter: Wallet;
let alice: Wallet;
let registry: Registry;
let gateway: Gateway;
let rewards: Api;
let faucet: Api;
let bitcoin: Api;

beforeAll(async () => {
  world = await startWorld({ ledgerApi: '3.5' });
  tokens = await tokenWorld(world);
  minter = walletFor(world, tokens, tokens.minter);
  alice = walletFor(world, tokens, tokens.holders[0]!);
  registry = new Registry(world.sandbox.urls.registry, tokens.admin);
  gateway = new Gateway(world.sandbox.urls.gateway);
  const open = (base: string): Api => new Api(base, () => Promise.resolve(undefined));
  rewards = open(world.sandbox.urls.rewards);
  faucet = open(world.sandbox.urls.faucet);
  bitcoin = open(world.sandbox.urls.bitcoin);
});
afterAll(async () => world?.stop());

const HEX64 = /^[0-9a-f]{64}$/;
const PACKAGE_ID_FORM = /^[0-9a-f]{64}:[A-Za-z0-9_.]+:[A-Za-z0-9_]+$/;
/** a Daml Decimal as the ledger returns it: a string, 10 fraction digits, no exponent */
const LEDGER_DECIMAL = /^-?\d+\.\d{10}$/;

interface CantonError {
  code: string;
  cause: string;
  context: Record<string, string>;
  errorCategory: number;
  grpcCodeValue?: number;
  correlationId?: string;
  traceId?: string;
  resources?: Array<[string, string]>;
  retryInfo?: string;
  definiteAnswer?: boolean;
}

/** the response is a JsCantonError with this code, category, gRPC code and HTTP status, valid per both documents */
async function expectCantonError(
  response: { status: number; body: unknown; text: string; contentType?: string },
  code: string,
  status: number,
  category: number,
  grpc: number,
  route?: { method: string; path: string },
): Promise<CantonError> {
  expect(response.status, response.text).toBe(status);
  if (response.contentType !== undefined) expect(response.contentType).toContain('application/json');
  const body = response.body as CantonError;
  expect(body.code, response.text).toBe(code);
  expect(typeof body.cause).toBe('string');
  expect(body.cause.length).toBeGreaterThan(0);
  expect(body.errorCategory).toBe(category);
  expect(body.grpcCodeValue).toBe(grpc);
  expect(typeof body.context).toBe('object');
  for (const v of Object.values(body.context)) expect(typeof v).toBe('string');
  // retryInfo only for the retryable categories (1, 2, 3)
  expect(body.retryInfo !== undefined, response.text).toBe([1, 2, 3].includes(category));
  if (route !== undefined) await expectValid(['ledger-3.5.1', 'ledger-3.4.12'], route, response);
  return body;
}

async function expectValid(
  specs: SpecName[],
  route: { method: string; path: string },
  response: { status: number; body: unknown },
): Promise<void> {
  for (const spec of specs) {
    const verdict = await validateResponse(spec, route.method, route.path, response.status, response.body);
    expect(
      verdict.valid,
      `${spec} ${route.method} ${route.path} → ${response.status}: ${JSON.stringify(verdict.findings)}`,
    ).toBe(true);
  }
}

const LEDGER_SPECS: SpecName[] = ['ledger-3.5.1', 'ledger-3.4.12'];

async function ledgerCall(wallet: Wallet, method: string, path: string, body?: unknown): Promise<Response> {
  const response = await wallet.ledger.call(method, path, body === undefined ? {} : { body });
  if (response.status === 200) await expectValid(LEDGER_SPECS, { method, path }, response);
  return response;
}

function submitBody(
  wallet: Wallet,
  commands: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    commands: { actAs: [wallet.party], commandId: randomUUID(), commands, ...extra },
    transactionFormat: {
      eventFormat: { filtersByParty: { [wallet.party]: {} }, verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  };
}

/** a transfer's offer cid from its LEDGER_EFFECTS transaction */
function offerOf(body: unknown): string {
  const value = rootResult(body).output.value as { transferInstructionCid: string };
  return value.transferInstructionCid;
}

/** the faucet's and the rewards service's failure envelope: `{"success": false, <field>: "…"}` with this status */
function expectFailureEnvelope(response: Response, status: number, field: 'message' | 'error'): void {
  const body = response.body as Record<string, unknown>;
  expect(response.status, response.text).toBe(status);
  expect(body.success).toBe(false);
  expect(typeof body[field]).toBe('string');
}

async function unlockedInputs(wallet: Wallet): Promise<string[]> {
  return (await wallet.holdings(tokens.instrument)).map((h) => h.contractId);
}

/** a holder on node2, funded from the faucet party by a direct transfer of the minter */
async function funded(index: number, amount: string): Promise<Wallet> {
  const wallet = walletFor(world, tokens, tokens.holders[index]!);
  const sent = await transfer(minter, registry, wallet.party, amount, await unlockedInputs(minter));
  expect(sent.status, sent.text).toBe(200);
  const accepted = await settleOffers(wallet, registry, [offerOf(sent.body)], 'TransferInstruction_Accept');
  expect(accepted.status, accepted.text).toBe(200);
  return wallet;
}

// ---- ledger: auth, routes, content types ---------------------------------------------------------------------

describe('JSON Ledger API: auth, routes and content types (canton-json-api.md §2, §4; wrapped-api.md §4.5)', () => {
  it('401 UNAUTHENTICATED JsCantonError without a token', async () => {
    const response = await minter.ledger.call('GET', '/v2/state/ledger-end', { token: null });
    await expectCantonError(response, 'UNAUTHENTICATED', 401, 6, 16, {
      method: 'GET',
      path: '/v2/state/ledger-end',
    });
  });

  it('401 with a token that is not a valid JWT of the issuer', async () => {
    const response = await minter.ledger.call('GET', '/v2/state/ledger-end', { token: 'not.a.jwt' });
    await expectCantonError(response, 'UNAUTHENTICATED', 401, 6, 16);
  });

  it('403 PERMISSION_DENIED when actAs is outside the user’s rights', async () => {
    const viewer = await world.token('viewer');
    const response = await minter.ledger.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      token: viewer,
      body: submitBody(minter, [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: '00' + 'ab'.repeat(33),
            choice: 'TransferFactory_Transfer',
            choiceArgument: {},
          },
        },
      ]),
    });
    await expectCantonError(response, 'PERMISSION_DENIED', 403, 7, 7, {
      method: 'POST',
      path: '/v2/commands/submit-and-wait-for-transaction',
    });
  });

  it('GET /v2/state/ledger-end: 200 application/json {offset: integer}', async () => {
    const response = await ledgerCall(minter, 'GET', '/v2/state/ledger-end');
    expect(response.status).toBe(200);
    expect(response.contentType).toContain('application/json');
    expect(Number.isInteger((response.body as { offset: number }).offset)).toBe(true);
  });

  it('GET /v2/version names the 3.5.1 release on the 3.5 profile', async () => {
    const response = await ledgerCall(minter, 'GET', '/v2/version');
    expect((response.body as { version: string }).version).toBe('3.5.1');
  });

  it('GET /v2/packages lists every package of the current DAR set (dar_check, §8.20)', async () => {
    const expected = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../fixtures/specs/wrapped/expected_packages.head-derived.json'),
        'utf8',
      ),
    ) as { packages: Record<string, unknown> };
    const response = await ledgerCall(minter, 'GET', '/v2/packages');
    const ids = new Set((response.body as { packageIds: string[] }).packageIds);
    for (const id of Object.keys(expected.packages)) expect(ids.has(id), id).toBe(true);
  });

  it('GET /v2/users/{sub}/rights: CanActAs rights in the {kind: {CanActAs: {value: {party}}}} shape', async () => {
    const me = (await minter.ledger.get<{ user: { id: string } }>('/v2/authenticated-user')).body.user.id;
    const path = `/v2/users/${encodeURIComponent(me)}/rights`;
    const response = await ledgerCall(minter, 'GET', path);
    const rights = (
      response.body as { rights: Array<{ kind: Record<string, { value: { party?: string } }> }> }
    ).rights;
    expect(rights.some((r) => r.kind.CanActAs?.value.party === minter.party)).toBe(true);
  });

  it('an unknown route answers 404', async () => {
    const response = await minter.ledger.call('GET', '/v2/no-such-route');
    expect(response.status).toBe(404);
  });

  it('a known route with a method it does not serve answers 405', async () => {
    const response = await minter.ledger.call('DELETE', '/v2/state/ledger-end');
    expect(response.status).toBe(405);
  });

  it('a query parameter that does not decode (pageSize=abc): 400 text/plain "Invalid value for: query parameter"', async () => {
    const response = await minter.ledger.call('GET', '/v2/parties?pageSize=abc');
    expect(response.status).toBe(400);
    expect(response.contentType).toContain('text/plain');
    expect(response.text).toBe('Invalid value for: query parameter pageSize');
  });

  it('WebSocket without a valid token: one UNAUTHENTICATED frame', async () => {
    const frames = await wsRequest(minter.ledger.base, '/v2/state/active-contracts', 'bad', {
      activeAtOffset: 0,
      eventFormat: { filtersByParty: { [minter.party]: {} } },
    });
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ code: 'UNAUTHENTICATED', errorCategory: 6, grpcCodeValue: 16 });
  });
});

// ---- ledger: active contracts --------------------------------------------------------------------------------

describe('active contracts (wrapped-api.md §4.2, canton-json-api.md §3)', () => {
  it('the SDK’s filter/verbose body: every field §4.2 lists, package-id template ids, views, blobs', async () => {
    const offset = await minter.ledgerEnd();
    const response = await ledgerCall(
      minter,
      'POST',
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    const entries = response.body as ActiveContractEntry[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(typeof entry.workflowId).toBe('string');
      const active = entry.contractEntry.JsActiveContract;
      expect(typeof active.synchronizerId).toBe('string');
      expect(active.reassignmentCounter).toBe(0);
      const ev = active.createdEvent as unknown as Record<string, unknown>;
      for (const field of [
        'offset',
        'nodeId',
        'contractId',
        'templateId',
        'createArgument',
        'createdEventBlob',
        'interfaceViews',
        'witnessParties',
        'signatories',
        'observers',
        'createdAt',
        'packageName',
        'representativePackageId',
        'acsDelta',
      ])
        expect(ev, field).toHaveProperty(field);
      expect(ev.templateId).toMatch(PACKAGE_ID_FORM);
      expect(ev.representativePackageId).toMatch(HEX64);
      expect(ev.contractId).toMatch(/^00[0-9a-f]+$/);
    }
  });

  it('an interface-only filter: createArgument null, the HoldingV1 view with viewStatus code 0, amounts as 10-place strings', async () => {
    const offset = await minter.ledgerEnd();
    const response = await ledgerCall(
      minter,
      'POST',
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat'),
    );
    for (const entry of response.body as ActiveContractEntry[]) {
      const ev = entry.contractEntry.JsActiveContract.createdEvent;
      expect(ev.createArgument).toBeNull();
      const view = ev.interfaceViews![0] as {
        interfaceId: string;
        viewStatus: { code: number };
        viewValue: Record<string, unknown>;
      };
      expect(view.interfaceId).toMatch(/^718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:/);
      expect(view.viewStatus.code).toBe(0);
      expect(Object.keys(view.viewValue).sort()).toEqual(['amount', 'instrumentId', 'lock', 'meta', 'owner']);
      expect(view.viewValue.amount).toMatch(LEDGER_DECIMAL);
    }
  });

  it('a template filter: the concrete Holding payload (instrument.source, not admin) with amount strings', async () => {
    const entries = await minter.acs({ template: REGISTRY_HOLDING });
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      const arg = entry.contractEntry.JsActiveContract.createdEvent.createArgument!;
      for (const field of [
        'operator',
        'provider',
        'registrar',
        'owner',
        'instrument',
        'label',
        'amount',
        'lock',
      ])
        expect(arg, field).toHaveProperty(field);
      expect(Object.keys(arg.instrument as object).sort()).toEqual(['id', 'scheme', 'source']);
      expect(arg.amount).toMatch(LEDGER_DECIMAL);
    }
  });

  it('the TransferInstruction view of an offer: originalInstructionCid, transfer, status TransferPendingReceiverAcceptance, meta', async () => {
    const sent = await transfer(minter, registry, tokens.holders[45]!, '0.01', await unlockedInputs(minter));
    expect(sent.status, sent.text).toBe(200);
    const offer = offerOf(sent.body);
    const entries = await minter.acs({ interface: TRANSFER_INSTRUCTION });
    const ev = entries
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .find((e) => e.contractId === offer)!;
    const view = ev.interfaceViews![0]!.viewValue as Record<string, unknown>;
    expect(Object.keys(view).sort()).toEqual(['meta', 'originalInstructionCid', 'status', 'transfer']);
    expect(view.originalInstructionCid).toBeNull();
    expect(view.status).toEqual({ tag: 'TransferPendingReceiverAcceptance', value: {} });
    expect((view.transfer as { amount: string }).amount).toBe('0.0100000000');
  });

  it('createdEventBlob only when asked for', async () => {
    const offset = await minter.ledgerEnd();
    const response = await minter.ledger.post<ActiveContractEntry[]>(
      '/v2/state/active-contracts',
      acsBody(minter.party, { template: REGISTRY_HOLDING, blob: false }, offset, 'eventFormat'),
    );
    for (const entry of response.body)
      expect(entry.contractEntry.JsActiveContract.createdEvent.createdEventBlob).toBeUndefined();
  });

  it('activeAtOffset beyond the ledger end: 400 OFFSET_AFTER_LEDGER_END (category 12, OUT_OF_RANGE); a negative one NEGATIVE_OFFSET', async () => {
    const offset = await minter.ledgerEnd();
    const route = { method: 'POST', path: '/v2/state/active-contracts' };
    const response = await minter.ledger.post(
      route.path,
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset + 1000, 'eventFormat'),
    );
    const after = await expectCantonError(response, 'OFFSET_AFTER_LEDGER_END', 400, 12, 11, route);
    expect(after.cause).toBe(`active_at_offset offset (${offset + 1000}) is after ledger end (${offset})`);
    const negative = await minter.ledger.post(
      route.path,
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, -1, 'eventFormat'),
    );
    expect((await expectCantonError(negative, 'NEGATIVE_OFFSET', 400, 8, 3, route)).cause).toMatch(
      /^Offset -1 in active_at_offset is a negative integer/,
    );
  });

  it('activeAtOffset 0 returns an empty set', async () => {
    const response = await minter.ledger.post<unknown[]>(
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, 0, 'eventFormat'),
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual([]);
  });

  it('filter and eventFormat together: 400 INVALID_ARGUMENT', async () => {
    const offset = await minter.ledgerEnd();
    const legacy = acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy');
    const modern = acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat');
    const response = await minter.ledger.post('/v2/state/active-contracts', { ...legacy, ...modern });
    await expectCantonError(response, 'INVALID_ARGUMENT', 400, 8, 3);
  });

  it('an unknown field in the body: 400 text/plain "Invalid value for: body"', async () => {
    const offset = await minter.ledgerEnd();
    const response = await minter.ledger.post('/v2/state/active-contracts', {
      ...acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat'),
      bogus: true,
    });
    expect(response.status).toBe(400);
    expect(response.contentType).toContain('text/plain');
    expect(response.text).toMatch(/^Invalid value for: body/);
  });

  it('a body that is not JSON: 400 text/plain', async () => {
    const response = await minter.ledger.call('POST', '/v2/state/active-contracts', {
      raw: '{"activeAtOffset":',
    });
    expect(response.status).toBe(400);
    expect(response.contentType).toContain('text/plain');
    expect(response.text).toMatch(/^Invalid value for: body/);
  });

  it('WebSocket: one JsActiveContract frame per contract, then Close; an error frame is a JsCantonError', async () => {
    const offset = await minter.ledgerEnd();
    const frames = await wsRequest(
      minter.ledger.base,
      '/v2/state/active-contracts',
      await minter.token(),
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    const http = await minter.ledger.post<unknown[]>(
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    expect(frames.length).toBe(http.body.length);
    for (const f of frames) expect(f).toHaveProperty('contractEntry.JsActiveContract');
    const error = await wsRequest(minter.ledger.base, '/v2/state/active-contracts', await minter.token(), {
      activeAtOffset: offset + 1000,
      eventFormat: { filtersByParty: { [minter.party]: {} } },
    });
    expect(error).toHaveLength(1);
    expect(error[0]).toMatchObject({ code: 'OFFSET_AFTER_LEDGER_END', errorCategory: 12 });
  });

  it('more than 10 holdings per party are allowed (the limit is soft) and all can be spent in one transfer', async () => {
    const wallet = await funded(40, '1.1');
    let rest = await unlockedInputs(wallet);
    for (let i = 0; i < 10; i++) {
      // split 0.1 off the rest each time: one more holding per self-transfer
      const split = await transfer(wallet, registry, wallet.party, '0.1', rest);
      expect(split.status, split.text).toBe(200);
      expect(split.transferKind).toBe('self');
      rest = rootResult(split.body).senderChangeCids;
      expect(rest).toHaveLength(1);
    }
    const inputs = await unlockedInputs(wallet);
    expect(inputs.length).toBe(11);
    const merge = await transfer(wallet, registry, wallet.party, '1.1', inputs);
    expect(merge.status, merge.text).toBe(200);
    expect(await unlockedInputs(wallet)).toHaveLength(1);
  });
});

// ---- ledger: submissions ---------------------------------------------------------------------------------------

describe('command submission (wrapped-api.md §4.3, §10.2–10.3; canton-json-api.md §3)', () => {
  it('a transfer: LEDGER_EFFECTS, root ExercisedEvent first (interfaceId, Pending result), every required field', async () => {
    const sent = await transfer(minter, registry, tokens.holders[41]!, '0.01', await unlockedInputs(minter));
    expect(sent.status, sent.text).toBe(200);
    expect(sent.transferKind).toBe('offer');
    await expectValid(
      LEDGER_SPECS,
      { method: 'POST', path: '/v2/commands/submit-and-wait-for-transaction' },
      sent,
    );
    const tx = (sent.body as TransactionBody).transaction as unknown as Record<string, unknown>;
    for (const field of [
      'updateId',
      'commandId',
      'effectiveAt',
      'offset',
      'synchronizerId',
      'recordTime',
      'events',
    ])
      expect(tx, field).toHaveProperty(field);
    const events = tx.events as Array<Record<string, Record<string, unknown>>>;
    expect(Object.keys(events[0]!)).toEqual(['ExercisedEvent']);
    expect(events.some((e) => 'ArchivedEvent' in e)).toBe(false);
    const root = events[0]!.ExercisedEvent!;
    for (const field of [
      'offset',
      'nodeId',
      'contractId',
      'templateId',
      'interfaceId',
      'choice',
      'choiceArgument',
      'actingParties',
      'consuming',
      'witnessParties',
      'lastDescendantNodeId',
      'exerciseResult',
      'packageName',
      'acsDelta',
    ])
      expect(root, field).toHaveProperty(field);
    expect(root.nodeId).toBe(0);
    expect(root.templateId).toMatch(
      /:Utility\.Registry\.App\.V0\.Service\.AllocationFactory:AllocationFactory$/,
    );
    expect(root.interfaceId).toMatch(/^55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281:/);
    expect(root.consuming).toBe(false);
    const result = root.exerciseResult as {
      output: { tag: string };
      senderChangeCids: string[];
      meta: unknown;
    };
    expect(result.output.tag).toBe('TransferInstructionResult_Pending');
    expect(Object.keys(result.meta as object)).toEqual(['values']);
    // pre-order: node ids grow with the event order
    const ids = events.map((e) => Object.values(e)[0]!.nodeId as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(root.lastDescendantNodeId).toBe(Math.max(...ids));
  });

  it('the same commandId again: 409 DUPLICATE_COMMAND (category 10, ALREADY_EXISTS) and no second effect', async () => {
    const commandId = randomUUID();
    const first = await transfer(minter, registry, minter.party, '0.5', await unlockedInputs(minter), {
      commandId,
    });
    expect(first.status, first.text).toBe(200);
    const end = await minter.ledgerEnd();
    const again = await transfer(minter, registry, minter.party, '0.5', await unlockedInputs(minter), {
      commandId,
    });
    await expectCantonError(again, 'DUPLICATE_COMMAND', 409, 10, 6, {
      method: 'POST',
      path: '/v2/commands/submit-and-wait-for-transaction',
    });
    expect(await minter.ledgerEnd()).toBe(end);
  });

  it('a consumed input: 404 CONTRACT_NOT_FOUND (category 11, NOT_FOUND)', async () => {
    const inputs = await unlockedInputs(minter);
    const first = await transfer(minter, registry, minter.party, '0.1', inputs);
    expect(first.status, first.text).toBe(200);
    const stale = await transfer(minter, registry, minter.party, '0.1', inputs);
    await expectCantonError(stale, 'CONTRACT_NOT_FOUND', 404, 11, 5, {
      method: 'POST',
      path: '/v2/commands/submit-and-wait-for-transaction',
    });
  });

  it('insufficient funds, an expired executeBefore, a wrong expectedAdmin: 400 DAML_INTERPRETATION_ERROR', async () => {
    const inputs = await unlockedInputs(minter);
    const balance = await minter.balance(tokens.instrument);
    const tooMuch = await transfer(
      minter,
      registry,
      tokens.holders[42]!,
      new Decimal(balance).plus(1).toFixed(),
      inputs,
    );
    await expectCantonError(tooMuch, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
    const argument = transferArgument(tokens.admin, minter.party, tokens.holders[42]!, '0.1', inputs, {
      executeBefore: new Date(Date.now() - 1000).toISOString(),
    });
    const factory = await registry.transferFactory(
      transferArgument(tokens.admin, minter.party, tokens.holders[42]!, '0.1', inputs),
    );
    const expired = await minter.submit([transferFactoryCommand(factory, argument)], {
      disclosed: factory.choiceContext.disclosedContracts,
    });
    await expectCantonError(expired, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
    const wrongAdmin = await minter.submit(
      [
        transferFactoryCommand(factory, {
          ...transferArgument(tokens.admin, minter.party, tokens.holders[42]!, '0.1', inputs),
          expectedAdmin: tokens.otherInstrument.admin,
        }),
      ],
      { disclosed: factory.choiceContext.disclosedContracts },
    );
    await expectCantonError(wrongAdmin, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
  });

  it('an amount with more than 10 decimals, or in exponent notation: 400, nothing committed', async () => {
    for (const amount of ['0.12345678901', '1e-3']) {
      const end = await minter.ledgerEnd();
      const inputs = await unlockedInputs(minter);
      const argument = transferArgument(tokens.admin, minter.party, tokens.holders[43]!, amount, inputs);
      const factory = await registry.api.post<{
        factoryId: string;
        choiceContext: { choiceContextData: unknown; disclosedContracts: [] };
      }>('/transfer-instruction/v1/transfer-factory', {
        choiceArguments: transferArgument(tokens.admin, minter.party, tokens.holders[43]!, '0.1', inputs),
        excludeDebugFields: true,
      });
      const response = await minter.submit([transferFactoryCommand(factory.body, argument)], {
        disclosed: factory.body.choiceContext.disclosedContracts,
      });
      expect(response.status, `${amount}: ${response.text}`).toBe(400);
      expect((response.body as CantonError).code).toBe('COMMAND_PREPROCESSING_FAILED');
      expect(await minter.ledgerEnd()).toBe(end);
    }
  });

  it('accepting after executeBefore: 400 DAML_INTERPRETATION_ERROR; the sender can still withdraw', async () => {
    const receiver = walletFor(world, tokens, tokens.holders[44]!);
    const sent = await transfer(minter, registry, receiver.party, '0.01', await unlockedInputs(minter), {
      executeBefore: new Date(Date.now() + 1500).toISOString(),
    });
    expect(sent.status, sent.text).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    const late = await settleOffers(receiver, registry, [offerOf(sent.body)], 'TransferInstruction_Accept');
    await expectCantonError(late, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
    const back = await settleOffers(minter, registry, [offerOf(sent.body)], 'TransferInstruction_Withdraw');
    expect(back.status, back.text).toBe(200);
  });

  it('a batch of accepts is atomic: one bad cid fails the whole submission', async () => {
    const receiver = walletFor(world, tokens, tokens.holders[46]!);
    const offers: string[] = [];
    for (let i = 0; i < 4; i++) {
      const sent = await transfer(minter, registry, receiver.party, '0.01', await unlockedInputs(minter));
      offers.push(offerOf(sent.body));
    }
    const context = await registry.choiceContext(offers[0]!, 'accept');
    const bad = '00' + 'cd'.repeat(33);
    const response = await receiver.submit(
      [...offers, bad].map((cid) => ({
        ExerciseCommand: {
          templateId: TRANSFER_INSTRUCTION,
          contractId: cid,
          choice: 'TransferInstruction_Accept',
          choiceArgument: { extraArgs: { context: context.choiceContextData, meta: { values: {} } } },
        },
      })),
      { disclosed: context.disclosedContracts },
    );
    await expectCantonError(response, 'CONTRACT_NOT_FOUND', 404, 11, 5);
    expect(await receiver.balance(tokens.instrument)).toBe('0.0000000000');
    const offersLeft = (await receiver.acs({ template: TRANSFER_OFFER })).length;
    expect(offersLeft).toBe(4);
  });

  it('a disclosed contract whose blob does not match: 400 (INVALID_ARGUMENT family)', async () => {
    const inputs = await unlockedInputs(minter);
    const argument = transferArgument(tokens.admin, minter.party, minter.party, '0.1', inputs);
    const factory = await registry.transferFactory(argument);
    const response = await minter.submit([transferFactoryCommand(factory, argument)], {
      disclosed: factory.choiceContext.disclosedContracts.map((d) => ({
        ...d,
        createdEventBlob: Buffer.from('not the blob').toString('base64'),
      })),
    });
    expect(response.status, response.text).toBe(400);
    expect((response.body as CantonError).grpcCodeValue).toBe(3);
  });

  it('an unknown field in JsCommands, an empty command list, a missing actAs: 400', async () => {
    const base = submitBody(minter, [
      { CreateCommand: { templateId: REGISTRY_HOLDING, createArguments: {} } },
    ]);
    const unknown = await minter.ledger.post('/v2/commands/submit-and-wait-for-transaction', {
      ...base,
      commands: { ...(base.commands as object), bogus: 1 },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.contentType).toContain('text/plain');
    const empty = await minter.ledger.post(
      '/v2/commands/submit-and-wait-for-transaction',
      submitBody(minter, []),
    );
    expect(empty.status, empty.text).toBe(400);
    const noActAs = submitBody(minter, [
      { CreateCommand: { templateId: REGISTRY_HOLDING, createArguments: {} } },
    ]);
    delete (noActAs.commands as Record<string, unknown>).actAs;
    const missing = await minter.ledger.post('/v2/commands/submit-and-wait-for-transaction', noActAs);
    expect(missing.status, missing.text).toBe(400);
  });

  it('the default transaction format is ACS_DELTA (Created/Archived events)', async () => {
    const inputs = await unlockedInputs(minter);
    const argument = transferArgument(tokens.admin, minter.party, minter.party, '0.1', inputs);
    const factory = await registry.transferFactory(argument);
    const body = submitBody(minter, [transferFactoryCommand(factory, argument)], {
      disclosedContracts: sdkDisclosed(factory.choiceContext.disclosedContracts),
    });
    delete body.transactionFormat;
    const response = await ledgerCall(minter, 'POST', '/v2/commands/submit-and-wait-for-transaction', body);
    expect(response.status, response.text).toBe(200);
    const kinds = new Set(
      (response.body as TransactionBody).transaction.events.flatMap((e) => Object.keys(e)),
    );
    expect([...kinds].sort()).toEqual(['ArchivedEvent', 'CreatedEvent']);
  });
});

// ---- request forms ----------------------------------------------------------------------------------------------

describe('request forms as Canton reads them (its JSON layer and request validators, 3.4 and 3.5 alike)', () => {
  /** one transfer of the minter's: the offsets around it, and a LEDGER_EFFECTS / ACS_DELTA update format for it */
  async function oneTransfer(): Promise<{ begin: number; end: number; formats: Record<string, unknown> }> {
    const sent = await transfer(minter, registry, tokens.holders[5]!, '0.01', await unlockedInputs(minter));
    expect(sent.status, sent.text).toBe(200);
    const end = (sent.body as TransactionBody).transaction.offset;
    const format = (shape: string) => ({
      includeTransactions: {
        eventFormat: { filtersByParty: { [minter.party]: {} }, verbose: true },
        transactionShape: `TRANSACTION_SHAPE_${shape}`,
      },
    });
    return {
      begin: end - 1,
      end,
      formats: { ACS_DELTA: format('ACS_DELTA'), LEDGER_EFFECTS: format('LEDGER_EFFECTS') },
    };
  }

  it('/v2/updates, /flats and /trees read updateFormat, with `verbose: false` beside it; filter or `verbose: true` beside it, or neither, refused with Canton’s texts', async () => {
    const { begin, end, formats } = await oneTransfer();
    for (const path of ['/v2/updates', '/v2/updates/flats', '/v2/updates/trees']) {
      const route = { method: 'POST', path };
      const range = { beginExclusive: begin, endInclusive: end };
      for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS']) {
        const response = await ledgerCall(minter, 'POST', path, {
          ...range,
          verbose: false,
          updateFormat: formats[shape],
        });
        expect(response.status, `${path} ${shape}: ${response.text}`).toBe(200);
        const updates = response.body as Array<{
          update: Record<string, { value: Record<string, unknown> }>;
        }>;
        expect(updates).toHaveLength(1);
        const [kind, { value }] = Object.entries(updates[0]!.update)[0]!;
        expect(kind).toBe(path.endsWith('trees') ? 'TransactionTree' : 'Transaction');
        expect(value.offset).toBe(end);
        // trees keep created and exercised events only: an ACS_DELTA tree has the creates, never an archive
        const events = Object.values((value.events ?? value.eventsById) as Record<string, object>).map(
          (e) => Object.keys(e)[0],
        );
        const expected = path.endsWith('trees')
          ? { ACS_DELTA: ['CreatedTreeEvent'], LEDGER_EFFECTS: ['CreatedTreeEvent', 'ExercisedTreeEvent'] }
          : {
              ACS_DELTA: ['ArchivedEvent', 'CreatedEvent'],
              LEDGER_EFFECTS: ['CreatedEvent', 'ExercisedEvent'],
            };
        expect([...new Set(events)].sort(), `${path} ${shape}`).toEqual(expected[shape as 'ACS_DELTA']);
      }
      const refusals: Array<[Record<string, unknown>, string]> = [
        [
          { filter: { filtersByParty: { [minter.party]: {} } }, updateFormat: formats.ACS_DELTA },
          'Both update_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.',
        ],
        [
          { verbose: true, updateFormat: formats.ACS_DELTA },
          'Both update_format and verbose are set. Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.',
        ],
        [
          { verbose: false },
          'Either filter/verbose or update_format is required. Please use either backwards compatible arguments (filter and verbose) or update_format.',
        ],
      ];
      for (const [body, cause] of refusals) {
        const refused = await minter.ledger.post(path, { ...range, ...body });
        const error = await expectCantonError(refused, 'INVALID_ARGUMENT', 400, 8, 3, route);
        expect(error.cause).toBe(`The submitted request has invalid arguments: ${cause}`);
      }
    }
    // an update format that asks for nothing is valid and matches nothing
    const nothing = await ledgerCall(minter, 'POST', '/v2/updates', {
      beginExclusive: begin,
      endInclusive: end,
      updateFormat: {},
    });
    expect([nothing.status, nothing.body]).toEqual([200, []]);
  });

  it('past the node’s list limit: 413 JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED, as Canton answers it; a `limit` up to the node’s, or the WebSocket, reads them', async () => {
    // 201 party allocations on node2: 201 topology updates that node2's operator reads
    const begin = await alice.ledgerEnd();
    const allocated = await world.admin.post<{ parties: string[] }>('/parties', {
      node: 'node2',
      count: 201,
      prefix: 'list-limit',
    });
    expect(allocated.status, allocated.text).toBe(201);
    const request = {
      beginExclusive: begin,
      endInclusive: await alice.ledgerEnd(),
      updateFormat: {
        includeTopologyEvents: {
          includeParticipantAuthorizationEvents: { parties: allocated.body.parties },
        },
      },
    };
    const route = { method: 'POST', path: '/v2/updates' };
    for (const query of ['', '?limit=201']) {
      const refused = await alice.ledger.post(`${route.path}${query}`, request);
      const error = await expectCantonError(
        refused,
        'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
        413,
        2, // ContentionOnSharedResources: ABORTED, retryable (retryInfo) …
        10,
        route,
      );
      expect(error.retryInfo).toBe('1 second');
      expect(error.definiteAnswer).toBe(false);
      // … and Canton reads at most the limit + 1 elements, so that is the count it names
      expect(error.cause).toBe('The number of matching elements (201) is greater than the node limit (200).');
    }
    const page = await alice.ledger.post(`${route.path}?limit=200`, request);
    expect([page.status, (page.body as unknown[]).length]).toEqual([200, 200]);
    const frames = await wsRequest(alice.ledger.base, route.path, await alice.token(), request);
    expect(frames).toHaveLength(201);
    expect(frames[0]).toMatchObject({ update: { TopologyTransaction: {} } });
  });

  it('update and completion offsets as Canton validates them: a negative begin, an end of 0, after the ledger end or before the begin, descending without an end, no party', async () => {
    const end = await minter.ledgerEnd();
    const updateFormat = {
      includeTransactions: {
        eventFormat: { filtersByParty: { [minter.party]: {} } },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    };
    const cases: Array<[Record<string, unknown>, string, number, number, string]> = [
      [
        { beginExclusive: -1 },
        'NEGATIVE_OFFSET',
        400,
        8,
        'Offset -1 in begin_exclusive is a negative integer: the offset in begin_exclusive field has to be a non-negative integer (>=0)',
      ],
      [
        { beginExclusive: 0, endInclusive: 0 },
        'NON_POSITIVE_OFFSET',
        400,
        8,
        'Offset 0 in end_inclusive is not a positive integer: the offset has to be either a positive integer (>0) or not defined at all',
      ],
      [
        { beginExclusive: 0, descendingOrder: true },
        'DESCENDING_ORDER_MISSING_END',
        400,
        8,
        'end_inclusive is not provided when descending_order is true',
      ],
      [
        { beginExclusive: 0, endInclusive: end + 1 },
        'OFFSET_AFTER_LEDGER_END',
        400,
        12,
        `End offset (${end + 1}) is after ledger end (${end})`,
      ],
      [
        { beginExclusive: end, endInclusive: end - 1 },
        'OFFSET_OUT_OF_RANGE',
        400,
        9,
        `End offset ${end - 1} is before begin offset ${end}.`,
      ],
    ];
    for (const [range, code, status, category, cause] of cases) {
      const response = await minter.ledger.post('/v2/updates', { ...range, updateFormat });
      const grpc = { 8: 3, 9: 9, 12: 11 }[category]!;
      expect((await expectCantonError(response, code, status, category, grpc)).cause).toBe(cause);
    }
    const none = await ledgerCall(minter, 'POST', '/v2/updates', {
      beginExclusive: end,
      endInclusive: end,
      updateFormat,
    });
    expect([none.status, none.body]).toEqual([200, []]);
    // the completions: a negative begin, and no party
    const completions = (body: Record<string, unknown>) =>
      minter.ledger.post('/v2/commands/completions', { parties: [minter.party], ...body });
    expect(
      (await expectCantonError(await completions({ beginExclusive: -1 }), 'NEGATIVE_OFFSET', 400, 8, 3))
        .cause,
    ).toMatch(/^Offset -1 in begin_exclusive is a negative integer/);
    expect(
      (await expectCantonError(await completions({ parties: [] }), 'MISSING_FIELD', 400, 8, 3)).cause,
    ).toBe('The submitted command is missing a mandatory field: parties');
  });

  it('the WebSocket /v2/updates/flats reads updateFormat too', async () => {
    const { begin, end, formats } = await oneTransfer();
    const frames = await wsRequest(minter.ledger.base, '/v2/updates/flats', await minter.token(), {
      beginExclusive: begin,
      endInclusive: end,
      verbose: false,
      updateFormat: formats.LEDGER_EFFECTS,
    });
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ update: { Transaction: { value: { offset: end } } } });
  });

  it('active contracts: eventFormat with `verbose: false` beside it; `verbose: true` beside it, or neither, refused', async () => {
    const offset = await minter.ledgerEnd();
    const route = { method: 'POST', path: '/v2/state/active-contracts' };
    const modern = acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat');
    const accepted = await ledgerCall(minter, 'POST', route.path, { ...modern, verbose: false });
    expect(accepted.status, accepted.text).toBe(200);
    expect((accepted.body as unknown[]).length).toBeGreaterThan(0);
    for (const [body, cause] of [
      [
        { ...modern, verbose: true },
        'Both event_format and verbose are set. Please use either backwards compatible arguments (filter and verbose) or event_format, but not both.',
      ],
      [
        { activeAtOffset: offset, verbose: false },
        'Either filter/verbose or event_format is required. Please use either backwards compatible arguments (filter and verbose) or event_format.',
      ],
    ] as const) {
      const refused = await minter.ledger.post(route.path, body);
      const error = await expectCantonError(refused, 'INVALID_ARGUMENT', 400, 8, 3, route);
      expect(error.cause).toBe(`The submitted request has invalid arguments: ${cause}`);
    }
  });

  it('a missing format is MISSING_FIELD (update_format, event_format, transaction_shape); the by-id reads take a format or parties, not both', async () => {
    const { end, formats } = await oneTransfer();
    const byOffset = await minter.ledger.post('/v2/updates/update-by-offset', { offset: end });
    const missing = await expectCantonError(byOffset, 'MISSING_FIELD', 400, 8, 3, {
      method: 'POST',
      path: '/v2/updates/update-by-offset',
    });
    expect(missing.cause).toBe('The submitted command is missing a mandatory field: update_format');
    const noEvents = await minter.ledger.post('/v2/updates/update-by-offset', {
      offset: end,
      updateFormat: { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
    });
    expect((await expectCantonError(noEvents, 'MISSING_FIELD', 400, 8, 3)).cause).toMatch(/: event_format$/);
    const unspecified = await minter.ledger.post('/v2/updates/update-by-offset', {
      offset: end,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [minter.party]: {} } },
          transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED',
        },
      },
    });
    expect((await expectCantonError(unspecified, 'MISSING_FIELD', 400, 8, 3)).cause).toMatch(
      /: transaction_shape$/,
    );
    const noFormat = await minter.ledger.post('/v2/events/events-by-contract-id', {
      contractId: (await unlockedInputs(minter))[0],
    });
    expect((await expectCantonError(noFormat, 'MISSING_FIELD', 400, 8, 3)).cause).toMatch(/: event_format$/);
    const transactionFormat = (formats.ACS_DELTA as { includeTransactions: unknown }).includeTransactions;
    for (const [body, cause] of [
      [
        { offset: end, requestingParties: [minter.party], transactionFormat },
        'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.',
      ],
      [
        { offset: end },
        'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
      ],
    ] as const) {
      const refused = await minter.ledger.post('/v2/updates/transaction-by-offset', body);
      expect((await expectCantonError(refused, 'INVALID_ARGUMENT', 400, 8, 3)).cause).toBe(
        `The submitted request has invalid arguments: ${cause}`,
      );
    }
    for (const body of [
      { offset: end, requestingParties: [minter.party] },
      { offset: end, transactionFormat },
    ]) {
      const found = await minter.ledger.post('/v2/updates/transaction-by-offset', body);
      expect(found.status, found.text).toBe(200);
    }
  });
});

// ---- profiles ---------------------------------------------------------------------------------------------------

describe('--ledger-api profiles (wrapped-api.md §4.2, §10.6)', () => {
  let strict: World;
  let old: World;
  beforeAll(async () => {
    strict = await startWorld({ ledgerApi: 'strict', nodes: 1 });
    old = await startWorld({ ledgerApi: '3.4', nodes: 1 });
  });
  afterAll(async () => {
    await strict?.stop();
    await old?.stop();
  });

  it('strict: the filter/verbose body answers 400 DEPRECATED_API_DISABLED; eventFormat works', async () => {
    const w = await tokenWorld(strict);
    const wallet = walletFor(strict, w, w.minter);
    const offset = await wallet.ledgerEnd();
    const legacy = await wallet.ledger.post(
      '/v2/state/active-contracts',
      acsBody(wallet.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    await expectCantonError(legacy, 'DEPRECATED_API_DISABLED', 400, 8, 3, {
      method: 'POST',
      path: '/v2/state/active-contracts',
    });
    // `verbose: false` is the deprecated field's default: the strict profile accepts it beside eventFormat
    const modern = await wallet.ledger.post<unknown[]>('/v2/state/active-contracts', {
      ...acsBody(wallet.party, { interface: HOLDING_INTERFACE }, offset, 'eventFormat'),
      verbose: false,
    });
    expect(modern.status, modern.text).toBe(200);
    expect(modern.body.length).toBeGreaterThan(0);
  });

  it('strict: the WebSocket filter/verbose request answers a DEPRECATED_API_DISABLED frame', async () => {
    const w = await tokenWorld(strict);
    const wallet = walletFor(strict, w, w.minter);
    const frames = await wsRequest(
      wallet.ledger.base,
      '/v2/state/active-contracts',
      await wallet.token(),
      acsBody(wallet.party, { interface: HOLDING_INTERFACE }, await wallet.ledgerEnd(), 'legacy'),
    );
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ code: 'DEPRECATED_API_DISABLED' });
  });

  it('strict: submit-and-wait-for-transaction-tree answers DEPRECATED_API_DISABLED', async () => {
    const w = await tokenWorld(strict);
    const wallet = walletFor(strict, w, w.minter);
    const response = await wallet.ledger.post('/v2/commands/submit-and-wait-for-transaction-tree', {
      actAs: [wallet.party],
      commandId: randomUUID(),
      commands: [{ CreateCommand: { templateId: REGISTRY_HOLDING, createArguments: {} } }],
    });
    await expectCantonError(response, 'DEPRECATED_API_DISABLED', 400, 8, 3);
  });

  it('3.4: version 3.4.12, the filter/verbose body accepted, no 3.5-only fields, valid per the 3.4.12 document', async () => {
    const w = await tokenWorld(old);
    const wallet = walletFor(old, w, w.minter);
    const version = await wallet.ledger.get<{ version: string }>('/v2/version');
    expect(version.body.version).toBe('3.4.12');
    const offset = await wallet.ledgerEnd();
    const response = await wallet.ledger.post<ActiveContractEntry[]>(
      '/v2/state/active-contracts',
      acsBody(wallet.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
    );
    expect(response.status).toBe(200);
    await expectValid(['ledger-3.4.12'], { method: 'POST', path: '/v2/state/active-contracts' }, response);
    for (const entry of response.body) {
      const ev = entry.contractEntry.JsActiveContract.createdEvent as unknown as Record<string, unknown>;
      expect(ev).not.toHaveProperty('contractKeyHash');
      for (const view of ev.interfaceViews as object[])
        expect(view).not.toHaveProperty('implementationPackageId');
    }
  });
});

// ---- holdings -----------------------------------------------------------------------------------------------------

describe('holdings (wrapped-api.md §5)', () => {
  it('the other admin’s CBTC is a different instrument: exact (admin, id) filtering sees both, counts one', async () => {
    const all = await alice.acsWs({ interface: HOLDING_INTERFACE });
    const views = all.map(
      (e) =>
        e.contractEntry.JsActiveContract.createdEvent.interfaceViews![0]!.viewValue as {
          instrumentId: { admin: string; id: string };
        },
    );
    expect(views.filter((v) => v.instrumentId.id === 'CBTC').length).toBeGreaterThanOrEqual(3);
    expect(views.filter((v) => v.instrumentId.admin === tokens.otherInstrument.admin)).toHaveLength(2);
    expect(await alice.balance(tokens.instrument)).toBe('1.0000000000');
  });

  it('a pending offer’s locked holding: lock {holders, expiresAt, expiresAfter, context}, outside the balance', async () => {
    const sender = await funded(47, '1');
    const sent = await transfer(sender, registry, tokens.holders[48]!, '0.4', await unlockedInputs(sender));
    expect(sent.status, sent.text).toBe(200);
    const all = await sender.acsWs({ interface: HOLDING_INTERFACE });
    const locked = all
      .map(
        (e) =>
          e.contractEntry.JsActiveContract.createdEvent.interfaceViews![0]!.viewValue as {
            lock: unknown;
            amount: string;
          },
      )
      .filter((v) => v.lock !== null);
    expect(locked).toHaveLength(1);
    expect(locked[0]!.amount).toBe('0.4000000000');
    expect(Object.keys(locked[0]!.lock as object).sort()).toEqual([
      'context',
      'expiresAfter',
      'expiresAt',
      'holders',
    ]);
    expect(await sender.balance(tokens.instrument)).toBe('0.6000000000');
  });
});

// ---- registry -------------------------------------------------------------------------------------------------------

describe('registry (wrapped-api.md §7.1–7.4, canton-json-api.md §5)', () => {
  const tokenSpec = async (spec: SpecName, method: string, path: string, response: Response): Promise<void> =>
    expectValid([spec], { method, path }, response);

  it('metadata info: adminId and supportedApis, valid per the metadata document', async () => {
    const response = await registry.api.get<{ adminId: string; supportedApis: Record<string, number> }>(
      '/metadata/v1/info',
    );
    expect(response.status).toBe(200);
    expect(response.body.adminId).toBe(tokens.admin);
    await tokenSpec('token-metadata', 'GET', '/registry/metadata/v1/info', response);
  });

  it('instruments: CBTC with decimals 10, totalSupply a decimal string, valid per the document; pageSize honoured', async () => {
    const response = await registry.api.get<{
      instruments: Array<Record<string, unknown>>;
      nextPageToken?: string;
    }>('/metadata/v1/instruments?pageSize=25');
    expect(response.status).toBe(200);
    await tokenSpec('token-metadata', 'GET', '/registry/metadata/v1/instruments?pageSize=25', response);
    const cbtc = response.body.instruments.find((i) => i.id === 'CBTC')!;
    expect(cbtc.decimals).toBe(10);
    expect(cbtc.totalSupply).toMatch(/^\d+(\.\d+)?$/);
    expect(cbtc.supportedApis).toHaveProperty('splice-api-token-holding-v1');
    const one = await registry.api.get('/metadata/v1/instruments/CBTC');
    expect(one.status).toBe(200);
    await tokenSpec('token-metadata', 'GET', '/registry/metadata/v1/instruments/CBTC', one);
  });

  it('an unknown instrument, an unknown admin: 404 {"error": …}', async () => {
    const unknown = await registry.api.get<{ error: string }>('/metadata/v1/instruments/NOPE');
    expect(unknown.status).toBe(404);
    expect(typeof unknown.body.error).toBe('string');
    await tokenSpec('token-metadata', 'GET', '/registry/metadata/v1/instruments/NOPE', unknown);
    const other = new Registry(world.sandbox.urls.registry, 'nobody::1220' + '0'.repeat(64));
    const response = await other.api.get<{ error: string }>('/metadata/v1/info');
    expect(response.status).toBe(404);
    expect(typeof response.body.error).toBe('string');
  });

  it('transfer factory: offer / self / direct; tagged AV_* context values; four-field disclosures without debug fields', async () => {
    const inputs = await unlockedInputs(minter);
    for (const [receiver, kind] of [
      [tokens.holders[49]!, 'offer'],
      [minter.party, 'self'],
      [tokens.preapproved, 'direct'],
    ] as const) {
      const response = await registry.api.post<{
        factoryId: string;
        transferKind: string;
        choiceContext: {
          choiceContextData: { values: Record<string, { tag: string }> };
          disclosedContracts: object[];
        };
      }>('/transfer-instruction/v1/transfer-factory', {
        choiceArguments: transferArgument(tokens.admin, minter.party, receiver, '0.1', inputs),
        excludeDebugFields: true,
      });
      expect(response.status, response.text).toBe(200);
      await tokenSpec(
        'token-transfer-instruction',
        'POST',
        '/registry/transfer-instruction/v1/transfer-factory',
        response,
      );
      expect(response.body.transferKind).toBe(kind);
      const values = response.body.choiceContext.choiceContextData.values;
      expect(values['utility.digitalasset.com/instrument-configuration']?.tag).toBe('AV_ContractId');
      for (const v of Object.values(values))
        expect(v.tag).toMatch(/^AV_(Text|Int|Decimal|Bool|Date|Time|RelTime|Party|ContractId|List|Map)$/);
      for (const d of response.body.choiceContext.disclosedContracts)
        expect(Object.keys(d).sort()).toEqual([
          'contractId',
          'createdEventBlob',
          'synchronizerId',
          'templateId',
        ]);
    }
  });

  it('transfer factory without excludeDebugFields: the debug fields are there', async () => {
    const response = await registry.api.post<{ choiceContext: { disclosedContracts: object[] } }>(
      '/transfer-instruction/v1/transfer-factory',
      {
        choiceArguments: transferArgument(
          tokens.admin,
          minter.party,
          minter.party,
          '0.1',
          await unlockedInputs(minter),
        ),
      },
    );
    expect(response.status).toBe(200);
    for (const d of response.body.choiceContext.disclosedContracts) {
      expect(d).toHaveProperty('debugPackageName');
      expect(d).toHaveProperty('debugPayload');
      expect(d).toHaveProperty('debugCreatedAt');
    }
  });

  it('transfer factory: a body without choiceArguments, a body that is not JSON: 400 {"error": …}', async () => {
    for (const options of [{ body: { excludeDebugFields: true } }, { raw: '{"choiceArguments":' }]) {
      const response = await registry.api.call<{ error: string }>(
        'POST',
        '/transfer-instruction/v1/transfer-factory',
        options,
      );
      expect(response.status, response.text).toBe(400);
      expect(response.contentType).toContain('application/json');
      expect(typeof response.body.error).toBe('string');
    }
  });

  it('choice contexts: the SDK’s {"meta":{"values":""}} and the spec’s body both work; accept discloses config, rule, locked holding, reward config', async () => {
    const sent = await transfer(minter, registry, tokens.holders[50]!, '0.01', await unlockedInputs(minter));
    const offer = offerOf(sent.body);
    for (const body of [{ meta: { values: '' } }, { meta: {}, excludeDebugFields: true }]) {
      for (const choice of ['accept', 'reject', 'withdraw']) {
        const path = `/transfer-instruction/v1/${offer}/choice-contexts/${choice}`;
        const response = await registry.api.post<{
          choiceContextData: { values: Record<string, unknown> };
          disclosedContracts: Array<{ templateId: string; contractId: string }>;
        }>(path, body);
        expect(response.status, `${choice} ${JSON.stringify(body)}: ${response.text}`).toBe(200);
        await tokenSpec('token-transfer-instruction', 'POST', `/registry${path}`, response);
      }
    }
    const accept = await registry.choiceContext(offer, 'accept');
    const keys = Object.keys(accept.choiceContextData.values);
    for (const key of [
      'instrument-configuration',
      'transfer-rule',
      'app-reward-configuration',
      'sender-credentials',
    ]) {
      expect(keys, key).toContain(`utility.digitalasset.com/${key}`);
      expect(keys, key).toContain(key);
    }
    const templates = accept.disclosedContracts.map((d) => d.templateId!.split(':').slice(1).join(':'));
    for (const t of [
      'Utility.Registry.V0.Configuration.Instrument:InstrumentConfiguration',
      'Utility.Registry.V0.Rule.Transfer:TransferRule',
      'Utility.Registry.Holding.V0.Holding:Holding',
      'Utility.Registry.V0.Configuration.AppReward:AppRewardConfiguration',
    ])
      expect(templates).toContain(t);
  });

  it('choice context of an archived or unknown instruction: 404 {"error": …}', async () => {
    const sent = await transfer(minter, registry, tokens.holders[51]!, '0.01', await unlockedInputs(minter));
    const offer = offerOf(sent.body);
    const back = await settleOffers(minter, registry, [offer], 'TransferInstruction_Withdraw');
    expect(back.status).toBe(200);
    for (const cid of [offer, '00' + 'ef'.repeat(33)]) {
      const path = `/transfer-instruction/v1/${cid}/choice-contexts/accept`;
      const response = await registry.api.post<{ error: string }>(path, { meta: { values: '' } });
      expect(response.status).toBe(404);
      expect(typeof response.body.error).toBe('string');
      await tokenSpec('token-transfer-instruction', 'POST', `/registry${path}`, response);
    }
  });

  it('allocation factory: {factoryId, choiceContext}, valid per the allocation-instruction document', async () => {
    const now = Date.now();
    const body = {
      choiceArguments: {
        expectedAdmin: tokens.admin,
        allocation: {
          settlement: {
            executor: tokens.admin,
            settlementRef: { id: 'audit-1', cid: null },
            requestedAt: new Date(now - 1000).toISOString(),
            allocateBefore: new Date(now + 3600_000).toISOString(),
            settleBefore: new Date(now + 7200_000).toISOString(),
            meta: { values: {} },
          },
          transferLegId: 'leg-0',
          transferLeg: {
            sender: minter.party,
            receiver: tokens.holders[52]!,
            amount: '0.1',
            instrumentId: tokens.instrument,
            meta: { values: {} },
          },
        },
        requestedAt: new Date(now - 1000).toISOString(),
        inputHoldingCids: await unlockedInputs(minter),
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
      excludeDebugFields: true,
    };
    const response = await registry.api.post<{ factoryId: string; choiceContext: unknown }>(
      '/allocation-instruction/v1/allocation-factory',
      body,
    );
    expect(response.status, response.text).toBe(200);
    await tokenSpec(
      'token-allocation-instruction',
      'POST',
      '/registry/allocation-instruction/v1/allocation-factory',
      response,
    );
  });

  it('is unauthenticated and answers JSON; an unknown route answers 404', async () => {
    const response = await registry.api.get('/metadata/v1/info');
    expect(response.contentType).toContain('application/json');
    const unknown = await registry.api.get('/no-such-route');
    expect(unknown.status).toBe(404);
  });
});

// ---- gateway --------------------------------------------------------------------------------------------------------

describe('gateway /wrapped/v1 (wrapped-api.md §6)', () => {
  const CBTC_120 = 'f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313';

  const expectContractInfo = (info: unknown, suffix: string): void => {
    expect(Object.keys(info as object).sort()).toEqual(['contract_id', 'created_event_blob', 'template_id']);
    const i = info as { contract_id: string; template_id: string; created_event_blob: string };
    expect(i.contract_id).toMatch(/^00[0-9a-f]+$/);
    expect(i.template_id).toMatch(PACKAGE_ID_FORM);
    expect(i.template_id.endsWith(suffix)).toBe(true);
    expect(Buffer.from(i.created_event_blob, 'base64').length).toBeGreaterThan(0);
  };

  it('account-contract-rules: da_rules and wa_rules ContractInfo, cbtc 1.2.0 package id', async () => {
    const rules = await gateway.rules();
    expect(Object.keys(rules).sort()).toEqual(['da_rules', 'wa_rules']);
    expectContractInfo(rules.da_rules, ':CBTC.DepositAccount:CBTCDepositAccountRules');
    expectContractInfo(rules.wa_rules, ':CBTC.WithdrawAccount:CBTCWithdrawAccountRules');
    expect(rules.da_rules.template_id.startsWith(CBTC_120)).toBe(true);
  });

  it('token-standard-contracts: burn_mint_factory, instrument_configuration, issuer_credential', async () => {
    const contracts = await gateway.tokenStandardContracts();
    expect(Object.keys(contracts).sort()).toEqual([
      'burn_mint_factory',
      'instrument_configuration',
      'issuer_credential',
    ]);
    expectContractInfo(
      contracts.instrument_configuration,
      ':Utility.Registry.V0.Configuration.Instrument:InstrumentConfiguration',
    );
    expectContractInfo(contracts.issuer_credential, ':Utility.Credential.V0.Credential:Credential');
  });

  it('bitcoin-address of an unknown id: 404', async () => {
    const response = await gateway.api.get(`/wrapped/v1/bitcoin-address/${randomUUID()}`);
    expect(response.status).toBe(404);
  });

  it('needs no auth and answers application/json; an unknown route answers 404', async () => {
    const response = await gateway.api.get('/wrapped/v1/account-contract-rules');
    expect(response.status).toBe(200);
    expect(response.contentType).toContain('application/json');
    expect((await gateway.api.get('/wrapped/v1/no-such-route')).status).toBe(404);
  });
});

// ---- accounts, attestors and the chain ------------------------------------------------------------------------------

describe('mint and burn through the attestors (wrapped-api.md §8.4–8.9, §10.4–10.5)', () => {
  let credential: string;
  let account: { cid: string; id: string };
  let address: string;

  beforeAll(async () => {
    credential = await minterCredential(minter);
    account = await createDepositAccount(minter, gateway, credential);
    address = (await gateway.address(account.id)).bitcoin_address;
  });

  /** sends BTC to the account's address and waits until the deposit is no longer pending */
  async function decidedDeposit(amount: string): Promise<{ status: string; reason?: string }> {
    const sent = await bitcoin.post<{ txid: string }>('/send', { address, amount });
    expect(sent.status).toBe(200);
    return waitFor(
      'the deposit to be decided',
      async () => {
        const d = await bitcoin.get<{ status: string; reason?: string }>(`/deposits/${sent.body.txid}`);
        return d.body.status === 'pending' ? undefined : d.body;
      },
      15_000,
      50,
    );
  }

  it('the deposit account: registrar, operator, instrument, owner, a uuid id, lastProcessedBitcoinBlock "0", limits', async () => {
    const entry = (await minter.acs({ template: DEPOSIT_ACCOUNT })).find(
      (e) => e.contractEntry.JsActiveContract.createdEvent.contractId === account.cid,
    )!;
    const arg = entry.contractEntry.JsActiveContract.createdEvent.createArgument!;
    expect(arg.registrar).toBe(tokens.admin);
    expect(arg.owner).toBe(minter.party);
    expect(typeof arg.operator).toBe('string');
    expect(arg.instrument).toEqual({ admin: tokens.admin, id: 'CBTC' });
    expect(arg.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(arg.lastProcessedBitcoinBlock).toBe('0');
    const limits = arg.limits as { minAmount: string | null; maxAmount: string | null } | null;
    expect(
      limits === null || (typeof limits === 'object' && 'minAmount' in limits && 'maxAmount' in limits),
    ).toBe(true);
  });

  it('creating an account without a Minter credential: 400 DAML_INTERPRETATION_ERROR', async () => {
    const { da_rules } = await gateway.rules();
    const response = await minter.submit(
      [
        {
          ExerciseCommand: {
            templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccountRules',
            contractId: da_rules.contract_id,
            choice: 'CBTCDepositAccountRules_CreateDepositAccount',
            choiceArgument: { owner: minter.party, credentialCids: [] },
          },
        },
      ],
      {
        disclosed: [
          {
            contractId: da_rules.contract_id,
            createdEventBlob: da_rules.created_event_blob,
            templateId: da_rules.template_id,
            synchronizerId: '',
          },
        ],
      },
    );
    await expectCantonError(response, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
  });

  it('bitcoin-address: a tb1p bech32m address on devnet, stable, attestors 3 of 3', async () => {
    const first = await gateway.address(account.id);
    expect(first.bitcoin_address).toMatch(/^tb1p[02-9ac-hj-np-z]{58}$/);
    expect(first.attestors_requested).toBe(3);
    expect(first.attestors_responded).toBe(3);
    expect((await gateway.address(account.id)).bitcoin_address).toBe(first.bitcoin_address);
  });

  it('attestors-partial fault: bitcoin-address reports 2 of 3 attestors answering', async () => {
    await world.admin.post('/faults', { kind: 'attestors-partial', responded: 2 });
    try {
      const partial = await gateway.address(account.id);
      expect(partial.attestors_requested).toBe(3);
      expect(partial.attestors_responded).toBe(2);
    } finally {
      await world.admin.call('DELETE', '/faults');
    }
  });

  it('address-calculation-data lists the account: chains[{chain, xpub, addresses[{id, address_for_verification}]}], bitcoin_network', async () => {
    const response = await gateway.api.get<{
      chains: Array<{
        chain: string;
        xpub: string;
        addresses: Array<{ id: string; address_for_verification: string }>;
      }>;
      bitcoin_network: string;
    }>('/wrapped/v1/address-calculation-data');
    expect(response.status).toBe(200);
    expect(response.body.bitcoin_network).toBe('testnet');
    const chain = response.body.chains[0]!;
    expect(chain.chain).toBe('devnet');
    expect(typeof chain.xpub).toBe('string');
    expect(chain.addresses).toContainEqual({ id: account.id, address_for_verification: address });
  });

  it('a deposit mints only after 6 confirmations, then the account is re-created (new cid, same id, block as a string)', async () => {
    await world.admin.post('/faults', { kind: 'stall-chain' });
    const before = await minter.balance(tokens.instrument);
    const sent = await bitcoin.post<{ txid: string }>('/send', { address, amount: '0.5' });
    expect(sent.status, sent.text).toBe(200);
    await bitcoin.post('/mine', { blocks: 5 });
    await new Promise((r) => setTimeout(r, 400));
    const stalled = await bitcoin.get<{ confirmations: number; status: string }>(
      `/deposits/${sent.body.txid}`,
    );
    expect(stalled.body.confirmations).toBeLessThan(6);
    expect(stalled.body.status).toBe('pending');
    expect(await minter.balance(tokens.instrument)).toBe(before);
    await world.admin.call('DELETE', '/faults');
    await waitFor(
      'the mint',
      async () =>
        (await minter.balance(tokens.instrument)) === new Decimal(before).plus('0.5').toFixed(10)
          ? true
          : undefined,
      15_000,
      50,
    );
    const accounts = (await minter.acs({ template: DEPOSIT_ACCOUNT }))
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .filter((e) => e.createArgument?.id === account.id);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.contractId).not.toBe(account.cid);
    expect(accounts[0]!.createArgument!.lastProcessedBitcoinBlock).toMatch(/^[1-9]\d*$/);
    expect((await gateway.address(account.id)).bitcoin_address).toBe(address);
  });

  it('a deposit below the account’s minimum is not minted (rejected with a reason)', async () => {
    const before = await minter.balance(tokens.instrument);
    const deposit = await decidedDeposit('0.00001');
    expect(deposit.status).toBe('rejected');
    expect(deposit.reason).toBeTruthy();
    expect(await minter.balance(tokens.instrument)).toBe(before);
  });

  it('a deposit above the account’s maximum is not minted either', async () => {
    const before = await minter.balance(tokens.instrument);
    const deposit = await decidedDeposit('6');
    expect(deposit.status).toBe('rejected');
    expect(await minter.balance(tokens.instrument)).toBe(before);
  });

  it('a burn raises pendingBalance (a string) and returns change; the attestors then create a CBTCWithdrawRequest with a 64-hex btcTxId and the account back at "0"', async () => {
    const destination = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    await createWithdrawAccount(minter, gateway, credential, destination);
    const find = async (): Promise<{ contractId: string; createArgument: Record<string, unknown> }> => {
      const list = (await minter.acs({ template: WITHDRAW_ACCOUNT }))
        .map((e) => e.contractEntry.JsActiveContract.createdEvent)
        .filter((e) => e.createArgument?.destinationBtcAddress === destination);
      expect(list).toHaveLength(1);
      return list[0] as { contractId: string; createArgument: Record<string, unknown> };
    };
    const fresh = await find();
    expect(fresh.createArgument.pendingBalance).toMatch(/^0(\.0+)?$/);
    const holdings = await minter.holdings(tokens.instrument);
    const token = holdings.find((h) => new Decimal(h.view.amount).greaterThan('0.3'))!;
    const burned = await burn(minter, gateway, fresh.contractId, [token.contractId], '0.001', credential);
    expect(burned.status, burned.text).toBe(200);
    const updated = createdOf(burned.body, ':CBTC.WithdrawAccount:CBTCWithdrawAccount')[0]!;
    expect(updated.createArgument!.pendingBalance).toMatch(/^0\.0010*$/);
    expect(createdOf(burned.body, ':Utility.Registry.Holding.V0.Holding:Holding').length).toBe(1);
    const request = await waitFor(
      'the withdraw request',
      async () => {
        const list = (await minter.acs({ template: WITHDRAW_REQUEST }))
          .map((e) => e.contractEntry.JsActiveContract.createdEvent.createArgument!)
          .filter((a) => a.destinationBtcAddress === destination);
        return list[0];
      },
      15_000,
      50,
    );
    for (const field of [
      'owner',
      'registrar',
      'amount',
      'destinationBtcAddress',
      'btcTxId',
      'sourceAccountId',
    ])
      expect(request, field).toHaveProperty(field);
    expect(request.btcTxId).toMatch(HEX64);
    expect(request.amount).toMatch(/^0\.0010*$/);
    await waitFor('the account back at 0', async () =>
      /^0(\.0+)?$/.test(String((await find()).createArgument.pendingBalance)) ? true : undefined,
    );
  });

  it('a burn outside the account’s limits or above the tokens’ sum: 400 DAML_INTERPRETATION_ERROR', async () => {
    const destination = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
    await createWithdrawAccount(minter, gateway, credential, destination);
    const account = (await minter.acs({ template: WITHDRAW_ACCOUNT }))
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .find((e) => e.createArgument?.destinationBtcAddress === destination)!;
    const holdings = await minter.holdings(tokens.instrument);
    const small = holdings.reduce((a, b) => (new Decimal(a.view.amount).lessThan(b.view.amount) ? a : b));
    const tooMuch = await burn(
      minter,
      gateway,
      account.contractId,
      [small.contractId],
      new Decimal(small.view.amount).plus(1).toFixed(),
      credential,
    );
    await expectCantonError(tooMuch, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
    const big = holdings.reduce((a, b) => (new Decimal(a.view.amount).greaterThan(b.view.amount) ? a : b));
    const aboveMax = await burn(minter, gateway, account.contractId, [big.contractId], '6', credential);
    await expectCantonError(aboveMax, 'DAML_INTERPRETATION_ERROR', 400, 9, 9);
  });
});

// ---- faucet ---------------------------------------------------------------------------------------------------------

describe('devnet faucet (wrapped-api.md §6)', () => {
  it('POST /api/faucet: {"success": true, "message"} and an ordinary offer to the recipient', async () => {
    const recipient = walletFor(world, tokens, tokens.holders[60]!);
    const response = await faucet.post<{ success: boolean; message: string }>('/api/faucet', {
      network: 'devnet',
      recipient_party: recipient.party,
      amount: '0.5',
    });
    expect(response.status).toBe(200);
    expect(response.contentType).toContain('application/json');
    expect(Object.keys(response.body).sort()).toEqual(['message', 'success']);
    expect(response.body.success).toBe(true);
    const offers = await recipient.acs({ template: TRANSFER_OFFER });
    expect(offers.length).toBeGreaterThan(0);
  });

  it('another network, an unknown party, an amount with more than 10 decimals, a body that is not JSON: {"success": false, "message"}', async () => {
    const recipient = tokens.holders[61]!;
    for (const options of [
      { body: { network: 'mainnet', recipient_party: recipient, amount: '1' } },
      { body: { network: 'devnet', recipient_party: 'nobody::1220' + '0'.repeat(64), amount: '1' } },
      { body: { network: 'devnet', recipient_party: recipient, amount: '0.12345678901' } },
      { raw: '{"network":' },
    ]) {
      expectFailureEnvelope(await faucet.call('POST', '/api/faucet', options), 400, 'message');
    }
  });
});

describe('devnet faucet: unknown routes', () => {
  it('a route it does not serve answers 404 in its own envelope {"success": false, "message"}', async () => {
    expectFailureEnvelope(await faucet.get('/api/faucet'), 404, 'message');
  });
});

// ---- daily rewards --------------------------------------------------------------------------------------------------

describe('daily rewards (wrapped-api.md §7.6)', () => {
  const today = (): string => new Date().toISOString().slice(0, 10);

  it('success: the live field names (daily_rewards[], total_accepted_transfer_count, total_estimated_reward, client_reward)', async () => {
    const sender = await funded(70, '1');
    const receiver = walletFor(world, tokens, tokens.holders[71]!);
    const sent = await transfer(sender, registry, receiver.party, '0.1', await unlockedInputs(sender));
    await settleOffers(receiver, registry, [offerOf(sent.body)], 'TransferInstruction_Accept');
    const response = await rewards.post<{
      success: boolean;
      data: { daily_rewards: Array<Record<string, unknown>>; [k: string]: unknown };
    }>('/api/v1/analytics/daily-rewards', {
      parties: [sender.party],
      start_date: today(),
      end_date: today(),
    });
    expect(response.status).toBe(200);
    expect(response.contentType).toContain('application/json');
    expect(response.body.success).toBe(true);
    expect(Object.keys(response.body.data).sort()).toEqual([
      'client_reward',
      'daily_rewards',
      'total_accepted_transfer_count',
      'total_estimated_reward',
    ]);
    const day = response.body.data.daily_rewards[0]!;
    expect(Object.keys(day).sort()).toEqual([
      'accepted_transfer_count',
      'client_reward',
      'date',
      'total_reward',
      'transfer_creation_count',
    ]);
    expect(day.date).toBe(today());
    expect(day.transfer_creation_count).toBe(1);
    expect(day.accepted_transfer_count).toBe(1);
    expect(typeof response.body.data.total_estimated_reward).toBe('string');
    expect(typeof response.body.data.total_accepted_transfer_count).toBe('number');
  });

  it('bad dates, reversed range, missing parties, a body that is not JSON: 400 {"success": false, "error"}', async () => {
    for (const options of [
      { body: { parties: [minter.party], start_date: '2026-13-01', end_date: today() } },
      { body: { parties: [minter.party], start_date: today(), end_date: '2020-01-01' } },
      { body: { start_date: today(), end_date: today() } },
      { raw: '{"parties":' },
    ]) {
      expectFailureEnvelope(
        await rewards.call('POST', '/api/v1/analytics/daily-rewards', options),
        400,
        'error',
      );
    }
  });

  it('an empty list of parties yields empty results', async () => {
    const response = await rewards.post('/api/v1/analytics/daily-rewards', {
      parties: [],
      start_date: today(),
      end_date: today(),
    });
    expect([response.status, response.body]).toEqual([
      200,
      {
        success: true,
        data: {
          daily_rewards: [],
          total_accepted_transfer_count: 0,
          total_estimated_reward: '0.00',
          client_reward: '0.00',
        },
      },
    ]);
  });

  it('a route it does not serve answers 404 in its own envelope {"success": false, "error"}', async () => {
    expectFailureEnvelope(await rewards.get('/api/v1/analytics/daily-rewards'), 404, 'error');
  });

  it('GET /health answers {"status":"ok"}', async () => {
    const response = await rewards.get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });
});

// ---- injected failures ----------------------------------------------------------------------------------------------

describe('an injected http-error answers in the service’s own envelope (wrapped-api.md §6, §7.6; canton-json-api.md §4, §5)', () => {
  const inject = async (fault: Record<string, unknown>): Promise<void> => {
    const added = await world.admin.post('/faults', { kind: 'http-error', count: 1, ...fault });
    expect(added.status, added.text).toBe(201);
  };

  it('token services: the rewards API’s and the faucet’s {"success": false, …}, the others’ {"error": …}', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const query = { parties: [minter.party], start_date: day, end_date: day };
    await inject({ service: 'rewards', status: 500 });
    expectFailureEnvelope(await rewards.post('/api/v1/analytics/daily-rewards', query), 500, 'error');
    expect((await rewards.post('/api/v1/analytics/daily-rewards', query)).status).toBe(200);
    await inject({ service: 'faucet', status: 503 });
    expectFailureEnvelope(await faucet.post('/api/faucet', {}), 503, 'message');
    const services: Array<[string, Api, string]> = [
      ['registry', registry.api, '/metadata/v1/info'],
      ['gateway', gateway.api, '/wrapped/v1/account-contract-rules'],
      ['bitcoin', bitcoin, '/status'],
    ];
    for (const [service, api, path] of services) {
      await inject({ service, status: 500 });
      const response = await api.get(path);
      expect([response.status, Object.keys(response.body as object)], service).toEqual([500, ['error']]);
    }
  });

  it('the participant: the JsCantonError Canton answers with that status, over HTTP and WebSocket; a status Canton never answers is a proxy’s text', async () => {
    const route = { method: 'GET', path: '/v2/state/ledger-end' };
    for (const [status, code, category, grpc] of [
      [500, 'LEDGER_API_INTERNAL_ERROR', 4, 13],
      [503, 'SERVICE_NOT_RUNNING', 1, 14],
      [504, 'REQUEST_TIME_OUT', 3, 4],
    ] as const) {
      await inject({ node: 'node1', route: route.path, status });
      await expectCantonError(await minter.ledger.get(route.path), code, status, category, grpc, route);
    }
    await inject({ node: 'node1', route: route.path, status: 502 });
    const proxied = await minter.ledger.get(route.path);
    expect([proxied.status, proxied.contentType]).toEqual([502, expect.stringContaining('text/plain')]);
    await inject({ node: 'node1', route: '/v2/state/active-contracts', status: 503 });
    const frames = await wsRequest(
      minter.ledger.base,
      '/v2/state/active-contracts',
      await minter.token(),
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, await minter.ledgerEnd(), 'eventFormat'),
    );
    expect(frames).toEqual([expect.objectContaining({ code: 'SERVICE_NOT_RUNNING', errorCategory: 1 })]);
  });
});

// ---- identity provider ----------------------------------------------------------------------------------------------

describe('identity provider (wrapped-api.md §3.1)', () => {
  const form = (
    fields: Record<string, string>,
    url = world.sandbox.urls.idp.tokenUrl,
  ): Promise<globalThis.Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });

  /** operator1's password grant through the CLI's client */
  const operator1 = (password: string): Record<string, string> => ({
    grant_type: 'password',
    client_id: 'ledgerbook-cli',
    username: 'operator1',
    password,
  });

  it('password grant: access_token, expires_in 300, refresh_token, token_type Bearer; the /realms path (no /auth) too', async () => {
    for (const url of [
      world.sandbox.urls.idp.tokenUrl,
      world.sandbox.urls.idp.tokenUrl.replace('/auth/realms/', '/realms/'),
    ]) {
      const response = await form(operator1(world.password), url);
      expect(response.status, url).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(typeof body.access_token).toBe('string');
      expect(body.expires_in).toBe(300);
      expect(typeof body.refresh_token).toBe('string');
      expect(body.token_type).toBe('Bearer');
    }
  });

  it('refresh grant: a new access token from the refresh token', async () => {
    const login = (await (await form(operator1(world.password))).json()) as { refresh_token: string };
    const response = await form({
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: login.refresh_token,
    });
    expect(response.status).toBe(200);
    expect(typeof ((await response.json()) as { access_token: string }).access_token).toBe('string');
  });

  const refusals: Array<[string, Record<string, string>, number, Record<string, string>]> = [
    [
      'wrong password: 401 invalid_grant "Invalid user credentials"',
      operator1('wrong'),
      401,
      { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    ],
    [
      'an unknown refresh token: 400 invalid_grant "Token is not active"',
      { grant_type: 'refresh_token', client_id: 'ledgerbook-cli', refresh_token: 'nope' },
      400,
      { error: 'invalid_grant', error_description: 'Token is not active' },
    ],
    [
      'a wrong client secret: 401 unauthorized_client',
      { grant_type: 'client_credentials', client_id: 'ledgerbook-ci', client_secret: 'wrong' },
      401,
      { error: 'unauthorized_client' },
    ],
  ];
  for (const [name, fields, status, error] of refusals)
    it(name, async () => {
      const response = await form(fields);
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject(error);
    });
});
