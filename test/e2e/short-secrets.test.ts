/**
 * Secrets that look like structure: values too short to mask are refused before anything runs, with a message
 * that stays readable; a longer secret equal to a record type or status leaves the journal, --json and a rerun
 * intact.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, events, tempDir, writePlaybook } from './cli.js';

const PLAYBOOK = `name: short
steps:
  - id: use
    uses: core.shell
    with:
      run: "touch ran; echo \${{ secrets.LB_SHORT }} > /dev/null"
`;

describe('short secrets', () => {
  for (const value of ['e', '1', 'ab', 'run', 'true', 'null', 'type']) {
    it(`a secret of ${value.length} character(s) ('${value}') is refused, readably, before anything runs`, async () => {
      const dir = await tempDir();
      await writePlaybook(dir, 'p.yaml', PLAYBOOK);
      const result = await cli(['run', 'p.yaml'], { cwd: dir, env: { LB_SHORT: value } });
      expect(result.code).toBe(65);
      expect(result.stderr).toContain(`secret 'LB_SHORT' is ${value.length} character`);
      expect(result.stderr).toContain('at least 8 characters');
      expect(existsSync(join(dir, 'ran'))).toBe(false);
    });
  }

  it('a secret equal to a record type or status keeps the journal, the events and a rerun intact', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', PLAYBOOK.replace('touch ran;', 'echo x >> ran;'));
    for (const value of ['succeeded', 'step-done', 'item.done']) {
      const env = { LB_SHORT: value };
      const first = await cli(['run', 'p.yaml', '--json', '--fresh'], { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      const types = events(first.stdout).map((e) => e.type);
      expect(types).toContain('run.done');
      const again = await cli(['run', 'p.yaml', '--json'], { cwd: dir, env });
      expect(again.code, again.stderr).toBe(0);
      // the value is hidden where the playbook used it; the same word as structure is left alone
      const output = first.stdout + first.stderr + again.stdout + again.stderr;
      expect(output).toContain('echo *** > /dev/null');
      expect(output).not.toContain(`echo ${value}`);
      expect(events(first.stdout).find((e) => e.type === 'run.done')).toMatchObject({ status: 'succeeded' });
    }
    // three first runs (--fresh), and no rerun executed the unguarded command again
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(join(dir, 'ran'), 'utf8')).trim().split('\n')).toHaveLength(3);
  });
});
