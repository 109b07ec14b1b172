/**
 * Token amounts: Daml `Decimal` (Numeric 10) values, always JSON strings, at most 10 fraction digits, never exponent
 * notation (wrapped-api.md §5.3). Arithmetic uses decimal.js with enough precision that sums are exact; nothing
 * here goes through a JS number.
 */
import { Decimal } from 'decimal.js';

export const MAX_FRACTION_DIGITS = 10;
/** a Daml Numeric 38,10 has 28 integer digits */
export const MAX_INTEGER_DIGITS = 28;

/** decimal.js with exact sums for any amount a ledger holds (the default precision is 20 significant digits). */
export const AmountDecimal = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -60,
  toExpPos: 60,
});
export type AmountDecimal = InstanceType<typeof AmountDecimal>;

const DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?$/;

/** What is wrong with `text` as an amount, or undefined when it is one (`"0.02"`, `"10.0000000000"`). */
export function amountProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'an amount must be a decimal string such as "0.02"';
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return `"${text}" is not a decimal amount (digits, an optional point and digits)`;
  if ((match[2]?.length ?? 0) > MAX_FRACTION_DIGITS)
    return `"${text}" has more than ${MAX_FRACTION_DIGITS} fraction digits`;
  if ((match[1] ?? '').replace(/^0+/, '').length > MAX_INTEGER_DIGITS)
    return `the amount has more than ${MAX_INTEGER_DIGITS} integer digits`;
  return undefined;
}

export function isZeroAmount(text: string): boolean {
  return /^0+(\.0+)?$/.test(text);
}

/** What is wrong with `text` as an amount more than zero (a transfer's, a deposit's), or undefined. */
export function positiveAmountProblem(text: unknown): string | undefined {
  if (typeof text === 'string' && /^\s*[-+]/.test(text))
    return `"${text}" has a sign: an amount is a plain positive decimal`;
  return amountProblem(text) ?? (isZeroAmount(text as string) ? 'the amount must be more than 0' : undefined);
}

/** The amount's value; throws a TypeError for text that is not an amount (check with amountProblem first). */
export function amountValue(text: string): AmountDecimal {
  const problem = amountProblem(text);
  if (problem !== undefined) throw new TypeError(problem);
  return new AmountDecimal(text);
}

/** An amount as the ledger takes it: plain notation, no exponent, scale kept as computed. */
export function formatAmount(value: AmountDecimal): string {
  return value.toFixed();
}

/** The exact sum of amounts, as an amount string ("0" for none). */
export function sumAmounts(amounts: Iterable<string>): string {
  let total = new AmountDecimal(0);
  for (const amount of amounts) total = total.plus(amountValue(amount));
  return formatAmount(total);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b` (`"0.10"` equals `"0.1"`). */
export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  return amountValue(a).comparedTo(amountValue(b)) as -1 | 0 | 1;
}
