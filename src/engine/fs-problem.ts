/**
 * What a failed file-system call on the state means, in words: the disk is full, the place is read-only (a
 * read-only file system, or no permission to write), not only an errno. Node reports a directory that `mkdir -p`
 * cannot create on a read-only file system as ENOENT; the nearest existing folder tells why.
 */
import { accessSync, constants, statfsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';

export interface FsProblem {
  /** what happened, to read after the path it concerns: `… X: the disk is full (ENOSPC)` */
  reason: string;
  /** what to do */
  hint: string;
}

const RESUME = 'then run the same command again: the run resumes where it stopped';

/** Codes that say the place cannot be written. */
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);

/** Why `place` is read-only, for the codes of READ_ONLY. */
function readOnly(code: string): string {
  return code === 'EROFS'
    ? 'read-only: on a read-only file system (EROFS)'
    : `read-only for ${userInfo().username}: no permission to write (${code})`;
}

const READ_ONLY_HINT = 'make it writable (remount it read-write, chmod u+w), or give a writable --state-dir';

/** `error` from a call on `path` (a file or folder of the state); a folder above it that is the cause is named. */
export function fsProblem(error: unknown, path: string): FsProblem {
  let code = (error as NodeJS.ErrnoException).code ?? String(error);
  let place = path;
  if (code === 'ENOENT' && (error as NodeJS.ErrnoException).syscall === 'mkdir') {
    // mkdir -p on a read-only file system says ENOENT: ask the nearest folder that exists
    place = nearestExisting(path);
    code = writeProblem(place) ?? code;
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return {
      reason: code === 'ENOSPC' ? 'the disk is full (ENOSPC)' : 'the disk quota is used up (EDQUOT)',
      hint: `free space on the disk holding ${path}, ${RESUME}`,
    };
  }
  if (READ_ONLY.has(code)) {
    // a file not created yet: its folder is what is read-only
    place = nearestExisting(place);
    return { reason: `${place === path ? 'it' : place} is ${readOnly(code)}`, hint: READ_ONLY_HINT };
  }
  return {
    reason: code,
    hint: 'check the free space and the permissions of the state directory (--state-dir)',
  };
}

/**
 * Why a folder of the state cannot take writes now, or undefined: its disk is full, or it is read-only. For
 * `status`, about a run that stopped without recording its end.
 */
export function stateDirProblem(dir: string): FsProblem | undefined {
  const place = nearestExisting(dir);
  const code = writeProblem(place);
  if (code !== undefined) return { reason: `${place} is ${readOnly(code)}`, hint: READ_ONLY_HINT };
  let free: number;
  try {
    const fs = statfsSync(place);
    free = fs.bavail * fs.bsize;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOSYS') return undefined;
    throw error;
  }
  if (free >= FULL_BELOW_BYTES) return undefined;
  return {
    reason: `the disk holding ${place} is full (${free} bytes free)`,
    hint: `free space on it, ${RESUME}`,
  };
}

/** Less free space than this cannot hold a journal's next batch: the disk counts as full. */
const FULL_BELOW_BYTES = 64 * 1024;

function writeProblem(path: string): string | undefined {
  try {
    accessSync(path, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && READ_ONLY.has(code)) return code;
    if (code === 'ENOENT') return undefined;
    throw error;
  }
}

function nearestExisting(path: string): string {
  for (let current = path; ; current = dirname(current)) {
    try {
      statSync(current);
      return current;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return current;
      if (dirname(current) === current) return current;
    }
  }
}
