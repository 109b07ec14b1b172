import { describe, expect, it } from 'vitest';
import type { EventOf } from '../../engine/events.js';
import { StepView, fit, wrap } from './progress-view.js';
import { style } from './style.js';

const plain = style(false);
const T0 = Date.parse('2026-01-01T00:00:00Z');

const progress = (done: number, total: number, extra: object = {}): EventOf<'step.progress'> => ({
  type: 'step.progress',
  time: '',
  step: 'pay',
  done,
  total,
  ...extra,
});

/** A run of `total` items, `inFlight` at a time, each reporting a log line; the view after `done` of them. */
function fanOut(total: number, done: number, inFlight = 8): StepView {
  const view = new StepView('pay', false, plain);
  view.start(total);
  for (let i = 0; i < Math.min(total, done + inFlight); i++) {
    view.planned([{ item: `r${i}`, action: 'create', summary: `send 0.0${i % 10} to r${i}` }], T0 + i);
    if (i < done) {
      view.logged('info', `offered r${i}`);
      view.itemDone(`r${i}`, 'applied');
    }
  }
  view.progressed(progress(done, total, { rate: 40, etaMs: ((total - done) / 40) * 1000 }));
  return view;
}

describe('the terminal view of a step', () => {
  it('is as big for 100,000 items as for 100: a pinned progress line, a few items in flight, the last lines', () => {
    const small = fanOut(100, 50);
    const big = fanOut(100_000, 50_000);
    const now = T0 + 100_000 + 3_000;
    expect(big.progressLine()).toBe('50000/100000 · 40/s · ETA 20 min 50 s');
    const live = big.live(100, now);
    expect(live).toHaveLength(small.live(100, now).length);
    expect(live.length).toBeLessThanOrEqual(10);
    expect(live[0]).toBe(big.progressLine());
    // the oldest in flight first (what the run waits on), with how long they have been at it
    expect(live[1]).toMatch(/^⋯ r50000: send 0\.00 to r50000 \(\d+ s\)$/);
    expect(live).toContain('⋯ and 5 more in flight');
    expect(live.at(-1)).toBe('offered r49999');
    // a run keeps no planned change of a big fan-out, and only the last few of its lines
    const kept = big.kept();
    expect(kept.length).toBeLessThanOrEqual(6);
    expect(kept[0]).toBe('… 49,995 lines before these not shown (--verbose shows every one)');
    expect(kept.at(-1)).toBe('offered r49999');
  });

  it('keeps warnings, errors and retries apart, so that a flood of ordinary lines cannot push them out', () => {
    const view = new StepView('pay', false, plain);
    view.start(5000);
    view.retried({
      type: 'retry',
      time: '',
      step: 'pay',
      item: 'r7',
      attempt: 1,
      delayMs: 2000,
      error: { code: 'LB_SERVICE', message: '503 from the ledger' },
    });
    view.logged('warn', 'stopping: waiting for what is in flight: pay r9');
    for (let i = 0; i < 5000; i++) view.logged('info', `offered r${i}`);
    view.progressed(progress(4000, 5000));
    expect(view.progressLine()).toBe('4000/5000 · 1 attempt failed, retried');
    expect(view.kept()).toEqual([
      '… 4,995 lines before these not shown (--verbose shows every one)',
      '↻ r7: attempt 1 failed (503 from the ledger); retrying in 2 s',
      'stopping: waiting for what is in flight: pay r9',
      'offered r4995',
      'offered r4996',
      'offered r4997',
      'offered r4998',
      'offered r4999',
    ]);
    expect(view.reached()).toBe('4000/5000 items done');
  });

  it('a small step keeps its planned changes and its report (a table) whole', () => {
    const view = new StepView('rewards', false, plain);
    view.start(1);
    view.planned([{ item: '', action: 'write', summary: 'write reports/rewards.csv' }], T0);
    const table = ['date   created', ...Array.from({ length: 9 }, (_, i) => `2026-11-2${i}  ${i}`)];
    view.logged('info', table.join('\n'));
    expect(view.progressLine()).toBeUndefined();
    expect(view.kept()).toEqual(['~ write reports/rewards.csv', ...table]);
    // running, it shows its last lines, each on one row
    expect(view.live(13, T0)).toEqual([
      '2026-11-24  4',
      '2026-11-25  5',
      '2026-11-26  6',
      '2026-11-27  7',
      '2026-11-28  8',
    ]);
    expect(view.live(11, T0)[0]).toBe('2026-11-24…');
  });

  it('says what the step does now until its items move on', () => {
    const view = new StepView('pay', false, plain);
    view.start(200);
    view.progressed(progress(0, 0, { message: 'splitting 2 holdings into 8 lanes' }));
    expect(view.live(80, T0)).toEqual(['0/200', '… splitting 2 holdings into 8 lanes']);
    view.progressed(progress(1, 200));
    expect(view.live(80, T0)).toEqual(['1/200']);
  });

  it('a plan keeps the last planned changes of a big fan-out and counts the others', () => {
    const view = new StepView('pay', true, plain);
    view.start(1000);
    for (let i = 0; i < 1000; i++) view.planned([{ item: `r${i}`, action: 'create', summary: 'send 1' }], T0);
    expect(view.busy).toBe(false);
    expect(view.kept()[0]).toBe('… 995 planned changes before these not shown (--verbose shows every one)');
    expect(view.kept().at(-1)).toBe('~ r999: send 1');
  });
});

describe('fitting lines to the terminal', () => {
  it('cuts a line to its width, and wraps a notable one on a few rows', () => {
    expect(fit('abcdef', 6)).toBe('abcdef');
    expect(fit('abcdefg', 6)).toBe('abcde…');
    expect(fit('a\tb', 10)).toBe('a  b');
    // wide characters take two columns
    expect(fit('送金送金送金', 6)).toBe('送金…');
    expect(wrap('送金 送金送金', 4, 3)).toEqual(['送金', '送金', '送金']);
    expect(wrap('abcdefghij', 4, 3)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrap('abcdefghijklmnop', 4, 3)).toEqual(['abcd', 'efgh', 'ijk…']);
    expect(wrap('stopping: no new step or item starts', 12, 4)).toEqual([
      'stopping: no',
      'new step or',
      'item starts',
    ]);
    expect(wrap('waiting for a b c d e f', 8, 2)).toEqual(['waiting', 'for a b…']);
  });
});
