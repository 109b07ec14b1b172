/**
 * A run whose lock was removed by hand (`ledgerbook state unlock --force`) while its process lives is not a
 * stopped run: its steps may be applying right now. The journal's last `run` record names the process that
 * carries the run (pid and host); while it lives on this host, no other run of the playbook and target starts.
 * A database lock cannot be removed while its session lives, so only a lock file needs this check.
 */
import { hostname } from 'node:os';
import { LockedError } from '../errors.js';
import type { RunState } from './journal-state.js';
import { processExists, startedAfter } from './processes.js';

/** The unfinished run `last` when its process still lives on this host (and is not this process). */
export function isLive(last: RunState | undefined): last is RunState {
  return (
    last !== undefined &&
    last.status === 'running' &&
    last.host === hostname() &&
    last.pid !== process.pid &&
    processExists(last.pid) &&
    // a process that started after the run record is another one that was given the same pid
    !startedAfter(last.pid, last.invokedAt)
  );
}

/** The refusal (exit 75) of a run that meets a live run without a lock. */
export function liveRunError(last: RunState, where: string): LockedError {
  return new LockedError(
    `${last.playbook} on target ${last.target} is still being run by ${last.user} (pid ${last.pid}) since ${last.invokedAt}, run ${last.run} of ${last.file}, though its lock was removed (${where})`,
    `let that run finish, or stop it (kill -INT ${last.pid} lets its steps in flight finish), then run this command again to resume; until it ends no lock keeps other runs out, so start none by hand`,
  );
}
