/** Picks the state backend from `--state` / LEDGERBOOK_STATE, or the state directory. */
import { UsageError } from '../../errors.js';
import type { Masker } from '../masker.js';
import { STATE_ENV, isPostgresUrl, maskStateUrl, type StateBackend } from './backend.js';
import { FileStateBackend } from './file.js';
import { PgStateBackend } from './postgres.js';

/** `--state` when given, else LEDGERBOOK_STATE, else undefined (the state directory). */
export function stateSpec(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const spec = option ?? env[STATE_ENV];
  return spec === undefined || spec === '' ? undefined : spec;
}

/**
 * Opens the state: PostgreSQL for a `postgres://` URL (connecting and migrating its schema), else the state
 * directory. The URL's password is handed to `masker` first, so that no message can show it.
 */
export async function openState(
  spec: string | undefined,
  stateDir: string,
  masker?: Masker,
): Promise<StateBackend> {
  if (spec === undefined) return new FileStateBackend(stateDir);
  if (!isPostgresUrl(spec)) {
    throw new UsageError(
      `--state (or ${STATE_ENV}) takes a PostgreSQL connection string, not "${maskStateUrl(spec)}"`,
      'write postgres://user:password@host:5432/database, or use --state-dir for a directory',
    );
  }
  const password = safePassword(spec);
  if (password) masker?.add(password);
  return PgStateBackend.open(spec);
}

function safePassword(spec: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(spec).password);
    return password === '' ? undefined : password;
  } catch (error) {
    if (error instanceof TypeError || error instanceof URIError) return undefined;
    throw error;
  }
}
