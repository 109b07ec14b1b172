import type { EventOf, LedgerbookEvent } from '../../engine/events.js';
import { formatDiagnostics } from '../../playbook/format.js';
import { describeOutcome, knownAfterApply, unreportedError } from './outcome.js';
import { StepView, columnsOf, fit } from './progress-view.js';
import { seconds, style, totalsText } from './style.js';

/** Events redraw the screen at most this often. */
const FRAME_MS = 100;
/** While a step runs and nothing happens, the spinner and the ages of the items in flight move this often. */
const IDLE_FRAME_MS = 500;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Rows of the screen the drawn part may take at most, whatever the terminal's height (it also keeps one free). */
const MAX_LIVE_ROWS = 24;
/** Steps still to come listed under the running one. */
const NEXT_SHOWN = 3;

const ESC = '\u001b[';
const HIDE_CURSOR = `${ESC}?25l`;
const SHOW_CURSOR = `${ESC}?25h`;

/**
 * The run in a terminal. What is over is written once, as lines that scroll like any output: the header, each
 * step as it ends (how it ended, its totals, the lines it kept), the outcome. What is under way is drawn below
 * them and redrawn in place, at most every FRAME_MS: the running step, its progress line pinned under it, the
 * items in flight and its last lines (src/cli/reporters/progress-view.ts), and the steps still to come. That part
 * never grows with the items and never takes more than the screen, so a 100,000-item step costs the terminal
 * what a 10-item one does, and nothing a person needs scrolls away.
 *
 * Text that others write meanwhile (the notice of a Ctrl-C, a warning) is let through above the drawn part: the
 * streams are held for the run, and the drawn part is erased before such a write and drawn again after it.
 *
 * Our own renderer rather than listr2's: listr2's default renderer wraps the whole tree with wrap-ansi on every
 * frame (about 20 ms a frame for mint-and-distribute's tree), holds back what is written to the streams until it
 * ends, and its SIGINT listener exits 127 at the first Ctrl-C (docs/architecture.md "Output", bench/README.md).
 */
export function terminalReporter(
  stdout: NodeJS.WriteStream,
  stderr: NodeJS.WriteStream,
  now: () => number = Date.now,
): { listener: (event: LedgerbookEvent) => void; finished: () => void } {
  const s = style(true);
  const screen = new LiveScreen(stdout, [stdout, stderr]);
  const views = new Map<string, StepView>();
  let steps: EventOf<'run.start'>['steps'] = [];
  const reached = new Set<string>();
  let planning = false;
  let current: { id: string; name: string; kind: string } | undefined;
  let stepFailed = false;
  let spin = 0;
  let frame: NodeJS.Timeout | undefined;
  let idle: NodeJS.Timeout | undefined;

  const viewOf = (step: string): StepView => {
    let view = views.get(step);
    if (view === undefined) views.set(step, (view = new StepView(step, planning, s)));
    return view;
  };

  /** The drawn part: the running step, its view, and what comes next, cut to the screen. */
  const draw = (): void => {
    clearTimeout(frame);
    clearTimeout(idle);
    frame = idle = undefined;
    const width = Math.max(20, screen.columns) - 1;
    const rows: string[] = [];
    if (current !== undefined) {
      spin = (spin + 1) % SPINNER.length;
      const kind = ` (${current.kind})`;
      rows.push(
        `${s.warn(SPINNER[spin] as string)} ${fit(current.name, width - 2 - kind.length)}${s.dim(kind)}`,
      );
      const view = views.get(current.id);
      if (view) for (const line of view.live(width - 2, now())) rows.push(`  ${line}`);
      const next = steps.filter((step) => !reached.has(step.id));
      for (const step of next.slice(0, NEXT_SHOWN))
        rows.push(s.dim(fit(`◼ ${step.name} (${step.kind})`, width)));
      if (next.length > NEXT_SHOWN) rows.push(s.dim(`◼ and ${next.length - NEXT_SHOWN} more steps`));
      // the spinner and the ages of the items in flight move while nothing else happens
      idle = setTimeout(draw, IDLE_FRAME_MS).unref();
    }
    screen.draw(rows.slice(0, Math.min(MAX_LIVE_ROWS, Math.max(1, screen.rows - 2))));
  };
  /** Something changed: draw soon (at most every FRAME_MS), not once per event. */
  const touch = (): void => {
    frame ??= setTimeout(draw, FRAME_MS).unref();
  };
  /** lines that are over: written once, above the drawn part */
  const over = (text: string): void => screen.print(text);

  const stepDone = (event: EventOf<'step.done'>): void => {
    reached.add(event.step);
    if (current?.id === event.step) current = undefined;
    const view = viewOf(event.step);
    view.finished();
    const far = view.reached();
    const time = seconds(event.durationMs);
    let head: string;
    const tail: string[] = [];
    if (event.status === 'failed' || event.status === 'ambiguous') {
      stepFailed = true;
      head = s.bad(`✖ ${event.step}: ${event.error?.message ?? event.status}${far ? ` (${far})` : ''}`);
      if (event.error?.seen) tail.push(`seen: ${event.error.seen}`);
      if (event.error?.hint) tail.push(`hint: ${event.error.hint}`);
      if (event.error?.diagnostics)
        tail.push(...formatDiagnostics(event.error.diagnostics, { color: true }).trimEnd().split('\n'));
    } else if (event.status === 'paused' || event.status === 'interrupted') {
      const why =
        event.status === 'paused' ? (event.error?.message ?? 'paused') : 'interrupted before it finished';
      head = s.warn(`‖ ${event.step}: ${why}${far ? ` (${far})` : ''}`);
    } else if (event.status === 'skipped') {
      head = s.dim(`↓ ${event.step}: skipped (if: false)`);
    } else {
      const what =
        event.status === 'applied'
          ? `applied ${event.changes}`
          : event.status === 'planned'
            ? event.changes > 0
              ? `${event.changes} to apply`
              : knownAfterApply(event.items)
            : event.status;
      const totals = totalsText(event.outputs);
      head = `${s.ok('✔')} ${event.step}: ${what} ${s.dim(`(${time})`)}${totals === undefined ? '' : ` — ${totals}`}`;
    }
    over([head, ...[...tail, ...view.kept()].map((line) => `  ${line}`)].join('\n'));
    draw();
  };

  const listener = (event: LedgerbookEvent): void => {
    switch (event.type) {
      case 'run.start':
        planning = event.mode === 'plan';
        steps = event.steps;
        screen.hold();
        over(
          `${event.mode === 'plan' ? 'plan' : event.resumed ? 'resume' : 'run'} ${event.playbook} on ${event.target}`,
        );
        break;
      case 'step.start': {
        const step = steps.find((st) => st.id === event.step);
        current = { id: event.step, name: step?.name ?? event.step, kind: event.kind };
        reached.add(event.step);
        viewOf(event.step).start(event.items);
        draw();
        break;
      }
      case 'step.progress':
        viewOf(event.step).progressed(event);
        touch();
        break;
      case 'step.plan':
        viewOf(event.step).planned(event.changes, now());
        touch();
        break;
      case 'item.done':
        viewOf(event.step).itemDone(event.item, event.status);
        touch();
        break;
      case 'log': {
        // a line of the run itself (a stop's notice: what it waits for) goes under the step that runs
        const step = event.step ?? current?.id;
        if (step === undefined)
          over(event.level === 'warn' || event.level === 'error' ? s.warn(event.message) : event.message);
        else {
          viewOf(step).logged(event.level, event.message);
          touch();
        }
        break;
      }
      case 'retry':
        viewOf(event.step).retried(event);
        touch();
        break;
      case 'step.done':
        stepDone(event);
        break;
      case 'run.done': {
        current = undefined;
        const never = steps.filter((step) => !reached.has(step.id));
        if (never.length > 0) over(never.map((step) => s.dim(`↓ ${step.id}: not run`)).join('\n'));
        over(
          [
            ...unreportedError(event, stepFailed).map((line) => s.bad(line)),
            s.bold(describeOutcome(event, planning)),
          ].join('\n'),
        );
        break;
      }
      case 'version':
      case 'error':
        break;
    }
  };

  return {
    listener,
    finished: () => {
      clearTimeout(frame);
      clearTimeout(idle);
      screen.release();
    },
  };
}

type Write = (...args: unknown[]) => boolean;

/**
 * The bottom of a terminal: lines printed above (they scroll away like any output) and a part drawn below them
 * that each draw replaces. Writes of others to the held streams pass through above the drawn part.
 */
class LiveScreen {
  /** the drawn part's lines, as drawn (each fits one row when drawn) */
  private drawn: string[] = [];
  /** the held streams' own writes */
  private readonly writes = new Map<NodeJS.WriteStream, Write>();
  private readonly restore = (): void => void this.out.write(SHOW_CURSOR);

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly held: readonly NodeJS.WriteStream[],
  ) {}

  /** a pseudo-terminal nobody sized (`script` under a pipe, some CI runners) says 0: count it as 80 × 24 */
  get columns(): number {
    return this.out.columns || 80;
  }

  get rows(): number {
    return this.out.rows || 24;
  }

  /** From now on, a write of others to the held streams goes above the drawn part. */
  hold(): void {
    if (this.writes.size > 0) return;
    this.raw(HIDE_CURSOR);
    process.once('exit', this.restore);
    for (const stream of this.held) {
      const original = stream.write.bind(stream) as Write;
      this.writes.set(stream, original);
      stream.write = (...args: unknown[]) => {
        const lines = this.drawn;
        this.erase();
        const result = original(...args);
        // drawn again at the next frame, under what was written
        this.drawn = [];
        if (lines.length > 0) this.draw(lines);
        return result;
      };
    }
  }

  release(): void {
    if (this.writes.size === 0) return;
    this.erase();
    for (const [stream, original] of this.writes) stream.write = original;
    this.writes.clear();
    process.off('exit', this.restore);
    this.raw(SHOW_CURSOR);
  }

  /** `text` above the drawn part, for good. */
  print(text: string): void {
    const lines = this.drawn;
    this.raw(this.eraseText() + text + '\n');
    this.drawn = [];
    this.draw(lines);
  }

  /** Replaces the drawn part with `lines` (each cut to the width by the caller). */
  draw(lines: string[]): void {
    const same = lines.length === this.drawn.length && lines.every((line, i) => line === this.drawn[i]);
    if (same) return;
    this.raw(this.eraseText() + lines.map((line) => `${line}\n`).join(''));
    this.drawn = lines;
  }

  private erase(): void {
    const text = this.eraseText();
    if (text !== '') this.raw(text);
    this.drawn = [];
  }

  /** cursor up over the drawn part (its rows at today's width: a narrowed terminal wraps them) and clear below */
  private eraseText(): string {
    if (this.drawn.length === 0) return '';
    const columns = this.columns;
    const rows = this.drawn.reduce((n, line) => n + Math.max(1, Math.ceil(visibleLength(line) / columns)), 0);
    return `\r${ESC}${rows}A${ESC}J`;
  }

  private raw(text: string): void {
    const write = this.writes.get(this.out);
    if (write) write(text);
    else this.out.write(text);
  }
}

// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

function visibleLength(line: string): number {
  return columnsOf(line.replace(SGR, ''));
}
