import { spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stdioChannel, type StdioSystem } from './stdio.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

/** A system whose descriptor takes `accept(n)` bytes a write (or throws), and a stream that records its writes. */
function fakeSystem(options: { terminal?: boolean; accept?: (wanted: number, call: number) => number } = {}) {
  const direct: string[] = [];
  const streamed: string[] = [];
  let streamsTaken = 0;
  let calls = 0;
  const stream = Object.assign(new EventEmitter(), {
    columns: 132,
    write: (chunk: string | Uint8Array) => {
      streamed.push(Buffer.from(chunk).toString('utf8'));
      return true;
    },
  }) as unknown as NodeJS.WriteStream;
  const system: StdioSystem = {
    writeSync: (_fd, bytes, offset, length) => {
      const accepted = options.accept ? options.accept(length, calls++) : length;
      direct.push(Buffer.from(bytes.subarray(offset, offset + accepted)).toString('utf8'));
      return accepted;
    },
    mayBeTerminal: () => options.terminal === true,
    isatty: () => options.terminal === true,
    stream: () => {
      streamsTaken++;
      return stream;
    },
  };
  return { system, direct, streamed, stream, streamsTaken: () => streamsTaken };
}

describe('the CLI output channels', () => {
  it('write to a pipe or a file straight to the descriptor, in full, without taking Node’s stream', () => {
    // a descriptor that takes 3 bytes at a time: the rest is written until it is all out
    const fake = fakeSystem({ accept: (wanted) => Math.min(3, wanted) });
    const out = stdioChannel(1, fake.system);
    out.write('✔ valid\n');
    out.write('next\n');
    expect(fake.direct.join('')).toBe('✔ valid\nnext\n');
    expect(fake.streamsTaken()).toBe(0);
    expect(out.isTTY).toBe(false);
    expect(out.columns).toBeUndefined();
  });

  it('hand what is left to the stream when the descriptor would block (EAGAIN), and every later write too', () => {
    const fake = fakeSystem({
      accept: (wanted, call) => {
        if (call === 1) throw errno('EAGAIN');
        return call === 0 ? 4 : wanted;
      },
    });
    const out = stdioChannel(1, fake.system);
    out.write('first part\n');
    out.write('second\n');
    expect(fake.direct.join('')).toBe('firs');
    expect(fake.streamed.join('')).toBe('t part\nsecond\n');
  });

  it('stop writing, without an error, when the reader has gone away (EPIPE)', () => {
    const fake = fakeSystem({
      accept: () => {
        throw errno('EPIPE');
      },
    });
    const out = stdioChannel(1, fake.system);
    expect(() => out.write('lost\n')).not.toThrow();
    expect(() => out.write('lost too\n')).not.toThrow();
    expect(fake.streamed).toEqual([]);
    // and through the stream: its EPIPE is no crash either
    const taken = fakeSystem();
    const channel = stdioChannel(1, taken.system);
    expect(() => channel.stream().emit('error', errno('EPIPE'))).not.toThrow();
    expect(() => channel.stream().emit('error', errno('EIO'))).toThrow('EIO');
  });

  it('write to a terminal through Node’s stream, and say its width', () => {
    const fake = fakeSystem({ terminal: true });
    const out = stdioChannel(1, fake.system);
    out.write('hello\n');
    expect(fake.direct).toEqual([]);
    expect(fake.streamed).toEqual(['hello\n']);
    expect(out.isTTY).toBe(true);
    expect(out.columns).toBe(132);
    expect(fake.streamsTaken()).toBe(1);
  });

  it('write through the stream once something has taken it, so the order of writes holds', () => {
    const fake = fakeSystem();
    const out = stdioChannel(2, fake.system);
    out.write('one\n');
    const stream = out.stream();
    stream.write('two\n');
    out.write('three\n');
    expect(fake.direct).toEqual(['one\n']);
    expect(fake.streamed).toEqual(['two\n', 'three\n']);
  });

  it('end quietly when a real reader goes away early (`ledgerbook schema playbook | head -c 100`)', () => {
    const cli = join(import.meta.dirname, '../../dist/cli/main.js');
    // a shell's pipe (a Node parent's is a socket, whose buffer takes the whole schema); the schema is larger than
    // a pipe holds, so the CLI is still writing when head has read its 100 bytes and gone
    const result = spawnSync(
      'bash',
      ['-c', 'node "$0" schema playbook | head -c 100 > /dev/null; exit "${PIPESTATUS[0]}"', cli],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
