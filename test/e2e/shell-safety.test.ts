/**
 * core.shell through the CLI: values from `${{ }}` reach the shell as data (no payload runs a command, none is
 * visible in the process table), and a converged rerun keeps the step's outputs.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, collect, spawnCli, tempDir, writePlaybook } from './cli.js';

const PAYLOADS = {
  quote: `x'; touch INJECTED; echo '`,
  double: `x"; touch INJECTED; echo "`,
  subst: '$(touch INJECTED)',
  backtick: '`touch INJECTED`',
  and: 'x && touch INJECTED',
  newline: 'x\ntouch INJECTED',
};

describe('core.shell keeps values apart from code', () => {
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    it(`an input of the ${name} shape is printed, not run`, async () => {
      const dir = await tempDir();
      await writePlaybook(
        dir,
        'p.yaml',
        `name: inject
inputs:
  x: { type: string }
steps:
  - id: plain
    uses: core.shell
    with:
      run: "printf '%s' \${{ inputs.x }} > plain.txt"
  - id: quoted
    uses: core.shell
    with:
      run: "printf '%s' '\${{ inputs.x }}' > quoted.txt"
      unless: "test -e '\${{ inputs.x }}'"
`,
      );
      const result = await cli(['run', 'p.yaml', '--input', `x=${payload}`], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(join(dir, 'INJECTED'))).toBe(false);
      expect(await readFile(join(dir, 'quoted.txt'), 'utf8')).toBe(payload);
      // unquoted in the playbook: still one word, byte for byte
      expect(await readFile(join(dir, 'plain.txt'), 'utf8')).toBe(payload);
    });
  }

  it('a secret used in a command is not in the process table while the command runs', async () => {
    const dir = await tempDir();
    const secret = 'Pq9-process-table-secret-77';
    await writePlaybook(
      dir,
      'p.yaml',
      `name: ps
steps:
  - id: slow
    uses: core.shell
    with:
      run: "echo \${{ secrets.LB_PS_SECRET }} > /dev/null; touch started; sleep 3"
`,
    );
    const child = spawnCli(['run', 'p.yaml'], { cwd: dir, env: { LB_PS_SECRET: secret } });
    const done = collect(child);
    const deadline = Date.now() + 30_000;
    while (!existsSync(join(dir, 'started')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, 'started'))).toBe(true);
    const cmdlines: string[] = [];
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const text = await readFile(join('/proc', pid, 'cmdline'), 'utf8').catch(() => '');
      cmdlines.push(text);
    }
    expect(cmdlines.some((c) => c.includes('process-table'))).toBe(false);
    expect(cmdlines.some((c) => c.includes('LB_EXPR_1'))).toBe(true);
    expect((await done).code).toBe(0);
  });

  it('a converged rerun keeps the outputs of shell steps, so later steps see them', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      `name: outputs
steps:
  - id: guarded
    uses: core.shell
    with:
      run: "echo guarded-value; touch made"
      creates: made
  - id: unguarded
    uses: core.shell
    with:
      run: "echo unguarded-value"
  - id: check
    uses: core.assert
    with:
      that: "\${{ steps.guarded.outputs.stdout == 'guarded-value' && steps.unguarded.outputs.stdout == 'unguarded-value' }}"
`,
    );
    const first = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const second = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(second.code, second.stdout + second.stderr).toBe(0);
  });
});
