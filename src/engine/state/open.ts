/** Picks the state backend from `--state` / LEDGERBOOK_STATE, or the state directory. */
import { UsageError } from '../../errors.js';
import { MIN_SECRET_LENGTH, type Masker } from '../masker.js';
import { checkStateUrl, isPostgresUrl, stateUrlSecrets, type StateBackend } from './backend.js';
import { STATE_ENV } from '../../environment.js';
import { FileStateBackend } from './file.js';

/** `--state` when given, else LEDGERBOOK_STATE, else undefined (the state directory). */
export function stateSpec(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const spec = option ?? env[STATE_ENV];
  return spec === undefined || spec === '' ? undefined : spec;
}

/**
 * Opens the state: PostgreSQL for a `postgres://` URL (connecting and migrating its schema), else the state
 * directory. The URL's password is handed to `masker` first, so that no output can show it.
 */
export async function openState(
  spec: string | undefined,
  stateDir: string,
  masker?: Masker,
): Promise<StateBackend> {
  if (spec === undefined) return new FileStateBackend(stateDir);
  if (!isPostgresUrl(spec)) {
    // not echoed: a key=value connection string ("host=db password=…") would show its password
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1];
    throw new UsageError(
      `--state (or ${STATE_ENV}) takes a PostgreSQL connection string (postgres://…)${scheme ? `, not a ${scheme}:// URL` : ''}`,
      'write postgres://user:password@host:5432/database, or use --state-dir for a directory',
    );
  }
  checkStateUrl(spec);
  // Hidden in every message anyway (maskStateUrl, the driver's errors); a value too short to mask everywhere
  // would hide letters of ordinary words.
  for (const secret of stateUrlSecrets(spec)) if (secret.length >= MIN_SECRET_LENGTH) masker?.add(secret);
  // Loaded only for a database state, and after the HTTP clients: loading `pg` touches the global `Response`,
  // which makes Node install its own bundled undici as the process-wide dispatcher when nothing has yet, and
  // the clients' undici cannot dispatch through that one.
  const { PgStateBackend } = await import('./postgres.js');
  return PgStateBackend.open(spec);
}
