/**
 * One run at a time per (playbook, target): `<runDir>/lock.json` says who holds it. It appears whole or not at
 * all: its content is written to a private temporary file that is then hard-linked to `lock.json`, which fails
 * if the lock exists — so a crash can leave a stray temporary file, never an empty lock. A
 * lock whose process is certainly gone (this host, dead pid) is taken over, so that running the same command
 * again resumes a run killed by SIGKILL or a crash; the new lock says whose it replaced. A lock held from
 * another host cannot be checked from here: it is refused with the command that clears it.
 */
import { randomUUID } from 'node:crypto';
import { fstatSync, readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, open, readFile, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LockedError, StateError } from '../errors.js';
import { fsProblem } from './fs-problem.js';
import { processExists } from './processes.js';
import { stateCommand, type StateCommand } from './state-command.js';

export interface LockInfo {
  id: string;
  pid: number;
  host: string;
  user: string;
  /** ISO-8601 time the lock was taken */
  at: string;
  /** the command line that holds it, e.g. `ledgerbook run playbooks/x.yaml --target testnet` */
  command: string;
  playbook: string;
  target: string;
}

export interface Lock {
  readonly info: LockInfo;
  /** the stale lock this one replaced (its process had died, or its run had lost the lock) */
  readonly replaced: LockInfo | undefined;
  /**
   * how long taking it waited for the run that held it before to finish what it had in flight (a run that lost
   * its lock while its process lived); 0 when there was nothing to wait for
   */
  readonly waitedMs?: number;
  /**
   * aborted when the lock is no longer held (a database session that ended, a lock file removed or taken by
   * another run); its reason is the error to stop with. From then on the journal refuses every write (it is
   * fenced: it checks the lock with each one), so the run can record nothing more; the engine starts nothing new
   * and gives what is in flight LOST_LOCK_GRACE_MS to finish before it cancels it.
   */
  readonly lost?: AbortSignal;
  /**
   * whether the lock can be removed while its holder lives (a lock file, by `state unlock --force`); then the
   * next run must ask the journal whether the run it would resume is still alive. A database session's lock
   * cannot be: holding it proves that no other run of the key lives.
   */
  readonly removableWhileHeld: boolean;
  /** removes the lock file if it is still this lock; idempotent */
  release(): Promise<void>;
  /** the same, synchronously, for process exit handlers */
  releaseSync(): void;
}

export const LOCK_FILE = 'lock.json';

/**
 * How long a run that lost its lock lets the items in flight finish (a submission answered, a command ended)
 * before it cancels them: the next holder waits for this process, and finds what it sent settled rather than cut
 * off in the middle.
 */
export const LOST_LOCK_GRACE_MS = 10_000;

/** A lock file held by this process: `verify` checks that it still is, before and after each journal write. */
export interface FileLock extends Lock {
  /** resolves while `lock.json` is still this lock; otherwise aborts `lost` and rejects with its reason */
  verify(): Promise<void>;
}

export function isFileLock(lock: Lock | undefined): lock is FileLock {
  return lock !== undefined && typeof (lock as Partial<FileLock>).verify === 'function';
}

/** A writer creates the file and fills it in one write; a reader may see it empty for that instant. */
const PARTIAL_READ_RETRIES = 5;
const PARTIAL_READ_DELAY_MS = 20;

/**
 * Takes the lock of the run directory `dir`. `command` writes the `ledgerbook state unlock …` a refusal tells
 * the operator to run (default: by the playbook's and target's names).
 */
export async function acquireLock(
  dir: string,
  info: Omit<LockInfo, 'id' | 'at'>,
  command: StateCommand = stateCommand({ playbook: info.playbook, target: info.target }),
): Promise<FileLock> {
  const full: LockInfo = { ...info, id: randomUUID(), at: new Date().toISOString() };
  const path = join(dir, LOCK_FILE);
  try {
    // the lock and the journal name the command line (with its --input values): private to this user
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw stateIoError(`cannot create the state directory ${dir}`, error, dir);
  }
  // A holder that releases between our failed create and our read leaves nothing to report: try again.
  let replaced: LockInfo | undefined;
  for (let tries = 0; tries < 3; tries++) {
    const created = await createExclusive(path, `${JSON.stringify(full, null, 2)}\n`);
    if (created) {
      await removeStrayTemporaries(dir);
      return heldLock(path, full, replaced, created);
    }
    const holder = await readLockSettled(path, command);
    if (holder && isStale(holder)) {
      // Only the exact stale lock is removed: a run that took it meanwhile keeps its own.
      await unlock(dir, holder.id).catch((error: unknown) => {
        if (!(error instanceof StateError)) throw error;
      });
      replaced = holder;
      continue;
    }
    if (holder) throw lockedError(holder, path, command);
  }
  throw new LockedError(
    `the lock ${path} is being taken and released by other runs right now`,
    'wait a moment and run the command again',
  );
}

/**
 * Creates `path` with `content` unless it exists: the open file on success (kept open while the lock is held, so
 * that `verify` can tell from it alone whether the lock file is still there), undefined when it exists.
 */
async function createExclusive(path: string, content: string): Promise<FileHandle | undefined> {
  // The pid in the name tells a crash's leftover (removeStrayTemporaries) from another run's file in flight.
  const temporary = `${path}.${process.pid}.${randomUUID()}${TEMPORARY_SUFFIX}`;
  const handle = await open(temporary, 'wx', 0o600).catch((error: unknown) => {
    throw stateIoError(`cannot create the lock file ${path}`, error, path);
  });
  let linked = false;
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
    await link(temporary, path);
    linked = true;
    return handle;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw stateIoError(`cannot create the lock file ${path}`, error, path);
  } finally {
    if (!linked) await handle.close();
    await unlink(temporary).catch(() => undefined);
  }
}

const TEMPORARY_SUFFIX = '.tmp';

/**
 * Removes temporary lock files a crash left behind (never the lock itself): those of processes that no longer
 * exist. A live process's temporary is a lock being taken at this moment: removing it would fail that run.
 */
export async function removeStrayTemporaries(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const strays = names.filter((name) => {
    if (!name.startsWith(`${LOCK_FILE}.`) || !name.endsWith(TEMPORARY_SUFFIX)) return false;
    const pid = Number(name.slice(LOCK_FILE.length + 1).split('.')[0]);
    // a name without a pid was written by an older version, which removed its own at once
    return !Number.isSafeInteger(pid) || pid <= 0 || !processExists(pid);
  });
  await Promise.all(strays.map((n) => unlink(join(dir, n)).catch(() => undefined)));
}

function heldLock(path: string, info: LockInfo, replaced: LockInfo | undefined, file: FileHandle): FileLock {
  let released = false;
  const lost = new AbortController();
  const close = (): void => {
    // the descriptor only; the lock file is removed (or not) by the caller
    void file.close().catch(() => undefined);
  };
  return {
    info,
    replaced,
    lost: lost.signal,
    removableWhileHeld: true,
    async verify() {
      if (lost.signal.aborted) throw lost.signal.reason;
      // The lock file is removed (`state unlock`), and another one linked in its place, never rewritten: while
      // the file this process created still has a name, it is this run's lock. One fstat of a descriptor held
      // open (synchronous: a round through the thread pool would cost more than the call), no path lookup.
      if (fstatSync(file.fd).nlink > 0) return;
      const current = parseLock(await readText(path));
      const now =
        current === undefined
          ? 'it was removed (`ledgerbook state unlock --force`)'
          : current === 'corrupt'
            ? 'another file, not a ledgerbook lock, is in its place'
            : `it is held now by ${describeHolder(current)}`;
      lost.abort(
        new StateError(
          `this run no longer holds its lock ${path}: ${now}. Nothing more is recorded, so the run stops`,
          'what it had in flight is left for the next run to reconcile: run the same command again once this process has ended',
        ),
      );
      throw lost.signal.reason;
    },
    async release() {
      if (released) return;
      released = true;
      try {
        const current = parseLock(await readText(path));
        if (current !== undefined && current !== 'corrupt' && current.id === info.id)
          await removeIfPresent(path);
      } finally {
        close();
      }
    },
    releaseSync() {
      if (released) return;
      released = true;
      close();
      let text: string | undefined;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      const current = parseLock(text);
      if (current === undefined || current === 'corrupt' || current.id !== info.id) return;
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    },
  };
}

/** The lock of the run directory `dir`, or undefined when nobody holds it. */
export async function readLock(dir: string): Promise<LockInfo | undefined> {
  const path = join(dir, LOCK_FILE);
  return readLockSettled(path);
}

/** What `lock.json` of `dir` holds: nothing, a lock, or something damaged (written by hand, or by an old version). */
export async function inspectLock(
  dir: string,
): Promise<{ state: 'none' } | { state: 'held'; info: LockInfo } | { state: 'damaged'; path: string }> {
  const path = join(dir, LOCK_FILE);
  const current = parseLock(await readText(path));
  if (current === undefined) return { state: 'none' };
  if (current === 'corrupt') return { state: 'damaged', path };
  return { state: 'held', info: current };
}

/** Reads the lock, waiting briefly when it is caught between creation and content; corrupt → StateError. */
async function readLockSettled(path: string, command?: StateCommand): Promise<LockInfo | undefined> {
  for (let tries = 0; ; tries++) {
    const current = parseLock(await readText(path));
    if (current !== 'corrupt') return current;
    if (tries >= PARTIAL_READ_RETRIES) throw corruptLockError(path, command);
    await new Promise((resolve) => setTimeout(resolve, PARTIAL_READ_DELAY_MS));
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw stateIoError(`cannot read the lock file ${path}`, error, path);
  }
}

/** undefined: no lock; 'corrupt': not a lock (or caught between creation and content). */
function parseLock(text: string | undefined): LockInfo | 'corrupt' | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return 'corrupt';
    throw error;
  }
  return isLockInfo(value) ? value : 'corrupt';
}

function isLockInfo(value: unknown): value is LockInfo {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === 'string' &&
    typeof v.pid === 'number' &&
    typeof v.host === 'string' &&
    typeof v.user === 'string' &&
    typeof v.at === 'string' &&
    typeof v.command === 'string' &&
    typeof v.playbook === 'string' &&
    typeof v.target === 'string'
  );
}

/** True when the holder ran on this host and its process no longer exists. Other hosts cannot be checked. */
export function isStale(info: LockInfo): boolean {
  return info.host === hostname() && !processExists(info.pid);
}

/**
 * Removes the lock of `dir` and returns what it held (undefined when there was none). With `id`, only that
 * lock is removed: a different holder is refused. An unreadable lock file is removed only without `id`.
 */
export async function unlock(dir: string, id?: string): Promise<LockInfo | undefined> {
  const path = join(dir, LOCK_FILE);
  const current = parseLock(await readText(path));
  if (current === undefined) return undefined;
  if (id !== undefined) {
    if (current === 'corrupt') {
      throw new StateError(
        `the lock file ${path} is unreadable, so its id cannot be checked against ${id}`,
        'run the unlock command without the lock id to remove it',
      );
    }
    if (current.id !== id) {
      throw new StateError(
        `the lock of ${current.playbook} on ${current.target} has id ${current.id}, not ${id}: it was taken again by ${describeHolder(current)}`,
        'check `ledgerbook status` and use the id it reports now',
      );
    }
  }
  await removeIfPresent(path);
  return current === 'corrupt' ? undefined : current;
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw stateIoError(`cannot remove the lock file ${path}`, error, path);
  }
}

/** Who holds a lock, `user@host`: a `user` that names the host already (`alice@build-7`, as runs record it) once. */
export function holderName(info: Pick<LockInfo, 'user' | 'host'>): string {
  return info.user.endsWith(`@${info.host}`) ? info.user : `${info.user}@${info.host}`;
}

/** `alice@build-7 (pid 42) since …, running \`ledgerbook run …\``: a lock's holder in a refusal. */
export function describeHolder(info: LockInfo): string {
  return `${holderName(info)} (pid ${info.pid}) since ${info.at}, running \`${info.command}\``;
}

/** The refusal a second run gets: who holds the lock, and what to do about it. */
export function lockedError(
  info: LockInfo,
  path: string,
  command: StateCommand = stateCommand({ playbook: info.playbook, target: info.target }),
): LockedError {
  const message = `${info.playbook} on target ${info.target} is locked by ${describeHolder(info)} (${path})`;
  if (info.host !== hostname()) {
    // a holder on another host cannot be checked from here: removing its lock takes --force
    return new LockedError(
      message,
      `it is held from another host (${info.host}): wait for that run to finish; if it is certainly gone, run \`${command('unlock', ['--id', info.id, '--force'])}\``,
    );
  }
  if (isStale(info)) {
    return new LockedError(
      message,
      `the process that held it is gone: run \`${command('unlock', ['--id', info.id])}\``,
    );
  }
  return new LockedError(message, `wait for it to finish, or stop it (pid ${info.pid})`);
}

function corruptLockError(path: string, command: StateCommand | undefined): StateError {
  return new StateError(
    `the lock file ${path} is not a ledgerbook lock (empty or damaged)`,
    command
      ? `make sure no run of this playbook and target is active, then remove it with \`${command('unlock', ['--force'])}\``
      : `make sure no run of this playbook and target is active, then remove the file`,
  );
}

function stateIoError(what: string, error: unknown, path: string): StateError {
  const problem = fsProblem(error, path);
  return new StateError(`${what}: ${problem.reason}`, problem.hint, error);
}
