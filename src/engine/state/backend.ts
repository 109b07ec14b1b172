/**
 * Where runs keep their journal, run records and lock: the state directory (files, the default) or a
 * PostgreSQL database shared by several machines (`--state postgres://…` or LEDGERBOOK_STATE). Both meet one
 * contract, tested by one suite (test/state-contract.test.ts): records read back in order, intents durable
 * before a side effect, one run at a time per (playbook, target), a dead holder's lock taken over, a failed
 * write stops the run with nothing durable lost.
 */
import { UsageError } from '../../errors.js';
import type { JournalRecord, RunJournal } from '../journal.js';
import type { Lock, LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';
import type { StateCommand } from '../state-command.js';
import { hideUrlCredentials } from '../../url-credentials.js';
import { STATE_ENV } from '../../environment.js';

/** One run's identity in a state: the playbook's and the target's names. */
export interface RunKey {
  playbook: string;
  target: string;
}

export interface JournalOptions {
  /** read the records only; opened for writing, a journal is compacted first (see compactRecords) */
  readOnly?: boolean;
  lock?: Lock;
  /**
   * called with the records as read, before anything is written (compaction included): what it throws refuses
   * the open and leaves the journal as it was
   */
  check?: (records: readonly JournalRecord[]) => void;
}

/**
 * Who holds a key's lock: nobody; a holder that is `alive`, `gone` (its process or database session ended: the
 * next run takes the lock over) or `unknown` (a file lock taken on another host, which cannot be checked from
 * here); or a lock record that is not a ledgerbook lock.
 */
export type LockState =
  | { state: 'none' }
  | { state: 'held'; info: LockInfo; holder: 'alive' | 'gone' | 'unknown' }
  | { state: 'damaged'; where: string };

export type LockRequest = Omit<LockInfo, 'id' | 'at' | 'playbook' | 'target'>;

export interface StateBackend {
  /** where the state lives, for messages; never a password */
  readonly where: string;
  /**
   * One run at a time per key: the lock, or a LockedError (exit 75) naming the holder. `command` writes the
   * `ledgerbook state unlock …` a refusal tells the operator to run, when there is one to run.
   */
  acquireLock(key: RunKey, info: LockRequest, command?: StateCommand): Promise<Lock>;
  /**
   * The key's journal; open it for writing only while holding its lock, and pass that lock: a database
   * backend then writes on the lock's own connection, so a lost connection loses the lock and the writes
   * together, never one without the other.
   */
  openJournal(key: RunKey, masker: Masker, options?: JournalOptions): Promise<RunJournal>;
  inspectLock(key: RunKey): Promise<LockState>;
  /**
   * Removes the key's lock record and returns what it held. With `id`, only that lock; a holder that is
   * alive is refused (LockedError) unless the backend can tell it is not (see each backend).
   */
  unlock(key: RunKey, options?: { id?: string; force?: boolean }): Promise<LockInfo | undefined>;
  /** every key with a journal, sorted by playbook then target */
  listRuns(): Promise<RunKey[]>;
  close(): Promise<void>;
}

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** Query parameters of a connection string that carry a secret (libpq and pg read them). */
const SECRET_PARAMETERS = ['password', 'sslpassword'];

/** The secret values of a connection string (its password, wherever it is written), decoded. */
export function stateUrlSecrets(spec: string): string[] {
  try {
    const url = new URL(spec);
    const values = [
      decodeURIComponent(url.password),
      ...SECRET_PARAMETERS.flatMap((p) => url.searchParams.getAll(p)),
    ];
    return values.filter((v) => v !== '');
  } catch (error) {
    if (error instanceof TypeError || error instanceof URIError) return [];
    throw error;
  }
}

/** `password=…` and `sslpassword=…` in a query string, for connection strings no URL parser takes. */
const SECRET_PARAMETER_VALUES = new RegExp(`([?&](?:${SECRET_PARAMETERS.join('|')})=)[^&#]*`, 'gi');

/** A connection string with its password replaced by `***`, for messages. */
export function maskStateUrl(spec: string): string {
  try {
    const url = new URL(spec);
    if (url.password !== '') url.password = '***';
    for (const p of SECRET_PARAMETERS) if (url.searchParams.has(p)) url.searchParams.set(p, '***');
    return url.toString();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // Not parseable as a URL: hide everything between "://" and the last "@", and the password parameters.
    return spec.replace(/(:\/\/).*@/, '$1***@').replace(SECRET_PARAMETER_VALUES, '$1***');
  }
}

/**
 * Why `spec`, a `postgres://` connection string, cannot be used (a UsageError: a mistyped option is exit 64), or
 * nothing. The server side (host, user, database) is the driver's to check; this catches what would otherwise
 * fail inside it as a bug: a port that is not a number.
 */
export function checkStateUrl(spec: string): void {
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(spec)?.[1] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  for (const host of hosts.split(',')) {
    const port = /^(?:\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(host)?.[1];
    if (port === undefined || (/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
      continue;
    throw new UsageError(
      `--state (or ${STATE_ENV}): the port '${port}' of ${maskStateUrl(spec)} is not a port number`,
      'write postgres://user:password@host:5432/database (a port from 1 to 65535), or leave the port out for 5432',
    );
  }
}

/**
 * The command line as recorded in a lock (and shown by `status` and a refused run): `ledgerbook` and its
 * arguments, each connection string among them (`--state postgres://…`, `--state=postgres://…`) masked, and no
 * other URL with its credentials (an `--input` value).
 */
export function recordedCommand(argv: readonly string[]): string {
  const masked = argv.map((arg) => {
    const at = arg.search(/postgres(ql)?:\/\//i);
    return hideUrlCredentials(at < 0 ? arg : `${arg.slice(0, at)}${maskStateUrl(arg.slice(at))}`);
  });
  return ['ledgerbook', ...masked].join(' ');
}
