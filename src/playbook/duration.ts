/** Durations in playbooks: `500ms`, `30s`, `5m`, `1h`, `1h30m`, or a number of seconds. */
import { LedgerbookError } from '../errors.js';

/** The longest duration a Node.js timer can wait (about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647;

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
const UNIT_ORDER: readonly Unit[] = ['h', 'm', 's', 'ms'];
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;

const DURATION_HINT =
  'write a number with a unit, largest unit first: 500ms, 30s, 5m, 1h30m; or a number of seconds';

/** A duration that cannot be used. Raised at run time only for values computed by an expression. */
export class InvalidDurationError extends LedgerbookError {
  constructor(message: string) {
    super('LB_STEP_FAILED', message, { hint: DURATION_HINT });
  }
}

/** Milliseconds of a duration; throws InvalidDurationError with what is wrong. */
export function parseDuration(text: string | number): number {
  if (typeof text === 'number') return checked(text * 1000, String(text));
  const source = text.trim();
  if (/^\d+(\.\d+)?$/.test(source)) return checked(Number(source) * 1000, text);
  if (source === '') throw new InvalidDurationError('empty duration');
  let total = 0;
  let lastUnit = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < source.length) {
    const match = PART.exec(source);
    if (!match) throw new InvalidDurationError(`'${text}' is not a duration`);
    const unit = match[2] as Unit;
    const rank = UNIT_ORDER.indexOf(unit);
    if (rank <= lastUnit) {
      throw new InvalidDurationError(
        `'${text}' is not a duration: units must go from largest to smallest, each once`,
      );
    }
    lastUnit = rank;
    total += Number(match[1]) * UNIT_MS[unit];
  }
  return checked(total, text);
}

function checked(ms: number, text: string): number {
  if (!Number.isFinite(ms) || ms < 0) throw new InvalidDurationError(`'${text}' is not a duration`);
  if (ms > MAX_DURATION_MS) {
    throw new InvalidDurationError(`'${text}' is longer than the longest supported duration (24 days)`);
  }
  return Math.round(ms);
}
