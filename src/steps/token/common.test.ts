import { describe, expect, it } from 'vitest';
import type { Holding } from '../../clients/party-ledger.js';
import { limitProblem, selectTokens } from './common.js';
import { checkAmount } from './common.declaration.js';

const holding = (contractId: string, amount: string): Holding => ({ contractId, amount }) as Holding;

describe('selectTokens', () => {
  it('takes the largest holdings first until they cover the amount', () => {
    const held = [holding('a', '0.1'), holding('b', '2'), holding('c', '0.5'), holding('d', '1')];
    expect(selectTokens(held, '2.4').map((h) => h.contractId)).toEqual(['b', 'd']);
    expect(selectTokens(held, '2').map((h) => h.contractId)).toEqual(['b']);
    expect(selectTokens(held, '3.6').map((h) => h.contractId)).toEqual(['b', 'd', 'c', 'a']);
  });

  it('gives nothing when they cannot cover it', () => {
    expect(selectTokens([holding('a', '0.1')], '0.1000000001')).toEqual([]);
  });
});

describe('limitProblem', () => {
  const limits = { minAmount: '0.0001000000', maxAmount: '5.0000000000' };

  it('is inclusive at both ends, exact in decimals', () => {
    expect(limitProblem('deposit', '0.0001', limits)).toBeUndefined();
    expect(limitProblem('deposit', '5', limits)).toBeUndefined();
    expect(limitProblem('deposit', '0.00009999', limits)).toBe(
      "a deposit of 0.00009999 is below the account's minimum 0.0001000000",
    );
    expect(limitProblem('withdrawal', '5.0000000001', limits)).toBe(
      "a withdrawal of 5.0000000001 exceeds the account's maximum 5.0000000000",
    );
    expect(limitProblem('deposit', '1000', null)).toBeUndefined();
    expect(limitProblem('deposit', '1000', { minAmount: null, maxAmount: null })).toBeUndefined();
  });
});

describe('checkAmount', () => {
  it('refuses zero, 11 decimals and text, and leaves expressions for later', () => {
    expect(checkAmount('0.000', '/amount')[0]?.message).toBe('the amount must be more than 0');
    expect(checkAmount('0.00000000001', '/amount')[0]?.message).toContain('more than 10 fraction digits');
    expect(checkAmount('1e-3', '/amount')[0]?.message).toContain('is not a decimal amount');
    expect(checkAmount('${{ inputs.amount }}', '/amount')).toEqual([]);
    expect(checkAmount('0.05', '/amount')).toEqual([]);
  });
});
