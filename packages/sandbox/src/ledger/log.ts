/**
 * The ledger's durable form: an append-only log in segments (`ledger/log-000001.ndjson`, one JSON line per
 * committed change: a transaction, a party allocation, a user change, a sandbox note) and, at every segment
 * rotation, a snapshot of the whole state (`ledger/snapshot-000002.json` = the state before segment 2). Starting
 * reads the newest snapshot and replays the segments after it. A line is written with one write(2) before the
 * change is applied and answered, so a killed process loses nothing it reported; a torn last line (a kill in the
 * middle of a write that was never answered) is dropped. Old segments are kept for reads of older updates and
 * deleted beyond the retention; what they held is then pruned.
 */
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { stateError } from '../errors.js';

export interface LogSettings {
  /** transactions (and other offset-taking changes) per segment before a snapshot and a new segment */
  segmentEntries: number;
  /** how many closed segments are kept for reads of older updates */
  retainedSegments: number;
}

export const DEFAULT_LOG_SETTINGS: LogSettings = { segmentEntries: 20_000, retainedSegments: 10 };

const SEGMENT = /^log-(\d{6})\.ndjson$/;
const SNAPSHOT = /^snapshot-(\d{6})\.json$/;

function name(kind: 'log' | 'snapshot', n: number): string {
  return `${kind}-${String(n).padStart(6, '0')}.${kind === 'log' ? 'ndjson' : 'json'}`;
}

export interface Recovered<S> {
  snapshot: S | undefined;
  /** every entry after the snapshot, in order */
  entries: unknown[];
}

export class LedgerLog<S> {
  private fd: number | undefined;
  private segment = 1;
  private entries = 0;

  constructor(
    readonly dir: string,
    private readonly settings: LogSettings = DEFAULT_LOG_SETTINGS,
  ) {}

  /** Reads the newest snapshot and the lines after it; opens the current segment for appending. */
  recover(): Recovered<S> {
    mkdirSync(this.dir, { recursive: true });
    const files = readdirSync(this.dir);
    const segments = numbers(files, SEGMENT);
    const snapshots = numbers(files, SNAPSHOT);
    let snapshot: S | undefined;
    let from = segments[0] ?? 1;
    for (const n of [...snapshots].reverse()) {
      const parsed = readSnapshot<S>(join(this.dir, name('snapshot', n)));
      if (parsed !== undefined) {
        snapshot = parsed;
        from = n;
        break;
      }
    }
    const entries: unknown[] = [];
    let appendNewline = false;
    const replay = segments.filter((n) => n >= from);
    replay.forEach((n, i) => {
      const file = join(this.dir, name('log', n));
      const bytes = readFileSync(file);
      const last = i === replay.length - 1;
      let good = 0; // bytes of the complete lines so far
      for (const line of bytes.toString('utf8').split('\n')) {
        const size = Buffer.byteLength(line);
        if (line === '') {
          good = Math.min(good + 1, bytes.length);
          continue;
        }
        const entry = parseLine(line);
        if (entry === undefined) {
          // a torn last line (a kill in the middle of its write) was never acknowledged: drop it
          if (last && good + size >= bytes.length) break;
          throw stateError(
            `the sandbox ledger log ${file} is damaged at byte ${good}`,
            'start the sandbox with a fresh --state-dir (or delete its ledger/ folder)',
          );
        }
        if (good + size >= bytes.length) {
          // complete JSON without its newline: the write was cut after the last byte of the object
          entries.push(entry);
          good = bytes.length;
          appendNewline = last;
          break;
        }
        entries.push(entry);
        good += size + 1;
      }
      if (last && good < bytes.length) {
        const fd = openSync(file, 'r+');
        ftruncateSync(fd, good);
        closeSync(fd);
      }
    });
    this.segment = replay.at(-1) ?? from;
    this.entries =
      replay.length > 0 ? countEntries(readFileSync(join(this.dir, name('log', this.segment)), 'utf8')) : 0;
    this.fd = openSync(join(this.dir, name('log', this.segment)), 'a');
    if (appendNewline) writeSync(this.fd, '\n');
    return { snapshot, entries };
  }

  /** Appends one line durably against a process kill (one write; the page cache survives the process). */
  append(line: string, takesOffset: boolean): void {
    if (this.fd === undefined) throw new Error('the ledger log is not open');
    writeSync(this.fd, `${line}\n`);
    if (takesOffset) this.entries++;
  }

  /** true when the current segment is full: the caller writes a snapshot with rotate() */
  full(): boolean {
    return this.entries >= this.settings.segmentEntries;
  }

  /** the number of the segment being written */
  get currentSegment(): number {
    return this.segment;
  }

  /** the oldest segment kept once the next rotation has pruned */
  oldestAfterRotation(): number {
    return Math.max(1, this.segment + 1 - this.settings.retainedSegments);
  }

  /** Closes the segment, writes the state as the next segment's snapshot, opens the next segment, prunes. */
  rotate(state: S): void {
    if (this.fd !== undefined) closeSync(this.fd);
    const next = this.segment + 1;
    const file = join(this.dir, name('snapshot', next));
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, file);
    this.segment = next;
    this.entries = 0;
    this.fd = openSync(join(this.dir, name('log', next)), 'a');
    this.prune();
  }

  private prune(): void {
    const files = readdirSync(this.dir);
    const keepFrom = this.segment - this.settings.retainedSegments;
    for (const n of numbers(files, SEGMENT))
      if (n < keepFrom) rmSync(join(this.dir, name('log', n)), { force: true });
    for (const n of numbers(files, SNAPSHOT))
      if (n < this.segment) rmSync(join(this.dir, name('snapshot', n)), { force: true });
  }

  /** the entries of every retained segment, oldest first, for reads older than what memory holds */
  *history(): Generator<unknown> {
    for (const n of numbers(readdirSync(this.dir), SEGMENT)) {
      const file = join(this.dir, name('log', n));
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const entry = line === '' ? undefined : parseLine(line);
        if (entry !== undefined) yield entry;
      }
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

function numbers(files: string[], pattern: RegExp): number[] {
  return files
    .map((f) => pattern.exec(f)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

function readSnapshot<S>(file: string): S | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as S;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw stateError(
      `cannot read the sandbox ledger snapshot ${file}: ${(error as Error).message}`,
      undefined,
      error,
    );
  }
}

/** the entry of a line, or undefined when it is not a complete JSON line (a torn tail, or damage) */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function countEntries(text: string): number {
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('{"t":"tx"') || line.startsWith('{"t":"party"')) n++;
  return n;
}
