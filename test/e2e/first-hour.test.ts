/**
 * A newcomer's first hour (issue 21), each through the built CLI: what was seen on the tour and what it does now.
 * Tests that need no sandbox come first; the sandbox's own tests start theirs on free ports.
 */
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writePlaybook } from './cli.js';

describe('YAML merge keys', () => {
  it('merge with or without an anchor in the file, and a finding inside a merged map is shown where it is written', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'merged.yaml',
      [
        'name: merged', //                                           1
        'steps:', //                                                 2
        '  - id: a', //                                              3
        '    <<: { uses: core.shell, timeout: 1m }', //              4
        '    with: { run: "echo from a" }', //                       5
        '  - id: b', //                                              6
        '    <<: [{ uses: core.shell }, { with: { run: "echo from b" } }]', // 7
        '',
      ].join('\n'),
    );
    const ran = await cli(['run', 'merged.yaml'], { cwd: dir });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain('✔ a: applied 1 change');
    expect(ran.stdout).toContain('✔ b: applied 1 change');

    await writePlaybook(
      dir,
      'bad.yaml',
      [
        'name: bad', //                                              1
        'steps:', //                                                 2
        '  - id: a', //                                              3
        '    <<: { uses: core.shell, timeout: soon }', //            4
        '    with: { run: "echo a" }', //                            5
        '',
      ].join('\n'),
    );
    const refused = await cli(['validate', 'bad.yaml'], { cwd: dir });
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain("bad.yaml:4:38 error: 'soon' is not a valid duration");
    expect(refused.stderr).toContain('at /steps/0/timeout');
    expect(refused.stderr).not.toContain("unknown key '<<'");
  });
});

describe('a missing secret', () => {
  it('names each place it was looked for once', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      't.yaml',
      'name: t\nnetwork: devnet\nsecrets:\n  LB_X_TOKEN: { env: LB_X_TOKEN }\n',
    );
    await writePlaybook(
      dir,
      'p.yaml',
      'name: s\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: "k ${{ secrets.LB_X_TOKEN }}" }\n',
    );
    const result = await cli(['run', 'p.yaml', '--target', 't.yaml'], {
      cwd: dir,
      env: { LB_X_TOKEN: undefined },
    });
    expect(result.code).toBe(65);
    expect(result.stderr).toContain(
      'expected: a value from target secrets.LB_X_TOKEN: environment variable LB_X_TOKEN\n',
    );
  });
});
