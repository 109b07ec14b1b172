/**
 * Where runs keep their journal, run records and lock: the state directory (files, the default) or a
 * PostgreSQL database shared by several machines (`--state postgres://…` or LEDGERBOOK_STATE). Both meet one
 * contract, tested by one suite (state.contract.test.ts): records read back in order, intents durable before
 * a side effect, one run at a time per (playbook, target), a dead holder's lock taken over, a failed write stops
 * the run with nothing durable lost.
 */
import type { RunJournal } from '../journal.js';
import type { Lock, LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';

/** One run's identity in a state: the playbook's and the target's names. */
export interface RunKey {
  playbook: string;
  target: string;
}

export interface JournalOptions {
  readOnly?: boolean;
  lock?: Lock;
}

export interface StateBackend {
  /** where the state lives, for messages; never a password */
  readonly where: string;
  /** One run at a time per key: the lock, or a LockedError (exit 75) naming the holder. */
  acquireLock(key: RunKey, info: Omit<LockInfo, 'id' | 'at' | 'playbook' | 'target'>): Promise<Lock>;
  /**
   * The key's journal; open it for writing only while holding its lock, and pass that lock: a database
   * backend then writes on the lock's own connection, so a lost connection loses the lock and the writes
   * together, never one without the other.
   */
  openJournal(key: RunKey, masker: Masker, options?: JournalOptions): Promise<RunJournal>;
  /** who holds the key's lock now, if anyone */
  readLock(key: RunKey): Promise<LockInfo | undefined>;
  /** every key with a journal, sorted by playbook then target */
  listRuns(): Promise<RunKey[]>;
  close(): Promise<void>;
}

/** The environment variable that names the state when `--state` is not given. */
export const STATE_ENV = 'LEDGERBOOK_STATE';

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** A connection string with its password replaced by `***`, for messages. */
export function maskStateUrl(spec: string): string {
  try {
    const url = new URL(spec);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // Not parseable as a URL: hide everything between "://" and "@".
    return spec.replace(/(:\/\/)[^@/]*@/, '$1***@');
  }
}
