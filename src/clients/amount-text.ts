/**
 * Token amounts as text: what is wrong with one, and how two compare, read from their digits alone (an amount
 * is a plain decimal string: ./amount.ts). What the step kinds' static checks need, without decimal.js, which
 * ./amount.ts uses for arithmetic.
 */

export const MAX_FRACTION_DIGITS = 10;
/** a Daml Numeric 38,10 has 28 integer digits */
export const MAX_INTEGER_DIGITS = 28;

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

/**
 * -1, 0 or 1 as `a` is less than, equal to or greater than `b` (`"0.10"` equals `"0.1"`), exactly, by their
 * digits: the integer parts without leading zeros by length and then digit by digit, then the fraction parts
 * padded with zeros. Throws a TypeError for text that is not an amount (check with amountProblem first).
 */
export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  const [intA, fracA] = digitsOf(a);
  const [intB, fracB] = digitsOf(b);
  if (intA.length !== intB.length) return intA.length < intB.length ? -1 : 1;
  const width = Math.max(fracA.length, fracB.length);
  const left = intA + fracA.padEnd(width, '0');
  const right = intB + fracB.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

/** the integer digits without leading zeros and the fraction digits of an amount */
function digitsOf(text: string): [string, string] {
  const problem = amountProblem(text);
  if (problem !== undefined) throw new TypeError(problem);
  const [, integer = '', fraction = ''] = DECIMAL_TEXT.exec(text) ?? [];
  return [integer.replace(/^0+/, ''), fraction];
}

/**
 * An exact running total of amounts, by their digits (a count of 10⁻¹⁰ units), written as `formatAmount` of
 * ./amount.ts writes the same sum: no exponent, no trailing zeros (`"3"`, `"0.5"`).
 */
export class AmountTotal {
  private units = 0n;

  /** adds an amount; a TypeError for text that is not one (check with amountProblem first) */
  add(text: string): void {
    const [integer, fraction] = digitsOf(text);
    this.units += BigInt(`${integer}${fraction.padEnd(MAX_FRACTION_DIGITS, '0')}`);
  }

  toString(): string {
    const digits = this.units.toString().padStart(MAX_FRACTION_DIGITS + 1, '0');
    const fraction = digits.slice(-MAX_FRACTION_DIGITS).replace(/0+$/, '');
    const integer = digits.slice(0, -MAX_FRACTION_DIGITS);
    return fraction === '' ? integer : `${integer}.${fraction}`;
  }
}
