import { describe, expect, it } from 'vitest';
import type { LedgerbookEvent } from '../../engine/events.js';
import { shownText } from '../../engine/run.js';
import { foldedLines } from './command-output.js';
import { plainReporter } from './plain.js';
import { SummaryReporter } from './summary.js';

const time = '2026-01-01T00:00:00.000Z';
const start = {
  type: 'run.start',
  time,
  run: 'r',
  mode: 'run',
  playbook: 'p',
  file: 'p.yaml',
  target: 't',
  resumed: false,
  steps: [{ id: 'each', kind: 'core.shell', name: 'each' }],
};
const output = (item: string, stream: 'stdout' | 'stderr', message: string): LedgerbookEvent => ({
  type: 'log',
  time,
  level: 'info',
  step: 'each',
  item,
  stream,
  message,
});

describe("a command's output", () => {
  it('is shown as a terminal shows it: CRLF as LF, a rewritten line as its last version, no blank tail', () => {
    expect(shownText('a\r\nb\r\n')).toBe('a\nb');
    expect(shownText('10%\r50%\r100%\ndone\n\n')).toBe('100%\ndone');
    expect(shownText('\n\n')).toBe('');
  });

  it('is folded to its first and last lines around how many were left out', () => {
    const text = Array.from({ length: 100 }, (_, i) => String(i + 1)).join('\n');
    const lines = foldedLines(text, 20, (n) => `… ${n} more`);
    expect(lines).toHaveLength(21);
    expect(lines.slice(0, 6)).toEqual(['1', '2', '3', '4', '5', '… 80 more']);
    expect(lines.at(-1)).toBe('100');
    expect(foldedLines('a\nb', 20, () => 'x')).toEqual(['a', 'b']);
  });

  it('plain output indents it under the step, each line with its item and stream; a big fan-out shows five items', () => {
    const lines: string[] = [];
    const report = plainReporter((t) => lines.push(...t.split('\n').filter((l) => l !== '')), false);
    report(start as LedgerbookEvent);
    report({ type: 'step.start', time, step: 'each', kind: 'core.shell', items: 30 });
    for (let i = 1; i <= 30; i++)
      report(output(`i${i}`, i === 2 ? 'stderr' : 'stdout', `line one\nof i${i}`));
    expect(lines).toContain('  i1 │ line one');
    expect(lines).toContain('  i1 │ of i1');
    expect(lines).toContain('  i2 ! of i2');
    expect(lines).toContain('  i5 │ of i5');
    expect(lines.filter((l) => l.includes('of i6'))).toEqual([]);
    expect(lines.filter((l) => l.includes('the output of the other items is in --json'))).toHaveLength(1);
  });

  it('the summary shows it in code blocks that its own backticks cannot close, folded when long', () => {
    const summary = new SummaryReporter();
    summary.listener(start as LedgerbookEvent);
    summary.listener(output('a`b', 'stdout', 'before\n```\n<b>not html</b>'));
    const short = summary.markdown();
    expect(short).toContain('**each** ``a`b`` stdout:\n\n````text\nbefore\n```\n<b>not html</b>\n````');
    expect(short).not.toContain('<details>');
    summary.listener(output('c', 'stdout', Array.from({ length: 12 }, (_, i) => `l${i}`).join('\n')));
    expect(summary.markdown()).toContain('<details><summary>each: what its commands printed</summary>');
  });
});
