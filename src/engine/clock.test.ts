import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from './clock.js';

describe('systemClock', () => {
  it('sleeps about the time asked', async () => {
    const start = performance.now();
    await systemClock.sleep(30);
    expect(performance.now() - start).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the signal reason when aborted during the sleep', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const start = performance.now();
    const sleeping = systemClock.sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(reason), 10);
    await expect(sleeping).rejects.toBe(reason);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(systemClock.sleep(10_000, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('ManualClock', () => {
  it('fires timers in due order and moves the time to each', async () => {
    const clock = new ManualClock(1000);
    const fired: Array<[string, number]> = [];
    void clock.sleep(300).then(() => fired.push(['b', clock.now()]));
    void clock.sleep(100).then(() => fired.push(['a', clock.now()]));
    void clock.sleep(500).then(() => fired.push(['c', clock.now()]));
    await clock.advance(400);
    expect(fired).toEqual([
      ['a', 1100],
      ['b', 1300],
    ]);
    expect(clock.now()).toBe(1400);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(100);
    expect(fired.at(-1)).toEqual(['c', 1500]);
  });

  it('fires a sleep started by a fired timer when it falls within the same advance', async () => {
    const clock = new ManualClock(0);
    let done = 0;
    void (async () => {
      await clock.sleep(100);
      await clock.sleep(100);
      done = clock.now();
    })();
    await clock.advance(250);
    expect(done).toBe(200);
  });

  it('removes an aborted sleep and rejects it with the reason', async () => {
    const clock = new ManualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(100, controller.signal);
    controller.abort('bye');
    await expect(sleeping).rejects.toBe('bye');
    expect(clock.pendingTimers).toBe(0);
  });

  it('runNext advances to the earliest timer and reports when none is left', async () => {
    const clock = new ManualClock(0);
    const sleeping = clock.sleep(700);
    expect(await clock.runNext()).toBe(true);
    await sleeping;
    expect(clock.now()).toBe(700);
    expect(await clock.runNext()).toBe(false);
    expect(clock.sleeps).toEqual([700]);
  });
});
