/**
 * Who the sandbox's nodes are and what a sandbox keeps across restarts of the same state dir. A node's participant
 * id and Noise key pair derive from its name and a fixed seed, so every sandbox has the same ids and keys (a
 * committed target file can name them); they are recorded in the state dir all the same. The credentials are
 * generated per state dir, in files readable by the owner only: each operator's password (operator1's in
 * `operator-password`, operatorN's in `operatorN-password`), the peers' read-only `viewer-password`, the secret of
 * the `ledgerbook-ci` client (ParticipantAdmin on every participant) and of each node's own admin client
 * (`nodeN-admin-secret`: ParticipantAdmin on participant N only). Each operator holds only its own.
 */
import { createECDH, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateError } from './errors.js';
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
  /** operator1's password (the one a single-operator sandbox uses) */
  operatorPassword: string;
  /** operatorN's password at index N-1 (index 0 is operatorPassword) */
  operatorPasswords: string[];
  /** the read-only `viewer` login the operators give each other */
  viewerPassword: string;
  ciClientSecret: string;
  /** the secret of client `nodeN-admin` at index N-1 */
  nodeAdminSecrets: string[];
}

export const SECRET_FILES = {
  operatorPassword: 'operator-password',
  viewerPassword: 'viewer-password',
  ciClientSecret: 'ci-client-secret',
} as const;

/** the file of operatorN's password (`index` 0-based) */
export function operatorPasswordFile(index: number): string {
  return index === 0 ? SECRET_FILES.operatorPassword : `operator${index + 1}-password`;
}

/** the file of the secret of node N's own admin client (`index` 0-based) */
export function nodeAdminSecretFile(index: number): string {
  return `node${index + 1}-admin-secret`;
}

/** the client id of node N's own admin client (client credentials; ParticipantAdmin on that participant only) */
export function nodeAdminClientId(index: number): string {
  return `node${index + 1}-admin`;
}

/**
 * The seed of every sandbox's node identities. Not a secret: the keys only authenticate simulated Noise peers of
 * a sandbox on loopback. Changing it changes every sandbox participant id (and the committed sandbox target).
 */
const IDENTITY_SEED = 'ledgerbook-sandbox/v1';

function digest(...parts: string[]): Buffer {
  return createHash('sha256')
    .update([IDENTITY_SEED, ...parts].join('/'))
    .digest();
}

/** node `index` (0-based) as every sandbox has it: `node<index+1>`, its participant id and Noise key pair */
export function nodeIdentity(index: number): StoredNode {
  const name = `node${index + 1}`;
  const ecdh = createECDH('secp256k1');
  // a digest is a valid secp256k1 private key unless it is 0 or ≥ the group order (odds ~2^-128): try the next
  for (let attempt = 0; ; attempt++) {
    try {
      ecdh.setPrivateKey(digest('noise-key', name, String(attempt)));
      break;
    } catch (error) {
      if (attempt >= 16) throw error;
    }
  }
  return {
    name,
    participantId: `${name}::1220${digest('participant', name).toString('hex')}`,
    publicKey: ecdh.getPublicKey('hex', 'compressed'),
    privateKey: ecdh.getPrivateKey('hex'),
    noisePort: 9000 + index + 1,
  };
}

/**
 * The first `count` node identities of this state dir, adding the missing ones (derived, see nodeIdentity). A
 * state dir written before identities were derived keeps the random ones it recorded.
 */
export function loadOrCreateNodes(stateDir: string, count: number): StoredNode[] {
  const file = join(stateDir, 'identity.json');
  const stored = readJson<IdentityFile>(file) ?? { version: 1, nodes: [] };
  let changed = false;
  for (let i = stored.nodes.length; i < count; i++) {
    stored.nodes.push(nodeIdentity(i));
    changed = true;
  }
  if (changed) writeJsonAtomic(file, stored, 0o600);
  return stored.nodes.slice(0, count);
}

export function secretsDir(stateDir: string): string {
  return join(stateDir, 'secrets');
}

/** the sandbox's credentials, generated once per state dir (files with mode 0600) */
export function loadOrCreateSecrets(stateDir: string, nodeCount: number): SandboxSecrets {
  const dir = secretsDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const read = (name: string): string => {
    const file = join(dir, name);
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw stateError(
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
  const indexes = Array.from({ length: nodeCount }, (_, i) => i);
  const operatorPasswords = indexes.map((i) => read(operatorPasswordFile(i)));
  return {
    operatorPassword: operatorPasswords[0]!,
    operatorPasswords,
    viewerPassword: read(SECRET_FILES.viewerPassword),
    ciClientSecret: read(SECRET_FILES.ciClientSecret),
    nodeAdminSecrets: indexes.map((i) => read(nodeAdminSecretFile(i))),
  };
}
