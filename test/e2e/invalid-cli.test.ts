/**
 * Through the real CLI: every invalid playbook under test/fixtures/invalid/ is refused by `ledgerbook run` with
 * exit 65, its findings at `file:line:col`, and no side effect at all — the working directory holds exactly
 * what it held before (no journal, no sandbox state, nothing a step would have created).
 */
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './cli.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'invalid');
const fixtures = readdirSync(dir).filter((name) => name.endsWith('.yaml'));

function positions(text: string): string[] {
  return [...text.matchAll(/^# expect: (\d+:\d+) /gm)].map((m) => m[1] ?? '');
}

/** Run a few CLIs at a time: each is its own Node process. */
async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size)
    results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}

describe('invalid playbooks through the CLI', () => {
  it('are all refused with exit 65, positioned findings, and nothing run or written', async () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(30);
    const outcomes = await inBatches(fixtures, 4, async (name) => {
      const cwd = await tempDir('lb-invalid-');
      copyFileSync(join(dir, name), join(cwd, name));
      const result = await cli(['run', name], { cwd });
      return {
        name,
        result,
        left: readdirSync(cwd),
        expected: positions(readFileSync(join(dir, name), 'utf8')),
      };
    });
    for (const { name, result, left, expected } of outcomes) {
      expect(result.code, `${name}\n${result.stderr}`).toBe(65);
      expect(left, `${name} left files behind`).toEqual([name]);
      expect(result.stdout, name).toBe('');
      if (name.startsWith('secret-literal')) continue; // its fixture-only step kind is unknown to the CLI
      for (const position of expected) expect(result.stderr, name).toContain(`${name}:${position} `);
    }
  });
});
