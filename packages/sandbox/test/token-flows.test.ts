/**
 * The token flows of the reference (wrapped-api.md §8, §10.3–§10.5) against a running sandbox, over HTTP and
 * WebSocket with the SDK's request shapes: two-step transfers and their settlement, direct and self transfers,
 * exact instrument filtering, allocations, mint after 6 confirmations, burn to a withdraw request.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, waitFor, type World } from '../testing/helpers.js';
import {
  ALLOCATION,
  ALLOCATION_FACTORY,
  Gateway,
  Registry,
  WITHDRAW_ACCOUNT,
  WITHDRAW_REQUEST,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  createdOf,
  isoIn,
  minterCredential,
  rootResult,
  settleOffers,
  tokenWorld,
  transfer,
  waitForBalance,
  walletFor,
  type InstructionResult,
  type TokenWorld,
  type Wallet,
} from '../testing/token-helpers.js';

let world: World;
let tokens: TokenWorld;
let registry: Registry;
let gateway: Gateway;

beforeAll(async () => {
  world = await startWorld();
  tokens = await tokenWorld(world);
  registry = new Registry(world.sandbox.urls.registry, tokens.admin);
  gateway = new Gateway(world.sandbox.urls.gateway);
});
afterAll(async () => world?.stop());

/** funds a party from the minter's genesis holding: offer, then accept */
async function fund(party: string, amount: string): Promise<Wallet> {
  const minter = walletFor(world, tokens, tokens.minter);
  const wallet = walletFor(world, tokens, party);
  const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
  const sent = await transfer(minter, registry, party, amount, inputs);
  expect(sent.status, sent.text).toBe(200);
  const offer = rootResult(sent.body).output.value.transferInstructionCid as string;
  const accepted = await settleOffers(wallet, registry, [offer], 'TransferInstruction_Accept');
  expect(accepted.status, accepted.text).toBe(200);
  return wallet;
}

function offerOf(body: unknown): string {
  const result = rootResult(body);
  expect(result.output.tag).toBe('TransferInstructionResult_Pending');
  return result.output.value.transferInstructionCid as string;
}

describe('two-step transfers', () => {
  it('offer → accept moves exactly the amount; the locked funds leave the sender’s balance at once', async () => {
    const sender = await fund(tokens.holders[10]!, '2');
    const receiver = walletFor(world, tokens, tokens.holders[11]!);
    const before = await receiver.balance(tokens.instrument);
    const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(sender, registry, receiver.party, '0.1234567891', inputs);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.transferKind).toBe('offer');
    const result = rootResult(sent.body);
    expect(result.senderChangeCids).toHaveLength(1);
    expect(await sender.balance(tokens.instrument)).toBe('1.8765432109');
    const accepted = await settleOffers(
      receiver,
      registry,
      [offerOf(sent.body)],
      'TransferInstruction_Accept',
    );
    expect(accepted.status, accepted.text).toBe(200);
    expect(rootResult(accepted.body).output.tag).toBe('TransferInstructionResult_Completed');
    expect(await receiver.balance(tokens.instrument)).toBe(
      new Decimal(before).plus('0.1234567891').toFixed(10),
    );
    expect(await sender.balance(tokens.instrument)).toBe('1.8765432109');
  });

  it('offer → withdraw (sender) and offer → reject (receiver) return the locked funds to the sender', async () => {
    const sender = await fund(tokens.holders[12]!, '3');
    const receiver = walletFor(world, tokens, tokens.holders[13]!);
    for (const [choice, actor] of [
      ['TransferInstruction_Withdraw', sender],
      ['TransferInstruction_Reject', receiver],
    ] as const) {
      const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
      const sent = await transfer(sender, registry, receiver.party, '1', inputs);
      expect(await sender.balance(tokens.instrument)).toBe('2.0000000000');
      const settled = await settleOffers(actor, registry, [offerOf(sent.body)], choice);
      expect(settled.status, settled.text).toBe(200);
      const result = rootResult(settled.body);
      expect(result.output.tag).toBe('TransferInstructionResult_Failed');
      expect(result.senderChangeCids).toHaveLength(1);
      expect(await sender.balance(tokens.instrument)).toBe('3.0000000000');
    }
    // the registry no longer knows the settled offers
    const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(sender, registry, receiver.party, '1', inputs);
    const offer = offerOf(sent.body);
    await settleOffers(sender, registry, [offer], 'TransferInstruction_Withdraw');
    const context = await registry.api.post(`/transfer-instruction/v1/${offer}/choice-contexts/accept`, {
      meta: { values: '' },
    });
    expect(context.status).toBe(404);
    expect(context.body).toEqual({ error: expect.stringContaining(offer) as unknown });
  });

  it('an expired offer cannot be accepted (400 DAML_INTERPRETATION_ERROR) but can still be withdrawn', async () => {
    const sender = await fund(tokens.holders[14]!, '1');
    const receiver = walletFor(world, tokens, tokens.holders[15]!);
    const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(sender, registry, receiver.party, '0.5', inputs, {
      executeBefore: isoIn(800),
    });
    expect(sent.status, sent.text).toBe(200);
    const offer = offerOf(sent.body);
    await new Promise((r) => setTimeout(r, 900));
    const late = await settleOffers(receiver, registry, [offer], 'TransferInstruction_Accept');
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({
      code: 'DAML_INTERPRETATION_ERROR',
      errorCategory: 9,
      grpcCodeValue: 9,
    });
    expect(late.text).toContain('expired');
    const back = await settleOffers(sender, registry, [offer], 'TransferInstruction_Withdraw');
    expect(back.status, back.text).toBe(200);
    expect(await sender.balance(tokens.instrument)).toBe('1.0000000000');
  });

  it('accepts a batch of offers in one atomic transaction; one consumed offer fails the whole batch', async () => {
    const sender = await fund(tokens.holders[16]!, '5');
    const receiver = walletFor(world, tokens, tokens.holders[17]!);
    const offers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
      offers.push(offerOf((await transfer(sender, registry, receiver.party, '0.1', inputs)).body));
    }
    const first = await settleOffers(receiver, registry, offers.slice(0, 1), 'TransferInstruction_Accept');
    expect(first.status).toBe(200);
    const before = await receiver.balance(tokens.instrument);
    // all five in one submission, with the context of a pending offer: the consumed first one fails all of them
    const context = await registry.choiceContext(offers[1]!, 'accept');
    const mixed = await receiver.submit(
      offers.map((cid) => ({
        ExerciseCommand: {
          templateId:
            '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
          contractId: cid,
          choice: 'TransferInstruction_Accept',
          choiceArgument: { extraArgs: { context: context.choiceContextData, meta: { values: {} } } },
        },
      })),
      { disclosed: context.disclosedContracts },
    );
    expect(mixed.status).toBe(404);
    expect(mixed.body).toMatchObject({ code: 'CONTRACT_NOT_FOUND' });
    expect(await receiver.balance(tokens.instrument)).toBe(before);
    const rest = await settleOffers(receiver, registry, offers.slice(1), 'TransferInstruction_Accept');
    expect(rest.status, rest.text).toBe(200);
    expect(await receiver.balance(tokens.instrument)).toBe(new Decimal(before).plus('0.4').toFixed(10));
  });
});

describe('direct and self transfers', () => {
  it('a transfer to a preapproved receiver completes at once (transferKind direct, Completed)', async () => {
    const sender = await fund(tokens.holders[20]!, '1');
    const receiver = walletFor(world, tokens, tokens.preapproved);
    const before = await receiver.balance(tokens.instrument);
    const inputs = (await sender.holdings(tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(sender, registry, receiver.party, '0.25', inputs);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.transferKind).toBe('direct');
    const result = rootResult(sent.body);
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(result.output.value.receiverHoldingCids).toHaveLength(1);
    expect(await receiver.balance(tokens.instrument)).toBe(new Decimal(before).plus('0.25').toFixed(10));
    expect(await sender.balance(tokens.instrument)).toBe('0.7500000000');
  });

  it('a self transfer consolidates 12 holdings into 1 (merge-split); 12 holdings are allowed (the limit of 10 is soft)', async () => {
    const owner = await fund(tokens.holders[21]!, '1.2');
    // split into 12 holdings of 0.1 by self transfers of 0.1 from the change
    for (let i = 0; i < 11; i++) {
      const change = (await owner.holdings(tokens.instrument)).sort((a, b) =>
        new Decimal(b.view.amount).cmp(a.view.amount),
      )[0]!;
      const split = await transfer(owner, registry, owner.party, '0.1', [change.contractId], {
        meta: {
          'splice.lfdecentralizedtrust.org/reason': 'merge-split',
          'splice.lfdecentralizedtrust.org/tx-kind': 'merge-split',
        },
      });
      expect(split.status, split.text).toBe(200);
      expect(split.transferKind).toBe('self');
    }
    const holdings = await owner.holdings(tokens.instrument);
    expect(holdings).toHaveLength(12);
    const merged = await transfer(
      owner,
      registry,
      owner.party,
      '1.2',
      holdings.map((h) => h.contractId),
      {
        meta: {
          'splice.lfdecentralizedtrust.org/reason': 'UTXO consolidation',
          'splice.lfdecentralizedtrust.org/tx-kind': 'merge-split',
        },
      },
    );
    expect(merged.status, merged.text).toBe(200);
    const result = rootResult(merged.body);
    expect(result.output.tag).toBe('TransferInstructionResult_Completed');
    expect(result.output.value.receiverHoldingCids).toHaveLength(1);
    expect(result.senderChangeCids).toEqual([]);
    const after = await owner.holdings(tokens.instrument);
    expect(after.map((h) => h.view.amount)).toEqual(['1.2000000000']);
  });

  it('holdings of another admin’s CBTC are a different instrument: not counted, not spendable through this registry', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    const all = await alice.acsWs({
      interface: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
    });
    const views = all.map(
      (e) =>
        e.contractEntry.JsActiveContract.createdEvent.interfaceViews?.[0]?.viewValue as {
          instrumentId: { admin: string; id: string };
        },
    );
    expect(views.filter((v) => v.instrumentId.id === 'CBTC').length).toBeGreaterThan(
      views.filter((v) => v.instrumentId.admin === tokens.admin).length,
    );
    const other = await alice.holdings(tokens.otherInstrument);
    expect(other).toHaveLength(2);
    const spend = await transfer(
      alice,
      registry,
      tokens.holders[1]!,
      '0.5',
      other.map((h) => h.contractId),
    );
    expect(spend.status).toBe(400);
    expect(spend.text).toContain('is of instrument CBTC of');
  });
});

describe('allocations (DvP)', () => {
  it('a leg is allocated and executed by executor, sender and receiver; another is withdrawn by its sender', async () => {
    const node1 = world.ledger[0]!;
    const allocate = async (hint: string): Promise<string> => {
      const user = (await node1.get<{ user: { id: string } }>('/v2/authenticated-user')).body.user.id;
      const response = await node1.post<{ partyDetails: { party: string } }>('/v2/parties', {
        partyIdHint: `${hint}-${Date.now()}`,
        userId: user,
      });
      expect(response.status, response.text).toBe(200);
      return response.body.partyDetails.party;
    };
    const venue = await allocate('venue');
    const buyer = await allocate('buyer');
    const seller = walletFor(world, tokens, tokens.minter);
    const legs = ['leg-1', 'leg-2'];
    const allocations: string[] = [];
    for (const leg of legs) {
      const inputs = (await seller.holdings(tokens.instrument)).map((h) => h.contractId);
      const spec = {
        settlement: {
          executor: venue,
          settlementRef: { id: 'trade-1', cid: null },
          requestedAt: isoIn(-1000),
          allocateBefore: isoIn(3600_000),
          settleBefore: isoIn(7200_000),
          meta: { values: {} },
        },
        transferLegId: leg,
        transferLeg: {
          sender: seller.party,
          receiver: buyer,
          amount: '0.5',
          instrumentId: tokens.instrument,
          meta: { values: {} },
        },
      };
      const factory = await registry.api.post<{
        factoryId: string;
        choiceContext: {
          choiceContextData: { values: Record<string, unknown> };
          disclosedContracts: Array<{
            contractId: string;
            createdEventBlob: string;
            templateId: string;
            synchronizerId: string;
          }>;
        };
      }>('/allocation-instruction/v1/allocation-factory', {
        choiceArguments: {
          expectedAdmin: tokens.admin,
          allocation: spec,
          requestedAt: isoIn(-1000),
          inputHoldingCids: inputs,
          extraArgs: { context: { values: {} }, meta: { values: {} } },
        },
        excludeDebugFields: true,
      });
      expect(factory.status, factory.text).toBe(200);
      const allocated = await seller.submit(
        [
          {
            ExerciseCommand: {
              templateId: ALLOCATION_FACTORY,
              contractId: factory.body.factoryId,
              choice: 'AllocationFactory_Allocate',
              choiceArgument: {
                expectedAdmin: tokens.admin,
                allocation: spec,
                requestedAt: isoIn(-1000),
                inputHoldingCids: inputs,
                extraArgs: { context: factory.body.choiceContext.choiceContextData, meta: { values: {} } },
              },
            },
          },
        ],
        { disclosed: factory.body.choiceContext.disclosedContracts },
      );
      expect(allocated.status, allocated.text).toBe(200);
      const result = rootResult<InstructionResult>(allocated.body);
      expect(result.output.tag).toBe('AllocationInstructionResult_Completed');
      allocations.push(result.output.value.allocationCid as string);
    }
    const before = await seller.balance(tokens.instrument);
    const context = async (cid: string, choice: string) =>
      (
        await registry.api.post<{
          choiceContextData: { values: Record<string, unknown> };
          disclosedContracts: Array<{
            contractId: string;
            createdEventBlob: string;
            templateId: string;
            synchronizerId: string;
          }>;
        }>(`/allocations/v1/${cid}/choice-contexts/${choice}`, { meta: { values: '' } })
      ).body;
    const exercise = async (actAs: string[], cid: string, choice: string, route: string) => {
      const ctx = await context(cid, route);
      return node1.post('/v2/commands/submit-and-wait-for-transaction', {
        commands: {
          actAs,
          commandId: `alloc-${Date.now()}-${choice}`,
          disclosedContracts: ctx.disclosedContracts.map((d) => ({
            templateId: d.templateId,
            contractId: d.contractId,
            createdEventBlob: d.createdEventBlob,
            synchronizerId: d.synchronizerId,
          })),
          commands: [
            {
              ExerciseCommand: {
                templateId: ALLOCATION,
                contractId: cid,
                choice,
                choiceArgument: { extraArgs: { context: ctx.choiceContextData, meta: { values: {} } } },
              },
            },
          ],
        },
        transactionFormat: {
          eventFormat: { filtersByParty: Object.fromEntries(actAs.map((p) => [p, {}])), verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      });
    };
    // the executor alone may not execute: the sender's and the receiver's authority are needed too
    const alone = await exercise([venue], allocations[0]!, 'Allocation_ExecuteTransfer', 'execute-transfer');
    expect(alone.status).toBe(400);
    expect(alone.body).toMatchObject({ code: 'DAML_AUTHORIZATION_ERROR' });
    const executed = await exercise(
      [venue, seller.party, buyer],
      allocations[0]!,
      'Allocation_ExecuteTransfer',
      'execute-transfer',
    );
    expect(executed.status, executed.text).toBe(200);
    const withdrawn = await exercise([seller.party], allocations[1]!, 'Allocation_Withdraw', 'withdraw');
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(await seller.balance(tokens.instrument)).toBe(new Decimal(before).plus('0.5').toFixed(10));
    const buyerHoldings = await node1.post<
      Array<{
        contractEntry: {
          JsActiveContract: { createdEvent: { interfaceViews: Array<{ viewValue: { amount: string } }> } };
        };
      }>
    >('/v2/state/active-contracts', {
      eventFormat: {
        filtersByParty: {
          [buyer]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: {
                    value: {
                      interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
                      includeInterfaceView: true,
                    },
                  },
                },
              },
            ],
          },
        },
      },
      activeAtOffset: (await node1.get<{ offset: number }>('/v2/state/ledger-end')).body.offset,
    });
    expect(
      buyerHoldings.body.map(
        (e) => e.contractEntry.JsActiveContract.createdEvent.interfaceViews[0]!.viewValue.amount,
      ),
    ).toEqual(['0.5000000000']);
    // both allocations are gone
    expect(
      (await registry.api.post(`/allocations/v1/${allocations[1]!}/choice-contexts/cancel`, {})).status,
    ).toBe(404);
  });
});

describe('mint and burn through the attestors', () => {
  it('deposit → 6 confirmations → mint to the account owner, once; a deposit below the minimum is not minted', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const credential = await minterCredential(minter);
    expect(await minterCredential(minter)).toBe(credential);
    const account = await createDepositAccount(minter, gateway, credential);
    const address = await gateway.address(account.id);
    expect(address).toMatchObject({ attestors_requested: 3, attestors_responded: 3 });
    expect(address.bitcoin_address).toMatch(/^tb1p[02-9ac-hj-np-z]{58}$/);
    expect((await gateway.api.get('/wrapped/v1/bitcoin-address/no-such-account')).status).toBe(404);
    const before = await minter.balance(tokens.instrument);
    const bitcoin = world.sandbox.urls.bitcoin;
    const send = async (amount: string) =>
      (
        await fetch(`${bitcoin}/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ address: address.bitcoin_address, amount }),
        })
      ).json() as Promise<{ txid: string; status: string; confirmations: number; block: number | null }>;
    const deposit = await send('0.5');
    const dust = await send('0.00001');
    // in the mempool: no block yet
    expect(deposit).toMatchObject({ status: 'pending', confirmations: 0, block: null });
    // nothing is minted before the 6th confirmation
    expect(await minter.balance(tokens.instrument)).toBe(before);
    await waitForBalance(minter, tokens.instrument, new Decimal(before).plus('0.5').toFixed(10), 15_000);
    const status = async (txid: string) =>
      (await (await fetch(`${bitcoin}/deposits/${txid}`)).json()) as {
        status: string;
        reason?: string;
        confirmations: number;
        block: number | null;
        holdingCid?: string;
      };
    const minted = await status(deposit.txid);
    expect(minted).toMatchObject({ status: 'minted', block: expect.any(Number) as unknown });
    expect(minted.confirmations).toBeGreaterThanOrEqual(6);
    await waitFor(
      'the dust deposit to be judged',
      async () => ((await status(dust.txid)).status === 'rejected' ? true : undefined),
      15_000,
      50,
    );
    expect((await status(dust.txid)).reason).toBe('Deposit amount 0.00001000 is below minimum 0.0001000000');
    // the account was re-created by the attestors with the block it processed (same id, new contract id)
    const accounts = (await minter.acs({ template: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount' })).map(
      (e) => e.contractEntry.JsActiveContract.createdEvent,
    );
    const current = accounts.find((a) => a.createArgument?.id === account.id)!;
    expect(current.contractId).not.toBe(account.cid);
    expect(current.createArgument?.lastProcessedBitcoinBlock).toBe(String(minted.block));
    // later reads do not mint again
    await new Promise((r) => setTimeout(r, 300));
    expect(await minter.balance(tokens.instrument)).toBe(new Decimal(before).plus('0.5').toFixed(10));
  });

  it('burn → pending balance → withdraw request with a Bitcoin txid; limits and credentials are checked', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const credential = await minterCredential(minter);
    const account = await createWithdrawAccount(
      minter,
      gateway,
      credential,
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    );
    const holdings = await minter.holdings(tokens.instrument);
    const tooMuch = await burn(
      minter,
      gateway,
      account,
      holdings.map((h) => h.contractId),
      '6',
      credential,
    );
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.text).toContain('Withdraw amount 6.0000000000 exceeds maximum 5.0000000000');
    const before = await minter.balance(tokens.instrument);
    const burned = await burn(
      minter,
      gateway,
      account,
      holdings.map((h) => h.contractId),
      '0.3',
      null,
    );
    expect(burned.status, burned.text).toBe(200);
    const updated = createdOf(burned.body, ':CBTC.WithdrawAccount:CBTCWithdrawAccount')[0]!;
    expect(updated.createArgument?.pendingBalance).toBe('0.3000000000');
    expect(await minter.balance(tokens.instrument)).toBe(new Decimal(before).minus('0.3').toFixed(10));
    const request = await waitFor(
      'a withdraw request',
      async () =>
        (await minter.acs({ template: WITHDRAW_REQUEST })).map(
          (e) => e.contractEntry.JsActiveContract.createdEvent.createArgument,
        )[0] ?? undefined,
      10_000,
      50,
    );
    expect(request).toMatchObject({
      owner: minter.party,
      amount: '0.3000000000',
      destinationBtcAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
    });
    expect(request.btcTxId).toMatch(/^[0-9a-f]{64}$/);
    const accounts = (await minter.acs({ template: WITHDRAW_ACCOUNT })).map(
      (e) => e.contractEntry.JsActiveContract.createdEvent.createArgument,
    );
    expect(accounts.map((a) => a?.pendingBalance)).toEqual(['0.0000000000']);
    const payouts = (await (await fetch(`${world.sandbox.urls.bitcoin}/payouts`)).json()) as {
      payouts: Array<{ txid: string; amount: string }>;
    };
    expect(payouts.payouts).toContainEqual(
      expect.objectContaining({ txid: request.btcTxId, amount: '0.30000000' }),
    );
  });
});
