/** The state directory backend: `<stateDir>/<playbook>@<target>/journal.ndjson` and `lock.json`. */
import { Journal, type RunJournal } from '../journal.js';
import { acquireLock, readLock, type Lock, type LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';
import { listRunDirs, runDir } from '../state-dir.js';
import type { JournalOptions, RunKey, StateBackend } from './backend.js';

export class FileStateBackend implements StateBackend {
  readonly where: string;

  constructor(readonly stateDir: string) {
    this.where = stateDir;
  }

  dir(key: RunKey): string {
    return runDir(this.stateDir, key.playbook, key.target);
  }

  acquireLock(key: RunKey, info: Omit<LockInfo, 'id' | 'at' | 'playbook' | 'target'>): Promise<Lock> {
    return acquireLock(this.dir(key), { ...info, playbook: key.playbook, target: key.target });
  }

  openJournal(key: RunKey, masker: Masker, options: JournalOptions = {}): Promise<RunJournal> {
    return Journal.open(this.dir(key), masker, { readOnly: options.readOnly ?? false });
  }

  readLock(key: RunKey): Promise<LockInfo | undefined> {
    return readLock(this.dir(key));
  }

  async listRuns(): Promise<RunKey[]> {
    return (await listRunDirs(this.stateDir)).map(({ playbook, target }) => ({ playbook, target }));
  }

  async close(): Promise<void> {
    // nothing held open
  }
}
