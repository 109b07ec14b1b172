/**
 * Opening a playbook's state for a run: the lock, then the journal, refused before anything is written when
 * the state belongs to a run that is still alive (its lock removed by hand) or to another file with the same
 * `name:`.
 */
import type { JournalRecord, RunJournal } from './journal.js';
import { lastRun } from './journal-state.js';
import { isLive, liveRunError } from './live-run.js';
import type { Lock } from './lock.js';
import type { Masker } from './masker.js';
import { checkSamePlaybook } from './playbook-path.js';
import type { StateCommand } from './state-command.js';
import type { LockRequest, RunKey, StateBackend } from './state/backend.js';

export interface RunOwner {
  /** the playbook file as the command line named it */
  file: string;
  /** as every checkout names it (playbookPath) */
  path: string;
  /** `--fresh`: the state may be another file's; its run is abandoned */
  fresh: boolean;
}

/**
 * What the journal must hold to be carried on under `lock` (no run alive without it) and, with `owner`, by that
 * file (not another file's state): throws the refusal otherwise.
 */
export function stateCheck(
  state: StateBackend,
  lock: Lock | undefined,
  owner?: RunOwner,
): (records: readonly JournalRecord[]) => void {
  return (records) => {
    const last = lastRun(records);
    if (lock?.removableWhileHeld === true && isLive(last)) throw liveRunError(last, state.where);
    if (owner && !owner.fresh) checkSamePlaybook(last, owner, state.where);
  };
}

/** The run's lock and its journal, opened for writing; on a refusal the lock is released and nothing written. */
export async function openRun(
  state: StateBackend,
  key: RunKey,
  request: LockRequest,
  masker: Masker,
  owner: RunOwner,
  command?: StateCommand,
): Promise<{ lock: Lock; journal: RunJournal }> {
  const lock = await state.acquireLock(key, request, command);
  try {
    const journal = await state.openJournal(key, masker, { lock, check: stateCheck(state, lock, owner) });
    return { lock, journal };
  } catch (error) {
    await lock.release();
    throw error;
  }
}
