import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Listener } from './listener.js';

const listeners: Listener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

function get(
  url: string,
  agent: Agent,
): Promise<{ keepAlive: string | undefined; port: number | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          keepAlive: res.headers['keep-alive']?.toString(),
          port: req.socket?.localPort ?? undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Listener', () => {
  it('keeps idle connections open for a client to reuse, as a real server does', async () => {
    const listener = new Listener('127.0.0.1', (_req, res) => res.end('ok'));
    listeners.push(listener);
    await listener.open(0);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(listener.url, agent);
      const second = await get(listener.url, agent);
      expect(first.keepAlive).toBe('timeout=60');
      // the same client socket: no new connection for the second request
      expect(second.port).toBe(first.port);
    } finally {
      agent.destroy();
    }
  });

  it('closes at once although a client holds an idle connection', async () => {
    const listener = new Listener('127.0.0.1', (_req, res) => res.end('ok'));
    await listener.open(0);
    const agent = new Agent({ keepAlive: true });
    try {
      await get(listener.url, agent);
      const started = Date.now();
      await listener.close();
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      agent.destroy();
    }
  });
});
