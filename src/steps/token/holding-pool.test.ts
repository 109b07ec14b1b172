import { describe, expect, it } from 'vitest';
import { AmountDecimal } from '../../clients/amount.js';
import { HoldingPool, splitRound, type PoolHolding } from './holding-pool.js';

const h = (cid: string, amount: string): PoolHolding => ({ cid, amount: new AmountDecimal(amount) });
const signal = new AbortController().signal;
const noRefresh = (): Promise<void> => Promise.reject(new Error('no refresh expected'));
const cids = (list: readonly PoolHolding[]): string[] => list.map((x) => x.cid);

describe('HoldingPool (the lanes of a distribution)', () => {
  it('takes the largest free holding that covers the amount, and the change comes back for the next transfer', async () => {
    const pool = new HoldingPool();
    pool.reset([h('a', '1'), h('b', '5'), h('c', '3')]);
    const taken = await pool.take(new AmountDecimal('2'), signal, noRefresh);
    expect(cids(taken)).toEqual(['b']);
    expect(cids(pool.freeHoldings)).toEqual(['c', 'a']);
    pool.settle(taken, [h('b2', '3')]);
    expect(cids(pool.freeHoldings)).toEqual(['c', 'b2', 'a']);
    expect(pool.total.toFixed()).toBe('7');
  });

  it('near the end, the fewest largest holdings that cover the amount together', async () => {
    const pool = new HoldingPool();
    pool.reset([h('a', '1'), h('b', '2'), h('c', '3')]);
    expect(cids(await pool.take(new AmountDecimal('4.5'), signal, noRefresh))).toEqual(['c', 'b']);
  });

  it('waits while holdings in flight may come back, and fails when the pool can never cover the amount', async () => {
    const pool = new HoldingPool();
    pool.reset([h('a', '1')]);
    const first = await pool.take(new AmountDecimal('1'), signal, noRefresh);
    let second: PoolHolding[] | undefined;
    const waiting = pool.take(new AmountDecimal('0.5'), signal, noRefresh).then((t) => (second = t));
    await new Promise((r) => setImmediate(r));
    expect(second).toBeUndefined();
    pool.settle(first, [h('change', '0.75')]);
    await waiting;
    expect(cids(second ?? [])).toEqual(['change']);
    pool.restore(second ?? []);
    await expect(pool.take(new AmountDecimal('2'), signal, noRefresh)).rejects.toThrow(
      /holdings \(0\.75\) do not cover the 2 this transfer needs/,
    );
  });

  it('a refused transfer gives its inputs back; one whose outcome is unknown leaves them out until the holdings are read again', async () => {
    const pool = new HoldingPool();
    pool.reset([h('a', '1'), h('b', '1')]);
    const refused = await pool.take(new AmountDecimal('1'), signal, noRefresh);
    pool.restore(refused);
    expect(pool.freeHoldings).toHaveLength(2);
    const lost = await pool.take(new AmountDecimal('1'), signal, noRefresh);
    pool.drop(lost);
    expect(pool.stale).toBe(true);
    let refreshed = 0;
    const taken = await pool.take(new AmountDecimal('1.5'), signal, () => {
      refreshed++;
      pool.reset([h('x', '2')]);
      return Promise.resolve();
    });
    expect(refreshed).toBe(1);
    expect(cids(taken)).toEqual(['x']);
  });

  it('a change already found by a read of the holdings is not added twice', async () => {
    const pool = new HoldingPool();
    pool.reset([h('a', '2')]);
    const taken = await pool.take(new AmountDecimal('1'), signal, noRefresh);
    pool.reset([h('change', '1')]);
    pool.settle(taken, [h('change', '1')]);
    expect(cids(pool.freeHoldings)).toEqual(['change']);
  });
});

describe('splitRound', () => {
  it('halves the largest holdings, as many as lanes are missing, leaving ones too small to halve', () => {
    const free = [h('a', '10'), h('b', '1'), h('c', '0.0000000001')];
    expect(splitRound(free, 5).map((s) => [s.holding.cid, s.amount])).toEqual([
      ['a', '5'],
      ['b', '0.5'],
    ]);
    expect(splitRound(free, 4).map((s) => s.holding.cid)).toEqual(['a']);
    expect(splitRound(free, 3)).toEqual([]);
    expect(splitRound([h('a', '0.0000000003')], 2)[0]?.amount).toBe('0.0000000001');
  });
});
