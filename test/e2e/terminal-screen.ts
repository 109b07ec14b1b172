/**
 * What a person sees: the built CLI run on a pseudo-terminal (util-linux `script`), its output fed to a real
 * terminal emulator (@xterm/headless) of the given size, so that tests assert on the screen — what is visible
 * now, what scrolled into the scrollback — rather than on the bytes written. Keys typed (Ctrl-C) reach the
 * program through the terminal's line discipline, as they do from a keyboard.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Terminal as XTerm } from '@xterm/headless';
import { CLI } from './cli.js';

// @xterm/headless is CommonJS without an ESM entry
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as {
  Terminal: typeof XTerm;
};

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface TerminalRun {
  /** the visible lines now, top to bottom, trailing blanks removed (a line the terminal wrapped is one line) */
  screen(): string[];
  /** every line the terminal holds: the scrollback, then the screen */
  everything(): string[];
  /** rows that scrolled off the top of the screen into the scrollback */
  scrolled(): number;
  /**
   * Resolves with the screen once `test` holds for it (checked after every piece of output the terminal took in);
   * rejects if the program ends first or `timeoutMs` passes.
   */
  waitFor(test: (screen: string[]) => boolean, timeoutMs?: number): Promise<string[]>;
  /** Whether `test` held for the screen at any moment so far (frames are checked as they are drawn). */
  watch(name: string, test: (screen: string[]) => boolean): void;
  seen(name: string): number;
  /** bytes typed on the keyboard: `\u0003` is Ctrl-C */
  type(keys: string): void;
  /** the exit code and the wall time, once the program ended and the terminal took in all it wrote */
  done: Promise<{ code: number | null; ms: number }>;
  /** ends it at once (SIGKILL to the terminal: the program gets SIGHUP) */
  kill(): void;
}

/** Terminals still running: `afterEach(stopTerminals)` ends those a failed or timed-out test left. */
const running = new Set<{ kill(): void }>();

export function stopTerminals(): void {
  for (const term of running) term.kill();
}

export interface TerminalOptions extends TerminalSize {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** the command line after the program (default: the CLI under node) */
  command?: string[];
  /** killed after this long (default 120 s): a hung program cannot outlive its test */
  timeoutMs?: number;
}

const quote = (part: string): string => `'${part.replaceAll("'", "'\\''")}'`;

/** Runs `args` of the CLI (or `command`) in a terminal of `cols` × `rows`, as a person at a keyboard would. */
export function inTerminal(args: string[], options: TerminalOptions): TerminalRun {
  const { cols, rows } = options;
  const command = options.command ?? [process.execPath, CLI, ...args];
  const line = `stty cols ${cols} rows ${rows}; exec ${command.map(quote).join(' ')}`;
  // a person's terminal: no CI, colours on
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', ...options.env };
  for (const name of ['CI', 'NO_COLOR', 'FORCE_COLOR', 'GITHUB_ACTIONS'])
    if (!(options.env && name in options.env)) delete env[name];
  for (const [k, v] of Object.entries(options.env ?? {})) if (v === undefined) delete env[k];
  const term = new Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true });
  const started = Date.now();
  const child = spawn('script', ['-qefc', line, '/dev/null'], {
    cwd: options.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const handle = { kill: () => child.kill('SIGKILL') };
  running.add(handle);
  const deadline = setTimeout(handle.kill, options.timeoutMs ?? 120_000);

  /** the lines of rows `from` to `to`: a row the terminal wrapped onto the next is one line with it */
  const rowsOf = (from: number, to: number): string[] => {
    const buffer = term.buffer.active;
    const out: string[] = [];
    for (let i = from; i < to; i++) {
      const row = buffer.getLine(i);
      const line = row?.translateToString(true) ?? '';
      if (row?.isWrapped === true && out.length > 0) out[out.length - 1] += line;
      else out.push(line);
    }
    return out;
  };
  const screen = (): string[] => {
    const base = term.buffer.active.baseY;
    const visible = rowsOf(base, base + rows);
    while (visible.length > 0 && visible.at(-1) === '') visible.pop();
    return visible;
  };
  const watchers = new Map<string, { test: (screen: string[]) => boolean; hits: number }>();
  const waiters = new Set<{ test: (screen: string[]) => boolean; resolve(screen: string[]): void }>();
  let ended = false;
  const check = (): void => {
    if (watchers.size === 0 && waiters.size === 0) return;
    const now = screen();
    for (const w of watchers.values()) if (w.test(now)) w.hits++;
    for (const w of waiters)
      if (w.test(now)) {
        waiters.delete(w);
        w.resolve(now);
      }
  };
  child.stdout.on('data', (chunk: Buffer) => term.write(chunk, check));

  const done = new Promise<{ code: number | null; ms: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(handle);
      clearTimeout(deadline);
      const ms = Date.now() - started;
      // everything written is parsed before the result is read
      term.write('', () => {
        ended = true;
        for (const w of waiters) w.resolve([]);
        waiters.clear();
        if (code === null || stderr.includes('script:')) reject(new Error(`script failed: ${stderr}`));
        else resolve({ code, ms });
      });
    });
  });
  // a rejection nobody awaited yet must not end the test process
  done.catch(() => undefined);

  return {
    screen,
    everything: () => rowsOf(0, term.buffer.active.length),
    scrolled: () => term.buffer.active.baseY,
    waitFor(test, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const now = screen();
        if (test(now)) return resolve(now);
        if (ended) return reject(new Error(`the program ended first; its screen:\n${now.join('\n')}`));
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`not on screen within ${timeoutMs} ms; the screen:\n${screen().join('\n')}`));
        }, timeoutMs);
        const waiter = {
          test,
          resolve(found: string[]) {
            clearTimeout(timer);
            if (ended && found.length === 0)
              reject(new Error(`the program ended first; its screen:\n${screen().join('\n')}`));
            else resolve(found);
          },
        };
        waiters.add(waiter);
      });
    },
    watch(name, test) {
      watchers.set(name, { test, hits: 0 });
    },
    seen: (name) => watchers.get(name)?.hits ?? 0,
    type(keys) {
      child.stdin.write(keys);
    },
    done,
    kill: handle.kill,
  };
}

/** The rows as one text, wrapped lines joined: what a person reads, whatever the width. */
export function text(rows: readonly string[]): string {
  return rows
    .map((r) => r.trim())
    .join(' ')
    .replace(/\s+/g, ' ');
}
