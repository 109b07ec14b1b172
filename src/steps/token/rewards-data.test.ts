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

/** A receipt as token.distribute writes it (docs/architecture.md "Distributing tokens"). */
const receipt = (receiver: string, fields: Record<string, unknown> = {}): string =>
  JSON.stringify({
    receiver,
    amount: '0.1',
    reference: null,
    line: 2,
    status: 'offered',
    offer: `00${receiver}`,
    update: `u${receiver}`,
    command: `lb-pay-transfer-${receiver}`,
    distribution: 'airdrop/pay/4f46',
    ...fields,
  });

describe('the report’s days', () => {
  it('cover every date of the range: a day the service did not report has no figures, not zeros', () => {
    expect(datesBetween('2026-02-27', '2026-03-02')).toEqual([
      '2026-02-27',
      '2026-02-28',
      '2026-03-01',
      '2026-03-02',
    ]);
    const days = reportDays(rewards, '2026-03-21', '2026-03-23');
    expect(days.map((d) => [d.date, d.transferCreationCount, d.totalReward])).toEqual([
      ['2026-03-21', 15, '47.03'],
      ['2026-03-22', null, null],
      ['2026-03-23', 2, null],
    ]);
  });

  it('print as a table with totals and as CSV with empty cells for missing figures', () => {
    const days = reportDays(rewards, '2026-03-21', '2026-03-23');
    const table = formatTable(days, rewards).split('\n');
    expect(table[0]).toMatch(/^date\s+created\s+accepted\s+total reward\s+client reward$/);
    expect(table[1]).toMatch(/^2026-03-21\s+15\s+13\s+47\.03\s+18\.81$/);
    expect(table[2]).toMatch(/^2026-03-22\s+–\s+–\s+–\s+–$/);
    expect(table.at(-1)).toMatch(/^total\s+17\s+13\s+47\.03\s+18\.81$/);
    expect(formatCsv(days)).toBe(
      [
        'date,transfer_creation_count,accepted_transfer_count,total_reward,client_reward',
        '2026-03-21,15,13,47.03,18.81',
        '2026-03-22,,,,',
        '2026-03-23,2,0,,',
        '',
      ].join('\n'),
    );
  });
});

describe('the rewards CSV', () => {
  it('keeps a cell a spreadsheet would run as a formula as text; numbers, negative ones too, stay numbers', () => {
    const day = (totalReward: string) => ({
      date: '2026-03-21',
      transferCreationCount: 1,
      acceptedTransferCount: 1,
      totalReward,
      clientReward: '-0.5',
    });
    expect(
      formatCsv([day('=1+1'), day('@SUM(A1)'), day('+1')])
        .split('\n')
        .slice(1, 4),
    ).toEqual(["2026-03-21,1,1,'=1+1,-0.5", "2026-03-21,1,1,'@SUM(A1),-0.5", "2026-03-21,1,1,'+1,-0.5"]);
  });
});

describe('reconciliation with token.distribute’s receipts', () => {
  it('counts each recipient of a distribution once across files, by status; a transfer settled at once made no offer', () => {
    const first = [
      receipt('a'),
      receipt('b', { status: 'returned' }),
      receipt('g', { status: 'rejected' }),
      receipt('h', { status: 'expired' }),
      receipt('c', { status: 'settled' }),
      receipt('d', { status: 'settled', offer: null, update: null }),
      '',
    ].join('\n');
    // a later run of the same distribution: the same recipients, one of them accepted since
    const second = [
      receipt('a', { status: 'settled', sender: 'minter::1220aa' }),
      receipt('e', { distribution: 'other/pay/1', sender: 'alice::1220bb' }),
      receipt('f', { distribution: 'other/pay/1', sender: 'alice::1220bb' }),
    ].join('\n');
    const counts = countReceipts([
      { file: 'r1.jsonl', text: first },
      { file: 'r2.jsonl', text: second },
    ]);
    expect(counts).toEqual({
      offers: 7,
      byStatus: { offered: 3, expired: 1, settled: 1, rejected: 1, withdrawn: 0, returned: 1 },
      direct: 1,
      repeated: 1,
      files: 2,
      // the senders the receipts name, each once; the first file's receipts name none (written before senders were)
      senders: ['minter::1220aa', 'alice::1220bb'],
    });
  });

  it('says where the service and the receipts differ: transfers created in the period, acceptances', () => {
    const days = reportDays(rewards, '2026-03-21', '2026-03-23');
    const seventeen = Array.from({ length: 17 }, (_, i) =>
      receipt(`r${i}`, { status: i < 13 ? 'settled' : 'offered' }),
    );
    const agree = countReceipts([{ file: 'r', text: seventeen.join('\n') }]);
    expect(differences(days, agree, 13)).toEqual([]);
    expect(differences(days, undefined, 13)).toEqual([]);
    const short = countReceipts([{ file: 'r', text: seventeen.slice(0, 16).join('\n') }]);
    expect(differences(days, short, 13)).toEqual([
      'the service counts 17 transfers created in the period, the receipts 16 offers',
    ]);
    // the service cannot have counted fewer acceptances than the receipts saw
    expect(differences(days, agree, 12)).toEqual([
      'the service counts 12 accepted transfers, the receipts 13 offers settled',
    ]);
  });

  it('names the file and line of a line that is not a receipt', () => {
    expect(() => countReceipts([{ file: 'r.jsonl', text: `${receipt('a')}\n{oops` }])).toThrow(
      'r.jsonl:2: not a JSON receipt',
    );
    expect(() =>
      countReceipts([{ file: 'r.jsonl', text: JSON.stringify({ type: 'totals', sent: 3 }) }]),
    ).toThrow('r.jsonl:1: not a receipt of token.distribute');
  });
});
