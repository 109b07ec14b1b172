/**
 * The CLI's standard output and standard error: the one way ledgerbook writes to them (the linter refuses
 * `process.stdout` and `process.stderr` elsewhere in the CLI).
 *
 * To a pipe or a file, text goes straight to the file descriptor, in full, before `write` returns: `process.stdout`
 * would load Node's stream, net and tty modules for it, about a tenth of a cold `validate` or `--help`. A terminal,
 * or a caller that needs a stream (the live view, the guard of a CI runner's workflow commands), gets Node's stream,
 * and from then on every write goes through that stream, so the order of what is written stays the order of the
 * calls. A reader that goes away (`ledgerbook … | head`) ends the writing without an error, either way; a descriptor
 * the parent left non-blocking that fills up (EAGAIN) hands what is left to the stream, which waits for it.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';

/** where output is thrown away */
const DISCARD = '/dev/null';

export interface StdioChannel {
  /** whether it is a terminal */
  readonly isTTY: boolean;
  /** the terminal's width in columns; undefined when it is not a terminal */
  readonly columns: number | undefined;
  write(text: string): void;
  /** Node's stream, for what must have one; every later write goes through it */
  stream(): NodeJS.WriteStream;
}

/** What a channel needs of the system: Node's own functions, replaced in unit tests. */
export interface StdioSystem {
  writeSync(fd: number, bytes: Uint8Array, offset: number, length: number): number;
  /**
   * Whether the descriptor may be a terminal, told without loading Node's tty module: only a character device other
   * than /dev/null can be one (a pipe, a file, or output thrown away, as a spawner's `ignore` does, cannot).
   */
  mayBeTerminal(fd: number): boolean;
  isatty(fd: number): boolean;
  stream(fd: number): NodeJS.WriteStream;
}

const nodeSystem: StdioSystem = {
  writeSync: (fd, bytes, offset, length) => writeSync(fd, bytes, offset, length),
  mayBeTerminal: (fd) => {
    try {
      const device = fstatSync(fd);
      if (!device.isCharacterDevice()) return false;
      const discard = statSync(DISCARD, { throwIfNoEntry: false });
      return discard === undefined || device.dev !== discard.dev || device.ino !== discard.ino;
    } catch {
      return false;
    }
  },
  isatty: (fd) => process.getBuiltinModule('node:tty').isatty(fd),
  stream: (fd) => (fd === 1 ? process.stdout : process.stderr),
};

export function stdioChannel(fd: number, system: StdioSystem = nodeSystem): StdioChannel {
  let tty: boolean | undefined;
  let stream: NodeJS.WriteStream | undefined;
  let closed = false;

  const isTTY = (): boolean => (tty ??= system.mayBeTerminal(fd) && system.isatty(fd));
  const takeStream = (): NodeJS.WriteStream => {
    if (stream !== undefined) return stream;
    const taken = system.stream(fd);
    taken.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closed = true;
      taken.write = () => true;
    });
    return (stream = taken);
  };
  /** the bytes written straight to the descriptor, in full; the rest to the stream when the descriptor would block */
  const writeDirect = (text: string): void => {
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += system.writeSync(fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          takeStream().write(bytes.subarray(offset));
          return;
        }
        if (code === 'EPIPE') {
          closed = true;
          return;
        }
        throw error;
      }
    }
  };

  return {
    get isTTY() {
      return isTTY();
    },
    get columns() {
      return isTTY() ? takeStream().columns : undefined;
    },
    write(text) {
      if (closed || text === '') return;
      if (stream === undefined && !isTTY()) writeDirect(text);
      else takeStream().write(text);
    },
    stream: takeStream,
  };
}

export const stdout: StdioChannel = stdioChannel(1);
export const stderr: StdioChannel = stdioChannel(2);
