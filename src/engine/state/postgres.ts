/**
 * The PostgreSQL state backend (`--state postgres://…`): the journals and the lock holders live in the schema
 * `ledgerbook`, created and migrated by the tool itself (versioned migrations, `ledgerbook state migrate`).
 *
 * A run holds one connection for its whole life. On it, a session advisory lock keyed by (playbook, target)
 * says that the run is alive: PostgreSQL releases it when the session ends, so a run killed by SIGKILL, or
 * whose machine vanished, never leaves it behind. A row in `ledgerbook.locks`, committed in the same
 * transaction that took the advisory lock, says who holds it (user, host, pid, command); a row whose advisory
 * lock no session holds belonged to a run that is gone and is taken over. The journal is written on the same
 * connection: a batch of records is one INSERT (all or nothing, committed — and so durable — before
 * `appendDurable` resolves). If the connection is lost, the lock went with it: every later write fails and
 * the lock's `lost` signal stops the run, so that nothing acts without a durable intent and a lock.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LockedError, StateError, UsageError } from '../../errors.js';
import { GroupCommitJournal, parseJournal, type JournalRecord, type RunJournal } from '../journal.js';
import { compactRecords } from '../journal-state.js';
import { describeHolder, holderName, type Lock, type LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';
import { runKey } from '../state-dir.js';
import {
  STATE_ENV,
  maskStateUrl,
  stateUrlSecrets,
  type JournalOptions,
  type LockRequest,
  type LockState,
  type RunKey,
  type StateBackend,
} from './backend.js';

export const PG_SCHEMA = 'ledgerbook';

/** Each migration runs once, in order, in one transaction with its version row. Never edit a shipped one. */
export const MIGRATIONS: ReadonlyArray<{ version: number; description: string; sql: string }> = [
  {
    version: 1,
    description: 'journals, their records, and lock holders',
    sql: `
      CREATE TABLE ${PG_SCHEMA}.journals (
        key text PRIMARY KEY,
        playbook text NOT NULL,
        target text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${PG_SCHEMA}.journal (
        key text NOT NULL REFERENCES ${PG_SCHEMA}.journals (key),
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

/** How long a refused run waits for the holder's row, when it meets a lock taken an instant before. */
export const HOLDER_WAIT_MS = 3000;

/** The advisory lock key of a run: a stable 64-bit hash computed by the server. */
const ADVISORY_KEY = `hashtextextended($1, 0)`;

/** True while the session that wrote the row `l` still holds the advisory lock of its key. */
const HOLDER_ALIVE = `EXISTS (
  SELECT 1 FROM pg_locks p
   WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 1 AND p.pid = l.backend_pid
     AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND ((p.classid::bigint << 32) | p.objid::bigint) = hashtextextended(l.key, 0))`;

export class PgStateBackend implements StateBackend {
  readonly where: string;
  private readonly secrets: string[];
  private readonly clients = new Set<pg.Client>();
  /** the migration versions applied when this backend was opened (none when the schema was current) */
  migrated: number[] = [];

  private constructor(private readonly url: string) {
    this.where = maskStateUrl(url);
    this.secrets = stateUrlSecrets(url);
  }

  /** Connects and brings the schema to SCHEMA_VERSION (refusing one written by a newer ledgerbook). */
  static async open(url: string): Promise<PgStateBackend> {
    const backend = new PgStateBackend(url);
    backend.migrated = await backend.migrate();
    return backend;
  }

  /** A StateError naming what failed and where, with the driver's message (never the password). */
  fail(what: string, error: unknown, where = this.where): StateError {
    if (error instanceof StateError || error instanceof LockedError) return error;
    return new StateError(
      `${what} (${where}): ${this.describe(error)}`,
      'check that the database is reachable and that its user may create tables in it; a run that lost its connection resumes when run again',
    );
  }

  /** The driver's message of `error`, with the connection string's secrets hidden. */
  describe(error: unknown): string {
    let detail = error instanceof Error ? error.message : String(error);
    for (const secret of this.secrets) detail = detail.replaceAll(secret, '***');
    return detail;
  }

  /** A new connection, closed with the backend. */
  async connect(applicationName = 'ledgerbook'): Promise<pg.Client> {
    let client: pg.Client;
    try {
      client = new pg.Client({
        connectionString: this.url,
        application_name: applicationName,
        keepAlive: true,
        connectionTimeoutMillis: 15_000,
      });
    } catch (error) {
      // the driver reads the connection string here: what it cannot read is the user's to fix, not a bug
      if (!(error instanceof TypeError)) throw error;
      throw new UsageError(
        `--state (or ${STATE_ENV}): cannot read the connection string ${this.where}: ${this.describe(error)}`,
        'write postgres://user:password@host:5432/database',
      );
    }
    // A connection that drops between queries emits 'error'; the next query on it rejects and says why, and a
    // lock's connection also aborts its `lost` signal (PgLock). Without a listener the process would crash.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw this.fail('cannot connect to the state database', error);
    }
    this.clients.add(client);
    return client;
  }

  /** @internal ends a connection (a lock's advisory lock goes with it) */
  async disconnect(client: pg.Client): Promise<void> {
    this.clients.delete(client);
    await client.end().catch(() => undefined);
  }

  /** Applies the missing migrations; returns the versions it applied. */
  async migrate(): Promise<number[]> {
    const client = await this.connect();
    try {
      // Already current: nothing to create, so a user without CREATE rights can still run.
      if ((await currentVersion(client)) === SCHEMA_VERSION) return [];
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
          `the state database ${this.where} has schema version ${newest}; this ledgerbook knows versions up to ${SCHEMA_VERSION}`,
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
      throw this.fail('cannot migrate the state schema', error);
    } finally {
      await this.disconnect(client);
    }
  }

  async acquireLock(key: RunKey, request: LockRequest): Promise<Lock> {
    const k = runKey(key.playbook, key.target);
    const info: LockInfo = {
      ...request,
      playbook: key.playbook,
      target: key.target,
      id: randomUUID(),
      at: new Date().toISOString(),
    };
    const client = await this.connect();
    try {
      // The holder row commits with the advisory lock: a run refused after this transaction finds it.
      await client.query('BEGIN');
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ADVISORY_KEY}) AS ok`, [
        k,
      ]);
      if (got.rows[0]?.ok !== true) {
        await client.query('ROLLBACK');
        throw lockedByOther(key, await this.waitForHolder(k, client), this.where);
      }
      // A row whose advisory lock was free belonged to a run that is gone: replace it and say so.
      const previous = await client.query<{ info: LockInfo }>(
        `DELETE FROM ${PG_SCHEMA}.locks WHERE key = $1 RETURNING info`,
        [k],
      );
      await client.query(
        `INSERT INTO ${PG_SCHEMA}.locks (key, info, backend_pid) VALUES ($1, $2, pg_backend_pid())`,
        [k, JSON.stringify(info)],
      );
      await client.query('COMMIT');
      return new PgLock(this, client, k, info, previous.rows[0]?.info);
    } catch (error) {
      await this.disconnect(client);
      throw this.fail('cannot take the lock', error);
    }
  }

  /**
   * The live holder of `key`. A run that has just taken the advisory lock commits its row an instant later:
   * wait for it (up to HOLDER_WAIT_MS) so that the refusal can name who holds the lock.
   */
  private async waitForHolder(key: string, client: pg.Client): Promise<LockInfo | undefined> {
    const deadline = Date.now() + HOLDER_WAIT_MS;
    for (;;) {
      const row = await readLockRow(client, key);
      if (row?.live) return row.info;
      if (Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async openJournal(key: RunKey, masker: Masker, options: JournalOptions = {}): Promise<RunJournal> {
    const k = runKey(key.playbook, key.target);
    const where = `${this.where} ${PG_SCHEMA}.journal key ${k}`;
    const shared = options.lock instanceof PgLock ? options.lock.connection : undefined;
    const client = shared ?? (await this.connect());
    try {
      let records = await readRecords(client, k, where);
      options.check?.(records);
      if (!options.readOnly) {
        await client.query(
          `INSERT INTO ${PG_SCHEMA}.journals (key, playbook, target) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`,
          [k, key.playbook, key.target],
        );
      }
      const compacted = options.readOnly ? undefined : compactRecords(records);
      if (compacted) {
        await replaceRecords(client, k, compacted);
        records = compacted;
      }
      return new PgJournal(this, where, records, masker, !options.readOnly, k, client, async () => {
        if (!shared) await this.disconnect(client);
      });
    } catch (error) {
      if (!shared) await this.disconnect(client);
      throw this.fail('cannot open the journal', error, where);
    }
  }

  async inspectLock(key: RunKey): Promise<LockState> {
    const client = await this.connect();
    try {
      const row = await readLockRow(client, runKey(key.playbook, key.target));
      if (!row) return { state: 'none' };
      return { state: 'held', info: row.info, holder: row.live ? 'alive' : 'gone' };
    } catch (error) {
      throw this.fail('cannot read the lock', error);
    } finally {
      await this.disconnect(client);
    }
  }

  /**
   * Removes the row of a holder that is gone (the next run would take it over anyway). A live holder's lock
   * belongs to its database session: no other session can release it, with or without force.
   */
  async unlock(key: RunKey, options: { id?: string; force?: boolean } = {}): Promise<LockInfo | undefined> {
    const found = await this.inspectLock(key);
    if (found.state !== 'held') return undefined;
    const { info } = found;
    if (found.holder === 'alive') {
      throw new LockedError(
        `the lock of ${key.playbook} on ${key.target} is held by the live database session of ${holderName(info)} (pid ${info.pid}, ${info.command})`,
        'stop that process: its lock ends with its session, even if it is killed. If its machine is gone but the session lingers, a database administrator can end it (pg_terminate_backend)',
      );
    }
    if (options.id !== undefined && options.id !== info.id) {
      throw new StateError(
        `the lock of ${key.playbook} on ${key.target} has id ${info.id}, not ${options.id}`,
        'check `ledgerbook status` and use the id it reports now',
      );
    }
    const client = await this.connect();
    try {
      await client.query(`DELETE FROM ${PG_SCHEMA}.locks WHERE key = $1 AND info->>'id' = $2`, [
        runKey(key.playbook, key.target),
        info.id,
      ]);
      return info;
    } catch (error) {
      throw this.fail('cannot remove the lock', error);
    } finally {
      await this.disconnect(client);
    }
  }

  async listRuns(): Promise<RunKey[]> {
    const client = await this.connect();
    try {
      const { rows } = await client.query<RunKey>(
        `SELECT playbook, target FROM ${PG_SCHEMA}.journals j
          WHERE EXISTS (SELECT 1 FROM ${PG_SCHEMA}.journal r WHERE r.key = j.key)`,
      );
      return rows.sort((a, b) => a.playbook.localeCompare(b.playbook) || a.target.localeCompare(b.target));
    } catch (error) {
      throw this.fail('cannot list the runs', error);
    } finally {
      await this.disconnect(client);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients].map((c) => this.disconnect(c)));
  }
}

async function currentVersion(client: pg.Client): Promise<number | undefined> {
  const { rows } = await client.query<{ present: boolean }>(
    `SELECT to_regclass('${PG_SCHEMA}.schema_migrations') IS NOT NULL AS present`,
  );
  if (rows[0]?.present !== true) return undefined;
  const version = await client.query<{ v: number | null }>(
    `SELECT max(version) AS v FROM ${PG_SCHEMA}.schema_migrations`,
  );
  return version.rows[0]?.v ?? undefined;
}

async function readLockRow(
  client: pg.Client,
  key: string,
): Promise<{ info: LockInfo; live: boolean } | undefined> {
  const { rows } = await client.query<{ info: LockInfo; live: boolean }>(
    `SELECT l.info, ${HOLDER_ALIVE} AS live FROM ${PG_SCHEMA}.locks l WHERE l.key = $1`,
    [key],
  );
  return rows[0];
}

async function readRecords(client: pg.Client, key: string, where: string): Promise<JournalRecord[]> {
  const { rows } = await client.query<{ record: string }>(
    `SELECT record FROM ${PG_SCHEMA}.journal WHERE key = $1 ORDER BY seq`,
    [key],
  );
  // The same checks as a journal file, each row a line: a damaged record is reported with its position.
  const text = rows.map((r) => `${r.record}\n`).join('');
  return parseJournal(Buffer.from(text, 'utf8'), where).records;
}

/** Rewrites a key's journal to `records` in one transaction (compaction): all of it or none. */
async function replaceRecords(client: pg.Client, key: string, records: JournalRecord[]): Promise<void> {
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
    throw error;
  }
}

/** One INSERT for the whole batch, in order: committed together or not at all. */
async function insertLines(client: pg.Client, key: string, lines: string[]): Promise<void> {
  await client.query(
    `INSERT INTO ${PG_SCHEMA}.journal (key, record)
       SELECT $1, r FROM unnest($2::text[]) WITH ORDINALITY AS u(r, n) ORDER BY n`,
    [key, lines],
  );
}

function lockedByOther(key: RunKey, holder: LockInfo | undefined, where: string): LockedError {
  const what = `${key.playbook} on target ${key.target}`;
  if (!holder) {
    return new LockedError(
      `${what} is locked in ${where} by a database session that has not recorded who holds it`,
      `wait a moment and run the command again; if this persists, another program holds the advisory lock of this key`,
    );
  }
  return new LockedError(
    `${what} is locked by ${describeHolder(holder)} (${where})`,
    'wait for that run to finish: the lock is held by its database session, so it is released as soon as that process ends, even by a crash; then run the same command again to resume',
  );
}

class PgLock implements Lock {
  readonly lost: AbortSignal;
  /** the advisory lock ends with its session only: while it is held, no other run of the key lives */
  readonly removableWhileHeld = false;
  private released = false;

  constructor(
    private readonly backend: PgStateBackend,
    private readonly client: pg.Client,
    private readonly key: string,
    readonly info: LockInfo,
    readonly replaced: LockInfo | undefined,
  ) {
    const controller = new AbortController();
    this.lost = controller.signal;
    const onLost = (error?: unknown): void => {
      if (this.released || controller.signal.aborted) return;
      controller.abort(
        new StateError(
          `lost the connection to the state database ${backend.where}${error === undefined ? '' : ` (${backend.describe(error)})`}: the run's lock ended with it, so the run stopped`,
          'nothing recorded is lost: run the same command again to resume (after checking the database is reachable)',
        ),
      );
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
  }

  /** The connection held by this lock (the run's connection). */
  get connection(): pg.Client {
    return this.client;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      if (!this.lost.aborted) {
        await this.client.query(`DELETE FROM ${PG_SCHEMA}.locks WHERE key = $1 AND info->>'id' = $2`, [
          this.key,
          this.info.id,
        ]);
      }
    } catch (error) {
      // Ending the session below releases the advisory lock whatever failed here; a row left behind is
      // stale (no session holds its lock) and the next run takes it over.
      if (!(error instanceof Error)) throw error;
    } finally {
      await this.backend.disconnect(this.client);
    }
  }

  releaseSync(): void {
    // The process is exiting: its connection closes with it, and the server releases the advisory lock.
    this.released = true;
  }
}

class PgJournal extends GroupCommitJournal {
  constructor(
    private readonly backend: PgStateBackend,
    where: string,
    records: JournalRecord[],
    masker: Masker,
    writable: boolean,
    private readonly key: string,
    private readonly client: pg.Client,
    private readonly done: () => Promise<void>,
  ) {
    super(where, records, masker, writable);
  }

  protected async writeBatch(lines: string[]): Promise<number> {
    const records = lines.map((l) => l.replace(/\n$/, ''));
    await insertLines(this.client, this.key, records);
    return records.reduce((n, l) => n + Buffer.byteLength(l), 0);
  }

  protected writeError(error: unknown): StateError {
    return this.backend.fail('cannot write the journal', error, this.file);
  }

  protected async closeStore(): Promise<void> {
    await this.done();
  }
}
