import { describe, expect, it } from 'vitest';
import type { JournalRecord } from './journal.js';
import { allRuns, compactRecords, lastFinishedStep, lastRun, summarizeRun } from './journal-state.js';

const AT = '2025-01-01T00:00:00.000Z';

function run(id: string, extra: { pid?: number; fresh?: boolean } = {}): JournalRecord {
  return {
    t: 'run',
    v: 1,
    run: id,
    at: AT,
    playbook: 'pb',
    file: 'pb.yaml',
    target: 'sandbox',
    digest: 'd',
    inputsDigest: 'i',
    pid: extra.pid ?? 100,
    host: 'h',
    user: 'u',
    mode: 'run',
    ...(extra.fresh === undefined ? {} : { fresh: extra.fresh }),
  };
}
const step = (r: string, s: string, items: number, withDigest = 'w'): JournalRecord => ({
  t: 'step',
  run: r,
  step: s,
  at: AT,
  withDigest,
  items,
});
const intent = (r: string, s: string, item: string, n = 1): JournalRecord => ({
  t: 'intent',
  run: r,
  step: s,
  item,
  at: AT,
  intent: { action: 'transfer', n },
});
const done = (r: string, s: string, item: string): JournalRecord => ({
  t: 'done',
  run: r,
  step: s,
  item,
  at: AT,
  status: 'applied',
  outputs: { item },
});
const stepDone = (
  r: string,
  s: string,
  withDigest: string,
  status: 'applied' | 'in-sync' | 'skipped',
  out: string,
): JournalRecord => ({ t: 'step-done', run: r, step: s, at: AT, status, outputs: { out }, withDigest });
const end = (r: string, status: 'succeeded' | 'failed' | 'interrupted', exitCode: number): JournalRecord => ({
  t: 'end',
  run: r,
  at: AT,
  status,
  exitCode,
  ...(status === 'failed' ? { error: { code: 'LB_STEP_FAILED', message: 'boom' } } : {}),
});

describe('lastRun', () => {
  it('settles intents: `resolve done` finishes the item; `resolve redo` and a definite failure forget its intents', () => {
    const records: JournalRecord[] = [
      run('r1'),
      step('r1', 'pay', 2),
      intent('r1', 'pay', 'a'),
      intent('r1', 'pay', 'b'),
      { t: 'resolve', run: 'r1', step: 'pay', item: 'a', at: AT, as: 'done', by: 'alice' },
      { t: 'resolve', run: 'r1', step: 'pay', item: 'b', at: AT, as: 'redo', by: 'alice' },
      intent('r1', 'pay', 'c'),
      {
        t: 'failed',
        run: 'r1',
        step: 'pay',
        item: 'c',
        at: AT,
        error: { code: 'LB_STEP_FAILED', message: 'exit 3' },
      },
    ];
    const pay = lastRun(records)?.steps.get('pay');
    expect([...(pay?.done.keys() ?? [])]).toEqual(['a']);
    expect(pay?.pending.size).toBe(0);
  });

  it('is undefined for an empty journal', () => {
    expect(lastRun([])).toBeUndefined();
  });

  it('folds the last run: done items, pending intents, finished steps, running without end', () => {
    const records: JournalRecord[] = [
      run('old'),
      step('old', 'pay', 1),
      done('old', 'pay', 'zed'),
      end('old', 'succeeded', 0),
      run('r2', { pid: 222 }),
      step('r2', 'gate', 1),
      stepDone('r2', 'gate', 'w', 'applied', 'ok'),
      step('r2', 'pay', 4, 'pay-digest'),
      intent('r2', 'pay', 'a'),
      done('r2', 'pay', 'a'),
      intent('r2', 'pay', 'b', 1),
      intent('r2', 'pay', 'b', 2),
      intent('r2', 'pay', 'c'),
      done('r2', 'pay', 'c'),
      intent('r2', 'pay', 'c', 2),
    ];
    const state = lastRun(records);
    expect(state).toBeDefined();
    if (!state) return;
    expect(state).toMatchObject({
      run: 'r2',
      pid: 222,
      status: 'running',
      playbook: 'pb',
      target: 'sandbox',
    });
    expect(state.endedAt).toBeUndefined();
    expect(state.steps.get('gate')?.finished).toEqual({
      status: 'applied',
      outputs: { out: 'ok' },
      withDigest: 'w',
    });
    const pay = state.steps.get('pay');
    expect(pay?.items).toBe(4);
    expect(pay?.withDigest).toBe('pay-digest');
    expect(pay?.finished).toBeUndefined();
    expect([...(pay?.done.keys() ?? [])]).toEqual(['a', 'c']);
    // c is done, but an intent recorded after its done makes it pending again
    expect([...(pay?.pending ?? [])]).toEqual([
      [
        'b',
        [
          { action: 'transfer', n: 1 },
          { action: 'transfer', n: 2 },
        ],
      ],
      ['c', [{ action: 'transfer', n: 2 }]],
    ]);
    expect(state.steps.has('zed')).toBe(false);
  });

  it('continues a run whose run record appears again (a resumed invocation)', () => {
    const records: JournalRecord[] = [
      run('r1', { pid: 1 }),
      step('r1', 'pay', 2),
      done('r1', 'pay', 'a'),
      end('r1', 'failed', 1),
      run('r1', { pid: 2 }),
      done('r1', 'pay', 'b'),
    ];
    const state = lastRun(records);
    expect(state?.pid).toBe(2);
    expect(state?.status).toBe('running');
    expect(state?.error).toBeUndefined();
    expect(state?.exitCode).toBeUndefined();
    expect(state?.steps.get('pay')?.done.size).toBe(2);
    expect(allRuns(records)).toHaveLength(1);
  });

  it('folds 10,000 items of one step', () => {
    const records: JournalRecord[] = [run('big'), step('big', 'pay', 10_000)];
    for (let i = 0; i < 10_000; i++) {
      records.push(intent('big', 'pay', `k${i}`));
      if (i % 1000 !== 999) records.push(done('big', 'pay', `k${i}`));
    }
    const pay = lastRun(records)?.steps.get('pay');
    expect(pay?.done.size).toBe(9990);
    expect([...(pay?.pending.keys() ?? [])].slice(0, 2)).toEqual(['k999', 'k1999']);
    expect(pay?.pending.size).toBe(10);
  });
});

describe('allRuns', () => {
  it('lists every run oldest first with its end', () => {
    const runs = allRuns([
      run('a'),
      end('a', 'failed', 1),
      run('b'),
      end('b', 'interrupted', 130),
      run('c'),
      end('c', 'succeeded', 0),
    ]);
    expect(runs.map((r) => [r.run, r.status, r.exitCode])).toEqual([
      ['a', 'failed', 1],
      ['b', 'interrupted', 130],
      ['c', 'succeeded', 0],
    ]);
    expect(runs[0]?.error).toEqual({ code: 'LB_STEP_FAILED', message: 'boom' });
  });
});

describe('lastFinishedStep', () => {
  const records: JournalRecord[] = [
    run('r1'),
    stepDone('r1', 'sh', 'cmd-1', 'applied', 'first'),
    stepDone('r1', 'other', 'cmd-1', 'applied', 'not this step'),
    end('r1', 'succeeded', 0),
    run('r2'),
    stepDone('r2', 'sh', 'cmd-1', 'in-sync', 'second'),
    stepDone('r2', 'sh', 'cmd-2', 'applied', 'other command'),
    stepDone('r2', 'sh', 'cmd-1', 'skipped', 'skipped does not count'),
    end('r2', 'failed', 1),
  ];

  it('finds the latest applied or in-sync step-done with the same withDigest, across runs', () => {
    expect(lastFinishedStep(records, 'sh', 'cmd-1')).toEqual({ outputs: { out: 'second' } });
    expect(lastFinishedStep(records, 'sh', 'cmd-2')).toEqual({ outputs: { out: 'other command' } });
    expect(lastFinishedStep(records.slice(0, 4), 'sh', 'cmd-1')).toEqual({ outputs: { out: 'first' } });
    expect(lastFinishedStep(records, 'sh', 'cmd-3')).toBeUndefined();
  });

  it('does not look past a run started with --fresh', () => {
    const withFresh = [...records, run('r3', { fresh: true }), step('r3', 'sh', 1, 'cmd-1')];
    expect(lastFinishedStep(withFresh, 'sh', 'cmd-1')).toBeUndefined();
    const after = [...withFresh, stepDone('r3', 'sh', 'cmd-1', 'applied', 'third')];
    expect(lastFinishedStep(after, 'sh', 'cmd-1')).toEqual({ outputs: { out: 'third' } });
    const notFresh = [...records, run('r4', { fresh: false })];
    expect(lastFinishedStep(notFresh, 'sh', 'cmd-1')).toEqual({ outputs: { out: 'second' } });
  });
});

describe('summarizeRun', () => {
  it('gives plain data for status', () => {
    const state = lastRun([
      run('r'),
      step('r', 'pay', 3),
      done('r', 'pay', 'a'),
      intent('r', 'pay', 'b'),
      end('r', 'failed', 1),
    ]);
    expect(state && summarizeRun(state)).toEqual({
      run: 'r',
      playbook: 'pb',
      target: 'sandbox',
      status: 'failed',
      startedAt: AT,
      endedAt: AT,
      exitCode: 1,
      error: { code: 'LB_STEP_FAILED', message: 'boom' },
      steps: [{ step: 'pay', status: 'unfinished', items: 3, done: 1, pending: ['b'] }],
    });
  });
});

describe('compactRecords', () => {
  /** A no-op rerun of a fan-out: every item in sync, the step done, the run ended. */
  function noopRun(id: string, items: number, status: 'in-sync' | 'applied' = 'in-sync'): JournalRecord[] {
    return [
      run(id),
      step(id, 'pay', items),
      ...Array.from({ length: items }, (_, i) => done(id, 'pay', `k${i}`)),
      stepDone(id, 'pay', 'w', status, 'x'),
      end(id, 'succeeded', 0),
    ];
  }

  it('keeps what the engine reads and drops the rest: the size stays flat over any number of reruns', () => {
    const sizes: number[] = [];
    let journal: JournalRecord[] = [];
    for (let n = 0; n < 10; n++) {
      journal = [...(compactRecords(journal) ?? journal), ...noopRun(`r${n}`, 50)];
      sizes.push(journal.length);
    }
    // from the second run on: at most the last run plus one run's memory
    expect(Math.max(...sizes.slice(1))).toBe(sizes[1]);
    expect(sizes[9]).toBeLessThan(2 * 54 + 1);
    const full = Array.from({ length: 10 }, (_, n) => noopRun(`r${n}`, 50)).flat();
    const compacted = compactRecords(full) as JournalRecord[];
    expect(summarizeRun(lastRun(compacted) as never)).toEqual(summarizeRun(lastRun(full) as never));
    expect(lastFinishedStep(compacted, 'pay', 'w')).toEqual(lastFinishedStep(full, 'pay', 'w'));
  });

  it('keeps an older run`s step memory when the last run has not reached that step, and an unfinished run whole', () => {
    const older = [
      run('a'),
      step('a', 'pay', 1),
      done('a', 'pay', 'k0'),
      stepDone('a', 'pay', 'w', 'applied', 'x'),
      stepDone('a', 'other', 'w', 'applied', 'x'),
      end('a', 'succeeded', 0),
    ];
    const unfinished = [
      run('b'),
      step('b', 'pay', 2),
      intent('b', 'pay', 'k0'),
      done('b', 'pay', 'k0'),
      intent('b', 'pay', 'k1'),
    ];
    const full = [...older, ...unfinished];
    const compacted = compactRecords(full) as JournalRecord[];
    expect(compacted).toEqual([
      run('a'),
      stepDone('a', 'pay', 'w', 'applied', 'x'),
      stepDone('a', 'other', 'w', 'applied', 'x'),
      ...unfinished,
    ]);
    expect(lastRun(compacted)).toEqual(lastRun(full));
    for (const s of ['pay', 'other'])
      expect(lastFinishedStep(compacted, s, 'w')).toEqual(lastFinishedStep(full, s, 'w'));
    expect(compactRecords(compacted)).toBeUndefined();
  });

  it('drops everything before a --fresh run: its memory horizon', () => {
    const full = [...noopRun('a', 3, 'applied'), run('b', { fresh: true }), step('b', 'pay', 3)];
    const compacted = compactRecords(full) as JournalRecord[];
    expect(compacted).toEqual([run('b', { fresh: true }), step('b', 'pay', 3)]);
    expect(lastFinishedStep(compacted, 'pay', 'w')).toEqual(lastFinishedStep(full, 'pay', 'w'));
  });
});
