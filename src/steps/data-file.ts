/**
 * Data files a step reads itself (recipients, expected package lists, receipts): opened without blocking and
 * checked to be a regular file before a byte is read, so that a folder, a FIFO nobody writes to or a device such
 * as /dev/zero (directly or through a symlink) is refused at once instead of hanging the run or filling memory;
 * bounded in size; and decoded as strict UTF-8, with the line and column of the first byte that is not.
 */
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';
import { decodeUtf8 } from '../playbook/input-limits.js';

export class DataFileError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    /** where in the file, when the problem has a place (1-based) */
    readonly line?: number,
    readonly col?: number,
    /** the file system's code, when it refused to open the file (`ENOENT` …) */
    readonly code?: string,
  ) {
    super(message);
  }
}

const MiB = 1024 * 1024;

/** `1.5 MiB`, `300 bytes` */
export function sizeText(bytes: number): string {
  return bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`;
}

function whyNotOpened(error: NodeJS.ErrnoException): DataFileError {
  const refused = (message: string, hint?: string): DataFileError =>
    new DataFileError(message, hint, undefined, undefined, error.code);
  switch (error.code) {
    case 'ENOENT':
      return refused('no such file', 'check the path');
    case 'EACCES':
    case 'EPERM':
      return refused('permission denied', 'make the file readable by this user');
    case 'ELOOP':
      return refused('too many levels of symbolic links', 'point the path at the file itself');
    case 'ENOTDIR':
      return refused('a part of the path is not a folder', 'check the path');
    default:
      return refused(`cannot open it (${error.code ?? error.message})`);
  }
}

/**
 * An open file descriptor of the regular file at `path`, at most `maxBytes` long; a DataFileError says why not.
 * `O_NONBLOCK` makes opening a FIFO return at once (a plain open waits for a writer); fstat on the open file
 * then refuses it, with no window between the check and the read.
 */
export function openDataFile(path: string, maxBytes: number): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw whyNotOpened(error as NodeJS.ErrnoException);
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) throw new DataFileError('it is a folder, not a file', 'name a file in it');
    if (!info.isFile())
      throw new DataFileError(
        `it is not a regular file (${info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : 'a device'})`,
        'write the data to a file and name that file',
      );
    if (info.size > maxBytes)
      throw new DataFileError(
        `it is ${sizeText(info.size)}: more than the ${sizeText(maxBytes)} such a file can be`,
        'check that this is the right file',
      );
    return { fd, size: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The text of a small data file (strict UTF-8, a byte order mark dropped), read whole. */
export function readDataFile(path: string, maxBytes: number): string {
  const { fd, size } = openDataFile(path, maxBytes);
  let bytes: Buffer;
  try {
    // one byte more than fstat said: a file that grew past the limit since is refused too
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > maxBytes)
      throw new DataFileError(`it is more than the ${sizeText(maxBytes)} such a file can be`);
    if (length > size)
      throw new DataFileError('it changed while it was read', 'read it again once it is written');
    bytes = buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
  const decoded = decodeUtf8(path, bytes);
  const problem = decoded.diagnostics[0];
  if (problem !== undefined)
    throw new DataFileError(problem.message, problem.hint, problem.line, problem.col);
  return decoded.text;
}

/** What is at `path`, or undefined when nothing is (or a folder on the way is a file: the caller walks up to it). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Why a step could not write a file at `path` (absolute), or undefined when it can: the path is a folder, a
 * folder on the way is a file, or the file or the nearest existing folder (which the step creates the rest of) is
 * not writable. Checked before anything runs, so that a report at the end of a run does not fail after the money
 * moved.
 */
export function outputPathProblem(path: string): string | undefined {
  const existing = statOf(path);
  if (existing?.isDirectory()) return 'it is a folder';
  if (existing !== undefined && !existing.isFile()) return 'it is not a regular file';
  let folder = dirname(path);
  let info = statOf(folder);
  while (info === undefined && dirname(folder) !== folder) {
    folder = dirname(folder);
    info = statOf(folder);
  }
  if (info !== undefined && !info.isDirectory()) return `${folder} is a file, not a folder`;
  try {
    accessSync(existing === undefined ? folder : path, constants.W_OK);
  } catch (error) {
    return `${existing === undefined ? folder : 'it'} is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  return undefined;
}

/** A file as a person at this shell would name it: relative to the working directory when it lies below it. */
export function displayPath(absolute: string): string {
  const rel = relative(process.cwd(), absolute);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}
