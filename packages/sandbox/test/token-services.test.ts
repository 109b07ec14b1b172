/**
 * The devnet faucet and the daily-rewards API (wrapped-api.md §6, §7.6) against a running sandbox: the faucet
 * sends an ordinary offer the recipient accepts; the rewards agree with the offers and acceptances on the
 * ledger, in the live service's field names (the reference's) and, opt-in, an older document's; bad requests get a
 * clear error envelope.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, startWorld, type World } from '../testing/helpers.js';
import {
  Registry,
  TRANSFER_OFFER,
  rootResult,
  settleOffers,
  tokenWorld,
  transfer,
  transferArgument,
  walletFor,
  type TokenWorld,
  type Wallet,
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

const today = (): string => new Date().toISOString().slice(0, 10);

/** the minter offers `amount` to the wallet's party, which accepts it */
async function fundFromMinter(wallet: Wallet, amount: string): Promise<void> {
  const minter = walletFor(world, tokens, tokens.minter);
  const funding = await transfer(
    minter,
    registry,
    wallet.party,
    amount,
    (await minter.holdings(tokens.instrument)).map((h) => h.contractId),
  );
  await settleOffers(
    wallet,
    registry,
    [rootResult(funding.body).output.value.transferInstructionCid as string],
    'TransferInstruction_Accept',
  );
}

describe('devnet faucet', () => {
  it('sends the amount as an offer the recipient accepts', async () => {
    const faucet = new Api(world.sandbox.urls.faucet, () => Promise.resolve(undefined));
    const recipient = walletFor(world, tokens, tokens.holders[30]!);
    const before = await recipient.balance(tokens.instrument);
    const response = await faucet.post<{ success: boolean; message: string }>('/api/faucet', {
      network: 'devnet',
      recipient_party: recipient.party,
      amount: '1.5',
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    expect(response.body.message).toContain('transfer offer');
    const offers = (await recipient.acsWs({ template: TRANSFER_OFFER }))
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .filter((e) => (e.createArgument?.transfer as { receiver: string }).receiver === recipient.party);
    expect(offers).toHaveLength(1);
    const accepted = await settleOffers(
      recipient,
      registry,
      [offers[0]!.contractId],
      'TransferInstruction_Accept',
    );
    expect(accepted.status, accepted.text).toBe(200);
    expect(await recipient.balance(tokens.instrument)).toBe(new Decimal(before).plus('1.5').toFixed(10));
  });

  it('refuses another network, an unknown party and a bad amount with success false', async () => {
    const faucet = new Api(world.sandbox.urls.faucet, () => Promise.resolve(undefined));
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ network: 'mainnet', recipient_party: tokens.holders[30], amount: '1' }, /devnet only/],
      [
        { network: 'devnet', recipient_party: `nobody::1220${'cd'.repeat(32)}`, amount: '1' },
        /not a party known/,
      ],
      [{ network: 'devnet', recipient_party: tokens.holders[30], amount: '0.00000000001' }, /amount must be/],
      [{ network: 'devnet', recipient_party: tokens.holders[30], amount: '11' }, /at most 10/],
    ];
    for (const [body, message] of cases) {
      const response = await faucet.post<{ success: boolean; message: string }>('/api/faucet', body);
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.message).toMatch(message);
    }
  });
});

describe('registry factories', () => {
  it('answer a request without expectedAdmin, or naming another admin, 400 with an error that names the field', async () => {
    const argument = transferArgument(tokens.admin, tokens.minter, tokens.holders[2]!, '0.01', []);
    const { expectedAdmin: _admin, ...withoutAdmin } = argument;
    for (const path of [
      '/transfer-instruction/v1/transfer-factory',
      '/allocation-instruction/v1/allocation-factory',
    ]) {
      const missing = await registry.api.post(path, { choiceArguments: withoutAdmin });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({
        error: `choiceArguments.expectedAdmin is required (the instrument admin, ${tokens.admin})`,
      });
      const other = await registry.api.post(path, {
        choiceArguments: { ...argument, expectedAdmin: tokens.faucet },
      });
      expect(other.status).toBe(400);
      expect(other.body).toEqual({
        error: `expectedAdmin ${tokens.faucet} is not the admin of this registry (${tokens.admin})`,
      });
    }
  });
});

describe('daily rewards', () => {
  it('counts the sender’s offers and the accepted ones, per day, as on the ledger', async () => {
    // a sender of its own: funded by the minter, then three offers (two accepted, one rejected) and a direct transfer
    const sender = walletFor(world, tokens, tokens.holders[34]!);
    await fundFromMinter(sender, '1');
    const receivers = [tokens.holders[31]!, tokens.holders[32]!, tokens.holders[33]!];
    const offers: string[] = [];
    for (const receiver of receivers) {
      const sent = await transfer(
        sender,
        registry,
        receiver,
        '0.01',
        (await sender.holdings(tokens.instrument)).map((h) => h.contractId),
      );
      expect(sent.status, sent.text).toBe(200);
      offers.push(rootResult(sent.body).output.value.transferInstructionCid as string);
    }
    for (const [i, choice] of (
      ['TransferInstruction_Accept', 'TransferInstruction_Accept', 'TransferInstruction_Reject'] as const
    ).entries()) {
      const result = await settleOffers(
        walletFor(world, tokens, receivers[i]!),
        registry,
        [offers[i]!],
        choice,
      );
      expect(result.status, result.text).toBe(200);
    }
    const direct = await transfer(
      sender,
      registry,
      tokens.preapproved,
      '0.01',
      (await sender.holdings(tokens.instrument)).map((h) => h.contractId),
    );
    expect(direct.transferKind).toBe('direct');
    const rewards = new Api(world.sandbox.urls.rewards, () => Promise.resolve(undefined));
    const response = await rewards.post('/api/v1/analytics/daily-rewards', {
      parties: [sender.party],
      start_date: today(),
      end_date: today(),
    });
    expect(response.status, response.text).toBe(200);
    // 2 × 3.6177 = 7.2354; the client's 40 % = 2.89416
    expect(response.body).toEqual({
      success: true,
      data: {
        daily_rewards: [
          {
            date: today(),
            transfer_creation_count: 3,
            accepted_transfer_count: 2,
            total_reward: '7.24',
            client_reward: '2.89',
          },
        ],
        total_accepted_transfer_count: 2,
        total_estimated_reward: '7.24',
        client_reward: '2.89',
      },
    });
    // the receivers sent nothing; an earlier range has nothing either
    for (const body of [
      { parties: receivers, start_date: today(), end_date: today() },
      { parties: [sender.party], start_date: '2025-01-01', end_date: '2025-12-31' },
    ]) {
      const empty = await rewards.post('/api/v1/analytics/daily-rewards', body);
      expect(empty.body).toEqual({
        success: true,
        data: {
          daily_rewards: [],
          total_accepted_transfer_count: 0,
          total_estimated_reward: '0.00',
          client_reward: '0.00',
        },
      });
    }
  });

  it('answers malformed dates, reversed ranges and bad bodies with a clear error envelope', async () => {
    const rewards = new Api(world.sandbox.urls.rewards, () => Promise.resolve(undefined));
    const cases: Array<[unknown, RegExp]> = [
      [{ parties: [tokens.minter], start_date: '2026-13-01', end_date: '2026-12-31' }, /Invalid start_date/],
      [{ parties: [tokens.minter], start_date: '2026-02-30', end_date: '2026-03-01' }, /not a calendar date/],
      [{ parties: [tokens.minter], start_date: '2026-03-02', end_date: '2026-03-01' }, /after end_date/],
      // an empty list is a query for nobody (empty results, the audit checks it); a list it must be
      [
        { parties: tokens.minter, start_date: '2026-03-01', end_date: '2026-03-01' },
        /parties must be a list/,
      ],
      [{ start_date: '2026-03-01' }, /parties/],
    ];
    for (const [body, error] of cases) {
      const response = await rewards.post<{ success: boolean; error: string }>(
        '/api/v1/analytics/daily-rewards',
        body,
      );
      expect(response.status).toBe(400);
      expect(response.body.success).toBe(false);
      expect(response.body.error).toMatch(error);
    }
    const garbage = await rewards.call<{ success: boolean; error: string }>(
      'POST',
      '/api/v1/analytics/daily-rewards',
      { raw: '{"parties":' },
    );
    expect(garbage.status).toBe(400);
    expect(garbage.body.success).toBe(false);
  });

  it('a day without acceptances has total_reward null (live); `document` gives an older document’s names', async () => {
    const older = await startWorld({ nodes: 1, rewardsFields: 'document' });
    try {
      for (const w of [world, older]) {
        const t = w === world ? tokens : await tokenWorld(w);
        const sender = walletFor(w, t, w === world ? t.holders[35]! : t.minter);
        if (w === world) await fundFromMinter(sender, '1');
        const reg = new Registry(w.sandbox.urls.registry, t.admin);
        await transfer(
          sender,
          reg,
          t.holders[1]!,
          '0.01',
          (await sender.holdings(t.instrument)).map((h) => h.contractId),
        );
        const rewards = new Api(w.sandbox.urls.rewards, () => Promise.resolve(undefined));
        const response = await rewards.post('/api/v1/analytics/daily-rewards', {
          parties: [sender.party],
          start_date: today(),
          end_date: today(),
        });
        const day = {
          date: today(),
          transfer_creation_count: 1,
          accepted_transfer_count: 0,
          client_reward: '0.00',
        };
        expect(response.body).toEqual({
          success: true,
          data:
            w === world
              ? {
                  daily_rewards: [{ ...day, total_reward: null }],
                  total_accepted_transfer_count: 0,
                  total_estimated_reward: '0.00',
                  client_reward: '0.00',
                }
              : {
                  daily_rewards: [{ ...day, total_reward: '0.00' }],
                  total_accepted_transfer_count: 0,
                  total_reward: '0.00',
                  total_client_reward: '0.00',
                },
        });
      }
    } finally {
      await older.stop();
    }
  });
});
