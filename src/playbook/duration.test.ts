import { describe, expect, it } from 'vitest';
import { InvalidDurationError, MAX_DURATION_MS, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1m0.5s', 60_500],
    ['2.5s', 2_500],
    ['1h2m3s4ms', 3_723_004],
    [' 10s ', 10_000],
    ['45', 45_000],
    [0, 0],
    [1.5, 1_500],
  ] as const)('%j is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'empty duration'],
    ['5 minutes', "'5 minutes' is not a duration"],
    ['10x', "'10x' is not a duration"],
    ['1s30m', 'units must go from largest to smallest, each once'],
    ['1m1m', 'units must go from largest to smallest, each once'],
    [-1, "'-1' is not a duration"],
    ['700h', 'longer than the longest supported duration'],
  ] as const)('refuses %j', (text, message) => {
    expect(() => parseDuration(text)).toThrow(InvalidDurationError);
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('accepts the longest timer Node.js supports', () => {
    expect(parseDuration(`${MAX_DURATION_MS}ms`)).toBe(MAX_DURATION_MS);
  });
});
