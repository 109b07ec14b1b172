/** What this host can tell about a process that a lock or a journal names by its pid. */
import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid exists on this host (EPERM: it does, under another user). A zombie does not: it
 * has exited (SIGKILL included), only its parent has not collected it yet, which can take seconds.
 */
export function processExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    if (code === 'EPERM') return true;
    throw error;
  }
  return procState(pid) !== 'Z';
}

/** The state letter of /proc/<pid>/stat (R, S, D, Z…); undefined where there is no /proc. */
function procState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH') return undefined;
    throw error;
  }
  // `pid (comm) state …`: comm may hold spaces and parentheses
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux architecture). */
const USER_HZ = 100;
/** /proc's boot time has whole seconds: a start within this of `since` is not certainly after it. */
const START_SLACK_MS = 2000;

/**
 * Whether the process `pid` certainly started after `since` (an ISO time): then it is not the process that was
 * running at that time, but a later one that was given the same pid. Known on Linux (/proc); elsewhere, and
 * when /proc cannot say, false.
 */
export function startedAfter(pid: number, since: string): boolean {
  const at = Date.parse(since);
  if (Number.isNaN(at)) return false;
  const started = startTime(pid);
  return started !== undefined && started > at + START_SLACK_MS;
}

/** The start time of a process (ms since the epoch), from /proc; undefined where there is no /proc. */
function startTime(pid: number): number | undefined {
  let stat: string;
  let bootSeconds: number;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!boot) return undefined;
    bootSeconds = Number(boot[1]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH') return undefined;
    throw error;
  }
  // `pid (comm) state …`: comm may hold spaces and parentheses; the 22nd field, starttime, counts from after it
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? bootSeconds * 1000 + (ticks * 1000) / USER_HZ : undefined;
}
