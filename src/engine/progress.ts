/**
 * A step's progress as events: throttled `step.progress` with the rate of the last seconds and the time left.
 */
import type { EngineOptions } from './engine-options.js';
import { HeapGovernor } from './heap.js';

/** How far back the rate of a fan-out is measured. */
const RATE_WINDOW_MS = 15_000;

/**
 * Throttled `step.progress` events: every item for small steps, a few per second for big fan-outs, with the rate
 * of the last seconds (items finished by earlier invocations do not count) and the time left at that rate.
 */
export class Progress {
  private done = 0;
  private lastEmit = 0;
  private readonly heap = new HeapGovernor();
  /** (time, items finished in this invocation) samples of the last RATE_WINDOW_MS */
  private readonly samples: Array<{ at: number; worked: number }> = [];
  private worked = 0;

  constructor(
    private readonly o: EngineOptions,
    private readonly step: string,
    private readonly total: number,
  ) {}

  tick(status: string): void {
    this.done++;
    this.heap.tick(this.total);
    if (status !== 'skipped') this.worked++;
    const now = this.o.clock.now();
    if (this.total <= 100 || this.done === this.total || now - this.lastEmit >= 200) {
      this.lastEmit = now;
      this.o.events.emit({
        type: 'step.progress',
        step: this.step,
        done: this.done,
        total: this.total,
        ...this.pace(now),
      });
    }
  }

  private pace(now: number): { rate?: number; etaMs?: number } {
    this.samples.push({ at: now, worked: this.worked });
    while (this.samples.length > 2 && (this.samples[0] as { at: number }).at < now - RATE_WINDOW_MS)
      this.samples.shift();
    const first = this.samples[0] as { at: number; worked: number };
    const span = now - first.at;
    if (span < 1000 || this.worked === first.worked) return {};
    const rate = ((this.worked - first.worked) * 1000) / span;
    const left = this.total - this.done;
    return { rate: Math.round(rate * 10) / 10, etaMs: Math.round((left / rate) * 1000) };
  }
}
