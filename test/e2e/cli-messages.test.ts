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
    expect(result.code).toBe(65);
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

  it('a secret that is not set: validate warns at the line that uses it, run refuses there and runs nothing', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\nsteps:\n  - id: a\n    uses: core.shell\n    with: { run: "touch ran" }\n  - id: b\n    uses: core.log\n    with: { message: "key ${{ secrets.LB_TEST_UNSET_KEY }}" }\n',
    );
    const env = { LB_TEST_UNSET_KEY: undefined };
    const validated = await cli(['validate', 'p.yaml'], { cwd: dir, env });
    expect(validated.code).toBe(0);
    expect(validated.stdout + validated.stderr).toContain(
      "warning: p.yaml:8:31: secret 'LB_TEST_UNSET_KEY' is not set",
    );
    const run = await cli(['run', 'p.yaml'], { cwd: dir, env });
    expect(run.code).toBe(65);
    expect(run.stderr).toContain("p.yaml:8:31 error: secret 'LB_TEST_UNSET_KEY' is not set");
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('a working folder that does not exist fails the step with its path, before the command', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\ninputs:\n  d: { default: nowhere }\nsteps:\n  - id: a\n    uses: core.shell\n    with: { run: "touch ran", cwd: "${{ inputs.d }}" }\n',
    );
    const result = await cli(['run', 'p.yaml'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/with\.cwd: \S*nowhere does not exist/);
  });

  it.each(['validate', 'plan', 'run', 'status', 'schema', 'sandbox up', 'state unlock'])(
    '`%s --help` lists the options every command takes',
    async (command) => {
      const dir = await tempDir();
      const help = await cli([...command.split(' '), '--help'], { cwd: dir });
      expect(help.code).toBe(0);
      for (const flag of ['--json', '--state-dir <dir>', '--debug', '--no-color'])
        expect(help.stdout, `${command} --help`).toContain(flag);
    },
  );
});
