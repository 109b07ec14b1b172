/**
 * The retry policy of a step's items: exponential backoff with an upper bound and optional jitter. Only errors
 * that say they are transient are retried; a permanent error fails at once, and an ambiguous outcome must never
 * be retried blindly (the run stops so a person can decide).
 */
import { LedgerbookError } from '../errors.js';
import type { RetryPolicy } from '../playbook/model.js';
import type { Clock } from '../steps/contract.js';

/** The policy of a step without a `retry:` block (documented in the playbook schema). */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  attempts: 3,
  delayMs: 1000,
  factor: 2,
  maxDelayMs: 30_000,
  jitter: true,
});

/**
 * The delay before the next try after try number `failedAttempt` (1-based) failed: `delayMs · factor^(n-1)`,
 * capped at `maxDelayMs`; with jitter, uniformly in [d/2, d]. Whole milliseconds.
 */
export function retryDelay(policy: RetryPolicy, failedAttempt: number, random: () => number): number {
  const exponential = policy.delayMs * Math.pow(policy.factor, Math.max(0, failedAttempt - 1));
  const capped = Math.min(exponential, policy.maxDelayMs);
  if (!policy.jitter) return Math.round(capped);
  const half = capped / 2;
  return Math.round(half + random() * half);
}

/**
 * The delay before an attempt a service pushed back on (overload, contention: an error with `backpressure`) goes
 * again, after `pressureRetry` such retries of the item. The service's own word is a floor: never before the
 * `retryAfterMs` it asked for, nor before the policy's backoff (so that contention that lasts backs off further);
 * with jitter, up to half of that again, so that clients told the same moment — several operators' processes
 * whose writes collided — do not all come back together and collide again. Without a word from the service, the
 * policy's backoff (with its jitter).
 */
export function pressureDelay(
  policy: RetryPolicy,
  pressureRetry: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  if (retryAfterMs === undefined || retryAfterMs <= 0) return retryDelay(policy, pressureRetry, random);
  const floor = Math.max(retryAfterMs, retryDelay({ ...policy, jitter: false }, pressureRetry, random));
  return Math.round(policy.jitter ? floor + (random() * floor) / 2 : floor);
}

export function shouldRetry(error: unknown, failedAttempt: number, policy: RetryPolicy): boolean {
  return (
    error instanceof LedgerbookError && error.retryability === 'transient' && failedAttempt < policy.attempts
  );
}

export interface RetryOptions {
  policy: RetryPolicy;
  clock: Clock;
  /** aborting it stops further tries: a pending delay rejects with the signal's reason */
  signal: AbortSignal;
  /** in [0, 1); Math.random by default */
  random?: () => number;
  /** called before each delay, with the try that failed */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** Calls `fn(1)`, `fn(2)`, … until it resolves, its error is not retryable, or the tries are used up. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const random = opts.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    opts.signal.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      if (opts.signal.aborted || !shouldRetry(error, attempt, opts.policy)) throw error;
      const delayMs = retryDelay(opts.policy, attempt, random);
      opts.onRetry?.({ attempt, delayMs, error });
      await opts.clock.sleep(delayMs, opts.signal);
    }
  }
}
