/**
 * The journal through the CLI stays small: `core.shell` records one durable intent per execution, and reruns
 * of a converged playbook leave the journal the size it had after the first rerun (compaction on open), while
 * `status` still tells the last run.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../src/engine/journal.js';
import { cli, tempDir, writePlaybook } from './cli.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function journal(dir: string): Promise<JournalRecord[]> {
  const text = await readFile(join(dir, '.ledgerbook', 'fanout@sandbox', 'journal.ndjson'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JournalRecord);
}

describe('journal size', () => {
  it('one intent per core.shell execution; ten reruns leave the journal as one rerun did', async () => {
    const dir = await tempDir('lb-journal-size-');
    dirs.push(dir);
    await writePlaybook(
      dir,
      'p.yaml',
      `name: fanout
steps:
  - id: touch
    uses: core.shell
    for_each: [a, b, c, d, e]
    concurrency: 2
    with:
      run: "touch \${{ item }}.done"
      creates: "\${{ item }}.done"
`,
    );
    const first = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const records = await journal(dir);
    const intents = records.filter((r) => r.t === 'intent');
    expect(intents.map((r) => (r as { item: string }).item).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(intents.every((r) => r.t === 'intent' && r.intent.action === 'started')).toBe(true);

    const sizes: number[] = [];
    for (let n = 0; n < 10; n++) {
      const rerun = await cli(['run', 'p.yaml'], { cwd: dir });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stdout).toContain('everything is in sync');
      sizes.push((await journal(dir)).length);
    }
    expect(new Set(sizes.slice(1)).size, `records after each rerun: ${sizes.join(', ')}`).toBe(1);
    expect(sizes[9]).toBeLessThanOrEqual(2 * records.length);
    const status = await cli(['status'], { cwd: dir });
    expect(status.stdout).toMatch(/fanout on sandbox: succeeded/);
    expect(status.stdout).toContain('touch: in-sync 5/5 items');
  });
});
