/**
 * Exactly once, through the typed clients against a running sandbox: a command id used twice is refused (409
 * DUPLICATE_COMMAND, ambiguous) with no second effect; a consumed input is 404 CONTRACT_NOT_FOUND (permanent); a
 * response lost after the commit is ambiguous and settled by reading the ledger (the completion of the command
 * id, then the transaction it names). And the rewards API's daily counts agree with the offers and acceptances the
 * ledger shows. This file's sandbox speaks the 3.4 ledger API (testnet and mainnet) and an older document's rewards
 * field names; token-clients.test.ts runs against the defaults (3.5, the live service's names).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sumAmounts } from '../../src/clients/amount.js';
import { isLedgerError } from '../../src/clients/ledger-errors.js';
import type { Transaction } from '../../src/clients/ledger-wire.js';
import type { PartyLedger } from '../../src/clients/party-ledger.js';
import { transferOf, type TransferSpec } from '../../src/clients/token-commands.js';
import { actOnTransferInstruction, sendTransfer, type TransferSent } from '../../src/clients/token-flows.js';
import { rootExercises, transferInstructionResult } from '../../src/clients/token-results.js';
import { TOKEN_CHOICES, TOKEN_TEMPLATES, sameEntity } from '../../src/clients/token-wire.js';
import {
  commandIds,
  expectAmounts,
  expectNoSecrets,
  fund,
  injectFault,
  pendingOffer,
  startClientWorld,
  transferSpec,
  type ClientWorld,
} from './client-world.js';

let cw: ClientWorld;

beforeAll(async () => {
  cw = await startClientWorld({ ledgerApi: '3.4', rewardsFields: 'document' });
});
afterAll(async () => cw?.stop());
afterEach(async () => {
  await cw.admin.call('DELETE', '/faults');
});

const commandId = commandIds('settle');

/** Sends a transfer under a command id, deduplicated for a day (as a step sends it). */
function send(sender: PartyLedger, transfer: TransferSpec, id: string): Promise<TransferSent> {
  return sendTransfer(sender, cw.clients.registry(), transferOf(transfer), {
    commandId: id,
    deduplication: { durationSeconds: 86_400 },
  });
}

function funded(index: number, amount: string): Promise<PartyLedger> {
  return fund(cw, cw.holder(index), amount, commandId);
}

/** The ledger's record of the party's position: holdings (unlocked, locked) and its pending offers. */
async function position(party: PartyLedger): Promise<unknown> {
  const holdings = await party.holdings(cw.instrument);
  const offers = await party.transferOffers(cw.instrument);
  return {
    unlocked: holdings.unlocked.map((h) => [h.contractId, h.amount]).sort(),
    locked: holdings.locked.map((h) => [h.contractId, h.amount]).sort(),
    offers: offers.map((o) => o.contractId).sort(),
  };
}

describe('exactly once', () => {
  it('a command id used again is refused with 409 DUPLICATE_COMMAND (ambiguous) and has no second effect', async () => {
    const sender = await funded(30, '1');
    const receiver = cw.clients.party(cw.holder(31));
    const id = commandId('dup');
    const first = await transferSpec(cw, sender, receiver.party, '0.2');
    const offer = pendingOffer(await send(sender, first, id));
    const afterFirst = { sender: await position(sender), receiver: await position(receiver) };

    // the very same command again (a retry), and a command rebuilt from the live inputs under the same id
    for (const again of [first, await transferSpec(cw, sender, receiver.party, '0.2')]) {
      const refused = await send(sender, again, id).catch((error: unknown) => error);
      expect(isLedgerError(refused, 'duplicate-command')).toBe(true);
      expect(refused).toMatchObject({ status: 409, retryability: 'ambiguous' });
      expectNoSecrets(cw, refused);
    }
    expect({ sender: await position(sender), receiver: await position(receiver) }).toEqual(afterFirst);
    expect((await receiver.transferOffers(cw.instrument)).map((o) => o.contractId)).toEqual([offer]);
  });

  it('a consumed input is refused with 404 CONTRACT_NOT_FOUND (permanent) and changes nothing', async () => {
    const sender = await funded(32, '1');
    const receiver = cw.clients.party(cw.holder(33));
    const stale = await transferSpec(cw, sender, receiver.party, '0.3');
    await send(sender, stale, commandId('spend'));
    const before = { sender: await position(sender), receiver: await position(receiver) };

    const refused = await send(sender, stale, commandId('stale')).catch((error: unknown) => error);
    expect(isLedgerError(refused, 'contract-not-found')).toBe(true);
    expect(refused).toMatchObject({ status: 404, retryability: 'permanent' });
    expect((refused as Error).message).toContain(stale.inputHoldingCids[0]);
    expectNoSecrets(cw, refused);
    expect({ sender: await position(sender), receiver: await position(receiver) }).toEqual(before);
  });

  it('a response lost after the commit is ambiguous; the completion and the updates read settle it', async () => {
    const sender = await funded(34, '1');
    const receiver = cw.clients.party(cw.holder(35));
    const node = cw.nodeOf(cw.holder(34));
    const offset = await sender.ledger.ledgerEnd();
    const id = commandId('lost');
    const transfer = await transferSpec(cw, sender, receiver.party, '0.4');
    await injectFault(cw.admin, { kind: 'lost-response', node, count: 1, ms: 200 });

    const lost = await send(sender, transfer, id).catch((error: unknown) => error);
    expect(isLedgerError(lost, 'no-response')).toBe(true);
    expect(lost).toMatchObject({ retryability: 'ambiguous' });
    expectNoSecrets(cw, lost);

    // the ledger says it committed: the completion of this command id names the transaction
    const completion = await sender.ledger.findCompletion(id, {
      parties: [sender.party],
      beginExclusive: offset,
    });
    expect(completion?.status?.code ?? 0).toBe(0);
    expect(completion?.updateId).toBeTruthy();
    const updates = await sender.ledger.transactions({ parties: [sender.party], beginExclusive: offset });
    const committed = updates.filter((tx) => tx.commandId === id);
    expect(committed.map((tx) => tx.updateId)).toEqual([completion?.updateId]);
    const result = transferInstructionResult(committed[0] as Transaction, TOKEN_CHOICES.transfer);
    if (result?.outcome.status !== 'pending') throw new Error(`no pending offer in ${completion?.updateId}`);
    const incoming = await receiver.transferOffers(cw.instrument);
    expect(incoming.map((o) => [o.contractId, o.amount])).toEqual([
      [result.outcome.transferInstructionCid, '0.4000000000'],
    ]);
    const holdings = await sender.holdings(cw.instrument);
    expectAmounts([holdings.unlockedTotal, holdings.lockedTotal], ['0.6', '0.4']);

    // and a retry under the same id is a duplicate, not a second transfer
    const retry = await send(sender, await transferSpec(cw, sender, receiver.party, '0.4'), id).catch(
      (e: unknown) => e,
    );
    expect(isLedgerError(retry, 'duplicate-command')).toBe(true);
    expect(await receiver.transferOffers(cw.instrument)).toHaveLength(1);
  });
});

describe('daily rewards', () => {
  it('the API’s daily counts agree with the offers and acceptances the ledger shows', async () => {
    const sender = await funded(40, '1');
    const receivers = [41, 42, 43].map((i) => cw.clients.party(cw.holder(i)));
    for (const [i, receiver] of receivers.entries()) {
      const offer = pendingOffer(
        await send(sender, await transferSpec(cw, sender, receiver.party, '0.1'), commandId('reward')),
      );
      const choice = i === 2 ? 'reject' : 'accept';
      await actOnTransferInstruction(receiver, cw.clients.registry(), choice, offer, {
        commandId: commandId(`reward-${choice}`),
      });
    }
    // one more offer, left pending
    await send(
      sender,
      await transferSpec(cw, sender, receivers[0]?.party ?? '', '0.1'),
      commandId('reward-pending'),
    );

    const fromLedger = ledgerCounts(
      await sender.ledger.transactions({ parties: [sender.party], beginExclusive: 0 }),
      sender.party,
    );
    const days = [...fromLedger.keys()].sort();
    expect(days.length).toBeGreaterThan(0);
    const created = [...fromLedger.values()].reduce((n, c) => n + c.created, 0);
    const accepted = [...fromLedger.values()].reduce((n, c) => n + c.accepted, 0);
    expect([created, accepted]).toEqual([4, 2]);

    const rewards = await cw.clients.rewards().dailyRewards({
      parties: [sender.party],
      startDate: days[0] ?? '',
      endDate: days[days.length - 1] ?? '',
    });
    expect(
      Object.fromEntries(
        rewards.days.map((d) => [
          d.date,
          { created: d.transferCreationCount, accepted: d.acceptedTransferCount },
        ]),
      ),
    ).toEqual(Object.fromEntries(fromLedger));
    expect(rewards.totalAcceptedTransferCount).toBe(accepted);
    const dayTotals = sumAmounts(rewards.days.map((d) => d.totalReward ?? '0'));
    expectAmounts([rewards.totalReward ?? ''], [dayTotals]);
  });
});

/** per UTC day of the record time: the offers the sender created, and the acceptances of its offers */
function ledgerCounts(
  transactions: readonly Transaction[],
  sender: string,
): Map<string, { created: number; accepted: number }> {
  const counts = new Map<string, { created: number; accepted: number }>();
  const offers = new Set<string>();
  for (const tx of transactions) {
    const day = (tx.recordTime ?? 'no record time').slice(0, 10);
    const bump = (field: 'created' | 'accepted'): void => {
      const c = counts.get(day) ?? { created: 0, accepted: 0 };
      c[field] += 1;
      counts.set(day, c);
    };
    for (const event of tx.events) {
      const created = event.CreatedEvent;
      if (created !== undefined && sameEntity(created.templateId, TOKEN_TEMPLATES.transferOffer)) {
        const transfer = (created.createArgument as { transfer?: { sender?: string } } | null)?.transfer;
        if (transfer?.sender === sender) {
          offers.add(created.contractId);
          bump('created');
        }
      }
    }
    for (const exercise of rootExercises(tx))
      if (exercise.choice === TOKEN_CHOICES.accept && offers.has(exercise.contractId)) bump('accepted');
  }
  return counts;
}
