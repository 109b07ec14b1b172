import { describe, expect, it } from 'vitest';
import { AmountTotal } from './amount-text.js';
import { amountProblem, amountValue, compareAmounts, positiveAmountProblem, sumAmounts } from './amount.js';

describe('amounts (Daml Numeric 38,10)', () => {
  it('takes plain decimals with up to 28 integer and 10 fraction digits; leading zeros do not count', () => {
    for (const ok of ['0.02', '10.0000000000', '9'.repeat(28), `000${'9'.repeat(28)}.5`])
      expect(amountProblem(ok)).toBeUndefined();
  });

  it.each([
    ['1'.repeat(29), /more than 28 integer digits/],
    ['1'.repeat(400), /more than 28 integer digits/],
    ['0.00000000001', /more than 10 fraction digits/],
    ['1e3', /not a decimal amount/],
    [' 1', /not a decimal amount/],
    ['1.', /not a decimal amount/],
    ['.5', /not a decimal amount/],
    ['0x10', /not a decimal amount/],
    ['١٢٣', /not a decimal amount/],
  ])('refuses %j', (text, message) => {
    expect(amountProblem(text)).toMatch(message);
  });

  it('a positive amount has no sign and is more than 0', () => {
    expect(positiveAmountProblem('-0')).toMatch(/has a sign/);
    expect(positiveAmountProblem('+1')).toMatch(/has a sign/);
    expect(positiveAmountProblem('0.000')).toBe('the amount must be more than 0');
    expect(positiveAmountProblem('0.5')).toBeUndefined();
  });

  it('compares amounts by their digits exactly as decimal.js compares their values', () => {
    const amounts = ['0', '0.0', '00.10', '0.1', '0.09', '1', '1.0000000001', '10', '9.9999999999', '0010.5'];
    amounts.push('9'.repeat(28), `${'9'.repeat(27)}8.9999999999`, '0.0000000001');
    for (const a of amounts)
      for (const b of amounts)
        expect(compareAmounts(a, b), `${a} ? ${b}`).toBe(amountValue(a).comparedTo(amountValue(b)));
    expect(() => compareAmounts('1e3', '1')).toThrow(TypeError);
  });

  it('totals amounts by their digits as decimal.js sums their values', () => {
    const lists = [
      [],
      ['0'],
      ['0.000'],
      ['1.50', '2'],
      ['0.1', '0.2', '0.7'],
      ['0.0000000001'],
      ['9'.repeat(28), '1'],
    ];
    lists.push(['00012.3400', '0.0000000009', '7', '0.5']);
    for (const list of lists) {
      const total = new AmountTotal();
      for (const amount of list) total.add(amount);
      expect(total.toString(), list.join(' + ')).toBe(sumAmounts(list));
    }
  });
});
