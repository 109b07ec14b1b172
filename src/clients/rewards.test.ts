/**
 * RewardsClient against a loopback server answering like the activity tracker (wrapped-api.md §7.6).
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import { ALICE, BOB } from '../../test/clients/ledger-bodies.js';
import { ServiceError } from '../errors.js';
import { HttpService } from './http.js';
import { DEFAULT_REWARDS_TIMEOUT_MS, RewardsClient } from './rewards.js';

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

const rewards = (timeoutMs?: number) =>
  new RewardsClient(new HttpService({ service: 'rewards', baseUrl: fake.url, dispatcher: agent }), {
    ...(timeoutMs ? { timeoutMs } : {}),
  });
const query = { parties: [ALICE, BOB], startDate: '2026-03-21', endDate: '2026-03-22' };
const path = '/api/v1/analytics/daily-rewards';

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the call to fail');
}

describe('daily rewards', () => {
  it('sends parties and dates; reads the live field names and a null day', async () => {
    fake.on('POST', path, {
      body: {
        success: true,
        data: {
          daily_rewards: [
            {
              date: '2026-03-21',
              transfer_creation_count: 15,
              accepted_transfer_count: 13,
              total_reward: '47.03',
              client_reward: '18.81',
            },
            {
              date: '2026-03-22',
              transfer_creation_count: 1,
              accepted_transfer_count: 0,
              total_reward: null,
              client_reward: null,
            },
          ],
          total_accepted_transfer_count: 16,
          total_estimated_reward: '55.18',
          client_reward: '22.07',
        },
      },
    });
    const result = await rewards().dailyRewards(query);
    expect(fake.requests[0]?.body).toEqual({
      parties: [ALICE, BOB],
      start_date: '2026-03-21',
      end_date: '2026-03-22',
    });
    expect(result).toEqual({
      days: [
        {
          date: '2026-03-21',
          transferCreationCount: 15,
          acceptedTransferCount: 13,
          totalReward: '47.03',
          clientReward: '18.81',
        },
        {
          date: '2026-03-22',
          transferCreationCount: 1,
          acceptedTransferCount: 0,
          totalReward: null,
          clientReward: null,
        },
      ],
      totalAcceptedTransferCount: 16,
      totalReward: '55.18',
      clientReward: '22.07',
    });
  });

  it('reads the document’s field names (total_reward, total_client_reward) and numbers as decimal strings', async () => {
    fake.on('POST', path, {
      body: {
        success: true,
        data: {
          daily_rewards: [],
          total_accepted_transfer_count: 0,
          total_reward: 12.5,
          total_client_reward: '5',
        },
      },
    });
    expect(await rewards().dailyRewards(query)).toMatchObject({
      totalReward: '12.5',
      clientReward: '5',
      days: [],
    });
  });

  it.each([
    [
      'a reward that is a spreadsheet formula',
      { date: '2026-03-21', total_reward: '=HYPERLINK("http://x")' },
    ],
    ['a date that is markup', { date: '"><script>alert(1)</script>', total_reward: '1.5' }],
  ])('refuses %s: the figures go into a CSV and an SVG', async (_what, day) => {
    fake.on('POST', path, { body: { success: true, data: { daily_rewards: [day] } } });
    const error = await failure(rewards().dailyRewards(query));
    expect(error.retryability).toBe('permanent');
  });

  it('success:false is a clear, permanent error with the service’s message', async () => {
    fake.on('POST', path, { body: { success: false, error: 'start_date must be before end_date' } });
    const error = await failure(rewards().dailyRewards(query));
    expect(error).toMatchObject({
      retryability: 'permanent',
      serviceMessage: 'start_date must be before end_date',
    });
  });

  it('bad dates are refused before sending; the default timeout is long; a slow answer beyond it is transient', async () => {
    expect(await failure(rewards().dailyRewards({ ...query, startDate: '21/03/2026' }))).toMatchObject({
      retryability: 'permanent',
    });
    expect(fake.requests).toHaveLength(0);
    expect(DEFAULT_REWARDS_TIMEOUT_MS).toBeGreaterThanOrEqual(120_000);
    fake.on('POST', path, { delayMs: 2000, body: { success: true, data: {} } });
    expect(await failure(rewards(300).dailyRewards(query))).toMatchObject({ retryability: 'transient' });
  });
});
