/**
 * Token amounts: Daml `Decimal` (Numeric 10) values, always JSON strings, at most 10 fraction digits, never exponent
 * notation (wrapped-api.md §5.3). Arithmetic uses decimal.js with enough precision that sums are exact; nothing
 * here goes through a JS number.
 */
import { Decimal } from 'decimal.js';
import { amountProblem } from './amount-text.js';

export {
  amountProblem,
  compareAmounts,
  isZeroAmount,
  MAX_FRACTION_DIGITS,
  MAX_INTEGER_DIGITS,
  positiveAmountProblem,
} from './amount-text.js';

/** decimal.js with exact sums for any amount a ledger holds (the default precision is 20 significant digits). */
export const AmountDecimal = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -60,
  toExpPos: 60,
});
export type AmountDecimal = InstanceType<typeof AmountDecimal>;

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
