/**
 * The capacity model of the simulated network: a confirmation latency per submission and a network-wide limit of
 * transactions per window (the reference's practical ~500 transfers per 10 minutes). A submission beyond the
 * limit is refused as Canton refuses an overloaded participant (409, PARTICIPANT_BACKPRESSURE, category 2, retry in
 * 1 second), so a client must pace itself. Per profile; `sandbox up` flags and the admin API (`PUT /capacity`) override it.
 */
import { errors } from './ledger/errors.js';

export interface CapacitySettings {
  /** added to every submission before it commits (its consumed contracts stay locked meanwhile) */
  latencyMs: number;
  /** transactions the network accepts per window; null = unlimited */
  limit: number | null;
  windowMs: number;
}

export class Capacity {
  /** admission times of the submissions in the current window, oldest first */
  private admitted: number[] = [];

  constructor(private settings: CapacitySettings) {}

  get current(): CapacitySettings {
    return { ...this.settings };
  }

  update(settings: Partial<CapacitySettings>): CapacitySettings {
    this.settings = { ...this.settings, ...settings };
    this.admitted = [];
    return this.current;
  }

  /** Admits one submission or throws PARTICIPANT_BACKPRESSURE (409), its cause saying when a slot frees. */
  admit(now = Date.now()): void {
    const { limit, windowMs } = this.settings;
    if (limit === null) return;
    const from = now - windowMs;
    let drop = 0;
    while (drop < this.admitted.length && (this.admitted[drop] as number) <= from) drop++;
    if (drop > 0) this.admitted.splice(0, drop);
    if (this.admitted.length >= limit) {
      const retryAfterMs = (this.admitted[0] as number) + windowMs - now;
      throw errors.backpressure(
        `the network accepts ${limit} transactions per ${Math.round(windowMs / 1000)} s and that capacity is used up; a slot frees in ${Math.ceil(retryAfterMs / 1000)} s`,
      );
    }
    this.admitted.push(now);
  }
}
