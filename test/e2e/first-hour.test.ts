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
