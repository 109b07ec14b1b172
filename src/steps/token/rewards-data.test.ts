import { describe, expect, it } from 'vitest';
import type { DailyRewards } from '../../clients/rewards.js';
import {
  countReceipts,
  datesBetween,
  differences,
  formatCsv,
  formatTable,
  reportDays,
} from './rewards-data.js';

const rewards: DailyRewards = {
  days: [
    {
      date: '2026-03-21',
      transferCreationCount: 15,
      acceptedTransferCount: 13,
      totalReward: '47.03',
      clientReward: '18.81',
    },
    {
      date: '2026-03-23',
      transferCreationCount: 2,
      acceptedTransferCount: 0,
      totalReward: null,
      clientReward: null,
    },
  ],
  totalAcceptedTransferCount: 13,
  totalReward: '47.03',
  clientReward: '18.81',
};

const receipt = (fields: Record<string, unknown>): string =>
  JSON.stringify({ receiver: 'bob::1220bb', amount: '0.1', ...fields });

describe('the report’s days', () => {
  it('cover every date of the range: a day the service did not report has no figures, not zeros', () => {
    expect(datesBetween('2026-02-27', '2026-03-02')).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    const days = reportDays(rewards, '2026-03-21', '2026-03-23', undefined);
    expect(days.map((d) => [d.date, d.transferCreationCount, d.totalReward, d.ours])).toEqual([
      ['2026-03-21', 15, '47.03', null],
      ['2026-03-22', null, null, null],
      ['2026-03-23', 2, null, null],
    ]);
  });

  it('print as a table with totals and as CSV with empty cells for missing figures', () => {
    const days = reportDays(rewards, '2026-03-21', '2026-03-23', new Map([['2026-03-21', 15]]));
    const table = formatTable(days, rewards, true).split('\n');
    expect(table[0]).toMatch(/^date\s+created\s+accepted\s+total reward\s+client reward\s+our receipts$/);
    expect(table[1]).toMatch(/^2026-03-21\s+15\s+13\s+47\.03\s+18\.81\s+15$/);
    expect(table[2]).toMatch(/^2026-03-22\s+–\s+–\s+–\s+–\s+0$/);
    expect(table.at(-1)).toMatch(/^total\s+17\s+13\s+47\.03\s+18\.81\s+15$/);
    expect(formatCsv(days, true)).toBe(
      [
        'date,transfer_creation_count,accepted_transfer_count,total_reward,client_reward,our_transfers',
        '2026-03-21,15,13,47.03,18.81,15',
        '2026-03-22,,,,,0',
        '2026-03-23,2,0,,,0',
        '',
      ].join('\n'),
    );
  });
});

describe('reconciliation with receipts', () => {
  it('counts the offers made per day: not a failed row, a direct transfer (no offer) or the totals line', () => {
    const counts = countReceipts([
      {
        file: 'r.jsonl',
        text: [
          receipt({ status: 'offered', offer_cid: '00a', update_id: 'u1', at: '2026-03-21T10:00:00Z' }),
          receipt({ status: 'returned', offer: '00b', update: 'u2', at: '2026-03-21T23:59:59Z' }),
          receipt({ status: 'failed', error: 'x', at: '2026-03-21T11:00:00Z' }),
          receipt({ status: 'offered', offer_cid: '00c', at: '2026-03-22T00:00:01Z' }),
          receipt({ status: 'settled', offer: null, update: 'u4', at: '2026-03-22T00:00:02Z' }),
          JSON.stringify({ type: 'totals', sent: 3 }),
          '',
        ].join('\n'),
      },
    ]);
    expect(counts.sent).toBe(3);
    expect([...counts.byDay]).toEqual([
      ['2026-03-21', 2],
      ['2026-03-22', 1],
    ]);
    expect(counts.undated).toBe(0);
  });

  it('says per day where the service and the receipts differ', () => {
    const counts = countReceipts([
      {
        file: 'r',
        text: [15, 14].map((_, i) => receipt({ offer_cid: `00${i}`, at: '2026-03-21T10:00:00Z' })).join('\n'),
      },
    ]);
    const days = reportDays(rewards, '2026-03-21', '2026-03-23', counts.byDay);
    expect(differences(days, counts)).toEqual([
      '2026-03-21: the service counts 15 transfers created, our receipts 2',
      '2026-03-23: the service counts 2 transfers created, our receipts 0',
    ]);
    expect(differences(days, undefined)).toEqual([]);
  });

  it('compares totals only when the receipts carry no times', () => {
    const counts = countReceipts([{ file: 'r', text: receipt({ offer_cid: '00a' }) }]);
    const days = reportDays(rewards, '2026-03-21', '2026-03-23', counts.byDay);
    expect(differences(days, counts)).toEqual([
      'the service counts 17 transfers created in the period, our receipts 1 (receipts carry no dates)',
    ]);
  });

  it('names the file and line of a receipt that is not JSON', () => {
    expect(() =>
      countReceipts([{ file: 'r.jsonl', text: `${receipt({ offer_cid: '00a' })}\n{oops` }]),
    ).toThrow('r.jsonl:2: not a JSON receipt');
  });
});
