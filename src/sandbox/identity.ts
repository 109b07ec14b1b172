/**
 * What a sandbox keeps across restarts of the same state dir: each node's participant id and Noise key, and the
 * generated credentials (operator password, CI client secret) in files readable by the owner only.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateError } from '../errors.js';
import { readJson, writeJsonAtomic } from './store.js';

export interface StoredNode {
  name: string;
  participantId: string;
  /** compressed secp256k1 public key, 66 hex */
  publicKey: string;
  /** hex; kept so that the key survives a restart like the real node's key file */
  privateKey: string;
  noisePort: number;
}

interface IdentityFile {
  version: 1;
  nodes: StoredNode[];
}

export interface SandboxSecrets {
  operatorPassword: string;
  ciClientSecret: string;
}

export const SECRET_FILES = {
  operatorPassword: 'operator-password',
  ciClientSecret: 'ci-client-secret',
} as const;

/** the first `count` node identities of this state dir, creating the missing ones */
export function loadOrCreateNodes(stateDir: string, count: number): StoredNode[] {
  const file = join(stateDir, 'identity.json');
  const stored = readJson<IdentityFile>(file) ?? { version: 1, nodes: [] };
  let changed = false;
  for (let i = stored.nodes.length; i < count; i++) {
    const ecdh = createECDH('secp256k1');
    ecdh.generateKeys();
    const name = `node${i + 1}`;
    stored.nodes.push({
      name,
      participantId: `${name}::1220${randomBytes(32).toString('hex')}`,
      publicKey: ecdh.getPublicKey('hex', 'compressed'),
      privateKey: ecdh.getPrivateKey('hex'),
      noisePort: 9000 + i + 1,
    });
    changed = true;
  }
  if (changed) writeJsonAtomic(file, stored, 0o600);
  return stored.nodes.slice(0, count);
}

export function secretsDir(stateDir: string): string {
  return join(stateDir, 'secrets');
}

/** the sandbox's credentials, generated once per state dir (files with mode 0600) */
export function loadOrCreateSecrets(stateDir: string): SandboxSecrets {
  const dir = secretsDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const read = (name: string): string => {
    const file = join(dir, name);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new StateError(
          `cannot read the sandbox secret file ${file}: ${(error as Error).message}`,
          undefined,
          error,
        );
      }
      const value = randomBytes(24).toString('base64url');
      writeFileSync(file, value + '\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      return value;
    }
  };
  return {
    operatorPassword: read(SECRET_FILES.operatorPassword),
    ciClientSecret: read(SECRET_FILES.ciClientSecret),
  };
}
