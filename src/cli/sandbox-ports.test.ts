import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { portsNeeded, stableBasePort } from './sandbox-ports.js';

const HOST = '127.0.0.1';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-ports-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function hold(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, HOST, () => resolve(server));
  });
}

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe('stableBasePort', () => {
  it('picks a block below the ports systems lend to outgoing connections, and keeps it', async () => {
    const base = await stableBasePort(dir, 3, HOST);
    expect(base).toBeGreaterThanOrEqual(20_000);
    expect(base + portsNeeded(3)).toBeLessThanOrEqual(32_768);
    expect(JSON.parse(await readFile(join(dir, 'ports.json'), 'utf8'))).toEqual({ base });
    expect(await stableBasePort(dir, 3, HOST)).toBe(base);
  });

  it('waits out a port held for a moment', async () => {
    const base = await stableBasePort(dir, 3, HOST);
    const server = await hold(base + 2);
    setTimeout(() => void close(server), 600);
    expect(await stableBasePort(dir, 3, HOST)).toBe(base);
  });

  it('says which ports and what to do when one stays taken', async () => {
    const base = await stableBasePort(dir, 3, HOST);
    const server = await hold(base + 1);
    try {
      await expect(stableBasePort(dir, 3, HOST)).rejects.toThrow(
        `the sandbox in ${dir} uses ports ${base}–${base + portsNeeded(3) - 1}, and one of them is taken`,
      );
    } finally {
      await close(server);
    }
  });
});
