/**
 * The participant JSON Ledger API of every node, over one shared ledger (canton-json-api.md): reads in the SDK's
 * shapes and the eventFormat shapes, over HTTP and WebSocket; rights; deduplication; consumed inputs;
 * contention; settling a lost response by reading the ledger; the 3.4 / 3.5 / strict profiles; persistence.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { darFile, startWorld, type World } from '../testing/helpers.js';
import {
  HOLDING_INTERFACE,
  REGISTRY_HOLDING,
  Registry,
  TRANSFER_OFFER,
  acsBody,
  rootResult,
  settleOffers,
  tokenWorld,
  transfer,
  walletFor,
  wsRequest,
  type ActiveContractEntry,
  type TokenWorld,
} from '../testing/token-helpers.js';

let world: World;
let tokens: TokenWorld;
let registry: Registry;

beforeAll(async () => {
  world = await startWorld();
  tokens = await tokenWorld(world);
  registry = new Registry(world.sandbox.urls.registry, tokens.admin);
});
afterAll(async () => world?.stop());

const events = (entries: ActiveContractEntry[]) =>
  entries.map((e) => e.contractEntry.JsActiveContract.createdEvent);

/** a command acting as `party` (on a contract that does not exist): what the ledger checks first is who may act */
function exerciseAs(party: string): Record<string, unknown> {
  return {
    commands: {
      actAs: [party],
      commandId: randomUUID(),
      commands: [
        {
          ExerciseCommand: {
            templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccountRules',
            contractId: '00' + '0'.repeat(64),
            choice: 'x',
            choiceArgument: {},
          },
        },
      ],
    },
  };
}

describe('reads', () => {
  it('answers the version of its profile and a ledger end that only grows', async () => {
    const version = await world.ledger[0]!.get<{ version: string }>('/v2/version');
    expect(version.body.version).toBe('3.5.1');
    const a = await walletFor(world, tokens, tokens.minter).ledgerEnd();
    await transfer(walletFor(world, tokens, tokens.minter), registry, tokens.minter, '1', [
      (await walletFor(world, tokens, tokens.minter).holdings(tokens.instrument))[0]!.contractId,
    ]);
    expect(await walletFor(world, tokens, tokens.minter).ledgerEnd()).toBeGreaterThan(a);
  });

  it('filters by template, by interface (createArgument null, the view instead) and wildcard; blobs only on request', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    for (const shape of ['legacy', 'eventFormat'] as const) {
      const byInterface = events(await alice.acs({ interface: HOLDING_INTERFACE, blob: false }, shape));
      expect(byInterface.length).toBeGreaterThanOrEqual(3);
      for (const e of byInterface) {
        expect(e.createArgument).toBeNull();
        expect(e.createdEventBlob).toBeUndefined();
        expect(e.interfaceViews?.[0]?.interfaceId).toBe(
          '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:Splice.Api.Token.HoldingV1:Holding',
        );
        expect(e.interfaceViews?.[0]?.viewValue).toMatchObject({ owner: alice.party, lock: null });
      }
      const byTemplate = events(await alice.acs({ template: REGISTRY_HOLDING, blob: true }, shape));
      expect(byTemplate.map((e) => e.contractId).sort()).toEqual(byInterface.map((e) => e.contractId).sort());
      for (const e of byTemplate) {
        expect(e.templateId).toBe(
          '8107899ac4723ce986bf7d27416534e576e54b92161e46150a595fb78ff3d3a1:Utility.Registry.Holding.V0.Holding:Holding',
        );
        expect(e.createArgument).toMatchObject({
          owner: alice.party,
          instrument: { id: 'CBTC', scheme: 'RegistrarInternalScheme' },
        });
        expect(typeof e.createdEventBlob).toBe('string');
        expect(e.witnessParties).toEqual([alice.party]);
      }
    }
    const offset = await alice.ledgerEnd();
    const wildcard = await alice.ledger.post<ActiveContractEntry[]>('/v2/state/active-contracts', {
      eventFormat: { filtersByParty: { [alice.party]: {} }, verbose: false },
      activeAtOffset: offset,
    });
    expect(wildcard.status).toBe(200);
    expect(events(wildcard.body).every((e) => e.createArgument !== null)).toBe(true);
  });

  it('serves the active contracts at an earlier offset, and refuses one after the ledger end', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const before = await minter.ledgerEnd();
    const holdingsBefore = (await minter.holdings(tokens.instrument)).map((h) => h.contractId).sort();
    await transfer(minter, registry, tokens.holders[5]!, '0.01', holdingsBefore);
    const past = await minter.ledger.post<ActiveContractEntry[]>(
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, before, 'eventFormat'),
    );
    const pastUnlocked = events(past.body)
      .filter((e) => (e.interfaceViews?.[0]?.viewValue as { lock: unknown }).lock === null)
      .map((e) => e.contractId)
      .sort();
    expect(pastUnlocked).toEqual(holdingsBefore);
    const end = await minter.ledgerEnd();
    const after = await minter.ledger.post(
      '/v2/state/active-contracts',
      acsBody(minter.party, { interface: HOLDING_INTERFACE }, end + 5, 'legacy'),
    );
    expect(after.status).toBe(400);
    expect(after.body).toMatchObject({
      code: 'OFFSET_AFTER_LEDGER_END',
      errorCategory: 12,
      grpcCodeValue: 11,
    });
  });

  it('refuses eventFormat and filter together, and a body that does not decode as 400 text/plain', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    const offset = await alice.ledgerEnd();
    const both = await alice.ledger.post('/v2/state/active-contracts', {
      ...acsBody(alice.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
      eventFormat: { filtersByParty: { [alice.party]: {} } },
    });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const missing = await alice.ledger.post('/v2/state/active-contracts', {
      eventFormat: { filtersByParty: {} },
    });
    expect(missing.status).toBe(400);
    expect(missing.contentType).toContain('text/plain');
    expect(missing.text).toBe(
      'Invalid value for: body (DecodingFailure at .activeAtOffset: Missing required field)',
    );
    const garbage = await alice.ledger.call('POST', '/v2/state/active-contracts', {
      raw: '{"activeAtOffset":',
    });
    expect(garbage.status).toBe(400);
    expect(garbage.contentType).toContain('text/plain');
  });

  it('streams the active contracts over WebSocket: one frame per contract, then Close; an error frame on failure', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    const http = events(await alice.acs({ interface: HOLDING_INTERFACE }));
    const ws = events(await alice.acsWs({ interface: HOLDING_INTERFACE }));
    expect(ws.map((e) => e.contractId)).toEqual(http.map((e) => e.contractId));
    const token = await alice.token();
    // an offset past the ledger end: an error frame, not an empty stream
    const refused = await wsRequest(
      alice.ledger.base,
      '/v2/state/active-contracts',
      token,
      acsBody(tokens.holders[0]!, { interface: HOLDING_INTERFACE }, 1_000_000_000, 'legacy'),
    );
    expect(refused).toEqual([expect.objectContaining({ code: 'OFFSET_AFTER_LEDGER_END' })]);
    const noToken = await wsRequest(
      alice.ledger.base,
      '/v2/state/active-contracts',
      '',
      acsBody(alice.party, { interface: HOLDING_INTERFACE }, 1, 'legacy'),
      ['daml.ws.auth'],
    );
    expect(noToken).toEqual([expect.objectContaining({ code: 'UNAUTHENTICATED' })]);
  });

  it('lists incoming offers through the TransferOffer template, as the SDK does', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const bob = walletFor(world, tokens, tokens.holders[1]!);
    const sent = await transfer(
      minter,
      registry,
      bob.party,
      '0.2',
      (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
    );
    const offer = rootResult(sent.body).output.value.transferInstructionCid as string;
    const incoming = events(await bob.acsWs({ template: TRANSFER_OFFER }));
    expect(incoming.find((e) => e.contractId === offer)?.createArgument).toMatchObject({
      transfer: { sender: minter.party, receiver: bob.party, amount: '0.2000000000' },
    });
    await settleOffers(bob, registry, [offer], 'TransferInstruction_Reject');
  });
});

describe('streams', () => {
  it('streams updates over WebSocket: what exists, then each new transaction as it commits (no end: Canton refuses one after the ledger end)', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const begin = await minter.ledgerEnd();
    const first = await transfer(
      minter,
      registry,
      minter.party,
      '0.01',
      (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
    );
    const firstOffset = (first.body as { transaction: { offset: number } }).transaction.offset;
    const url = minter.ledger.base.replace(/^http/, 'ws') + '/v2/updates';
    const { default: WebSocket } = await import('ws');
    const updateFormat = {
      includeTransactions: {
        eventFormat: { filtersByParty: { [minter.party]: {} } },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    };
    // an end after the ledger end: one OFFSET_AFTER_LEDGER_END frame, as Canton validates every updates request
    const future = new WebSocket(url, [`jwt.token.${await minter.token()}`, 'daml.ws.auth']);
    const refusal = new Promise<unknown>((resolve) =>
      future.on('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))),
    );
    await new Promise<void>((resolve) => future.on('open', () => resolve()));
    future.send(JSON.stringify({ beginExclusive: begin, endInclusive: firstOffset + 1, updateFormat }));
    expect(await refusal).toMatchObject({
      code: 'OFFSET_AFTER_LEDGER_END',
      cause: `End offset (${firstOffset + 1}) is after ledger end (${firstOffset})`,
    });
    const ws = new WebSocket(url, [`jwt.token.${await minter.token()}`, 'daml.ws.auth']);
    const frames: Array<{ update: { Transaction: { value: { offset: number } } } }> = [];
    const two = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer) => {
        frames.push(JSON.parse(data.toString('utf8')) as (typeof frames)[number]);
        if (frames.length === 2) resolve();
      }),
    );
    await new Promise<void>((resolve) => ws.on('open', () => resolve()));
    ws.send(JSON.stringify({ beginExclusive: begin, updateFormat }));
    const second = await transfer(
      minter,
      registry,
      minter.party,
      '0.01',
      (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
    );
    await two;
    ws.close();
    expect(frames.map((f) => f.update.Transaction.value.offset)).toEqual([
      firstOffset,
      (second.body as { transaction: { offset: number } }).transaction.offset,
    ]);
  });
});

describe('rights and tokens', () => {
  it('answers 401 without a valid token and 403 for a party outside the user’s rights', async () => {
    const node2 = world.ledger[1]!;
    expect((await node2.call('GET', '/v2/state/ledger-end', { token: null })).status).toBe(401);
    const bad = await node2.call('GET', '/v2/state/ledger-end', { token: 'not.a.jwt' });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ code: 'UNAUTHENTICATED', errorCategory: 6, grpcCodeValue: 16 });
    // operator2 acting as the minter (hosted on node1, not granted to operator2)
    const asMinter = await node2.post(
      '/v2/commands/submit-and-wait-for-transaction',
      exerciseAs(tokens.minter),
    );
    expect(asMinter.status).toBe(403);
    expect(asMinter.body).toMatchObject({ code: 'PERMISSION_DENIED', errorCategory: 7 });
    // the peers' read-only viewer reads the participant's parties (CanReadAsAnyParty) and acts as none
    const viewer = await world.token('viewer');
    const read = await node2.call('POST', '/v2/state/active-contracts', {
      body: acsBody(tokens.holders[0]!, { interface: HOLDING_INTERFACE }, 1, 'legacy'),
      token: viewer,
    });
    expect(read.status).toBe(200);
    const asHolder = await node2.call('POST', '/v2/commands/submit-and-wait-for-transaction', {
      body: exerciseAs(tokens.holders[0]!),
      token: viewer,
    });
    expect(asHolder.status).toBe(403);
    expect(asHolder.body).toMatchObject({ code: 'PERMISSION_DENIED', errorCategory: 7 });
  });

  it('reports the user’s rights; an operator allocates a party and is granted the right to act as it', async () => {
    const node2 = world.ledger[1]!;
    const me = await node2.get<{ user: { id: string } }>('/v2/authenticated-user');
    expect(me.status).toBe(200);
    const rights = await node2.get<{
      rights: Array<{ kind: Record<string, { value: { party?: string } }> }>;
    }>(`/v2/users/${encodeURIComponent(me.body.user.id)}/rights`);
    const actAs = rights.body.rights
      .filter((r) => 'CanActAs' in r.kind)
      .map((r) => r.kind.CanActAs!.value.party);
    expect(actAs).toContain(tokens.holders[0]);
    expect(rights.body.rights).toContainEqual({ kind: { ParticipantAdmin: { value: {} } } });
    const allocated = await node2.post<{ partyDetails: { party: string; isLocal: boolean } }>('/v2/parties', {
      partyIdHint: 'carol',
      userId: me.body.user.id,
    });
    expect(allocated.status, allocated.text).toBe(200);
    expect(allocated.body.partyDetails).toMatchObject({ isLocal: true });
    expect(allocated.body.partyDetails.party).toBe(`carol::${world.participant[1]!.split('::')[1]}`);
    const again = await node2.post('/v2/parties', { partyIdHint: 'carol' });
    expect(again.status).toBe(400);
    const listed = await node2.get<{ partyDetails: Array<{ party: string }> }>(
      '/v2/parties?filter-party=carol',
    );
    expect(listed.body.partyDetails.map((p) => p.party)).toEqual([allocated.body.partyDetails.party]);
    // a transfer to it now works; to a party nobody allocated it fails as Canton fails it
    const minter = walletFor(world, tokens, tokens.minter);
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    const toCarol = await transfer(minter, registry, allocated.body.partyDetails.party, '0.01', inputs);
    expect(toCarol.status, toCarol.text).toBe(200);
    const ghost = `ghost::1220${'ab'.repeat(32)}`;
    const toGhost = await transfer(
      minter,
      registry,
      ghost,
      '0.01',
      (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
    );
    // TransactionRoutingError.UnknownInformees: category 11 (NOT_FOUND), the parties in its context
    expect(toGhost.status, toGhost.text).toBe(404);
    expect(toGhost.body).toMatchObject({
      code: 'UNKNOWN_INFORMEES',
      errorCategory: 11,
      grpcCodeValue: 5,
      cause: 'The participant is not connected to any synchronizer where the given informees are known.',
      context: { unknownInformees: `Set(${ghost})` },
    });
    // the party lookup answers the known ones only (hosted here or elsewhere); a string that is no Daml-LF party
    // is refused as Canton refuses it
    const lookup = await node2.get<{ partyDetails: Array<{ party: string; isLocal: boolean }> }>(
      `/v2/parties/${allocated.body.partyDetails.party}?parties=${encodeURIComponent(ghost)}&parties=${encodeURIComponent(tokens.minter)}`,
    );
    expect(lookup.status, lookup.text).toBe(200);
    expect(lookup.body.partyDetails).toEqual([
      expect.objectContaining({ party: allocated.body.partyDetails.party, isLocal: true }),
      expect.objectContaining({ party: tokens.minter, isLocal: false }),
    ]);
    const hidden = await node2.get(
      `/v2/parties/${encodeURIComponent(`carol\u200b::1220${'ab'.repeat(32)}`)}`,
    );
    expect(hidden.status).toBe(400);
    expect(hidden.body).toMatchObject({
      code: 'INVALID_ARGUMENT',
      cause: expect.stringContaining('non expected character 0x200b in Daml-LF Party') as string,
    });
  });

  it('shares one package store with the DPM: a DAR uploaded to the ledger API shows in the DPM’s vetted list', async () => {
    const bytes = Buffer.from(darFile('governance-core-0.2.0.dar').data, 'base64');
    const response = await fetch(`${world.ledger[2]!.base}/v2/packages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await world.token('operator3')}`,
        'content-type': 'application/octet-stream',
      },
      body: bytes,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const vetted = await world.dpm[2]!.get<Array<{ package_name: string }>>('/packages/vetted');
    expect(vetted.body.map((p) => p.package_name)).toContain('governance-core');
    const ids = await world.ledger[2]!.get<{ packageIds: string[] }>('/v2/packages');
    expect(ids.body.packageIds).toContain('f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313');
  });
});

describe('submissions', () => {
  it('a duplicate command id → 409 DUPLICATE_COMMAND and no second effect', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const commandId = randomUUID();
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    const first = await transfer(minter, registry, tokens.holders[6]!, '0.3', inputs, { commandId });
    expect(first.status, first.text).toBe(200);
    const balance = await minter.balance(tokens.instrument);
    const change = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    const second = await transfer(minter, registry, tokens.holders[6]!, '0.3', change, { commandId });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'DUPLICATE_COMMAND', errorCategory: 10, grpcCodeValue: 6 });
    expect((second.body as { context: Record<string, string> }).context.completion_offset).toBe(
      String((first.body as { transaction: { offset: number } }).transaction.offset),
    );
    expect(await minter.balance(tokens.instrument)).toBe(balance);
  });

  it('a consumed input → 404 CONTRACT_NOT_FOUND', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    expect((await transfer(minter, registry, tokens.holders[7]!, '0.01', inputs)).status).toBe(200);
    const stale = await transfer(minter, registry, tokens.holders[7]!, '0.01', inputs);
    expect(stale.status).toBe(404);
    expect(stale.body).toMatchObject({
      code: 'CONTRACT_NOT_FOUND',
      errorCategory: 11,
      resources: [['CONTRACT_ID', inputs[0]]],
    });
  });

  it('contention is real: two submissions in flight on the same holding → one commits, the other 409 ABORTED', async () => {
    await world.admin.put('/capacity', { latencyMs: 300 });
    try {
      const minter = walletFor(world, tokens, tokens.minter);
      const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
      const [a, b] = await Promise.all([
        transfer(minter, registry, tokens.holders[8]!, '0.01', inputs),
        transfer(minter, registry, tokens.holders[9]!, '0.01', inputs),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body).toMatchObject({
        code: 'LOCAL_VERDICT_LOCKED_CONTRACTS',
        errorCategory: 2,
        grpcCodeValue: 10,
      });
      // after the winner committed, the same inputs are simply gone
      const late = await transfer(minter, registry, tokens.holders[9]!, '0.01', inputs);
      expect(late.status).toBe(404);
    } finally {
      await world.admin.put('/capacity', { latencyMs: 0 });
    }
  });

  it('a lost response after commit is recognised by reading the ledger: completions, update by id, the offer itself', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const me = (await minter.ledger.get<{ user: { id: string } }>('/v2/authenticated-user')).body.user.id;
    const begin = await minter.ledgerEnd();
    await world.admin.post('/faults', { kind: 'lost-response', node: 'node1', count: 1, ms: 200 });
    const commandId = randomUUID();
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    await expect(
      transfer(minter, registry, tokens.holders[3]!, '0.07', inputs, { commandId }),
    ).rejects.toThrow();
    const completions = await minter.ledger.post<
      Array<{
        completionResponse: {
          Completion?: {
            value: { commandId: string; updateId: string; offset: number; status: { code: number } };
          };
        };
      }>
    >('/v2/commands/completions', { userId: me, parties: [minter.party], beginExclusive: begin });
    expect(completions.status, completions.text).toBe(200);
    const done = completions.body
      .map((c) => c.completionResponse.Completion?.value)
      .find((c) => c?.commandId === commandId);
    expect(done).toMatchObject({ status: { code: 0 } });
    const update = await minter.ledger.post<{
      update: { Transaction: { value: { commandId: string; events: unknown[] } } };
    }>('/v2/updates/update-by-id', {
      updateId: done!.updateId,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [minter.party]: {} }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    expect(update.status, update.text).toBe(200);
    expect(update.body.update.Transaction.value.commandId).toBe(commandId);
    const updates = await minter.ledger.post<
      Array<{ update: { Transaction?: { value: { commandId: string } } } }>
    >('/v2/updates', {
      beginExclusive: begin,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [minter.party]: {} } },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    expect(updates.body.map((u) => u.update.Transaction?.value.commandId)).toContain(commandId);
    // resubmitting is not the way: it is refused as a duplicate
    const again = await transfer(
      minter,
      registry,
      tokens.holders[3]!,
      '0.07',
      (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
      { commandId },
    );
    expect(again.status).toBe(409);
  });

  it('answers as an overloaded Canton participant beyond the network’s transaction limit: 409 PARTICIPANT_BACKPRESSURE, category 2, retry in 1 second', async () => {
    await world.admin.put('/capacity', { limit: 2, windowSeconds: 60 });
    try {
      const minter = walletFor(world, tokens, tokens.minter);
      const statuses: number[] = [];
      let refused: unknown;
      for (let i = 0; i < 3; i++) {
        const r = await transfer(
          minter,
          registry,
          minter.party,
          '0.01',
          (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
        );
        statuses.push(r.status);
        if (r.status === 409) refused = r.body;
      }
      expect(statuses).toEqual([200, 200, 409]);
      expect(refused).toMatchObject({
        code: 'PARTICIPANT_BACKPRESSURE',
        errorCategory: 2,
        grpcCodeValue: 10,
        retryInfo: '1 second',
        definiteAnswer: false,
        cause: expect.stringMatching(/^The participant is overloaded: .*a slot frees in \d+ s$/) as unknown,
      });
    } finally {
      await world.admin.put('/capacity', { limit: null });
    }
  });
});

describe('profiles and persistence', () => {
  it('strict (3.6) refuses the deprecated filter/verbose bodies and the tree endpoint; 3.4 accepts them', async () => {
    for (const [profile, refused] of [
      ['strict', true],
      ['3.4', false],
    ] as const) {
      const other = await startWorld({ nodes: 1, ledgerApi: profile });
      try {
        const t = await tokenWorld(other);
        const minter = walletFor(other, t, t.minter);
        const offset = await minter.ledgerEnd();
        const legacy = await minter.ledger.post(
          '/v2/state/active-contracts',
          acsBody(minter.party, { interface: HOLDING_INTERFACE }, offset, 'legacy'),
        );
        const tree = await minter.ledger.post('/v2/commands/submit-and-wait-for-transaction-tree', {
          actAs: [minter.party],
          commandId: randomUUID(),
          commands: [
            {
              ExerciseCommand: {
                templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount',
                contractId: '00' + '1'.repeat(64),
                choice: 'x',
                choiceArgument: {},
              },
            },
          ],
        });
        if (refused) {
          expect(legacy.status).toBe(400);
          expect(legacy.body).toMatchObject({ code: 'DEPRECATED_API_DISABLED' });
          expect(tree.body).toMatchObject({ code: 'DEPRECATED_API_DISABLED' });
          expect((await minter.ledger.get<{ version: string }>('/v2/version')).body.version).toBe('3.6.1');
        } else {
          expect(legacy.status).toBe(200);
          expect(tree.status).toBe(404);
          expect((await minter.ledger.get<{ version: string }>('/v2/version')).body.version).toBe('3.4.12');
        }
      } finally {
        await other.stop();
      }
    }
  });

  it('keeps holdings and deduplication across a restart on the same state dir', async () => {
    const first = await startWorld({ nodes: 2 });
    const stateDir = first.stateDir;
    let t = await tokenWorld(first);
    let minter = walletFor(first, t, t.minter);
    const reg = new Registry(first.sandbox.urls.registry, t.admin);
    const commandId = randomUUID();
    const sent = await transfer(
      minter,
      reg,
      t.holders[0]!,
      '4',
      (await minter.holdings(t.instrument)).map((h) => h.contractId),
      { commandId },
    );
    expect(sent.status).toBe(200);
    const balance = await minter.balance(t.instrument);
    const end = await minter.ledgerEnd();
    await first.sandbox.stop();
    const second = await startWorld({ nodes: 2, stateDir });
    try {
      t = await tokenWorld(second);
      minter = walletFor(second, t, t.minter);
      expect(await minter.balance(t.instrument)).toBe(balance);
      expect(await minter.ledgerEnd()).toBe(end);
      const reg2 = new Registry(second.sandbox.urls.registry, t.admin);
      const again = await transfer(
        minter,
        reg2,
        t.holders[0]!,
        '4',
        (await minter.holdings(t.instrument)).map((h) => h.contractId),
        { commandId },
      );
      expect(again.status).toBe(409);
      expect(new Decimal(await minter.balance(t.instrument)).toFixed(10)).toBe(balance);
    } finally {
      await second.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
