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
 *
 * Fencing. Taking the lock also increments the key's generation (`journals.generation`, in the same transaction),
 * and every journal write inserts only while the generation is still the run's (in the same statement, the row
 * read FOR SHARE): a run that lost its lock records nothing once another run has taken it, whatever connection
 * its writes arrive on. And a run holds a second session for as long as its process acts (an advisory lock on
 * the key's activity): a run that takes over the lock of one that lost it — its session ended while its process
 * still ran — waits until that process has finished the commands it had in flight and let the session go, so
 * that what it resubmits is decided by a settled ledger.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { LockedError, StateError, UsageError } from '../../errors.js';
import { GroupCommitJournal, parseJournal, type JournalRecord, type RunJournal } from '../journal.js';
import { compactRecords } from '../journal-state.js';
import { describeHolder, holderName, type Lock, type LockInfo } from '../lock.js';
import type { Masker } from '../masker.js';
import { runKey } from '../state-dir.js';
import { STATE_ENV } from '../../environment.js';
import {
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
  {
    version: 2,
    description: 'a lock generation (fencing token) per journal, checked by every journal write',
    sql: `ALTER TABLE ${PG_SCHEMA}.journals ADD COLUMN generation bigint NOT NULL DEFAULT 0;`,
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** serialises concurrent migrations (any constant: it only has to be the same for every ledgerbook) */
const MIGRATION_LOCK = 0x1ed9e7b0;

/** How long a refused run waits for the holder's row, when it meets a lock taken an instant before. */
export const HOLDER_WAIT_MS = 3000;

/**
 * How long a run taking the lock waits for the one that held it before — which lost it while its process lived —
 * to finish what it had in flight (that process gives it LOST_LOCK_GRACE_MS, then cancels it and ends).
 */
export const PREVIOUS_RUN_WAIT_MS = 30_000;

/** The advisory lock key of a run: a stable 64-bit hash computed by the server. */
const ADVISORY_KEY = `hashtextextended($1, 0)`;

/** The advisory lock a run's process holds, on a session of its own, for as long as it may act on the key. */
const ACTIVITY_KEY = `hashtextextended($1, 1)`;

/** The application name of a run's sessions: the lock's (and journal's), and the one saying its process acts. */
export const LOCK_SESSION = 'ledgerbook';
export const ACTIVITY_SESSION = 'ledgerbook (in flight)';

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

  private constructor(
    private readonly url: string,
    private readonly previousRunWaitMs: number,
  ) {
    this.where = maskStateUrl(url);
    this.secrets = stateUrlSecrets(url);
  }

  /**
   * Connects and brings the schema to SCHEMA_VERSION (refusing one written by a newer ledgerbook).
   * `previousRunWaitMs` (tests): how long taking a lock waits for a previous run that lost it.
   */
  static async open(url: string, options: { previousRunWaitMs?: number } = {}): Promise<PgStateBackend> {
    const backend = new PgStateBackend(url, options.previousRunWaitMs ?? PREVIOUS_RUN_WAIT_MS);
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
    const client = await this.connect(LOCK_SESSION);
    let lock: PgLock;
    try {
      // The holder row and the new generation commit with the advisory lock: a run refused after this
      // transaction finds the row, and a run that held the lock before can write nothing more.
      await client.query('BEGIN');
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${ADVISORY_KEY}) AS ok`, [
        k,
      ]);
      if (got.rows[0]?.ok !== true) {
        await client.query('ROLLBACK');
        throw lockedByOther(key, await this.waitForHolder(k, client), this.where);
      }
      const { rows } = await client.query<{ generation: string }>(
        `INSERT INTO ${PG_SCHEMA}.journals (key, playbook, target, generation) VALUES ($1, $2, $3, 1)
           ON CONFLICT (key) DO UPDATE SET generation = ${PG_SCHEMA}.journals.generation + 1
         RETURNING generation`,
        [k, key.playbook, key.target],
      );
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
      lock = new PgLock(this, client, k, info, previous.rows[0]?.info, String(rows[0]?.generation));
    } catch (error) {
      await this.disconnect(client);
      throw this.fail('cannot take the lock', error);
    }
    try {
      const { session, waitedMs } = await this.holdActivity(key, lock.replaced);
      lock.acting(session, waitedMs);
      return lock;
    } catch (error) {
      await lock.release();
      throw this.fail('cannot take the lock', error);
    }
  }

  /**
   * The session that says this process acts on `key`, once no earlier run's process does: a run that lost its
   * lock while its process lived keeps this session until it has finished what it had in flight (or its process
   * ends). Waits for it up to PREVIOUS_RUN_WAIT_MS, then refuses (exit 75) naming it.
   */
  private async holdActivity(
    key: RunKey,
    previous: LockInfo | undefined,
  ): Promise<{ session: pg.Client; waitedMs: number }> {
    const k = runKey(key.playbook, key.target);
    const session = await this.connect(ACTIVITY_SESSION);
    const started = Date.now();
    let waited = false;
    try {
      for (;;) {
        const { rows } = await session.query<{ ok: boolean }>(
          `SELECT pg_try_advisory_lock(${ACTIVITY_KEY}) AS ok`,
          [k],
        );
        if (rows[0]?.ok === true) return { session, waitedMs: waited ? Date.now() - started : 0 };
        if (Date.now() - started >= this.previousRunWaitMs) {
          const holder = await session.query<{ pid: number }>(
            `SELECT p.pid FROM pg_locks p
              WHERE p.locktype = 'advisory' AND p.granted AND p.objsubid = 1
                AND p.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND ((p.classid::bigint << 32) | p.objid::bigint) = ${ACTIVITY_KEY}`,
            [k],
          );
          throw previousRunActing(key, previous, holder.rows[0]?.pid, this.where, this.previousRunWaitMs);
        }
        waited = true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } catch (error) {
      await this.disconnect(session);
      throw error;
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
    const lock = options.lock instanceof PgLock ? options.lock : undefined;
    if (!options.readOnly && !lock)
      throw new StateError(`the journal of ${key.playbook} on ${key.target} is written only under its lock`);
    const shared = lock?.connection;
    const client = shared ?? (await this.connect());
    try {
      let records = await readRecords(client, k, where);
      options.check?.(records);
      const compacted = lock ? compactRecords(records) : undefined;
      if (lock && compacted) {
        await replaceRecords(client, k, compacted, lock);
        records = compacted;
      }
      return new PgJournal(this, where, records, masker, lock, k, client, async () => {
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

/** Rewrites a key's journal to `records` in one transaction (compaction): all of it or none, under `lock`. */
async function replaceRecords(
  client: pg.Client,
  key: string,
  records: JournalRecord[],
  lock: PgLock,
): Promise<void> {
  try {
    await client.query('BEGIN');
    const held = await client.query(
      `SELECT 1 FROM ${PG_SCHEMA}.journals WHERE key = $1 AND generation = $2::bigint FOR UPDATE`,
      [key, lock.generation],
    );
    if (held.rowCount !== 1) throw await lock.fenced();
    await client.query(`DELETE FROM ${PG_SCHEMA}.journal WHERE key = $1`, [key]);
    await insertLines(
      client,
      key,
      records.map((r) => JSON.stringify(r)),
      lock,
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * One INSERT for the whole batch, in order: committed together or not at all, and only while the key's
 * generation is still `lock`'s. The generation's row is read FOR SHARE in the same statement: a run taking the
 * lock (which increments it) waits for a batch in progress, and a batch arriving after it inserts nothing.
 */
async function insertLines(client: pg.Client, key: string, lines: string[], lock: PgLock): Promise<void> {
  if (lines.length === 0) return;
  const inserted = await client.query(
    `INSERT INTO ${PG_SCHEMA}.journal (key, record)
       SELECT $1, r FROM unnest($2::text[]) WITH ORDINALITY AS u(r, n)
        WHERE EXISTS (SELECT 1 FROM ${PG_SCHEMA}.journals j
                       WHERE j.key = $1 AND j.generation = $3::bigint FOR SHARE)
        ORDER BY n`,
    [key, lines, lock.generation],
  );
  if (inserted.rowCount !== lines.length) throw await lock.fenced();
}

/**
 * Whether a query failed because its session ended: the server terminated it (SQLSTATE class 57P: an
 * administrator, a shutdown) or the connection failed (class 08, or no SQLSTATE at all: the socket closed or
 * reset), rather than because of the query itself.
 */
function sessionEnd(error: unknown): boolean {
  if (error instanceof StateError) return false;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
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

function previousRunActing(
  key: RunKey,
  previous: LockInfo | undefined,
  sessionPid: number | undefined,
  where: string,
  waitedMs: number,
): LockedError {
  const who = previous ? describeHolder(previous) : 'an earlier run';
  const session =
    sessionPid === undefined ? '' : ` (its database session, backend pid ${sessionPid}, says so)`;
  return new LockedError(
    `${key.playbook} on target ${key.target}: ${who} lost its lock while it ran and has not finished the commands it had in flight after ${waitedMs / 1000} s${session} (${where})`,
    `wait for that process to end, then run the same command again: it resumes and settles what was in flight${sessionPid === undefined ? '' : `. If its machine is gone and the session lingers, a database administrator can end it: SELECT pg_terminate_backend(${sessionPid})`}`,
  );
}

class PgLock implements Lock {
  readonly lost: AbortSignal;
  /** the advisory lock ends with its session only: while it is held, no other run of the key lives */
  readonly removableWhileHeld = false;
  waitedMs = 0;
  private released = false;
  private readonly controller = new AbortController();
  /** the session that says this process acts on the key (see holdActivity) */
  private activity: pg.Client | undefined;

  constructor(
    private readonly backend: PgStateBackend,
    private readonly client: pg.Client,
    private readonly key: string,
    readonly info: LockInfo,
    readonly replaced: LockInfo | undefined,
    /** the key's generation this lock took: the fencing token of every journal write */
    readonly generation: string,
  ) {
    this.lost = this.controller.signal;
    client.on('error', (error: unknown) => this.sessionEnded(error));
    client.on('end', () => this.sessionEnded());
  }

  /** The connection held by this lock (the run's connection). */
  get connection(): pg.Client {
    return this.client;
  }

  /** @internal the session of holdActivity, held until the lock is released */
  acting(session: pg.Client, waitedMs: number): void {
    this.activity = session;
    this.waitedMs = waitedMs;
    // without it, a run taking over after this one lost its lock would not wait for this process
    session.on('error', (error: unknown) => this.sessionEnded(error));
    session.on('end', () => this.sessionEnded());
  }

  /**
   * The error a write on this lock's connection failed with: when the session ended (the write was on it when
   * it was terminated, before the connection reports its end), the lock is lost and its reason is the error.
   */
  writeFailed(error: unknown): StateError | undefined {
    if (!sessionEnd(error)) return undefined;
    this.sessionEnded(error);
    return this.lost.aborted ? (this.lost.reason as StateError) : undefined;
  }

  private sessionEnded(error?: unknown): void {
    this.markLost(
      new StateError(
        `lost the connection to the state database ${this.backend.where}${error === undefined ? '' : ` (${this.backend.describe(error)})`}: the run's lock ended with it, so the run stopped; it recorded nothing more and let what was in flight finish`,
        'nothing recorded is lost: run the same command again to resume (after checking the database is reachable)',
      ),
    );
  }

  private markLost(reason: StateError): void {
    if (this.released || this.controller.signal.aborted) return;
    this.controller.abort(reason);
  }

  /**
   * The error of a journal write refused because the key's generation is no longer this lock's: another run took
   * the lock. The lock is lost from then on.
   */
  async fenced(): Promise<StateError> {
    const holder = await readLockRow(this.client, this.key).catch(() => undefined);
    this.markLost(
      new StateError(
        `this run no longer holds its lock (${this.backend.where}): ${holder ? `${describeHolder(holder.info)} took it` : 'another run took it'}. Nothing more is recorded, so the run stops`,
        'what this run had in flight is settled by the run that holds the lock now (it waits for this process); see `ledgerbook status`',
      ),
    );
    return this.lost.reason as StateError;
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
      // last: a run waiting to take over starts once this process acts no more
      if (this.activity) await this.backend.disconnect(this.activity);
    }
  }

  releaseSync(): void {
    // The process is exiting: its connections close with it, and the server releases the advisory locks.
    this.released = true;
  }
}

class PgJournal extends GroupCommitJournal {
  constructor(
    private readonly backend: PgStateBackend,
    where: string,
    records: JournalRecord[],
    masker: Masker,
    /** the lock it is written under; none: read-only */
    private readonly lock: PgLock | undefined,
    private readonly key: string,
    private readonly client: pg.Client,
    private readonly done: () => Promise<void>,
  ) {
    super(where, records, masker, lock !== undefined);
  }

  protected async writeBatch(lines: string[]): Promise<number> {
    const records = lines.map((l) => l.replace(/\n$/, ''));
    if (!this.lock) throw new StateError(`the journal ${this.file} was opened read-only`);
    await insertLines(this.client, this.key, records, this.lock);
    return records.reduce((n, l) => n + Buffer.byteLength(l), 0);
  }

  protected writeError(error: unknown): StateError {
    return this.lock?.writeFailed(error) ?? this.backend.fail('cannot write the journal', error, this.file);
  }

  protected async closeStore(): Promise<void> {
    await this.done();
  }
}
