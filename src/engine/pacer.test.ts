import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { Pacer } from './pacer.js';

const signal = new AbortController().signal;

/** Starts `n` acquisitions and says how many were granted once pending callbacks ran. */
async function grants(pacer: Pacer, n: number): Promise<{ granted: () => number; all: Promise<void>[] }> {
  let granted = 0;
  const all = Array.from({ length: n }, () => pacer.acquire(signal).then(() => void granted++));
  await new Promise((r) => setImmediate(r));
  return { granted: () => granted, all };
}

describe('Pacer (additive increase, multiplicative decrease)', () => {
  it('lets at most `window` attempts run at once, and the next one in when one ends', async () => {
    const pacer = new Pacer(3, new ManualClock());
    const { granted } = await grants(pacer, 5);
    expect(granted()).toBe(3);
    pacer.release();
    await new Promise((r) => setImmediate(r));
    expect(granted()).toBe(4);
  });

  it('halves the window on backpressure once per round in flight, and grows it back by one per window of successes', async () => {
    const clock = new ManualClock();
    const pacer = new Pacer(8, clock);
    const startedBefore = clock.now();
    await clock.advance(10);
    pacer.pressure(undefined, startedBefore);
    expect(pacer.current).toBe(4);
    // attempts that were already in flight when it halved do not halve it again
    pacer.pressure(undefined, startedBefore);
    expect(pacer.current).toBe(4);
    // an attempt started after the decrease does
    await clock.advance(10);
    pacer.pressure(undefined, clock.now());
    expect(pacer.current).toBe(2);
    for (let i = 0; i < 2; i++) pacer.success();
    expect(pacer.current).toBe(3);
    for (let i = 0; i < 3; i++) pacer.success();
    expect(pacer.current).toBe(4);
    for (let i = 0; i < 100; i++) pacer.success();
    expect(pacer.current).toBe(8);
    expect(pacer.stats).toMatchObject({ window: 8, lowest: 2, pressure: 3 });
  });

  it('never goes below one, and starts nothing before the time the service asked for', async () => {
    const clock = new ManualClock();
    const pacer = new Pacer(1, clock);
    pacer.pressure(2000, clock.now());
    expect(pacer.current).toBe(1);
    let started = false;
    const waiting = pacer.acquire(signal).then(() => (started = true));
    await clock.advance(1999);
    expect(started).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(started).toBe(true);
  });

  it('an aborted wait gives its place up', async () => {
    const pacer = new Pacer(1, new ManualClock());
    await pacer.acquire(signal);
    const controller = new AbortController();
    const waiting = pacer.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    pacer.release();
    const { granted } = await grants(pacer, 1);
    expect(granted()).toBe(1);
  });
});
