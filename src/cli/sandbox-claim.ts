/**
 * One sandbox per state dir. The simulated services keep their state under `<state dir>/sandbox`; two simulators on
 * the same files diverge (each holds its own ledger in memory). So whoever starts one — `ledgerbook sandbox up`, or
 * a `run`/`plan` without `--target` starting the built-in one for itself — first takes that folder's lock
 * (`lock.json`, src/engine/lock.ts): a second start is refused (exit 75) naming the holder, and a holder that died
 * (even by SIGKILL) is taken over by the next start, as a run's lock is.
 *
 * A `sandbox up` also says where it listens: `running.json` beside the lock, written once it listens and removed
 * when it stops, holds its lock's id and its target file's text. A run without `--target` uses that sandbox when
 * the lock still holds that id and its process lives; a file left by a killed one names a lock that is gone or
 * stale, and is ignored (and removed by the next start).
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockedError } from '../errors.js';
import { acquireLock, inspectLock, isStale, unlock, type Lock, type LockInfo } from '../engine/lock.js';
import { startedAfter } from '../engine/processes.js';
import { recordedCommand } from '../engine/state/backend.js';

/** Who holds a sandbox folder's lock (the lock's `playbook` field). */
export type SandboxRole = 'sandbox up' | 'built-in sandbox';

const RUNNING_FILE = 'running.json';

/** How long a run waits for a `sandbox up` that holds the lock but does not listen yet (it starts in seconds). */
const STARTING_WAIT_MS = 20_000;
const STARTING_POLL_MS = 200;

export interface RunningSandbox {
  /** the `sandbox up` process */
  holder: LockInfo;
  /** the target file `sandbox up` writes, as text: URLs, logins, the files its secrets are in */
  targetYaml: string;
}

interface RunningFile {
  lock: string;
  targetYaml: string;
}

function describe(info: LockInfo): string {
  const who = info.user.endsWith(`@${info.host}`) ? info.user : `${info.user}@${info.host}`;
  return `${who} (pid ${info.pid}) since ${info.at}, running \`${info.command}\``;
}

/**
 * Takes the lock of the sandbox folder `dir` for `role`, or refuses (exit 75) with who holds it and what to do. A
 * holder whose pid now belongs to a process started after the lock (the pid was reused) is gone: taken over.
 */
export async function claimSandbox(dir: string, role: SandboxRole): Promise<Lock> {
  const request = {
    pid: process.pid,
    host: hostname(),
    user: userInfo().username,
    command: recordedCommand(process.argv.slice(2)),
    playbook: role,
    target: 'sandbox',
  };
  for (let tries = 0; ; tries++) {
    try {
      const lock = await acquireLock(dir, request);
      // a file a killed `sandbox up` left names a lock that is gone now
      await unlink(join(dir, RUNNING_FILE)).catch(() => undefined);
      return lock;
    } catch (error) {
      if (!(error instanceof LockedError)) throw error;
      const found = await inspectLock(dir);
      const holder = found.state === 'held' ? found.info : undefined;
      if (holder && tries < 2 && holder.host === hostname() && startedAfter(holder.pid, holder.at)) {
        await unlock(dir, holder.id).catch(() => undefined);
        continue;
      }
      throw refusal(dir, role, holder, error);
    }
  }
}

function refusal(
  dir: string,
  role: SandboxRole,
  holder: LockInfo | undefined,
  error: LockedError,
): LockedError {
  if (holder === undefined) return error;
  const who = describe(holder);
  if (holder.playbook === 'sandbox up') {
    return new LockedError(
      `the sandbox of ${dir} is already running: ${who}`,
      role === 'sandbox up'
        ? 'use that one (a run or plan without --target uses it), or stop it first; for a second sandbox give this one another --state-dir'
        : 'it is not answering as a running sandbox yet; wait for it, or stop it and run again',
    );
  }
  return new LockedError(
    `the built-in sandbox of ${dir} is in use by another run: ${who}`,
    role === 'sandbox up'
      ? 'wait for that run to finish, then start the sandbox (runs without --target then use it); or give sandbox up another --state-dir'
      : 'wait for that run to finish; to run several playbooks at once, start one shared sandbox (`ledgerbook sandbox up`) in this state dir: runs without --target then use it',
  );
}

/** Says where the `sandbox up` holding `lock` listens: written once it listens, atomically. */
export async function publishRunning(dir: string, lock: Lock, targetYaml: string): Promise<void> {
  const content: RunningFile = { lock: lock.info.id, targetYaml };
  const temporary = join(dir, `${RUNNING_FILE}.${process.pid}.${randomUUID()}.tmp`);
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, join(dir, RUNNING_FILE));
}

/** Removes the running file (at a clean stop, before the lock is released). */
export async function unpublishRunning(dir: string): Promise<void> {
  await unlink(join(dir, RUNNING_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * The `sandbox up` of `dir`, when one holds the folder's lock: its target once it listens, waiting for it while
 * it starts. Undefined when the folder is free, held by a run's built-in sandbox, or held by a process that died.
 */
export async function runningSandbox(dir: string): Promise<RunningSandbox | undefined> {
  for (let waited = 0; ; waited += STARTING_POLL_MS) {
    const found = await inspectLock(dir);
    if (found.state !== 'held' || found.info.playbook !== 'sandbox up') return undefined;
    const holder = found.info;
    // from another host, or dead (or its pid given to another process since): not a sandbox to use
    if (holder.host !== hostname() || isStale(holder) || startedAfter(holder.pid, holder.at))
      return undefined;
    const running = await readRunning(dir);
    if (running?.lock === holder.id) return { holder, targetYaml: running.targetYaml };
    if (waited >= STARTING_WAIT_MS) return undefined;
    await sleep(STARTING_POLL_MS);
  }
}

async function readRunning(dir: string): Promise<RunningFile | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, RUNNING_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<RunningFile> | null;
    return typeof value?.lock === 'string' && typeof value.targetYaml === 'string'
      ? { lock: value.lock, targetYaml: value.targetYaml }
      : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
