import { describe, expect, it, vi } from 'vitest';
import { AmbiguousOutcomeError, ServiceError, StepError, TimeoutError } from '../errors.js';
import type { RetryPolicy } from '../playbook/model.js';
import { ManualClock, systemClock } from './clock.js';
import { DEFAULT_RETRY, pressureDelay, retryDelay, shouldRetry, withRetry } from './retry.js';

const noJitter: RetryPolicy = { attempts: 5, delayMs: 1000, factor: 2, maxDelayMs: 30_000, jitter: false };

function transient(n = 0): ServiceError {
  return new ServiceError(
    { service: 'dpm', method: 'GET', path: '/workflows', status: 503, retryability: 'transient' },
    n,
  );
}

/** Runs `promise` to completion, firing every timer the retry loop sets on the manual clock. */
async function drive<T>(clock: ManualClock, promise: Promise<T>): Promise<T> {
  const settled = promise.then(
    () => undefined,
    () => undefined,
  );
  let finished = false;
  void settled.then(() => (finished = true));
  while (!finished && (await clock.runNext()));
  return promise;
}

describe('retryDelay', () => {
  it('grows exponentially from delayMs and stops at maxDelayMs', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(noJitter, n, () => 0.5));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('with jitter, stays within [d/2, d] and reaches both ends', () => {
    const policy = { ...noJitter, jitter: true };
    expect(retryDelay(policy, 3, () => 0)).toBe(2000);
    expect(retryDelay(policy, 3, () => 0.999_999)).toBe(4000);
    expect(retryDelay(policy, 3, () => 0.5)).toBe(3000);
    for (let i = 0; i < 200; i++) {
      const d = retryDelay(policy, 10, Math.random);
      expect(d).toBeGreaterThanOrEqual(15_000);
      expect(d).toBeLessThanOrEqual(30_000);
    }
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY).toEqual({
      attempts: 3,
      delayMs: 1000,
      factor: 2,
      maxDelayMs: 30_000,
      jitter: true,
    });
  });
});

describe('pressureDelay', () => {
  const jittered = { ...noJitter, jitter: true };

  it('without a word from the service: the policy backoff, jittered', () => {
    expect(pressureDelay(jittered, 2, undefined, () => 0)).toBe(1000);
    expect(pressureDelay(jittered, 2, undefined, () => 0.999_999)).toBe(2000);
  });

  it('never earlier than the service asked, nor than the backoff; jitter only adds, up to half again', () => {
    expect(pressureDelay(noJitter, 1, 3000, () => 0.9)).toBe(3000);
    expect(pressureDelay(jittered, 1, 3000, () => 0)).toBe(3000);
    expect(pressureDelay(jittered, 1, 3000, () => 0.999_999)).toBe(4500);
    // contention that lasts backs off further than the service's floor
    expect(pressureDelay(noJitter, 4, 3000, () => 0)).toBe(8000);
  });

  it('spreads clients told the same moment over the whole half again, never before the time asked', () => {
    const delays = Array.from({ length: 1000 }, () => pressureDelay(jittered, 1, 2000, Math.random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(2000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(3000);
    // the spread, not one moment: the lowest tenth and the highest tenth are both reached
    expect(Math.min(...delays)).toBeLessThan(2100);
    expect(Math.max(...delays)).toBeGreaterThan(2900);
  });
});

describe('shouldRetry', () => {
  it('retries transient ledgerbook errors while tries remain', () => {
    expect(shouldRetry(transient(), 1, noJitter)).toBe(true);
    expect(shouldRetry(new TimeoutError('slow'), 4, noJitter)).toBe(true);
    expect(shouldRetry(transient(), 5, noJitter)).toBe(false);
  });

  it('never retries permanent errors, ambiguous outcomes or foreign errors', () => {
    expect(shouldRetry(new StepError('assertion failed'), 1, noJitter)).toBe(false);
    expect(shouldRetry(new AmbiguousOutcomeError('unknown', 'timeout after POST'), 1, noJitter)).toBe(false);
    expect(shouldRetry(new Error('TypeError-ish bug'), 1, noJitter)).toBe(false);
  });
});

describe('withRetry', () => {
  it('retries transient failures with the policy delays and returns the first success', async () => {
    const clock = new ManualClock();
    const onRetry = vi.fn((_info: { attempt: number; delayMs: number; error: unknown }) => undefined);
    const fn = vi.fn(async (attempt: number) => {
      await Promise.resolve();
      if (attempt < 4) throw transient(attempt);
      return `ok on ${attempt}`;
    });
    const result = await drive(
      clock,
      withRetry(fn, { policy: noJitter, clock, signal: new AbortController().signal, onRetry }),
    );
    expect(result).toBe('ok on 4');
    expect(fn.mock.calls.map((c) => c[0])).toEqual([1, 2, 3, 4]);
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
    expect(onRetry.mock.calls.map((c) => [c[0].attempt, c[0].delayMs])).toEqual([
      [1, 1000],
      [2, 2000],
      [3, 4000],
    ]);
  });

  it('uses the given random source for jitter', async () => {
    const clock = new ManualClock();
    let calls = 0;
    const fn = async (): Promise<string> => {
      await Promise.resolve();
      if (++calls < 3) throw transient();
      return 'ok';
    };
    const policy = { ...noJitter, jitter: true };
    await drive(
      clock,
      withRetry(fn, { policy, clock, signal: new AbortController().signal, random: () => 0 }),
    );
    expect(clock.sleeps).toEqual([500, 1000]);
  });

  it('gives up after the last attempt with its error', async () => {
    const clock = new ManualClock();
    const fn = vi.fn(async (attempt: number) => {
      await Promise.resolve();
      throw transient(attempt);
    });
    const policy = { ...noJitter, attempts: 3 };
    const outcome = drive(clock, withRetry(fn, { policy, clock, signal: new AbortController().signal }));
    await expect(outcome).rejects.toMatchObject({ cause: 3 });
    expect(fn).toHaveBeenCalledTimes(3);
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it('does not retry a permanent error', async () => {
    const clock = new ManualClock();
    const error = new StepError('node4 is not in the target');
    const fn = vi.fn(() => Promise.reject(error));
    await expect(
      withRetry(fn, { policy: noJitter, clock, signal: new AbortController().signal }),
    ).rejects.toBe(error);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not retry an ambiguous outcome', async () => {
    const clock = new ManualClock();
    const error = new AmbiguousOutcomeError('workflow start timed out', 'no run in GET /workflows yet');
    const fn = vi.fn(() => Promise.reject(error));
    await expect(
      withRetry(fn, { policy: noJitter, clock, signal: new AbortController().signal }),
    ).rejects.toBe(error);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('rejects promptly with the abort reason when aborted during a delay', async () => {
    const controller = new AbortController();
    const fn = vi.fn(() => Promise.reject(transient()));
    const policy = { ...noJitter, delayMs: 60_000 };
    const start = performance.now();
    const outcome = withRetry(fn, { policy, clock: systemClock, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('Ctrl-C')), 20);
    await expect(outcome).rejects.toThrow('Ctrl-C');
    expect(performance.now() - start).toBeLessThan(2000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const fn = vi.fn(() => Promise.resolve(1));
    await expect(
      withRetry(fn, { policy: noJitter, clock: new ManualClock(), signal: controller.signal }),
    ).rejects.toThrow('gone');
    expect(fn).not.toHaveBeenCalled();
  });
});
