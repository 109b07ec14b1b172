import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockedError, StateError } from '../errors.js';
import {
  LOCK_FILE,
  acquireLock,
  isStale,
  lockedError,
  readLock,
  removeStrayTemporaries,
  unlock,
} from './lock.js';
import type { LockInfo } from './lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const holder = {
  pid: process.pid,
  host: hostname(),
  user: 'alice',
  command: 'ledgerbook run playbooks/onboard-party.yaml --target testnet',
  playbook: 'onboard-party',
  target: 'testnet',
};

async function refusal(promise: Promise<unknown>): Promise<LockedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LockedError);
  return error as LockedError;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await once(child, 'exit');
  expect(child.pid).toBeTypeOf('number');
  return child.pid as number;
}

describe('acquireLock', () => {
  it('refuses a second acquire and says who holds the lock and since when', async () => {
    const runDir = join(dir, 'onboard-party@testnet');
    const first = await acquireLock(runDir, holder);
    expect(first.info).toMatchObject(holder);
    const error = await refusal(acquireLock(runDir, { ...holder, user: 'bob', pid: 1 }));
    expect(error.code).toBe('LB_LOCKED');
    expect(error.exitCode).toBe(75);
    expect(error.message).toContain(`alice@${hostname()}`);
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(first.info.at);
    expect(error.message).toContain(holder.command);
    expect(error.hint).toBe(`wait for it to finish, or stop it (pid ${process.pid})`);
    await first.release();
    const second = await acquireLock(runDir, holder);
    expect(second.info.id).not.toBe(first.info.id);
    await second.release();
  });

  it('writes who holds it into lock.json', async () => {
    const lock = await acquireLock(dir, holder);
    const onDisk = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as LockInfo;
    expect(onDisk).toEqual(lock.info);
    expect(await readLock(dir)).toEqual(lock.info);
    await lock.release();
    expect(await readLock(dir)).toBeUndefined();
  });

  it('takes over a lock whose process is gone on this host, and says whose it replaced', async () => {
    const pid = await deadPid();
    const stale: LockInfo = { ...holder, pid, id: 'abc-123', at: '2025-01-01T00:00:00.000Z' };
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(stale));
    expect(isStale(stale)).toBe(true);
    expect(isStale({ ...stale, pid: process.pid })).toBe(false);
    const lock = await acquireLock(dir, holder);
    expect(lock.replaced).toEqual(stale);
    expect(await readLock(dir)).toEqual(lock.info);
    await lock.release();
  });

  it('explains a stale lock with the command that clears it', async () => {
    const pid = await deadPid();
    const stale: LockInfo = { ...holder, pid, id: 'abc-123', at: '2025-01-01T00:00:00.000Z' };
    expect(lockedError(stale, join(dir, LOCK_FILE)).hint).toBe(
      'the process that held it is gone: run `ledgerbook state unlock onboard-party --target testnet --id abc-123`',
    );
  });

  it('cannot tell about another host, and says so', async () => {
    const remote: LockInfo = {
      ...holder,
      host: 'elsewhere.example',
      id: 'r-1',
      at: '2025-01-01T00:00:00.000Z',
    };
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(remote));
    expect(isStale(remote)).toBe(false);
    const error = await refusal(acquireLock(dir, holder));
    expect(error.hint).toContain('held from another host (elsewhere.example)');
    expect(error.hint).toContain('`ledgerbook state unlock onboard-party --target testnet --id r-1 --force`');
  });

  it('reports a damaged lock file as a state problem with the unlock command', async () => {
    await writeFile(join(dir, LOCK_FILE), '');
    const error = await acquireLock(dir, holder).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).hint).toContain(
      '`ledgerbook state unlock onboard-party --target testnet --force`',
    );
  });
});

describe('release', () => {
  it('removes only its own lock', async () => {
    const lock = await acquireLock(dir, holder);
    const theirs: LockInfo = { ...holder, id: 'someone-else', at: '2025-01-01T00:00:00.000Z' };
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(theirs));
    await lock.release();
    expect(await readLock(dir)).toEqual(theirs);
  });

  it('releaseSync removes it for exit handlers, once', async () => {
    const lock = await acquireLock(dir, holder);
    lock.releaseSync();
    expect(await readLock(dir)).toBeUndefined();
    lock.releaseSync();
    await lock.release();
  });
});

describe('unlock', () => {
  it('removes the lock and returns what it held; with a wrong id it refuses', async () => {
    const lock = await acquireLock(dir, holder);
    await expect(unlock(dir, 'not-the-id')).rejects.toSatisfy(
      (e: unknown) =>
        e instanceof StateError && e.message.includes(lock.info.id) && e.message.includes('not-the-id'),
    );
    expect(await readLock(dir)).toEqual(lock.info);
    expect(await unlock(dir, lock.info.id)).toEqual(lock.info);
    expect(await readLock(dir)).toBeUndefined();
    expect(await unlock(dir)).toBeUndefined();
  });

  it('removes a damaged lock file when no id is given', async () => {
    await writeFile(join(dir, LOCK_FILE), '{"half');
    await expect(unlock(dir, 'x')).rejects.toBeInstanceOf(StateError);
    expect(await unlock(dir)).toBeUndefined();
    const lock = await acquireLock(dir, holder);
    await lock.release();
  });
});

describe('temporary lock files', () => {
  it('a crash leftover (its process is gone) is removed; one of a run taking the lock right now is kept', async () => {
    const dead = `${LOCK_FILE}.${await deadPid()}.a.tmp`;
    const live = `${LOCK_FILE}.${process.pid}.b.tmp`;
    for (const name of [dead, live]) await writeFile(join(dir, name), '{}');
    await removeStrayTemporaries(dir);
    expect(await readdir(dir)).toEqual([live]);
  });

  it('eight runs of one process taking the lock at once: one wins, seven are refused naming it', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => acquireLock(dir, { ...holder, user: `u${i}` })),
    );
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(LockedError);
    await won[0]?.release();
    expect(await readdir(dir)).toEqual([]);
  });
});
