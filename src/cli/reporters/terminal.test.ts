import { createRequire } from 'node:module';
import type { Terminal as XTerm } from '@xterm/headless';
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { LedgerbookEvent } from '../../engine/events.js';
import { terminalReporter } from './terminal.js';

const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as { Terminal: typeof XTerm };

/** A terminal emulator of `cols` × `rows` behind two fake output streams, and what was written to it. */
function tty(cols: number, rows: number, says: { cols: number; rows: number } = { cols, rows }) {
  // convertEol: a newline also returns the carriage, as a pseudo-terminal's line discipline makes it do
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true, convertEol: true });
  let bytes = 0;
  const stream = (): NodeJS.WriteStream =>
    ({
      columns: says.cols,
      rows: says.rows,
      write(text: string) {
        bytes += Buffer.byteLength(text);
        term.write(text);
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  const parsed = (): Promise<void> => new Promise((resolve) => term.write('', resolve));
  const screen = async (): Promise<string[]> => {
    await parsed();
    const b = term.buffer.active;
    const out: string[] = [];
    for (let i = b.baseY; i < b.baseY + rows; i++) out.push(b.getLine(i)?.translateToString(true) ?? '');
    while (out.at(-1) === '') out.pop();
    return out;
  };
  return { term, stdout: stream(), stderr: stream(), screen, bytes: () => bytes };
}

const event = (e: Record<string, unknown>): LedgerbookEvent =>
  ({ time: new Date().toISOString(), ...e }) as unknown as LedgerbookEvent;

const start = (steps: string[]): LedgerbookEvent =>
  event({
    type: 'run.start',
    run: 'r',
    mode: 'run',
    playbook: 'p',
    file: 'p.yaml',
    target: 'sandbox',
    resumed: false,
    steps: steps.map((id) => ({ id, kind: 'token.distribute', name: `${id} step` })),
  });

/** longer than a frame's wait: the reporter draws what the events changed */
const A_FRAME = 130;

describe('the terminal reporter', () => {
  it('draws on a pseudo-terminal nobody sized (0 × 0) as on 80 × 24: no cursor move it cannot make', async () => {
    const t = tty(80, 24, { cols: 0, rows: 0 });
    let written = '';
    const write = t.stdout.write.bind(t.stdout);
    t.stdout.write = (text: string) => ((written += text), write(text));
    const r = terminalReporter(t.stdout, t.stderr);
    r.listener(start(['pay']));
    r.listener(event({ type: 'step.start', step: 'pay', kind: 'token.distribute', items: 2 }));
    await pause(A_FRAME);
    r.listener(event({ type: 'step.done', step: 'pay', status: 'applied', changes: 2, durationMs: 5 }));
    r.listener(
      event({ type: 'run.done', run: 'r', status: 'succeeded', exitCode: 0, changes: 2, durationMs: 6 }),
    );
    r.finished();
    expect(written).not.toMatch(/Infinity|NaN/);
    expect((await t.screen()).join('\n')).toContain('Done: 2 changes applied');
  });

  it('draws a 100,000-item step in a few rows: nothing scrolls, the bytes do not grow with the items', async () => {
    const t = tty(80, 24);
    const r = terminalReporter(t.stdout, t.stderr);
    r.listener(start(['pay', 'report']));
    r.listener(event({ type: 'step.start', step: 'pay', kind: 'token.distribute', items: 100_000 }));
    let busiest = 0;
    for (let i = 0; i < 100_000; i++) {
      const item = `r${i}`;
      r.listener(
        event({
          type: 'step.plan',
          step: 'pay',
          inSync: false,
          changes: [{ item, action: 'create', summary: 'send 1' }],
        }),
      );
      r.listener(event({ type: 'log', level: 'info', step: 'pay', message: `offered ${item}` }));
      r.listener(event({ type: 'item.done', step: 'pay', item, status: 'applied' }));
      if (i % 1000 === 999)
        r.listener(
          event({ type: 'step.progress', step: 'pay', done: i + 1, total: 100_000, rate: 500, etaMs: 1000 }),
        );
      if (i % 10_000 === 9_999) {
        await pause(A_FRAME);
        busiest = Math.max(busiest, (await t.screen()).length);
      }
    }
    const running = await t.screen();
    expect(running.slice(1, 4)).toEqual([
      expect.stringMatching(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] pay step \(token\.distribute\)$/),
      '  100000/100000 · 500/s',
      '  offered r99995',
    ]);
    expect(running.at(-1)).toBe('◼ report step (token.distribute)');
    r.listener(
      event({ type: 'step.done', step: 'pay', status: 'applied', changes: 100_000, durationMs: 200_000 }),
    );
    r.listener(
      event({ type: 'run.done', run: 'r', status: 'failed', exitCode: 1, changes: 100_000, durationMs: 1 }),
    );
    r.finished();
    const last = await t.screen();
    expect(last).toContain('✔ pay: applied 100000 (200.0 s)');
    expect(last).toContain('↓ report: not run');
    expect(t.term.buffer.active.baseY).toBe(0);
    expect(busiest).toBeLessThan(12);
    // one line per item would be 1.5 MB at least; a hundred frames are a few tens of KB
    expect(t.bytes()).toBeLessThan(100_000);
  });

  it('lets what others write through above the drawn part, which is drawn once, below it', async () => {
    const t = tty(80, 24);
    const r = terminalReporter(t.stdout, t.stderr);
    r.listener(start(['pay']));
    r.listener(event({ type: 'step.start', step: 'pay', kind: 'token.distribute', items: 10 }));
    r.listener(
      event({
        type: 'step.plan',
        step: 'pay',
        inSync: false,
        changes: [{ item: 'r1', action: 'create', summary: 'send 1' }],
      }),
    );
    await pause(A_FRAME);
    t.stderr.write('\nSIGINT: stopping once the steps in flight finish\n');
    const screen = await t.screen();
    expect(screen.filter((row) => row.includes('pay step'))).toHaveLength(1);
    const notice = screen.indexOf('SIGINT: stopping once the steps in flight finish');
    expect(notice).toBeGreaterThan(0);
    expect(screen.findIndex((row) => row.includes('pay step'))).toBeGreaterThan(notice);
    expect(screen).toContain('  ⋯ r1: send 1');
    r.finished();
    // released: the streams write as they did
    t.stdout.write('after\n');
    expect((await t.screen()).at(-1)).toBe('after');
  });
});
