import { describe, expect, it } from 'vitest';
import { amountProblem, positiveAmountProblem } from './amount.js';

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
});
