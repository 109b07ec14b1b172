/**
 * A newcomer's first hour (issue 21), each through the built CLI: what was seen on the tour and what it does now.
 * Tests that need no sandbox come first; the sandbox's own tests start theirs on free ports.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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

describe('files named on the command line', () => {
  it('one that cannot be used exits 65 before anything runs, whichever it is, and says which and why', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', 'name: f\nsteps:\n  - id: mesh\n    uses: dpm.network\n');
    await writePlaybook(dir, 'plan.json', '{"format": "not a plan"}\n');
    const cases: Array<[string[], string]> = [
      [['run', 'missing.yaml'], 'missing.yaml:1:1 error: cannot read the file: no such file'],
      [['validate', 'p.yaml', '--target', 'missing.yaml'], 'missing.yaml:1:1 error: cannot read the file'],
      [['plan', 'p.yaml', '--target', 'missing.yaml'], '`--target sandbox` is the built-in sandbox'],
      [['run', 'p.yaml', '--secrets-file', 'missing.env'], 'cannot read the secrets file missing.env'],
      [['run', 'p.yaml', '--summary', 'nowhere/s.md'], '--summary nowhere/s.md: the folder'],
      [['plan', 'p.yaml', '--out', 'nowhere/plan.json'], '--out nowhere/plan.json: the folder'],
      [['show', 'missing.json'], 'missing.json: cannot read the saved plan (ENOENT)'],
      [['show', 'plan.json'], 'plan.json is not a ledgerbook saved plan'],
      [['sandbox', 'up', '--write-target', 'nowhere/t.yaml'], '--write-target nowhere/t.yaml: the folder'],
      [['sandbox', 'up', '--faults', 'missing.yaml'], 'cannot read the faults file'],
    ];
    const results = await Promise.all(
      cases.map(([args]) => cli([...args, '--state-dir', 'state'], { cwd: dir, timeoutMs: 30_000 })),
    );
    cases.forEach(([args, says], i) => {
      const result = results[i]!;
      expect({ args, code: result.code }, result.stderr).toEqual({ args, code: 65 });
      expect(result.stderr, args.join(' ')).toContain(says);
      expect(result.stderr).not.toContain('internal error');
    });
    // nothing was started: no sandbox claimed the state dir, none wrote its files
    expect(existsSync(join(dir, 'state', 'sandbox'))).toBe(false);
  });
});
