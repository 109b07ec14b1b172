/**
 * What a person sees in a terminal, rendered by a terminal emulator at 120 and 40 columns (terminal-screen.ts):
 * the README's main job (mint-and-distribute, against a sandbox of the realistic profile, time-scaled) shows its
 * progress line while the distribution runs and ends on a screen that says what happened, with no line per
 * recipient; a 10,000-item step leaves a screenful whatever its size; Ctrl-C in the middle of a 10,000-item step
 * shows what the run waits for until the items in flight finish. Outcomes are checked on the services (the
 * ledger's offers, the files the commands wrote), not on ledgerbook's bookkeeping.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir, writePlaybook } from './cli.js';
import { inTerminal, stopTerminals, text, type TerminalSize } from './terminal-screen.js';
import { PLAYBOOKS, tokenSandbox, type TokenSandbox } from './token-setup.js';

afterEach(stopTerminals);

const WIDE: TerminalSize = { cols: 120, rows: 40 };
const NARROW: TerminalSize = { cols: 40, rows: 40 };

/** A screen where the running step (its spinner and name) has its progress line right under it. */
function pinned(step: string, progress: RegExp): (screen: string[]) => boolean {
  return (screen) =>
    screen.some(
      (row, i) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(row) && row.slice(2) === step && progress.test(screen[i + 1] ?? ''),
    );
}

/** A playbook of one `for_each` step over `n` items. */
function fanOut(n: number, step: string[]): string {
  const keys = Array.from({ length: n }, (_, i) => `      - i${String(i).padStart(5, '0')}`);
  return ['name: fan-out', 'steps:', '  - id: many', ...step, '    for_each:', ...keys, ''].join('\n');
}

describe('in a terminal', () => {
  it('keeps every step’s log lines and planned changes on screen after the steps end', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      [
        'name: tty',
        'steps:',
        '  - id: hello',
        '    uses: core.log',
        '    with: { message: "hello from core.log" }',
        '  - id: work',
        '    uses: core.shell',
        '    with: { run: "sleep 0.2" }',
        '  - id: bye',
        '    uses: core.log',
        '    with: { message: "the last word" }',
        '',
      ].join('\n'),
    );
    const term = inTerminal(['run', 'p.yaml'], { cwd: dir, ...WIDE });
    expect((await term.done).code, term.screen().join('\n')).toBe(0);
    const screen = term.screen().join('\n');
    expect(screen).toMatch(/✔ hello[^\n]*\n {2}hello from core\.log\n/);
    expect(screen).toMatch(/✔ work[^\n]*\n {2}~ run `sleep 0\.2` \(no guard\)\n/);
    expect(screen).toMatch(/✔ bye[^\n]*\n {2}the last word\nDone:/);
  });

  for (const size of [WIDE, NARROW]) {
    it(`a 10,000-item step at ${size.cols} columns: a progress line while it runs, a screenful in all`, async () => {
      const dir = await tempDir();
      await writePlaybook(
        dir,
        'p.yaml',
        fanOut(10_000, ['    uses: core.log', '    with: { message: "item ${{ item }}" }']),
      );
      const term = inTerminal(['run', 'p.yaml'], { cwd: dir, ...size });
      term.watch('progress', pinned('many (core.log)', /^ {2}\d+\/10000( · [\d.]+\/s)?/));
      const { code } = await term.done;
      const screen = term.screen();
      expect(code, screen.join('\n')).toBe(0);
      expect(term.seen('progress')).toBeGreaterThan(0);
      // the whole run fits on one screen: no line per item, nothing scrolled away
      expect(term.scrolled()).toBe(0);
      expect(text(screen)).toContain('✔ many: in-sync');
      expect(text(screen)).toContain('9,995 lines before these not shown (--verbose shows every one)');
      expect(text(screen)).toContain('item i09999');
      expect(text(screen)).toMatch(/Nothing to do: everything is in sync \(\d/);
    });
  }

  it('Ctrl-C in the middle of a 10,000-item step shows what it waits for until the items in flight finish', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      fanOut(10_000, [
        '    uses: core.shell',
        '    concurrency: 4',
        '    with: { run: "echo start ${{ item }} >> log; sleep 0.6; echo end ${{ item }} >> log" }',
      ]),
    );
    const term = inTerminal(['run', 'p.yaml'], { cwd: dir, ...NARROW });
    await term.waitFor(pinned('many (core.shell)', /^ {2}([4-9]|\d\d+)\/10000/));
    term.type('\u0003');
    // while the items in flight finish, the screen says so and names them
    const waiting = await term.waitFor((screen) => text(screen).includes('waiting for what is in flight'));
    expect(text(waiting)).toContain('stopping: no new step or item starts');
    expect(text(waiting)).toContain('Ctrl-C again to stop at once');
    expect(waiting.filter((row) => /⋯ i\d{5}: run/.test(row)).length).toBeGreaterThan(0);
    const { code } = await term.done;
    const screen = text(term.screen());
    expect(code, screen).toBe(130);
    expect(screen).toMatch(/‖ many: interrupted before it finished \(\d+\/10000 items done\)/);
    expect(screen).toContain('Interrupted (exit 130): run the same command again to resume.');
    // every command that started ran to its end
    const log = (await readFile(join(dir, 'log'), 'utf8')).trim().split('\n');
    const started = log.filter((l) => l.startsWith('start ')).map((l) => l.slice(6));
    const ended = log.filter((l) => l.startsWith('end ')).map((l) => l.slice(4));
    expect(started.length).toBeGreaterThan(4);
    expect(started.length).toBeLessThan(10_000);
    expect(ended.sort()).toEqual(started.sort());
  });
});

describe('the README’s main job in a terminal (mint-and-distribute, realistic profile)', () => {
  const sandboxes: TokenSandbox[] = [];
  afterAll(() => Promise.all(sandboxes.map((sb) => sb.stop())));

  for (const size of [WIDE, NARROW]) {
    it(`at ${size.cols} columns: the progress line while it distributes, what happened on the last screen`, async () => {
      // the realistic profile 3,000 times faster: the mint's 6 blocks take about a second, not an hour
      const sb = await tokenSandbox({ profile: 'realistic', timeScale: 0.0003 });
      sandboxes.push(sb);
      const term = inTerminal(
        [
          'run',
          join(PLAYBOOKS, 'mint-and-distribute.yaml'),
          '--target',
          sb.targetFile,
          '--state-dir',
          sb.stateDir,
          '--input',
          `reports=${join(sb.dir, 'reports')}`,
        ],
        { cwd: sb.dir, ...size },
      );
      term.watch('progress', pinned('pay the recipients (token.distribute)', /^ {2}\d+\/200\b/));
      const { code } = await term.done;
      const last = term.screen();
      expect(code, last.join('\n')).toBe(0);
      expect(term.seen('progress')).toBeGreaterThan(0);
      // what happened, on the last screen
      expect(text(last)).toContain('✔ distribute: applied 200');
      expect(text(last)).toContain('recipients 200 · amount 9.93 · sent 200');
      expect(text(last)).toContain('agree with the receipts: 200 offers');
      expect(text(last)).toMatch(/Done: 206 changes applied \(\d/);
      // no line per recipient anywhere, not even in the scrollback: before, 200 of them pushed the progress away
      expect(term.everything().filter((row) => /holder-\d{3}::/.test(row))).toEqual([]);
      expect(term.everything().length).toBeLessThan(2 * size.rows);
      // on the ledger: one offer to each recipient
      expect(await sb.offersFrom(sb.tokens.minter)).toHaveLength(200);
    });
  }
});
