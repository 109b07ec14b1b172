/**
 * Time, injectable: the engine and the steps read the time and sleep only through a Clock, so tests can drive
 * time by hand (ManualClock) and the sandbox can run faster than the wall clock.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Clock } from '../steps/contract.js';

/** The signal's own reason, passed through as is (typed Error: an AbortSignal's default reason is one). */
function abortReason(signal: AbortSignal): Error {
  return (signal.reason ?? new DOMException('This operation was aborted', 'AbortError')) as Error;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

interface ManualTimer {
  due: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told. `sleep` registers a timer; `advance(ms)` moves time forward and fires the
 * timers that fall due, in order, letting pending promise callbacks run between them (so a sleep started by a
 * fired timer's continuation fires too when it falls within the same advance).
 */
export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Set<ManualTimer>();
  /** every duration passed to `sleep`, in call order */
  readonly sleeps: number[] = [];

  constructor(startMs = Date.parse('2025-01-01T00:00:00.000Z')) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  /** timers registered and not yet fired or aborted */
  get pendingTimers(): number {
    return this.timers.size;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const timer: ManualTimer = {
        due: this.time + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers.delete(timer);
        reject(abortReason(signal as AbortSignal));
      };
      this.timers.add(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      const next = this.earliest();
      if (!next || next.due > target) break;
      this.timers.delete(next);
      this.time = next.due;
      next.resolve();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Lets pending promise callbacks run, then advances to the earliest timer; resolves false when there is none. */
  async runNext(): Promise<boolean> {
    await settle();
    const next = this.earliest();
    if (!next) return false;
    await this.advance(next.due - this.time);
    return true;
  }

  private earliest(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.timers) {
      if (!best || timer.due < best.due || (timer.due === best.due && timer.seq < best.seq)) best = timer;
    }
    return best;
  }
}

/** Waits for a macrotask turn, by which time every promise callback queued so far has run. */
async function settle(): Promise<void> {
  await nextMacrotask();
}
