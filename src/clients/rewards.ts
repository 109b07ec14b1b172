/**
 * The daily-rewards query of the activity tracker (wrapped-api.md §7.6): `POST /api/v1/analytics/daily-rewards`,
 * unauthenticated, answering `{success, data}` or `{success: false, error}`. Both names of the totals are read (the
 * live service's `total_estimated_reward`/`client_reward`, an older document's `total_reward`/`total_client_reward`),
 * a day's reward may be null, and answers take 30–120 s: the timeout defaults to 180 s. Rewards are decimal strings.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ServiceError } from '../errors.js';
import { AmountDecimal, formatAmount } from './amount.js';
import type { HttpService } from './http.js';
import { describeProblems, registerWireSchemas, wireProblems } from './schema-check.js';

export const REWARDS_PATH = '/api/v1/analytics/daily-rewards';
/** The service often needs 30–120 s; give it more. */
export const DEFAULT_REWARDS_TIMEOUT_MS = 180_000;

// Figures and dates end up in a CSV and an SVG: anything but a decimal or a day is refused as a broken answer
const reward = {
  anyOf: [{ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' }, { type: 'number' }, { type: 'null' }],
} as const;
const countOrNull = { type: ['integer', 'null'] } as const;

const dailyRewardsResponseSchema = {
  type: 'object',
  required: ['success'],
  properties: {
    success: { type: 'boolean' },
    error: { type: ['string', 'null'] },
    data: {
      type: ['object', 'null'],
      properties: {
        daily_rewards: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            required: ['date'],
            properties: {
              date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
              transfer_creation_count: countOrNull,
              accepted_transfer_count: countOrNull,
              total_reward: reward,
              client_reward: reward,
            },
          },
        },
        total_accepted_transfer_count: countOrNull,
        total_estimated_reward: reward,
        total_reward: reward,
        client_reward: reward,
        total_client_reward: reward,
      },
    },
  },
} as const;
type DailyRewardsResponse = FromSchema<typeof dailyRewardsResponseSchema>;

export interface DailyRewardsQuery {
  parties: readonly string[];
  /** YYYY-MM-DD, inclusive */
  startDate: string;
  /** YYYY-MM-DD, inclusive */
  endDate: string;
}

export interface DayRewards {
  date: string;
  transferCreationCount: number | null;
  acceptedTransferCount: number | null;
  /** null when the service has none for the day */
  totalReward: string | null;
  clientReward: string | null;
}

export interface DailyRewards {
  days: DayRewards[];
  totalAcceptedTransferCount: number | null;
  totalReward: string | null;
  clientReward: string | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function decimalText(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? formatAmount(new AmountDecimal(value)) : value;
}

export class RewardsClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly http: HttpService,
    options: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REWARDS_TIMEOUT_MS;
  }

  get service(): string {
    return this.http.service;
  }

  async dailyRewards(
    query: DailyRewardsQuery,
    options: { signal?: AbortSignal } = {},
  ): Promise<DailyRewards> {
    const problems = [
      ...(query.parties.length === 0 ? ['no party'] : []),
      ...(DATE.test(query.startDate) ? [] : [`startDate '${query.startDate}' is not YYYY-MM-DD`]),
      ...(DATE.test(query.endDate) ? [] : [`endDate '${query.endDate}' is not YYYY-MM-DD`]),
      ...(query.startDate > query.endDate ? ['startDate is after endDate'] : []),
    ];
    if (problems.length > 0) {
      throw new ServiceError({
        service: this.service,
        method: 'POST',
        path: REWARDS_PATH,
        serviceMessage: `request not sent: ${problems.join('; ')}`,
        retryability: 'permanent',
      });
    }
    const { status, body } = await this.http.post<DailyRewardsResponse>(
      REWARDS_PATH,
      { parties: query.parties, start_date: query.startDate, end_date: query.endDate },
      {
        // a query: asking again is harmless
        idempotent: true,
        signal: options.signal,
        timeoutMs: this.timeoutMs,
        check: (answer) => {
          const found = wireProblems(dailyRewardsResponseSchema, answer);
          return found.length === 0 ? undefined : describeProblems(found);
        },
      },
    );
    if (!body.success || !body.data) {
      throw new ServiceError({
        service: this.service,
        method: 'POST',
        path: REWARDS_PATH,
        status,
        serviceMessage: body.error ?? 'the service answered success: false without a reason',
        retryability: 'permanent',
        hint: 'check the parties and the dates (the service keeps a limited history)',
        body,
      });
    }
    const data = body.data;
    return {
      days: (data.daily_rewards ?? []).map((day) => ({
        date: day.date,
        transferCreationCount: day.transfer_creation_count ?? null,
        acceptedTransferCount: day.accepted_transfer_count ?? null,
        totalReward: decimalText(day.total_reward),
        clientReward: decimalText(day.client_reward),
      })),
      totalAcceptedTransferCount: data.total_accepted_transfer_count ?? null,
      totalReward: decimalText(data.total_estimated_reward ?? data.total_reward),
      clientReward: decimalText(data.client_reward ?? data.total_client_reward),
    };
  }
}

registerWireSchemas(dailyRewardsResponseSchema);
