/**
 * Files ledgerbook reads (playbooks, targets, secrets files, DARs, and the data files a step reads itself:
 * recipients, expected package lists, receipts): opened without blocking and
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
import { createHash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { decodeUtf8 } from './input-limits.js';

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
const CHUNK = 1024 * 1024;

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

export interface ReadOptions {
  /**
   * Read a FIFO too, as `cat` does (waiting for its writer): for files a person names on the command line, where
   * `<(command)` and `/dev/stdin` in a pipe are FIFOs. Devices, sockets and folders are refused either way.
   */
  pipes?: boolean;
  /**
   * A secrets file: never shown to the file source (a saved plan neither records a digest derived from secrets
   * nor holds the job that applies it to the credentials of the job that planned it).
   */
  secret?: boolean;
}

/**
 * Who sees the files a command reads (src/engine/plan-files.ts): the CLI installs one before it reads anything,
 * so that the playbook and target are parsed from the bytes it holds (a saved plan's, or the ones it read once),
 * `plan --out` records the digest of every data file a step reads, and `run plan.json` holds each to the plan
 * before its bytes are used. One per process: a command runs one playbook.
 */
export interface FileSource {
  /** the bytes to use instead of the file's, or undefined to read the file */
  contentOf(path: string): Buffer | undefined;
  /** whether `read` is to see every file's digest (a pass over each file: only when a saved plan needs them) */
  readonly digests: boolean;
  /**
   * The sha256 of the bytes about to be used, read from the file at `path`: recorded, or refused with a
   * DataFileError when they are not the bytes a saved plan was made with.
   */
  read(path: string, sha256: string, bytes: number): void;
}

let fileSource: FileSource | undefined;

/** Installs the file source of this command (undefined: files are read as they are). */
export function useFileSource(source: FileSource | undefined): void {
  fileSource = source;
}

function carried(path: string, maxBytes: number, options: ReadOptions): Buffer | undefined {
  const bytes = options.secret === true ? undefined : fileSource?.contentOf(path);
  if (bytes !== undefined && bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

/** The file source that is to see the digest of a file read with `options`, if any. */
function witness(options: ReadOptions): FileSource | undefined {
  return fileSource?.digests === true && options.secret !== true ? fileSource : undefined;
}

function witnessed(path: string, bytes: Buffer, options: ReadOptions): Buffer {
  const source = witness(options);
  if (source !== undefined) source.read(path, createHash('sha256').update(bytes).digest('hex'), bytes.length);
  return bytes;
}

/** The sha256 of an open regular file of `size` bytes, read at explicit positions: its offset stays at 0. */
function digestOfOpen(fd: number, size: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(CHUNK);
  for (let position = 0; position < size;) {
    const n = readSync(fd, chunk, 0, Math.min(CHUNK, size - position), position);
    if (n === 0) throw new DataFileError('it changed while it was read', 'read it again once it is written');
    hash.update(chunk.subarray(0, n));
    position += n;
  }
  return hash.digest('hex');
}

const OPEN_NOW = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * What the file opened at `path` is: a regular file of `size` bytes, or a pipe to be read to its end (`size`
 * undefined); a DataFileError for anything else. Files are opened with `O_NONBLOCK`, which makes opening a FIFO
 * return at once (a plain open waits for a writer), and checked with fstat on the open file, with no window
 * between the check and the read. A FIFO that may be read is opened plainly, waiting for its writer as `cat`
 * does (opened without blocking and then again, the data a writer left between the two would be lost).
 */
function readable(info: Stats, maxBytes: number, options: ReadOptions): { size: number | undefined } {
  if (info.isDirectory()) throw new DataFileError('it is a folder, not a file', 'name a file in it');
  if (info.isFIFO() && options.pipes === true) return { size: undefined };
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
  return { size: info.size };
}

/** An open file descriptor of the file at `path` (see `readable`), not yet shown to the file source. */
function openChecked(
  path: string,
  maxBytes: number,
  options: ReadOptions,
): { fd: number; size: number | undefined } {
  const pipe = options.pipes === true && isFifo(path);
  let fd: number;
  try {
    fd = openSync(path, pipe ? constants.O_RDONLY : OPEN_NOW);
  } catch (error) {
    throw whyNotOpened(error as NodeJS.ErrnoException);
  }
  try {
    return { fd, ...readable(fstatSync(fd), maxBytes, options) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** An open file descriptor of the file at `path` (see `readable`); the caller closes it. */
export function openDataFile(
  path: string,
  maxBytes: number,
  options: ReadOptions = {},
): { fd: number; size: number | undefined } {
  const opened = openChecked(path, maxBytes, options);
  const { fd, size } = opened;
  // a stream the caller reads: the file source sees its digest before the first byte is used
  const source = witness(options);
  if (source !== undefined && size !== undefined) {
    try {
      source.read(path, digestOfOpen(fd, size), size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  return opened;
}

/**
 * The sha256 and size of the regular file at `path`, read as a stream (any size): what a saved plan holds a
 * data file to. Not shown to the file source. A DataFileError says why it cannot be read.
 */
export function digestOfDataFile(path: string): { sha256: string; bytes: number } {
  const { fd, size } = openChecked(path, Number.MAX_SAFE_INTEGER, {});
  try {
    return { sha256: digestOfOpen(fd, size ?? 0), bytes: size ?? 0 };
  } finally {
    closeSync(fd);
  }
}

/** Chunks read to the end, refused beyond `maxBytes` or beyond the size fstat gave. */
class Collected {
  private readonly chunks: Buffer[] = [];
  private length = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly size: number | undefined,
  ) {}
  add(chunk: Buffer, n: number): void {
    this.length += n;
    if (this.length > this.maxBytes) throw tooLarge(this.maxBytes);
    if (this.size !== undefined && this.length > this.size)
      throw new DataFileError('it changed while it was read', 'read it again once it is written');
    this.chunks.push(chunk.subarray(0, n));
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** The bytes of a file, read whole, at most `maxBytes`; a DataFileError says why not. For static checks. */
export function readDataBytesSync(path: string, maxBytes: number, options: ReadOptions = {}): Buffer {
  const held = carried(path, maxBytes, options);
  if (held !== undefined) return held;
  const { fd, size } = openChecked(path, maxBytes, options);
  try {
    const collected = new Collected(maxBytes, size);
    for (;;) {
      const chunk = Buffer.alloc(CHUNK);
      const n = readSync(fd, chunk, 0, CHUNK, null);
      if (n === 0) return witnessed(path, collected.bytes(), options);
      collected.add(chunk, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** The same, without blocking the event loop. */
export async function readDataBytes(
  path: string,
  maxBytes: number,
  options: ReadOptions = {},
): Promise<Buffer> {
  const held = carried(path, maxBytes, options);
  if (held !== undefined) return held;
  const pipe = options.pipes === true && (await stat(path).catch(() => undefined))?.isFIFO() === true;
  let handle: FileHandle;
  try {
    handle = await open(path, pipe ? constants.O_RDONLY : OPEN_NOW);
  } catch (error) {
    throw whyNotOpened(error as NodeJS.ErrnoException);
  }
  try {
    const { size } = readable(await handle.stat(), maxBytes, options);
    const collected = new Collected(maxBytes, size);
    for (;;) {
      const chunk = Buffer.alloc(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, null);
      if (bytesRead === 0) return witnessed(path, collected.bytes(), options);
      collected.add(chunk, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** A FIFO at `path` (after symlinks); anything the open that follows will refuse better counts as not one. */
function isFifo(path: string): boolean {
  try {
    return statSync(path).isFIFO();
  } catch {
    return false;
  }
}

function tooLarge(maxBytes: number): DataFileError {
  return new DataFileError(
    `it is more than the ${sizeText(maxBytes)} such a file can be`,
    'check that this is the right file',
  );
}

function decoded(path: string, bytes: Buffer): string {
  const result = decodeUtf8(path, bytes);
  const problem = result.diagnostics[0];
  if (problem !== undefined)
    throw new DataFileError(problem.message, problem.hint, problem.line, problem.col);
  return result.text;
}

/** The text of a file (strict UTF-8, a byte order mark dropped), read whole. For static checks. */
export function readDataFileSync(path: string, maxBytes: number, options: ReadOptions = {}): string {
  return decoded(path, readDataBytesSync(path, maxBytes, options));
}

/** The same, without blocking the event loop. */
export async function readDataFile(
  path: string,
  maxBytes: number,
  options: ReadOptions = {},
): Promise<string> {
  return decoded(path, await readDataBytes(path, maxBytes, options));
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
