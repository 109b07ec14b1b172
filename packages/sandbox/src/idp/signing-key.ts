/**
 * The identity provider's signing key: generated at start, or kept in the sandbox's state dir so that a restarted
 * sandbox signs with the same key and tokens issued before the restart still verify.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { stateError } from '../errors.js';

export const SIGNING_ALG = 'ES256';
const KEY_FILE = 'idp-signing-key.json';

/** A private JWK with `kid`, `alg` and `use`, as oidc-provider's `jwks` option takes it. */
export interface SigningJwk extends JWK {
  kid: string;
  alg: typeof SIGNING_ALG;
  use: 'sig';
}

export async function generateSigningKey(): Promise<SigningJwk> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' };
}

/** Loads the key from `stateDir`, or generates one and stores it there (mode 0600). No `stateDir`: a new key. */
export async function loadOrCreateSigningKey(stateDir: string | undefined): Promise<SigningJwk> {
  if (stateDir === undefined) return generateSigningKey();
  const file = join(stateDir, KEY_FILE);
  const stored = await readStoredKey(file);
  if (stored !== undefined) return stored;

  const key = await generateSigningKey();
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(key)}\n`, { mode: 0o600 });
  await rename(partial, file);
  return key;
}

async function readStoredKey(file: string): Promise<SigningJwk | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hint =
    'remove the file to let the sandbox create a new key (tokens signed with the old key stop verifying)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw stateError(`${file} is not valid JSON`, hint, error);
  }
  if (!isSigningJwk(parsed)) {
    throw stateError(`${file} is not an ${SIGNING_ALG} private signing key written by the sandbox`, hint);
  }
  return parsed;
}

function isSigningJwk(value: unknown): value is SigningJwk {
  if (typeof value !== 'object' || value === null) return false;
  const jwk = value as Record<string, unknown>;
  return (
    jwk.kty === 'EC' &&
    jwk.crv === 'P-256' &&
    jwk.alg === SIGNING_ALG &&
    jwk.use === 'sig' &&
    typeof jwk.kid === 'string' &&
    typeof jwk.d === 'string' &&
    typeof jwk.x === 'string' &&
    typeof jwk.y === 'string'
  );
}
