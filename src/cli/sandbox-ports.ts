/**
 * Stable ports for a sandbox state dir. The DPM nodes store the identity provider's URL in the party
 * credentials they are given, so a sandbox that comes back on other ports would leave them pointing nowhere:
 * the first start picks a free block of ports and records it; later starts reuse it.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StateError } from '../errors.js';

/**
 * Blocks are picked below 32768, where no system hands out ports for outgoing connections (Linux from 32768,
 * macOS and Windows from 49152): a port a client borrowed for a moment would otherwise stop the next start.
 */
const LOWEST = 20_000;
const EPHEMERAL = 32_768;
const TAKEN_WAIT_MS = 3_000;
const TAKEN_POLL_MS = 250;

/** Ports one sandbox listens on: admin, identity provider, a DPM and a ledger port per node, then the five token services. */
export function portsNeeded(nodes: number): number {
  return 2 + 2 * nodes + 5;
}

function free(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

async function allFree(base: number, count: number, host: string): Promise<boolean> {
  for (let port = base; port < base + count; port++) if (!(await free(port, host))) return false;
  return true;
}

export async function stableBasePort(stateDir: string, nodes: number, host: string): Promise<number> {
  const file = join(stateDir, 'ports.json');
  const count = portsNeeded(nodes);
  const recorded = await readFile(file, 'utf8').then(
    (text) => (JSON.parse(text) as { base?: unknown }).base,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (typeof recorded === 'number') {
    // a port may be held for a moment by a connection closing (an earlier run's) or by an outgoing one
    for (let waited = 0; waited <= TAKEN_WAIT_MS; waited += TAKEN_POLL_MS) {
      if (await allFree(recorded, count, host)) return recorded;
      await sleep(TAKEN_POLL_MS);
    }
    throw new StateError(
      `the sandbox in ${stateDir} uses ports ${recorded}–${recorded + count - 1}, and one of them is taken`,
      'stop the other sandbox (or program) that holds them, or use another --state-dir',
    );
  }
  for (let tries = 0; tries < 50; tries++) {
    const base = LOWEST + Math.floor(Math.random() * Math.floor((EPHEMERAL - LOWEST - count) / 16)) * 16;
    if (await allFree(base, count, host)) {
      await mkdir(stateDir, { recursive: true });
      await writeFile(file, `${JSON.stringify({ base })}\n`);
      return base;
    }
  }
  throw new StateError(`found no ${count} free consecutive ports for the sandbox on ${host}`);
}
