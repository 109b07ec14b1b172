/**
 * The checkpoint journal of one (playbook, target): `<runDir>/journal.ndjson`, append-only, one JSON record per
 * line. An intent is made durable (write + fdatasync) before its side effect; concurrent durable appends share
 * one write + fdatasync (group commit), and plain appends ride along with the next one or a short timer, so a
 * 10,000-item step is not bound by fsync. Every record is masked before it is serialised.
 */
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { StateError } from '../errors.js';
import { fsProblem } from './fs-problem.js';
import { compactRecords } from './journal-state.js';
import type { Masker } from './masker.js';
import { ensurePrivateDir } from './state-dir.js';
import type { JournalRecord, JournalRecordType } from './journal-record.js';

export type { JournalRecord, JournalRecordType } from './journal-record.js';

export const JOURNAL_FORMAT = 1;
export const JOURNAL_FILE = 'journal.ndjson';
/** the longest a plain `append` waits for a durable write to carry it */
export const GROUP_COMMIT_DELAY_MS = 50;

const RECORD_TYPES: ReadonlySet<string> = new Set<JournalRecordType>([
  'run',
  'step',
  'intent',
  'done',
  'step-done',
  'resolve',
  'failed',
  'end',
]);

/**
 * `record` with its payload masked: the intent, the outputs and error messages — what a step or a service
 * wrote (secrets, and credentials in URLs even when no secret is registered). Its type, run, step and item ids,
 * statuses and times are structure the reader relies on, never masked.
 */
function maskPayload(masker: Masker, record: JournalRecord): JournalRecord {
  switch (record.t) {
    case 'intent':
      return { ...record, intent: masker.maskDeep(record.intent) };
    case 'done':
    case 'step-done':
      return { ...record, outputs: masker.maskDeep(record.outputs) };
    case 'failed':
      return { ...record, error: { ...record.error, message: masker.mask(record.error.message) } };
    case 'end':
      return record.error
        ? { ...record, error: { ...record.error, message: masker.mask(record.error.message) } }
        : record;
    default:
      return record;
  }
}

/** What a journal file holds, and how much of it is whole. */
export interface ParsedJournal {
  records: JournalRecord[];
  /** bytes up to and including the last complete line */
  validBytes: number;
  /** a last line without its newline: a write cut short by a crash; ignored */
  tornBytes: number;
}

const DAMAGED_HINT = (file: string): string =>
  `the file was edited or damaged. Keep a copy (mv ${file} ${file}.damaged) and run again: ledgerbook then ` +
  'starts a fresh run that observes live state, so finished work is found, not repeated';

/**
 * Parses journal bytes. A torn last line is left out (see `tornBytes`); a bad complete line, a record of an
 * unknown run, or a newer format is a StateError naming the file and line.
 */
export function parseJournal(bytes: Buffer, file: string): ParsedJournal {
  const validBytes = bytes.lastIndexOf(0x0a) + 1;
  const text = bytes.toString('utf8', 0, validBytes);
  const lines = text.split('\n');
  const records: JournalRecord[] = [];
  const runs = new Set<string>();
  // The text ends with '\n' (or is empty), so the last element is always ''.
  for (let index = 0; index < lines.length - 1; index++) {
    const line = lines[index] as string;
    if (line.trim() === '') continue;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw new StateError(`${where}: not a journal record (not valid JSON)`, DAMAGED_HINT(file), error);
    }
    const record = checkRecord(value, where, file);
    if (record.t === 'run') runs.add(record.run);
    else if (!runs.has(record.run)) {
      throw new StateError(
        `${where}: record "${record.t}" of run ${record.run}, which has no run record before it`,
        DAMAGED_HINT(file),
      );
    }
    records.push(record);
  }
  return { records, validBytes, tornBytes: bytes.length - validBytes };
}

function checkRecord(value: unknown, where: string, file: string): JournalRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StateError(`${where}: not a journal record (not a JSON object)`, DAMAGED_HINT(file));
  }
  const record = value as Record<string, unknown>;
  if (record.t === 'run' && record.v !== JOURNAL_FORMAT) {
    if (typeof record.v === 'number' && record.v > JOURNAL_FORMAT) {
      throw new StateError(
        `${where}: written by a newer ledgerbook (journal format ${record.v}; this version reads format ${JOURNAL_FORMAT})`,
        'upgrade ledgerbook to the version that wrote this journal, or newer',
      );
    }
    throw new StateError(`${where}: a run record without a known format version`, DAMAGED_HINT(file));
  }
  if (typeof record.t !== 'string' || !RECORD_TYPES.has(record.t) || typeof record.run !== 'string') {
    const what =
      typeof record.t === 'string' ? `unknown record type "${record.t}"` : 'a record without a type';
    throw new StateError(
      `${where}: ${what}`,
      `if a newer ledgerbook wrote this journal, upgrade ledgerbook; otherwise ${DAMAGED_HINT(file)}`,
    );
  }
  return record as JournalRecord;
}

async function readBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('cannot read the journal', file, error);
  }
}

/** The records of the journal in run directory `dir`, read-only (a torn last line is ignored, not removed). */
export async function readJournal(dir: string): Promise<JournalRecord[]> {
  const file = join(dir, JOURNAL_FILE);
  const bytes = await readBytes(file);
  return bytes === undefined ? [] : parseJournal(bytes, file).records;
}

function ioError(what: string, file: string, error: unknown): StateError {
  const problem = fsProblem(error, file);
  return new StateError(`${what} ${file}: ${problem.reason}`, problem.hint, error);
}

export interface JournalStats {
  /** write + fdatasync rounds */
  batches: number;
  /** records written */
  records: number;
  /** bytes written */
  bytes: number;
}

export interface JournalOpenOptions {
  /** read the records only (plan, status): create nothing, and refuse appends */
  readOnly?: boolean;
  /** called with the records as read, before anything is written: what it throws refuses the open */
  check?: (records: readonly JournalRecord[]) => void;
  /**
   * the lock's check (FileLock.verify): called before every write and again once it is durable, so that a run
   * whose lock was taken from it writes nothing more, and acts on nothing it wrote meanwhile
   */
  fence?: () => Promise<void>;
}

/** What the engine needs of an open journal, whatever stores it (a file, PostgreSQL). */
export interface RunJournal {
  /** where it lives, for messages (a path, or a masked database address and key) */
  readonly file: string;
  readonly stats: JournalStats;
  /**
   * every record read at open, and the run-level records appended since (masked). Item records appended since
   * (intent, done, failed) are written, not kept: a 100,000-item step must not hold them all; what the engine needs
   * of them during a run it keeps itself.
   */
  readonly records: readonly JournalRecord[];
  /** Buffers a record; it is written with the next durable append, by a timer within ~50 ms, or on flush. */
  append(record: JournalRecord): void;
  /** Resolves once this record and every record before it are durable: call it before a side effect. */
  appendDurable(record: JournalRecord): Promise<void>;
  /** Makes whatever is buffered durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Records of one item of a step: written, not kept in memory once appended (see RunJournal.records). */
const ITEM_RECORDS: ReadonlySet<JournalRecordType> = new Set(['intent', 'done', 'failed']);

/**
 * Buffering and group commit shared by every journal store: records are masked and kept in order; concurrent
 * durable appends share one batch; plain appends ride along with the next batch or a short timer. A store
 * writes a batch all or nothing (`writeBatch`); after a failed batch every later call rejects with that error,
 * so a run whose state can no longer be written stops instead of acting without an intent on record.
 */
export abstract class GroupCommitJournal implements RunJournal {
  readonly stats: JournalStats = { batches: 0, records: 0, bytes: 0 };
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failure: StateError | undefined;
  private closed = false;

  protected constructor(
    readonly file: string,
    private readonly all: JournalRecord[],
    private readonly masker: Masker,
    private readonly writable: boolean,
  ) {}

  /** writes the lines (each a JSON record and a newline) durably, all or nothing; returns the bytes written */
  protected abstract writeBatch(lines: string[]): Promise<number>;
  /** the error a failed write becomes */
  protected abstract writeError(error: unknown): StateError;
  /** releases what the store holds open */
  protected abstract closeStore(): Promise<void>;

  get records(): readonly JournalRecord[] {
    return this.all;
  }

  append(record: JournalRecord): void {
    if (this.closed) throw new StateError(`the journal ${this.file} is closed`);
    if (!this.writable) throw new StateError(`the journal ${this.file} was opened read-only`);
    if (this.failure) throw this.failure;
    const masked = maskPayload(this.masker, record);
    if (!ITEM_RECORDS.has(masked.t)) this.all.push(masked);
    this.pending.push(`${JSON.stringify(masked)}\n`);
    if (this.timer === undefined && this.queued === undefined) {
      this.timer = setTimeout(() => this.flushInBackground(), GROUP_COMMIT_DELAY_MS);
      this.timer.unref();
    }
  }

  async appendDurable(record: JournalRecord): Promise<void> {
    this.append(record);
    return this.flush();
  }

  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    // A batch is already waiting for the one in flight: it will take everything buffered by then.
    if (this.queued) return this.queued;
    if (this.writing) {
      if (this.pending.length === 0) return this.writing;
      this.queued = this.writing.then(() => {
        this.queued = undefined;
        return this.startBatch();
      });
      return this.queued;
    }
    return this.startBatch();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.closeStore();
    }
  }

  private flushInBackground(): void {
    this.timer = undefined;
    this.flush().catch((error: unknown) => {
      // Kept: every later append, flush and close rejects with it.
      this.failure ??= error instanceof StateError ? error : this.writeError(error);
    });
  }

  private startBatch(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return Promise.resolve();
    const lines = this.pending;
    this.pending = [];
    const batch = this.writeBatch(lines).then(
      (bytes) => {
        this.writing = undefined;
        this.stats.batches++;
        this.stats.records += lines.length;
        this.stats.bytes += bytes;
      },
      (error: unknown) => {
        this.writing = undefined;
        this.failure = error instanceof StateError ? error : this.writeError(error);
        throw this.failure;
      },
    );
    this.writing = batch;
    return batch;
  }
}

/**
 * The open journal of a run directory. Open it for writing only while holding the run's lock: opening compacts
 * it (compactRecords: written whole beside it, then renamed over it), and appending truncates a torn last line
 * left by a crash.
 */
export class Journal extends GroupCommitJournal {
  private truncateTo: number | undefined;

  private constructor(
    file: string,
    private readonly handle: FileHandle | undefined,
    masker: Masker,
    parsed: ParsedJournal,
    private readonly fence: () => Promise<void>,
  ) {
    super(file, parsed.records, masker, handle !== undefined);
    this.truncateTo = parsed.tornBytes > 0 ? parsed.validBytes : undefined;
  }

  /** Creates the directory and the file as needed and reads the records already there. */
  static async open(dir: string, masker: Masker, options: JournalOpenOptions = {}): Promise<Journal> {
    const file = join(dir, JOURNAL_FILE);
    if (options.readOnly) {
      const bytes = await readBytes(file);
      const parsed =
        bytes === undefined ? { records: [], validBytes: 0, tornBytes: 0 } : parseJournal(bytes, file);
      options.check?.(parsed.records);
      return new Journal(file, undefined, masker, { ...parsed, tornBytes: 0 }, UNFENCED);
    }
    try {
      await ensurePrivateDir(dir);
    } catch (error) {
      throw ioError('cannot create the directory of the journal', file, error);
    }
    const bytes = await readBytes(file);
    let parsed =
      bytes === undefined ? { records: [], validBytes: 0, tornBytes: 0 } : parseJournal(bytes, file);
    options.check?.(parsed.records);
    const fence = options.fence ?? UNFENCED;
    const compacted = compactRecords(parsed.records);
    if (compacted) {
      await fence();
      // Written whole beside the journal, then renamed over it: a crash leaves the old or the new file.
      const text = compacted.map((r) => `${JSON.stringify(r)}\n`).join('');
      const temp = `${file}.compact.tmp`;
      try {
        await writeFile(temp, text, { mode: 0o600 });
        const h = await open(temp, 'r+');
        await h.datasync().finally(() => h.close());
        await rename(temp, file);
        await syncDirectory(dirname(file));
      } catch (error) {
        throw ioError('cannot compact the journal', file, error);
      }
      const size = Buffer.byteLength(text);
      parsed = { records: compacted, validBytes: size, tornBytes: 0 };
    }
    let handle: FileHandle;
    try {
      handle = await open(file, 'a', 0o600);
      // A new file is durable only once its directory entry is.
      if (bytes === undefined) await syncDirectory(dirname(file));
    } catch (error) {
      throw ioError('cannot open the journal', file, error);
    }
    return new Journal(file, handle, masker, parsed, fence);
  }

  protected writeError(error: unknown): StateError {
    return ioError('cannot write the journal', this.file, error);
  }

  protected async closeStore(): Promise<void> {
    await this.handle?.close();
  }

  /** One write and one fdatasync for the whole batch. */
  protected async writeBatch(lines: string[]): Promise<number> {
    const data = Buffer.from(lines.join(''), 'utf8');
    const handle = this.handle;
    if (!handle) throw new StateError(`the journal ${this.file} was opened read-only`);
    await this.fence();
    try {
      if (this.truncateTo !== undefined) {
        await handle.truncate(this.truncateTo);
        this.truncateTo = undefined;
      }
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
      await handle.datasync();
    } catch (error) {
      throw ioError('cannot write the journal', this.file, error);
    }
    // the lock may have been taken while the batch was written: then nothing in it is acted on
    await this.fence();
    return data.length;
  }
}

const UNFENCED = (): Promise<void> => Promise.resolve();

async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory as a file; NTFS makes the entry durable with the file.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
