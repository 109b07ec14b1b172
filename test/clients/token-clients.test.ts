/**
 * The token scenarios of issue 6 through the typed clients against a running sandbox: transfers and their
 * settlement, self and direct transfers, allocations, the mint after 6 confirmations and the burn to a withdraw
 * request. Every scenario acts through the clients' public API (`party()`, `ledger()`, `registry()`, `gateway()`,
 * `bitcoin()` and the token flows) and asserts on what the ledger says afterwards: holdings, offers, accounts,
 * withdraw requests and the updates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountValue, compareAmounts, formatAmount, sumAmounts } from '../../src/clients/amount.js';
import { isLedgerError, type LedgerError } from '../../src/clients/ledger-errors.js';
import { PartyLedger, isMinterCredential, type Holdings } from '../../src/clients/party-ledger.js';
import {
  acceptCredentialOfferCommand,
  allocationCommand,
  transferOf,
  type TransferSpec,
} from '../../src/clients/token-commands.js';
import {
  actOnTransferInstruction,
  allocate,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  sendTransfer,
  settleAllocation,
  type TransferSent,
} from '../../src/clients/token-flows.js';
import { createdContracts, rootExercises } from '../../src/clients/token-results.js';
import {
  TOKEN_INTERFACES,
  TOKEN_TEMPLATES,
  type AllocationSpecification,
} from '../../src/clients/token-wire.js';
import {
  at,
  commandIds,
  eventually,
  expectAmounts,
  fund,
  pendingOffer,
  startClientWorld,
  transferSpec,
  type ClientWorld,
} from './client-world.js';

let cw: ClientWorld;

beforeAll(async () => {
  cw = await startClientWorld();
});
afterAll(async () => cw?.stop());

const commandId = commandIds('scenario');

function holdings(party: PartyLedger): Promise<Holdings> {
  return party.holdings(cw.instrument);
}

function plus(a: string, b: string): string {
  return sumAmounts([a, b]);
}

function minus(a: string, b: string): string {
  return formatAmount(amountValue(a).minus(amountValue(b)));
}

/** A transfer of `amount` from all the sender's unlocked holdings, as the flows build it. */
async function transferFrom(
  sender: PartyLedger,
  receiver: string,
  amount: string,
  options: Partial<TransferSpec> = {},
): Promise<TransferSent> {
  const transfer = transferOf(await transferSpec(cw, sender, receiver, amount, options));
  return sendTransfer(sender, cw.clients.registry(), transfer, { commandId: commandId('transfer') });
}

function funded(index: number, amount: string): Promise<PartyLedger> {
  return fund(cw, cw.holder(index), amount, commandId);
}

describe('two-step transfers through the clients', () => {
  it('offer → accept moves exactly the amount: locked while pending, the receiver’s once accepted', async () => {
    const sender = await funded(10, '2');
    const receiver = cw.clients.party(cw.holder(11));
    const receiverBefore = await holdings(receiver);

    const sent = await transferFrom(sender, receiver.party, '0.1234567891');
    const offer = pendingOffer(sent);

    const pending = await holdings(sender);
    expectAmounts([pending.unlockedTotal, pending.lockedTotal], ['1.8765432109', '0.1234567891']);
    const incoming = await receiver.transferOffers(cw.instrument);
    expect(incoming).toEqual([
      expect.objectContaining({
        contractId: offer,
        direction: 'incoming',
        sender: sender.party,
        amount: '0.1234567891',
      }),
    ]);

    const accepted = await actOnTransferInstruction(receiver, cw.clients.registry(), 'accept', offer, {
      commandId: commandId('accept'),
    });
    expect(accepted.result?.outcome.status).toBe('completed');

    const receiverAfter = await holdings(receiver);
    expectAmounts([receiverAfter.unlockedTotal], [plus(receiverBefore.unlockedTotal, '0.1234567891')]);
    const senderAfter = await holdings(sender);
    expectAmounts([senderAfter.unlockedTotal], ['1.8765432109']);
    expect(senderAfter.locked).toEqual([]);
    expect(await receiver.transferOffers(cw.instrument)).toEqual([]);
    expect(await sender.transferOffers(cw.instrument)).toEqual([]);
    // the acceptance recorded the executed transfer, visible to the receiver
    expect(createdContracts(accepted.transaction, TOKEN_TEMPLATES.executedTransfer)).toHaveLength(1);
  });

  it('offer → withdraw (sender) and offer → reject (receiver) return the locked funds to the sender', async () => {
    const sender = await funded(12, '3');
    const receiver = cw.clients.party(cw.holder(13));
    const receiverBefore = (await holdings(receiver)).unlockedTotal;
    for (const [choice, actor] of [
      ['withdraw', sender],
      ['reject', receiver],
    ] as const) {
      const offer = pendingOffer(await transferFrom(sender, receiver.party, '1'));
      const locked = await holdings(sender);
      expectAmounts([locked.unlockedTotal, locked.lockedTotal], ['2', '1']);

      const settled = await actOnTransferInstruction(actor, cw.clients.registry(), choice, offer, {
        commandId: commandId(choice),
      });
      expect(settled.result?.outcome.status).toBe('failed');
      expect(settled.result?.senderChangeCids).toHaveLength(1);

      const back = await holdings(sender);
      expectAmounts([back.unlockedTotal], ['3']);
      expect(back.locked).toEqual([]);
      expect(back.unlocked.map((h) => h.contractId)).toContain(settled.result?.senderChangeCids[0]);
      expect(await sender.transferOffers(cw.instrument)).toEqual([]);
      expect((await holdings(receiver)).unlockedTotal).toBe(receiverBefore);
    }
  });

  it('an expired offer cannot be accepted (an interpretation error, permanent) and can still be withdrawn', async () => {
    const sender = await funded(14, '1');
    const receiver = cw.clients.party(cw.holder(15));
    const executeBefore = at(1500);
    const offer = pendingOffer(await transferFrom(sender, receiver.party, '0.5', { executeBefore }));
    await pastDeadline(executeBefore);

    const late = await actOnTransferInstruction(receiver, cw.clients.registry(), 'accept', offer, {
      commandId: commandId('late-accept'),
    }).catch((error: unknown) => error);
    expect(isLedgerError(late, 'interpretation')).toBe(true);
    expect(late).toMatchObject({ retryability: 'permanent', status: 400 });
    expect(String((late as Error).message)).toContain('expired');

    // nothing moved: the offer is still there, expired, and the funds still locked
    const offers = await receiver.transferOffers(cw.instrument);
    expect(offers.map((o) => o.contractId)).toEqual([offer]);
    expect(Date.parse(offers[0]?.executeBefore ?? '')).toBeLessThan(Date.now());
    expectAmounts([(await holdings(sender)).lockedTotal], ['0.5']);

    await actOnTransferInstruction(sender, cw.clients.registry(), 'withdraw', offer, {
      commandId: commandId('withdraw-expired'),
    });
    const back = await holdings(sender);
    expectAmounts([back.unlockedTotal, back.lockedTotal], ['1', '0']);
    expect(await receiver.transferOffers(cw.instrument)).toEqual([]);
  });
});

/** resolves a little after `deadline` */
function pastDeadline(deadline: Date): Promise<void> {
  const ms = Math.max(0, deadline.getTime() + 100 - Date.now());
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('self and direct transfers through the clients', () => {
  it('a self transfer consolidates 12 holdings into 1 (settled at once; 12 are allowed, the limit of 10 is soft)', async () => {
    const owner = await funded(20, '1.2');
    const mergeSplit = { 'splice.lfdecentralizedtrust.org/tx-kind': 'merge-split' };
    // split off 0.1 eleven times from the largest holding
    for (let i = 0; i < 11; i++) {
      const largest = (await holdings(owner)).unlocked.sort((a, b) => compareAmounts(b.amount, a.amount))[0];
      const split = await sendTransfer(
        owner,
        cw.clients.registry(),
        transferOf({
          sender: owner.party,
          receiver: owner.party,
          amount: '0.1',
          instrument: cw.instrument,
          requestedAt: at(-60_000),
          executeBefore: at(5 * 3600_000),
          inputHoldingCids: [largest?.contractId ?? ''],
          meta: { ...mergeSplit, 'splice.lfdecentralizedtrust.org/reason': 'merge-split' },
        }),
        { commandId: commandId('split') },
      );
      expect(split.transferKind).toBe('self');
    }
    const twelve = await holdings(owner);
    expect(twelve.unlocked).toHaveLength(12);
    expectAmounts([twelve.unlockedTotal], ['1.2']);

    const merged = await transferFrom(owner, owner.party, '1.2', {
      executeBefore: at(5 * 3600_000),
      meta: { ...mergeSplit, 'splice.lfdecentralizedtrust.org/reason': 'UTXO consolidation' },
    });
    expect(merged.transferKind).toBe('self');
    const outcome = merged.result?.outcome;
    expect(outcome?.status).toBe('completed');
    expect(merged.result?.senderChangeCids).toEqual([]);

    const one = await holdings(owner);
    expect(one.unlocked.map((h) => [h.contractId, h.amount])).toEqual([
      [outcome?.status === 'completed' ? outcome.receiverHoldingCids[0] : undefined, '1.2000000000'],
    ]);
    expect(one.locked).toEqual([]);
    // every one of the twelve was consumed by that one transaction
    const update = await owner.ledger.transactions({
      parties: [owner.party],
      beginExclusive: merged.transaction.offset - 1,
      endInclusive: merged.transaction.offset,
    });
    const consumed = update[0]?.events.flatMap((e) =>
      e.ExercisedEvent?.consuming === true ? [e.ExercisedEvent.contractId] : [],
    );
    expect(new Set(consumed)).toEqual(new Set(twelve.unlocked.map((h) => h.contractId)));
  });

  it('a direct transfer to a preapproved receiver completes at once: no offer, the receiver holds it', async () => {
    const sender = await funded(21, '1');
    const receiver = cw.clients.party('preapproved');
    const before = (await holdings(receiver)).unlockedTotal;

    const sent = await transferFrom(sender, receiver.party, '0.25');
    expect(sent.transferKind).toBe('direct');
    const outcome = sent.result?.outcome;
    if (outcome?.status !== 'completed')
      throw new Error(`expected completed, got ${JSON.stringify(outcome)}`);
    expect(outcome.receiverHoldingCids).toHaveLength(1);

    const after = await holdings(receiver);
    expectAmounts([after.unlockedTotal], [plus(before, '0.25')]);
    expect(after.unlocked.map((h) => h.contractId)).toContain(outcome.receiverHoldingCids[0]);
    const senderAfter = await holdings(sender);
    expectAmounts([senderAfter.unlockedTotal, senderAfter.lockedTotal], ['0.75', '0']);
    expect(await sender.transferOffers(cw.instrument)).toEqual([]);
    expect(await receiver.transferOffers(cw.instrument)).toEqual([]);
  });
});

describe('allocations through the clients', () => {
  it('two legs are allocated; one executes (executor, sender and receiver together), the other is withdrawn by its sender', async () => {
    const seller = await funded(22, '2');
    const node = cw.nodeOf(cw.holder(22));
    const response = await cw.admin.post<{ parties: string[] }>('/parties', {
      node,
      count: 2,
      prefix: 'settlement',
    });
    expect(response.status, response.text).toBe(201);
    const [venue, buyer] = response.body.parties as [string, string];
    const ledger = cw.clients.ledger(node);
    const registry = cw.clients.registry();
    const buyerParty = new PartyLedger(ledger, buyer);

    const allocations: string[] = [];
    for (const leg of ['leg-1', 'leg-2']) {
      const allocation: AllocationSpecification = {
        settlement: {
          executor: venue,
          settlementRef: { id: 'trade-1', cid: null },
          requestedAt: at(-60_000).toISOString(),
          allocateBefore: at(3600_000).toISOString(),
          settleBefore: at(7200_000).toISOString(),
          meta: { values: {} },
        },
        transferLegId: leg,
        transferLeg: {
          sender: seller.party,
          receiver: buyer,
          amount: '0.5',
          instrumentId: cw.instrument,
          meta: { values: {} },
        },
      };
      const inputs = (await holdings(seller)).unlocked.map((h) => h.contractId);
      const transaction = await allocate(
        seller,
        registry,
        { allocation, requestedAt: at(-60_000), inputHoldingCids: inputs },
        { commandId: commandId('allocate') },
      );
      const result = rootExercises(transaction)[0]?.exerciseResult as {
        output?: { tag?: string; value?: { allocationCid?: string } };
      };
      expect(result.output?.tag).toBe('AllocationInstructionResult_Completed');
      allocations.push(result.output?.value?.allocationCid ?? '');
    }
    const active = async (): Promise<string[]> =>
      (
        await ledger.activeContracts({
          parties: [seller.party],
          filters: [{ interfaceId: TOKEN_INTERFACES.allocation }],
        })
      ).contracts.map((c) => c.createdEvent.contractId);
    expect(new Set(await active())).toEqual(new Set(allocations));
    const allocated = await holdings(seller);
    expectAmounts([allocated.unlockedTotal, allocated.lockedTotal], ['1', '1']);

    const [first, second] = allocations as [string, string];
    // the executor alone lacks the sender's and the receiver's authority
    const alone = await settleAllocation(
      new PartyLedger(ledger, venue),
      registry,
      'execute-transfer',
      first,
      {
        commandId: commandId('execute-alone'),
      },
    ).catch((error: unknown) => error);
    expect(isLedgerError(alone, 'interpretation')).toBe(true);
    expect(alone).toMatchObject({ status: 400, retryability: 'permanent' });
    expect((alone as LedgerError).cantonCode).toBe('DAML_AUTHORIZATION_ERROR');
    expect((alone as LedgerError).hint).toContain('executor, sender and receiver');

    const context = await registry.allocationContext(first, 'execute-transfer');
    await ledger.submitAndWaitForTransaction({
      commandId: commandId('execute'),
      actAs: [venue, seller.party, buyer],
      ...allocationCommand('execute-transfer', first, context),
    });
    await settleAllocation(seller, registry, 'withdraw', second, { commandId: commandId('withdraw-leg') });

    expect(await active()).toEqual([]);
    const bought = await holdings(buyerParty);
    expectAmounts([bought.unlockedTotal], ['0.5']);
    const after = await holdings(seller);
    expectAmounts([after.unlockedTotal, after.lockedTotal], ['1.5', '0']);
  });
});

describe('mint and burn through the clients', () => {
  let credential: string;

  /** the minter's Minter credential, accepted from its free offer through its UserService (§8.3) */
  async function minterCredential(minter: PartyLedger): Promise<string> {
    const held = (await minter.credentials()).find(isMinterCredential);
    if (held !== undefined) return held.contractId;
    const offer = (await minter.credentialOffers()).find(isMinterCredential);
    const [service] = await minter.userServices();
    if (offer === undefined || service === undefined) throw new Error('the minter has no credential offer');
    await minter.submit(
      commandId('credential'),
      acceptCredentialOfferCommand({ userService: service, credentialOfferCid: offer.contractId }),
    );
    const accepted = (await minter.credentials()).find(isMinterCredential);
    if (accepted === undefined) throw new Error('no Minter credential after accepting the offer');
    return accepted.contractId;
  }

  beforeAll(async () => {
    credential = await minterCredential(cw.clients.party('minter'));
  });

  async function depositAddress(minter: PartyLedger): Promise<{ accountId: string; address: string }> {
    const created = await createDepositAccount(minter, cw.clients.gateway(), [credential], {
      commandId: commandId('deposit-account'),
    });
    const account = (await minter.depositAccounts()).find(
      (a) => a.contractId === created.account?.contractId,
    );
    if (account === undefined) throw new Error('the new deposit account is not among the active contracts');
    const address = await cw.clients.gateway().bitcoinAddress(account.accountId);
    expect(address.attestors_responded).toBe(address.attestors_requested);
    return { accountId: account.accountId, address: address.bitcoin_address };
  }

  it('deposit → 6 confirmations → mint: the owner holds the amount, the account moved to the deposit’s block', async () => {
    const minter = cw.clients.party('minter');
    const { accountId, address } = await depositAddress(minter);
    const before = await holdings(minter);
    const offset = await minter.ledger.ledgerEnd();

    const deposit = await cw.clients.bitcoin().send(address, '0.25');
    expect(deposit).toMatchObject({ confirmations: 0, block: null, status: 'pending' });
    expect((await holdings(minter)).unlocked.map((h) => h.contractId)).toEqual(
      before.unlocked.map((h) => h.contractId),
    );

    const minted = await eventually('the deposit to be minted', async () => {
      const seen = await cw.clients.bitcoin().status(deposit.txid);
      return seen?.status === 'minted' ? seen : undefined;
    });
    expect(minted.confirmations).toBeGreaterThanOrEqual(6);

    const after = await holdings(minter);
    const known = new Set(before.unlocked.map((h) => h.contractId));
    const added = after.unlocked.filter((h) => !known.has(h.contractId));
    expect(added.map((h) => h.amount)).toEqual(['0.2500000000']);
    expectAmounts([after.unlockedTotal], [plus(before.unlockedTotal, '0.25')]);

    // the attestors' transaction: the deposit completed on the account, creating that holding
    const updates = await minter.ledger.transactions({ parties: [minter.party], beginExclusive: offset });
    const completions = updates.filter((tx) =>
      rootExercises(tx).some((e) => e.choice === 'CBTCDepositAccount_CompleteDeposit'),
    );
    expect(completions).toHaveLength(1);
    expect(completions[0]?.events.some((e) => e.CreatedEvent?.contractId === added[0]?.contractId)).toBe(
      true,
    );

    // the account was re-created under a new contract id, keyed by the same account id
    const [account] = (await minter.depositAccounts()).filter((a) => a.accountId === accountId);
    expect(minted.block).toEqual(expect.any(Number));
    expect(account?.lastProcessedBitcoinBlock).toBe(String(minted.block));
  });

  it('a deposit below the account’s minimum is not minted', async () => {
    const minter = cw.clients.party('minter');
    const { accountId, address } = await depositAddress(minter);
    const [limits] = (await minter.depositAccounts()).filter((a) => a.accountId === accountId);
    expect(limits?.limits?.minAmount).toBeDefined();
    const before = await holdings(minter);
    const offset = await minter.ledger.ledgerEnd();

    const deposit = await cw.clients.bitcoin().send(address, '0.00005');
    const settled = await eventually('the attestors to decide on the deposit', async () => {
      const seen = await cw.clients.bitcoin().status(deposit.txid);
      return seen?.status === 'pending' ? undefined : seen;
    });
    expect(settled.status).toBe('rejected');
    expect(settled.confirmations).toBeGreaterThanOrEqual(6);
    expect(String(settled.reason)).toContain('below minimum');

    const after = await holdings(minter);
    expect(after.unlocked.map((h) => h.contractId)).toEqual(before.unlocked.map((h) => h.contractId));
    const updates = await minter.ledger.transactions({ parties: [minter.party], beginExclusive: offset });
    expect(
      updates.filter((tx) =>
        rootExercises(tx).some((e) => e.choice === 'CBTCDepositAccount_CompleteDeposit'),
      ),
    ).toEqual([]);
    const [account] = (await minter.depositAccounts()).filter((a) => a.accountId === accountId);
    expect(account?.lastProcessedBitcoinBlock).toBe('0');
  });

  it('burn → withdraw request with a txid: the tokens are burned, the account pays out what is pending', async () => {
    const minter = cw.clients.party('minter');
    const destination = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    const created = await createWithdrawAccount(
      minter,
      cw.clients.gateway(),
      { destinationBtcAddress: destination, credentialCids: [credential] },
      { commandId: commandId('withdraw-account') },
    );
    const account = (await minter.withdrawAccounts()).find(
      (a) => a.contractId === created.account?.contractId,
    );
    if (account === undefined) throw new Error('the new withdraw account is not among the active contracts');
    expectAmounts([account.pendingBalance], ['0']);
    const before = await holdings(minter);

    const burned = await burn(
      minter,
      cw.clients.gateway(),
      {
        withdrawAccountCid: account.contractId,
        tokens: before.unlocked.map((h) => h.contractId),
        amount: '0.1',
        credentialCids: [credential],
      },
      { commandId: commandId('burn') },
    );
    // the burn re-created the account with the amount pending, and left the change
    const pending = burned.account?.createArgument as { id?: string; pendingBalance?: string } | undefined;
    expect(pending?.id).toBe(account.id);
    expectAmounts([pending?.pendingBalance ?? ''], ['0.1']);
    const after = await holdings(minter);
    expectAmounts([after.unlockedTotal], [minus(before.unlockedTotal, '0.1')]);
    expect(after.unlocked.filter((h) => before.unlocked.some((b) => b.contractId === h.contractId))).toEqual(
      [],
    );

    const request = await eventually('the withdraw request', async () => {
      const requests = await minter.withdrawRequests();
      return requests.find((r) => r.sourceAccountId === account.accountId);
    });
    expect(request.btcTxId).toMatch(/^[0-9a-f]{64}$/);
    expectAmounts([request.amount], ['0.1']);
    expect(request.destinationBtcAddress).toBe(destination);
    const [paid] = (await minter.withdrawAccounts()).filter((a) => a.accountId === account.accountId);
    expectAmounts([paid?.pendingBalance ?? ''], ['0']);
  });
});
