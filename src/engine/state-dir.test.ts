import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRunDirs, runDir, runKey } from './state-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runKey', () => {
  it('is playbook@target for schema-valid names', () => {
    expect(runKey('distribute-dars', 'testnet')).toBe('distribute-dars@testnet');
    expect(runKey('mint.v2', 'sandbox_1')).toBe('mint.v2@sandbox_1');
  });

  it('encodes what is unsafe in a directory name, so different names never share a directory', () => {
    expect(runKey('../etc', 'a/b')).toBe('%2E.%2Fetc@a%2Fb');
    expect(runKey('a@b', 'c')).not.toBe(runKey('a', 'b@c'));
    expect(runKey('é', 'x y')).toBe('%C3%A9@x%20y');
  });

  it('joins under the state directory', () => {
    expect(runDir('.ledgerbook', 'p', 't')).toBe(join('.ledgerbook', 'p@t'));
  });
});

describe('listRunDirs', () => {
  it('lists run directories with their decoded names, sorted, skipping anything else', async () => {
    for (const [p, t] of [
      ['zeta', 'sandbox'],
      ['alpha', 'testnet'],
      ['a@b', 'x y'],
      ['alpha', 'sandbox'],
    ] as const) {
      await mkdir(runDir(dir, p, t));
    }
    await mkdir(join(dir, 'not-a-run'));
    await writeFile(join(dir, 'file@target'), '');
    expect(await listRunDirs(dir)).toEqual([
      { playbook: 'a@b', target: 'x y', dir: runDir(dir, 'a@b', 'x y') },
      { playbook: 'alpha', target: 'sandbox', dir: runDir(dir, 'alpha', 'sandbox') },
      { playbook: 'alpha', target: 'testnet', dir: runDir(dir, 'alpha', 'testnet') },
      { playbook: 'zeta', target: 'sandbox', dir: runDir(dir, 'zeta', 'sandbox') },
    ]);
  });

  it('gives nothing for a state directory that does not exist', async () => {
    expect(await listRunDirs(join(dir, 'missing'))).toEqual([]);
  });
});
