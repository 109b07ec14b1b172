/**
 * The Activity Tracker's daily rewards (`POST /api/v1/analytics/daily-rewards`, wrapped-api.md §7.6), computed
 * from the sandbox ledger: per UTC day, the transfer offers the requested senders created and how many of those
 * the receivers accepted. Each accepted transfer earns REWARD_PER_ACCEPTED_TRANSFER (the live sample's 47.03 for
 * 13 acceptances); the client's share is 40% (total × 0.8 × 0.5), the formula that reproduces the live figures
 * (47.03 → 18.81, 55.18 → 22.07) — the stated alternative that first deducts the node operators' 3 × 3.33%
 * gives 36% and does not match them. Field names are those the reference gives for the live service by default
 * (`total_estimated_reward`, `client_reward`, and `total_reward: null` on days without acceptances) and, with the
 * `document` naming, an older document's (`total_reward`, `total_client_reward`).
 */
import { Decimal } from 'decimal.js';
import { json } from '../http/reply.js';
import { isTx } from '../ledger/encode.js';
import type { OffsetEntry } from '../ledger/entries.js';
import type { Ledger } from '../ledger/ledger.js';
import { packageIdForm } from '../ledger/model.js';
import type { FaultBook } from '../faults.js';
import { type ServiceRoute, ServiceFailure, jsonBody } from '../service/route.js';
import { TransferOffer, type TransferOfferArg } from './transfer.js';

export const REWARD_PER_ACCEPTED_TRANSFER = '3.6177';
const CLIENT_SHARE = new Decimal('0.8').times('0.5');
const MAX_PARTIES = 100;
const MAX_DAYS = 366;

export type RewardsFields = 'document' | 'live';

interface DayCounts {
  created: number;
  accepted: number;
}

/** per sender, per day (YYYY-MM-DD): offers created and accepted; built from the history on first use */
class RewardsIndex {
  private readonly counts = new Map<string, Map<string, DayCounts>>();
  private readonly offers = new Map<string, { sender: string }>();
  private built = false;
  private readonly offerTemplate = packageIdForm(TransferOffer.pkg, TransferOffer.name);

  constructor(
    private readonly ledger: Ledger,
    private readonly history: RewardsHistory | undefined,
  ) {}

  private bump(sender: string, day: string, field: keyof DayCounts): void {
    let days = this.counts.get(sender);
    if (days === undefined) this.counts.set(sender, (days = new Map<string, DayCounts>()));
    const c = days.get(day) ?? { created: 0, accepted: 0 };
    c[field]++;
    days.set(day, c);
  }

  private add(entry: OffsetEntry): void {
    if (!isTx(entry)) return;
    const day = new Date(entry.rt / 1000).toISOString().slice(0, 10);
    for (const node of entry.nodes) {
      if (node.k === 'c' && node.tpl === this.offerTemplate) {
        const sender = (node.arg as TransferOfferArg).transfer.sender;
        this.offers.set(node.cid, { sender });
        this.bump(sender, day, 'created');
      } else if (
        node.k === 'e' &&
        node.ch === 'TransferInstruction_Accept' &&
        node.tpl === this.offerTemplate
      ) {
        const offer = this.offers.get(node.cid);
        if (offer !== undefined) this.bump(offer.sender, day, 'accepted');
      }
    }
  }

  ensure(): void {
    if (this.built) return;
    this.built = true;
    // a fork's history before its first offset, as the network's service counted it (fork/seed.ts)
    for (const [sender, days] of Object.entries(this.history ?? {}))
      this.counts.set(sender, new Map(Object.entries(days).map(([day, c]) => [day, { ...c }])));
    for (const entry of this.ledger.entriesAfter(this.ledger.pruned)) this.add(entry);
    this.ledger.watch((entry) => this.add(entry));
  }

  days(parties: string[], start: string, end: string): Map<string, DayCounts> {
    const out = new Map<string, DayCounts>();
    for (const party of parties) {
      for (const [day, c] of this.counts.get(party) ?? []) {
        if (day < start || day > end) continue;
        const sum = out.get(day) ?? { created: 0, accepted: 0 };
        sum.created += c.created;
        sum.accepted += c.accepted;
        out.set(day, sum);
      }
    }
    return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fail(error: string, status = 400): ServiceFailure {
  return new ServiceFailure(status, { success: false, error });
}

function checkDate(name: string, value: unknown): string {
  if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw fail(`Invalid ${name}: expected a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  if (new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value)
    throw fail(`Invalid ${name}: ${value} is not a calendar date`);
  return value;
}

/** the state dir's file of a fork's rewards history (fork/seed.ts writes it) */
export const REWARDS_HISTORY_FILE = 'rewards-history.json';

/** per sender, per day (YYYY-MM-DD): what a forked network's rewards service counted before the fork */
export type RewardsHistory = Record<string, Record<string, DayCounts>>;

export interface RewardsEnv {
  ledger: Ledger;
  history?: RewardsHistory | undefined;
  faults: FaultBook;
  fields(): RewardsFields;
  catchUp(): Promise<void>;
}

export function rewardsRoutes(env: RewardsEnv): ServiceRoute[] {
  const index = new RewardsIndex(env.ledger, env.history);
  return [
    {
      method: 'POST',
      template: '/api/v1/analytics/daily-rewards',
      handle: async ({ body }) => {
        const slow = env.faults.take('slow-rewards');
        if (slow !== undefined) {
          const ms = slow.ms ?? 30_000 + Math.floor(Math.random() * 90_000);
          await new Promise((r) => setTimeout(r, ms));
        }
        const refusal = env.faults.takeRefusal('rewards');
        if (refusal !== undefined) throw fail(refusal, 500);
        const request = jsonBody(body, (why) => fail(why)) as {
          parties?: unknown;
          start_date?: unknown;
          end_date?: unknown;
        };
        if (typeof request !== 'object' || request === null || Array.isArray(request)) {
          throw fail(
            'the body must be {"parties": [...], "start_date": "YYYY-MM-DD", "end_date": "YYYY-MM-DD"}',
          );
        }
        // an empty list is a query for nobody: empty results, not an error (the service's contract)
        const parties = request.parties;
        if (!Array.isArray(parties) || !parties.every((p) => typeof p === 'string' && p !== '')) {
          throw fail('parties must be a list of party ids');
        }
        if (parties.length > MAX_PARTIES)
          throw fail(`at most ${MAX_PARTIES} parties per request, got ${parties.length}`);
        const start = checkDate('start_date', request.start_date);
        const end = checkDate('end_date', request.end_date);
        if (start > end) throw fail(`start_date ${start} is after end_date ${end}`);
        if ((Date.parse(end) - Date.parse(start)) / 86_400_000 >= MAX_DAYS)
          throw fail(`the range may cover at most ${MAX_DAYS} days`);
        await env.catchUp();
        index.ensure();
        const live = env.fields() === 'live';
        const perTx = new Decimal(REWARD_PER_ACCEPTED_TRANSFER);
        let totalAccepted = 0;
        let total = new Decimal(0);
        const daily = [...index.days(parties as string[], start, end)].map(([date, c]) => {
          totalAccepted += c.accepted;
          const reward = perTx.times(c.accepted);
          total = total.plus(reward);
          return {
            date,
            transfer_creation_count: c.created,
            accepted_transfer_count: c.accepted,
            total_reward: live && c.accepted === 0 ? null : reward.toFixed(2),
            client_reward: reward.times(CLIENT_SHARE).toFixed(2),
          };
        });
        const client = total.times(CLIENT_SHARE).toFixed(2);
        return json(200, {
          success: true,
          data: {
            daily_rewards: daily,
            total_accepted_transfer_count: totalAccepted,
            ...(live
              ? { total_estimated_reward: total.toFixed(2), client_reward: client }
              : { total_reward: total.toFixed(2), total_client_reward: client }),
          },
        });
      },
    },
    {
      method: 'GET',
      template: '/health',
      handle: () => json(200, { status: 'ok' }),
    },
  ];
}
