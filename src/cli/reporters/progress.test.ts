import { describe, expect, it } from 'vitest';
import type { LedgerbookEvent } from '../../engine/events.js';
import { plainReporter } from './plain.js';
import { duration, progressText, totalsText } from './style.js';
import { SummaryReporter } from './summary.js';

const at = (ms: number): string => new Date(Date.parse('2026-01-01T00:00:00Z') + ms).toISOString();

describe('progress of a fan-out', () => {
  it('reads done/total, then the rate and the time left once they are known', () => {
    expect(progressText({ done: 3, total: 500 })).toBe('3/500');
    expect(progressText({ done: 120, total: 500, rate: 38.5, etaMs: 9_870 })).toBe(
      '120/500 · 38.5/s · ETA 10 s',
    );
    expect(progressText({ done: 500, total: 500, rate: 40, etaMs: 0 })).toBe('500/500 · 40/s');
    expect(duration(754_000)).toBe('12 min 34 s');
    expect(duration(7_380_000)).toBe('2 h 03 min');
  });

  it('plain output prints a big fan-out at every 10 % and every 10 s, not each planned change of a run', () => {
    const lines: string[] = [];
    const report = plainReporter((t) => lines.push(...t.split('\n').filter((l) => l !== '')), false);
    const emit = (e: Record<string, unknown>): void => report(e as unknown as LedgerbookEvent);
    emit({
      type: 'run.start',
      time: at(0),
      run: 'r',
      mode: 'run',
      playbook: 'p',
      file: 'p.yaml',
      target: 't',
      resumed: false,
      steps: [],
    });
    emit({ type: 'step.start', time: at(0), step: 'pay', kind: 'token.distribute', items: 1000 });
    emit({
      type: 'step.plan',
      time: at(0),
      step: 'pay',
      inSync: false,
      changes: [{ item: 'a', action: 'create', summary: 'send 1' }],
    });
    for (let done = 1; done <= 1000; done++) {
      const ms = done * 50; // 20 a second: 50 s in all
      emit({
        type: 'step.progress',
        time: at(ms),
        step: 'pay',
        done,
        total: 1000,
        rate: 20,
        etaMs: (1000 - done) * 50,
      });
    }
    const progress = lines.filter((l) => /^\s+\d+\/1000/.test(l));
    // every 10 % (11 deciles from 0 % to 100 %) plus, between them, every 10 s of the 50 s: no more
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress.length).toBeLessThanOrEqual(16);
    expect(progress.at(-1)).toBe('  1000/1000 · 20/s');
    expect(lines.some((l) => l.includes('send 1'))).toBe(false);
  });

  it('plain output with --verbose lists each planned change of a big fan-out too', () => {
    const lines: string[] = [];
    const report = plainReporter((t) => lines.push(...t.split('\n').filter((l) => l !== '')), false, true);
    const emit = (e: Record<string, unknown>): void => report(e as unknown as LedgerbookEvent);
    emit({
      type: 'run.start',
      time: at(0),
      run: 'r',
      mode: 'run',
      playbook: 'p',
      file: 'p.yaml',
      target: 't',
      resumed: false,
      steps: [],
    });
    emit({ type: 'step.start', time: at(0), step: 'pay', kind: 'token.distribute', items: 1000 });
    for (let i = 0; i < 1000; i++)
      emit({
        type: 'step.plan',
        time: at(i),
        step: 'pay',
        inSync: false,
        changes: [{ item: `r${i}`, action: 'create', summary: 'send 1' }],
      });
    expect(lines.filter((l) => / {2}~ r\d+: send 1$/.test(l))).toHaveLength(1000);
  });

  it('a step’s totals are printed under it and in the summary', () => {
    const outputs = {
      totals: { recipients: 200, amount: '9.93', sent: 200, sent_amount: '9.93', offered: 200 },
    };
    expect(totalsText(outputs)).toBe(
      'recipients 200 · amount 9.93 · sent 200 · sent amount 9.93 · offered 200',
    );
    const summary = new SummaryReporter();
    for (const e of [
      {
        type: 'run.start',
        time: at(0),
        run: 'r',
        mode: 'run',
        playbook: 'p',
        file: 'p.yaml',
        target: 't',
        resumed: false,
        steps: [{ id: 'pay', kind: 'token.distribute', name: 'pay' }],
      },
      {
        type: 'step.done',
        time: at(1),
        step: 'pay',
        status: 'applied',
        changes: 200,
        outputs,
        durationMs: 1000,
      },
      {
        type: 'run.done',
        time: at(2),
        run: 'r',
        status: 'succeeded',
        exitCode: 0,
        changes: 200,
        durationMs: 1000,
      },
    ])
      summary.listener(e as unknown as LedgerbookEvent);
    expect(summary.markdown()).toContain('**pay**: recipients 200 · amount 9.93 · sent 200');
  });
});
