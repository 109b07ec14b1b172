/**
 * The PostgreSQL state backend (`--state postgres://…`): the journal and the lock rows live in the schema
 * `ledgerbook`, created and migrated by the tool itself (versioned migrations, `ledgerbook state migrate`).
 *
 * A run holds one connection for its whole life. On it, a session advisory lock keyed by (playbook, target)
 * says that the run is alive: PostgreSQL releases it when the session ends, so a run killed by SIGKILL, or
 * whose machine vanished, never leaves it behind. A row in `ledgerbook.locks` says who holds it (user, host,
 * pid, command); a row whose advisory lock is free belonged to a run that is gone and is taken over. The
 * journal is written on the same connection: a batch of records is one INSERT (all or nothing, committed —
 * and so durable — before `appendDurable` resolves); if the connection is lost the lock is gone with it and
 * every later write fails, so the run stops before acting without a durable intent.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LockedError, StateError } from '../../errors.js';
import { GroupCommitJournal, parseJournal, type JournalRecord, type RunJournal } from '../journal.js';
import { compactRecords } from '../journal-state.js';
import type { Lock, LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';
import { runKey } from '../state-dir.js';
import { maskStateUrl, type JournalOptions, type RunKey, type StateBackend } from './backend.js';

export const PG_SCHEMA = 'ledgerbook';

/** Each migration runs once, in order, in one transaction with its version row. Never edit a shipped one. */
export const MIGRATIONS: ReadonlyArray<{ version: number; description: string; sql: string }> = [
  {
    version: 1,
    description: 'journal records and lock holders',
    sql: `
      CREATE TABLE ${PG_SCHEMA}.journal (
        key text NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        record text NOT NULL,
        PRIMARY KEY (key, seq)
      );
      CREATE TABLE ${PG_SCHEMA}.locks (
        key text PRIMARY KEY,
        info jsonb NOT NULL,
        backend_pid integer NOT NULL
      );`,
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** serialises concurrent migrations (any constant: it only has to be the same for every ledgerbook) */
const MIGRATION_LOCK = 0x1ed9e7b0;

function pgError(what: string, where: string, error: unknown): StateError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StateError(
    `${what} (${where}): ${detail}`,
    'check that the database is reachable and the user may create tables in it; a run that lost its connection resumes when run again',
    error,
  );
}

/** The advisory lock key of a run: a stable 64-bit hash computed by the server. */
const ADVISORY_KEY = `hashtextextended($1, 0)`;

export class PgStateBackend implements StateBackend {
  readonly where: string;
  private readonly clients = new Set<pg.Client>();

  private constructor(private readonly url: string) {
    this.where = maskStateUrl(url);
  }

  /** Connects and brings the schema to SCHEMA_VERSION (refusing one written by a newer ledgerbook). */
  static async open(url: string): Promise<PgStateBackend> {
    const backend = new PgStateBackend(url);
    backend.migrated = await backend.migrate();
    return backend;
  }

  /** the migration versions applied when this backend was opened (none when the schema was current) */
  migrated: number[] = [];

  /** A new connection, closed with the backend; errors after connect are kept for the next query. */
  async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    // A connection dropped between queries is reported by the next query; do not crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      throw pgError('cannot connect to the state database', this.where, error);
    }
    this.clients.add(client);
    return client;
  }

  private async disconnect(client: pg.Client): Promise<void> {
    this.clients.delete(client);
    await client.end().catch(() => undefined);
  }

  /** Applies the missing migrations; returns the versions it applied. */
  async migrate(): Promise<number[]> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${PG_SCHEMA}.schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${PG_SCHEMA}.schema_migrations`,
      );
      const applied = new Set(rows.map((r) => r.version));
      const newest = Math.max(0, ...applied);
      if (newest > SCHEMA_VERSION) {
        throw new StateError(
          `the state database ${this.where} has schema version ${newest}; this ledgerbook knows up to ${SCHEMA_VERSION}`,
          'upgrade ledgerbook to the version that migrated it, or newer',
        );
      }
      const done: number[] = [];
      for (const m of MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await client.query(m.sql);
        await client.query(
          `INSERT INTO ${PG_SCHEMA}.schema_migrations (version, description) VALUES ($1, $2)`,
          [m.version, m.description],
        );
        done.push(m.version);
      }
      await client.query('COMMIT');
      return done;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof StateError) throw error;
      throw pgError('cannot migrate the state schema', this.where, error);
    } finally {
      await this.disconnect(client);
    }
  }

  async acquireLock(key: RunKey, info: Omit<LockInfo, 'id' | 'at' | 'playbook' | 'target'>): Promise<Lock> {
    const k = runKey(key.playbook, key.target);
    const full: LockInfo = {
      ...info,
      playbook: key.playbook,
      target: key.target,
      id: randomUUID(),
      at: new Date().toISOString(),
    };
    const client = await this.connect();
    try {
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ADVISORY_KEY}) AS ok`, [
        k,
      ]);
      if (got.rows[0]?.ok !== true) {
        const holder = await this.readLock(key, client);
        throw lockedByOther(key, holder, this.where);
      }
      // A row whose advisory lock was free belonged to a run that is gone: replace it and say so.
      const previous = await client.query<{ info: LockInfo }>(
        `DELETE FROM ${PG_SCHEMA}.locks WHERE key = $1 RETURNING info`,
        [k],
      );
      await client.query(
        `INSERT INTO ${PG_SCHEMA}.locks (key, info, backend_pid) VALUES ($1, $2, pg_backend_pid())`,
        [k, JSON.stringify(full)],
      );
      return new PgLock(this, client, k, full, previous.rows[0]?.info);
    } catch (error) {
      await this.disconnect(client);
      if (error instanceof LockedError || error instanceof StateError) throw error;
      throw pgError('cannot take the lock', this.where, error);
    }
  }

  /** @internal ends a lock's connection (its advisory lock goes with it) */
  async releaseClient(client: pg.Client): Promise<void> {
    await this.disconnect(client);
  }

  async openJournal(key: RunKey, masker: Masker, options: JournalOptions = {}): Promise<RunJournal> {
    const k = runKey(key.playbook, key.target);
    const where = `${this.where} ${PG_SCHEMA}.journal key ${k}`;
    const shared = options.lock instanceof PgLock ? options.lock.connection : undefined;
    const client = shared ?? (await this.connect());
    try {
      let records = await readRecords(client, k, where);
      const compacted = options.readOnly ? undefined : compactRecords(records);
      if (compacted) {
        await replaceRecords(client, k, compacted, where);
        records = compacted;
      }
      return new PgJournal(where, records, masker, !options.readOnly, k, client, async () => {
        if (!shared) await this.disconnect(client);
      });
    } catch (error) {
      if (!shared) await this.disconnect(client);
      throw error;
    }
  }

  async readLock(key: RunKey, on?: pg.Client): Promise<LockInfo | undefined> {
    const k = runKey(key.playbook, key.target);
    const client = on ?? (await this.connect());
    try {
      const { rows } = await client.query<{ info: LockInfo; live: boolean }>(
        // live: the holder's session still holds the advisory lock
        `SELECT l.info, EXISTS (SELECT 1 FROM pg_locks p WHERE p.locktype = 'advisory' AND p.pid = l.backend_pid AND p.granted) AS live
           FROM ${PG_SCHEMA}.locks l WHERE l.key = $1`,
        [k],
      );
      const row = rows[0];
      return row && row.live ? row.info : undefined;
    } catch (error) {
      throw pgError('cannot read the lock', this.where, error);
    } finally {
      if (!on) await this.disconnect(client);
    }
  }

  async listRuns(): Promise<RunKey[]> {
    const client = await this.connect();
    try {
      const { rows } = await client.query<{ record: string }>(
        `SELECT DISTINCT ON (key) record FROM ${PG_SCHEMA}.journal ORDER BY key, seq`,
      );
      const keys = rows.map((r) => {
        const first = JSON.parse(r.record) as { playbook: string; target: string };
        return { playbook: first.playbook, target: first.target };
      });
      return keys.sort((a, b) => a.playbook.localeCompare(b.playbook) || a.target.localeCompare(b.target));
    } catch (error) {
      throw pgError('cannot list the runs', this.where, error);
    } finally {
      await this.disconnect(client);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients].map((c) => this.disconnect(c)));
  }
}

async function readRecords(client: pg.Client, key: string, where: string) {
  let rows: Array<{ record: string }>;
  try {
    ({ rows } = await client.query<{ record: string }>(
      `SELECT record FROM ${PG_SCHEMA}.journal WHERE key = $1 ORDER BY seq`,
      [key],
    ));
  } catch (error) {
    throw pgError('cannot read the journal', where, error);
  }
  // The same checks as a journal file: each row is one line.
  const text = rows.map((r) => (r.record.endsWith('\n') ? r.record : `${r.record}\n`)).join('');
  return parseJournal(Buffer.from(text, 'utf8'), where).records;
}

/** Rewrites a key's journal to `records` in one transaction (compaction). */
async function replaceRecords(
  client: pg.Client,
  key: string,
  records: JournalRecord[],
  where: string,
): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query(`DELETE FROM ${PG_SCHEMA}.journal WHERE key = $1`, [key]);
    await insertLines(
      client,
      key,
      records.map((r) => JSON.stringify(r)),
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw pgError('cannot compact the journal', where, error);
  }
}

async function insertLines(client: pg.Client, key: string, lines: string[]): Promise<void> {
  await client.query(
    `INSERT INTO ${PG_SCHEMA}.journal (key, record)
       SELECT $1, r FROM unnest($2::text[]) WITH ORDINALITY AS u(r, n) ORDER BY n`,
    [key, lines.map((l) => l.replace(/\n$/, ''))],
  );
}

function lockedByOther(key: RunKey, holder: LockInfo | undefined, where: string): LockedError {
  if (!holder) {
    return new LockedError(
      `${key.playbook} on target ${key.target} is locked in ${where} by a run that has not said who it is yet`,
      'wait a moment and run the command again',
    );
  }
  return new LockedError(
    `${key.playbook} on target ${key.target} is locked by ${holder.user}@${holder.host} (pid ${holder.pid}) since ${holder.at}, running \`${holder.command}\` (${where})`,
    'wait for that run to finish: the lock is held by its database session, so it is released as soon as that process ends, even by a crash',
  );
}

class PgLock implements Lock {
  readonly forced = undefined;
  private released = false;

  constructor(
    private readonly backend: PgStateBackend,
    private readonly client: pg.Client,
    private readonly key: string,
    readonly info: LockInfo,
    readonly replaced: LockInfo | undefined,
  ) {}

  /** The connection held by this lock (the run's connection). */
  get connection(): pg.Client {
    return this.client;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.client.query(`DELETE FROM ${PG_SCHEMA}.locks WHERE key = $1 AND info->>'id' = $2`, [
        this.key,
        this.info.id,
      ]);
      await this.client.query(`SELECT pg_advisory_unlock(${ADVISORY_KEY})`, [this.key]);
    } catch {
      // A lost connection already released the advisory lock; the row is then taken over as stale.
    } finally {
      await this.backend.releaseClient(this.client);
    }
  }

  releaseSync(): void {
    // The process is exiting: its connection closes with it, and the server releases the advisory lock.
    this.released = true;
  }
}

class PgJournal extends GroupCommitJournal {
  constructor(
    where: string,
    records: ReturnType<typeof parseJournal>['records'],
    masker: Masker,
    writable: boolean,
    private readonly key: string,
    private readonly client: pg.Client,
    private readonly done: () => Promise<void>,
  ) {
    super(where, records, masker, writable);
  }

  protected async writeBatch(lines: string[]): Promise<number> {
    await insertLines(this.client, this.key, lines);
    return lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  }

  protected writeError(error: unknown): StateError {
    return pgError('cannot write the journal', this.file, error);
  }

  protected async closeStore(): Promise<void> {
    await this.done();
  }
}
