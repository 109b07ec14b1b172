/** What a new user reads: reasons for failures outside steps, outputs checked before a run, counts in words. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writePlaybook } from './cli.js';

describe('CLI messages', () => {
  it('a failing vars expression says which var and why', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      `name: v\nvars:\n  parsed: "\${{ fromJSON('{bad') }}"\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: "\${{ vars.parsed }}" }\n`,
    );
    const result = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(
      /vars\.parsed: fromJSON\(text\): the text is not valid JSON/,
    );
  });

  it('--summary into a folder that does not exist is refused before anything runs', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\nsteps:\n  - id: a\n    uses: core.shell\n    with: { run: "touch ran" }\n',
    );
    const result = await cli(['run', 'p.yaml', '--summary', 'missing/summary.md'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('does not exist');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('validate counts one step as one step', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: hi }\n',
    );
    const result = await cli(['validate', 'p.yaml'], { cwd: dir });
    expect(result.stdout + result.stderr).toContain('p.yaml: 1 step valid');
  });
});
