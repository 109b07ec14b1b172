import { describe, expect, it } from 'vitest';
import type { EventOf } from '../../engine/events.js';
import { describeOutcome } from './outcome.js';

const done = (
  status: EventOf<'run.done'>['status'],
  changes: number,
  exitCode: number,
): EventOf<'run.done'> => ({
  type: 'run.done',
  time: '2026-11-26T20:00:00.000Z',
  run: 'r',
  status,
  exitCode,
  changes,
  durationMs: 1200,
});

describe('describeOutcome', () => {
  it('a failed run counts what it applied and says a rerun skips the finished steps', () => {
    expect(describeOutcome(done('failed', 2, 1))).toBe(
      'Failed (exit 1) after 2 changes: fix the cause and run the same command again; finished steps are skipped.',
    );
  });

  it('a failed plan says that nothing was changed and to plan again, not to resume', () => {
    expect(describeOutcome(done('failed', 0, 1), true)).toBe(
      'Plan failed (exit 1): nothing was changed; fix the cause and plan again.',
    );
  });

  it('a plan and a run that end well', () => {
    expect(describeOutcome(done('planned', 3, 2), true)).toBe('Plan: 3 changes to apply.');
    expect(describeOutcome(done('succeeded', 0, 0))).toBe('Nothing to do: everything is in sync (1.2 s).');
  });
});
