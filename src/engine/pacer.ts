/**
 * Adaptive pacing of a step's items (additive increase, multiplicative decrease, as TCP paces a connection): at
 * most `window` attempts are in flight, `window` ≤ the step's concurrency. When a service says it is overloaded or
 * contended (an error with `backpressure`), the window halves and, when the service says how long to wait, no new
 * attempt starts before then; every `window` successes in a row grow it by one again. So a fan-out settles at the
 * pace the network accepts instead of hammering it, and speeds up again when the pressure clears.
 */
import type { Clock } from '../steps/contract.js';

export interface PacerStats {
  /** the window now */
  window: number;
  /** the smallest window reached */
  lowest: number;
  /** backpressure signals received */
  pressure: number;
}

export class Pacer {
  private window: number;
  private inFlight = 0;
  private notBefore = 0;
  /** successes since the window last changed */
  private streak = 0;
  /** when the window was last halved: signals from attempts already in flight then do not halve it again */
  private lastDecrease = Number.NEGATIVE_INFINITY;
  private readonly waiters: Array<() => void> = [];
  readonly stats: PacerStats;

  constructor(
    private readonly max: number,
    private readonly clock: Clock,
  ) {
    this.window = Math.max(1, max);
    this.stats = { window: this.window, lowest: this.window, pressure: 0 };
  }

  get current(): number {
    return this.window;
  }

  /** Waits for a free place in the window and for any pause the service asked for; rejects when aborted. */
  async acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.inFlight < this.window && this.waiters.length === 0) this.inFlight++;
    else {
      // granted by release() or a grown window, which count the place as taken before waking the waiter
      await new Promise<void>((resolve, reject) => {
        const grant = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          const index = this.waiters.indexOf(grant);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(grant);
      });
    }
    try {
      for (let wait = this.notBefore - this.clock.now(); wait > 0; wait = this.notBefore - this.clock.now())
        await this.clock.sleep(wait, signal);
    } catch (error) {
      this.release();
      throw error;
    }
  }

  /** The attempt ended (whatever its outcome): its place is free. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.wake();
  }

  /** An attempt succeeded: after `window` successes in a row, one more at once (up to the concurrency). */
  success(): void {
    this.streak++;
    if (this.streak >= this.window && this.window < this.max) {
      this.window++;
      this.streak = 0;
      this.stats.window = this.window;
      this.wake();
    }
  }

  /**
   * The service pushed back: halve the window (once per round of attempts in flight) and, when it said how long,
   * start nothing new before that.
   */
  pressure(retryAfterMs: number | undefined, startedAt: number): void {
    this.stats.pressure++;
    this.streak = 0;
    if (startedAt > this.lastDecrease) {
      this.window = Math.max(1, Math.floor(this.window / 2));
      this.lastDecrease = this.clock.now();
      this.stats.window = this.window;
      this.stats.lowest = Math.min(this.stats.lowest, this.window);
    }
    if (retryAfterMs !== undefined && retryAfterMs > 0)
      this.notBefore = Math.max(this.notBefore, this.clock.now() + retryAfterMs);
  }

  private wake(): void {
    while (this.inFlight < this.window && this.waiters.length > 0) {
      this.inFlight++;
      this.waiters.shift()?.();
    }
  }
}
