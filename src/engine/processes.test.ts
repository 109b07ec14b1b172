import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processExists, startedAfter } from './processes.js';

describe('processes named by a lock or a journal', () => {
  it('tells a live process from one that exited', async () => {
    expect(processExists(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await once(child, 'exit');
    expect(processExists(child.pid as number)).toBe(false);
    expect(processExists(0)).toBe(false);
    expect(processExists(-1)).toBe(false);
  });

  it('takes a zombie (exited, not yet collected by its parent) for gone where /proc tells', async () => {
    // the background `sleep` exits after the shell became `sleep 3`, which never collects it
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 3'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [line] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      await new Promise((resolve) => setTimeout(resolve, 400));
      // without /proc a zombie cannot be told from a live process
      expect(processExists(zombie)).toBe(!existsSync('/proc/self/stat'));
      expect(processExists(parent.pid as number)).toBe(true);
    } finally {
      parent.kill();
    }
  });

  it('tells a process that started after a time (a reused pid) from one running since then', () => {
    const hasProc = existsSync('/proc/self/stat');
    expect(startedAfter(process.pid, '2000-01-01T00:00:00.000Z')).toBe(hasProc);
    expect(startedAfter(process.pid, new Date().toISOString())).toBe(false);
    const before = new Date(Date.now() - 10_000).toISOString();
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    try {
      expect(startedAfter(child.pid as number, before)).toBe(hasProc);
      expect(startedAfter(child.pid as number, new Date(Date.now() + 60_000).toISOString())).toBe(false);
    } finally {
      child.kill();
    }
    expect(startedAfter(process.pid, 'not a time')).toBe(false);
  });
});
