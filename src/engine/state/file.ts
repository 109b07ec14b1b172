/** The state directory backend: `<stateDir>/<playbook>@<target>/journal.ndjson` and `lock.json`. */
import { hostname } from 'node:os';
import { LockedError, StateError } from '../../errors.js';
import { Journal, type RunJournal } from '../journal.js';
import {
  acquireLock,
  holderName,
  inspectLock,
  isFileLock,
  isStale,
  unlock,
  type Lock,
  type LockInfo,
} from '../lock.js';
import type { Masker } from '../masker.js';
import type { StateCommand } from '../state-command.js';
import { listRunDirs, runDir } from '../state-dir.js';
import type { JournalOptions, LockRequest, LockState, RunKey, StateBackend } from './backend.js';

export class FileStateBackend implements StateBackend {
  readonly where: string;

  constructor(readonly stateDir: string) {
    this.where = stateDir;
  }

  dir(key: RunKey): string {
    return runDir(this.stateDir, key.playbook, key.target);
  }

  acquireLock(key: RunKey, info: LockRequest, command?: StateCommand): Promise<Lock> {
    return acquireLock(this.dir(key), { ...info, playbook: key.playbook, target: key.target }, command);
  }

  async openJournal(key: RunKey, masker: Masker, options: JournalOptions = {}): Promise<RunJournal> {
    const readOnly = options.readOnly ?? false;
    const lock = options.lock;
    if (!readOnly && !isFileLock(lock))
      throw new StateError(`the journal of ${key.playbook} on ${key.target} is written only under its lock`);
    return Journal.open(this.dir(key), masker, {
      readOnly,
      ...(options.check ? { check: options.check } : {}),
      // every write checks that the lock is still this run's (a lock file can be removed while its run lives)
      ...(!readOnly && isFileLock(lock) ? { fence: () => lock.verify() } : {}),
    });
  }

  async inspectLock(key: RunKey): Promise<LockState> {
    const found = await inspectLock(this.dir(key));
    if (found.state !== 'held')
      return found.state === 'none' ? found : { state: 'damaged', where: found.path };
    const holder = isStale(found.info) ? 'gone' : found.info.host === hostname() ? 'alive' : 'unknown';
    return { state: 'held', info: found.info, holder };
  }

  /** A live holder on this host, or one on another host (which cannot be checked), is removed only with force. */
  async unlock(key: RunKey, options: { id?: string; force?: boolean } = {}): Promise<LockInfo | undefined> {
    const found = await this.inspectLock(key);
    if (found.state === 'held' && found.holder !== 'gone' && options.force !== true) {
      const { info } = found;
      throw new LockedError(
        `the lock of ${key.playbook} on ${key.target} belongs to ${found.holder === 'alive' ? 'a live process' : 'a process on another host'}: ${holderName(info)}, pid ${info.pid} (${info.command})`,
        'stop that process first; --force removes the lock anyway (only if you are sure it is not running a step)',
      );
    }
    return unlock(this.dir(key), options.id);
  }

  async listRuns(): Promise<RunKey[]> {
    return (await listRunDirs(this.stateDir)).map(({ playbook, target }) => ({ playbook, target }));
  }

  async close(): Promise<void> {
    // nothing held open
  }
}
