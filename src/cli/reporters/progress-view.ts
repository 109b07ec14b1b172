import type { EventOf } from '../../engine/events.js';
import { BIG_FANOUT, duration, progressText, type Style } from './style.js';

/** Items in flight shown under a running fan-out (the oldest: the ones the run is waiting on). */
const IN_FLIGHT_SHOWN = 3;
/** Reported lines shown under a running step: the most recent. */
const LIVE_ROWS = 5;
/** Lines (rows) of ordinary reports kept under a step once it is done: the most recent (a report's table fits). */
const KEPT_ROWS = 20;
/** The same for a big fan-out, whose lines are mostly one per item: the last few. */
const KEPT_ROWS_BIG = LIVE_ROWS;
/** Notable reports (warnings, errors, retries) kept under a step: the most recent. */
const KEPT_NOTABLE = 5;
/** Rows one notable report may take under a done step, and under a running one. */
const NOTABLE_ROWS = 8;
const NOTABLE_LIVE_ROWS = 3;

interface Entry {
  /** order of arrival, across both kinds */
  seq: number;
  rows: string[];
  /** a planned change (counted apart when dropped) */
  change: boolean;
  tone: 'plain' | 'warn' | 'bad';
}

/**
 * What the terminal shows of one step, kept in a size that does not grow with its items: the pinned progress line
 * (done/total, rate, time left, failures so far), the few items in flight, and the last lines it reported
 * (notable ones — warnings, errors, retries — kept apart so that a flood of ordinary lines cannot push them
 * out). Every event costs O(1); a frame costs at most a screenful, whatever the number of items. Per-item detail
 * is in `--json`, the receipts, `--summary` and `--verbose`.
 */
export class StepView {
  private items = 0;
  private started = false;
  private progress: { done: number; total: number; rate?: number; etaMs?: number } | undefined;
  /** the step's own latest word on what it does (a wait's confirmations, a split into lanes) */
  private status: string | undefined;
  /** item key → when it started and what it does; in start order */
  private readonly inFlight = new Map<string, { since: number; what: string }>();
  private readonly ordinary: Entry[] = [];
  private ordinaryRows = 0;
  private readonly notable: Entry[] = [];
  private droppedRows = 0;
  private droppedChanges = 0;
  private failedAttempts = 0;
  private failedItems = 0;
  private seq = 0;

  constructor(
    readonly id: string,
    private readonly planning: boolean,
    private readonly s: Style,
  ) {}

  /** a fan-out of this many items lists items in flight and, in a run, keeps none of their planned changes */
  private get big(): boolean {
    return this.items >= BIG_FANOUT;
  }

  start(items: number): void {
    this.started = true;
    this.items = items;
    if (items > 1) this.progress = { done: 0, total: items };
  }

  progressed(event: EventOf<'step.progress'>): void {
    if (event.message !== undefined) this.status = event.message;
    else {
      // items finish: what the step said it was doing before them (a split into lanes) is over
      if (this.progress !== undefined && event.done > this.progress.done) this.status = undefined;
      this.progress = event;
    }
  }

  planned(changes: EventOf<'step.plan'>['changes'], now: number): void {
    for (const c of changes) {
      if (!this.planning && this.items > 1 && !this.inFlight.has(c.item))
        this.inFlight.set(c.item, { since: now, what: c.summary });
      if (!this.planning && this.big) continue;
      this.report(`~ ${c.item ? `${c.item}: ` : ''}${c.summary}`, 'plain', true);
    }
  }

  itemDone(item: string, status: EventOf<'item.done'>['status']): void {
    this.inFlight.delete(item);
    if (status === 'failed') this.failedItems++;
  }

  retried(event: EventOf<'retry'>): void {
    this.failedAttempts++;
    this.report(
      `↻ ${event.item ? `${event.item}: ` : ''}attempt ${event.attempt} failed (${event.error.message}); retrying in ${duration(event.delayMs)}`,
      'warn',
    );
  }

  logged(level: EventOf<'log'>['level'], message: string): void {
    this.report(message, level === 'error' ? 'bad' : level === 'warn' ? 'warn' : 'plain');
  }

  /** the step is over: nothing is in flight any more */
  finished(): void {
    this.inFlight.clear();
    this.status = undefined;
  }

  /** how far a fan-out got, for a step that ended before its last item (`17/10000 items done`) */
  reached(): string | undefined {
    const p = this.progress;
    return p === undefined || p.done >= p.total ? undefined : `${p.done}/${p.total} items done`;
  }

  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** The pinned line of a running fan-out: `120/500 · 38.5/s · ETA 12 s · 2 attempts failed, retried`. */
  progressLine(): string | undefined {
    if (!this.started || this.progress === undefined) return undefined;
    return [
      progressText(this.progress),
      ...(this.failedItems > 0 ? [`${plural(this.failedItems, 'item')} failed`] : []),
      ...(this.failedAttempts > 0 ? [`${plural(this.failedAttempts, 'attempt')} failed, retried`] : []),
    ].join(' · ');
  }

  /**
   * The lines under a running step, each cut to `width` columns: its progress, what it does now, the items in
   * flight, and its last words.
   */
  live(width: number, now: number): string[] {
    const rows: string[] = [];
    const progress = this.progressLine();
    if (progress !== undefined) {
      const tone = (line: string): string =>
        this.failedItems > 0 ? this.s.bad(line) : this.failedAttempts > 0 ? this.s.warn(line) : line;
      rows.push(...wrap(progress, width, 2).map(tone));
    }
    if (this.status !== undefined) rows.push(this.s.dim(fit(`… ${this.status}`, width)));
    let shown = 0;
    for (const [key, { since, what }] of this.inFlight) {
      if (shown === IN_FLIGHT_SHOWN) break;
      const age = now - since >= 1000 ? ` (${duration(now - since)})` : '';
      rows.push(this.s.dim(fit(`⋯ ${key}: ${what}`, width - age.length) + age));
      shown++;
    }
    if (this.inFlight.size > shown)
      rows.push(this.s.dim(`⋯ and ${this.inFlight.size - shown} more in flight`));
    // in a fan-out, the items in flight say what is being done: its planned changes are not repeated
    const entries = this.entries().filter((e) => !(e.change && this.items > 1 && !this.planning));
    const last: string[] = [];
    for (let i = entries.length - 1; i >= 0 && last.length < LIVE_ROWS; i--) {
      const e = entries[i] as Entry;
      // a notable line (a stop's notice, a retry's cause) is wrapped to be read whole; the others are cut
      const fitted = e.rows.flatMap((r) =>
        e.tone === 'plain' ? [fit(r, width)] : wrap(r, width, NOTABLE_LIVE_ROWS),
      );
      for (let r = fitted.length - 1; r >= 0 && last.length < LIVE_ROWS; r--)
        last.unshift(this.tone(e, fitted[r] as string));
    }
    return [...rows, ...last];
  }

  /** The lines kept under the step once it is done: its last reports, and how many were left out. */
  kept(): string[] {
    const rows: string[] = [];
    if (this.droppedRows + this.droppedChanges > 0) {
      const what = [
        ...(this.droppedChanges > 0 ? [plural(this.droppedChanges, 'planned change')] : []),
        ...(this.droppedRows > 0 ? [plural(this.droppedRows, 'line')] : []),
      ].join(' and ');
      rows.push(this.s.dim(`… ${what} before these not shown (--verbose shows every one)`));
    }
    for (const e of this.entries()) rows.push(...e.rows.map((r) => this.tone(e, r)));
    return rows;
  }

  private entries(): Entry[] {
    return [...this.ordinary, ...this.notable].sort((a, b) => a.seq - b.seq);
  }

  private tone(e: Entry, text: string): string {
    return e.tone === 'bad' ? this.s.bad(text) : e.tone === 'warn' ? this.s.warn(text) : text;
  }

  private report(text: string, tone: Entry['tone'], change = false): void {
    const lines = text.split('\n');
    const limit = tone === 'plain' ? KEPT_ROWS : NOTABLE_ROWS;
    const rows =
      lines.length > limit
        ? [...lines.slice(0, limit - 1), `… ${plural(lines.length - limit + 1, 'more line')}`]
        : lines;
    const entry: Entry = { seq: this.seq++, rows, change, tone };
    if (tone === 'plain') {
      this.ordinary.push(entry);
      this.ordinaryRows += rows.length;
      const keep = this.big ? KEPT_ROWS_BIG : KEPT_ROWS;
      while (this.ordinaryRows > keep && this.ordinary.length > 1) this.drop(this.ordinary);
    } else {
      this.notable.push(entry);
      if (this.notable.length > KEPT_NOTABLE) this.drop(this.notable);
    }
  }

  private drop(list: Entry[]): void {
    const gone = list.shift() as Entry;
    if (list === this.ordinary) this.ordinaryRows -= gone.rows.length;
    if (gone.change) this.droppedChanges++;
    else this.droppedRows += gone.rows.length;
  }
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Columns a character takes on a terminal: 2 for East Asian wide and fullwidth characters and emoji, 1 for the
 * rest. Counting a wide one as 1 would let a line run over its row, and the redraw would miss a row.
 */
function charColumns(c: string): number {
  const cp = c.codePointAt(0) ?? 0;
  return (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
    ? 2
    : 1;
}

/** Columns `text` takes on a terminal (no escape sequences in it). */
export function columnsOf(text: string): number {
  let n = 0;
  for (const c of text) n += charColumns(c);
  return n;
}

/** The longest start of `chars` (from `at`) that fits in `width` columns: its end index. */
function endWithin(chars: readonly string[], at: number, width: number): number {
  let used = 0;
  let end = at;
  while (end < chars.length && used + charColumns(chars[end] as string) <= width)
    used += charColumns(chars[end++] as string);
  return end;
}

/**
 * `text` on at most `rows` rows of `width` columns, broken between words where a row has room for one, the last
 * row cut with an ellipsis when the text does not fit.
 */
export function wrap(text: string, width: number, rows: number): string[] {
  const chars = Array.from(text.replace(/\t/g, '  '));
  const out: string[] = [];
  let at = 0;
  while (at < chars.length && out.length < rows) {
    let end = Math.max(at + 1, endWithin(chars, at, width));
    if (end < chars.length && chars[end] !== ' ') {
      const space = chars.lastIndexOf(' ', end - 1);
      if (space > at + (end - at) / 2) end = space;
    }
    out.push(chars.slice(at, end).join(''));
    at = end;
    while (chars[at] === ' ') at++;
  }
  if (at < chars.length) out[rows - 1] = fit(`${out[rows - 1] ?? ''}…`, width);
  return out;
}

/** `text` on one row of `width` columns: tabs as spaces, cut with an ellipsis when longer. */
export function fit(text: string, width: number): string {
  const chars = Array.from(text.replace(/\t/g, '  '));
  const end = endWithin(chars, 0, width);
  if (end === chars.length) return chars.join('');
  return `${chars.slice(0, endWithin(chars, 0, Math.max(0, width - 1))).join('')}…`;
}
