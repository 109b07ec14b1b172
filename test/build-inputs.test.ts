/**
 * The digest a build of dist/ is skipped by (scripts/build-inputs.mjs): it moves with every input of the build and
 * with nothing else, so a skipped build never leaves a dist/ older than its sources.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a build script, plain JavaScript without types
import { buildInputsDigest } from '../scripts/build-inputs.mjs';

const digest = buildInputsDigest as (root: string) => string;

describe('the build inputs digest', () => {
  let root: string;
  const write = (file: string, text: string): void => {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lb-build-inputs-'));
    write('src/cli/main.ts', 'export {};\n');
    write('packages/sandbox/src/index.ts', 'export {};\n');
    write('playbooks/a.yaml', 'name: a\n');
    write('package-lock.json', '{}\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    ['a source of the CLI', 'src/cli/main.ts'],
    ['a source of the sandbox', 'packages/sandbox/src/index.ts'],
    ['a shipped playbook (the build runs them for the code cache)', 'playbooks/a.yaml'],
    ['the installed packages', 'package-lock.json'],
  ])('changes with %s', (_what, file) => {
    const before = digest(root);
    write(file, 'export const changed = 1;\n');
    expect(digest(root)).not.toBe(before);
  });

  it('changes when an input is added or renamed', () => {
    const before = digest(root);
    write('src/cli/added.ts', 'export {};\n');
    const added = digest(root);
    expect(added).not.toBe(before);
    rmSync(join(root, 'src/cli/added.ts'));
    write('src/cli/renamed.ts', 'export {};\n');
    expect(digest(root)).not.toBe(added);
  });

  it('does not change with tests, built output or files outside the inputs', () => {
    const before = digest(root);
    write('src/cli/main.test.ts', 'it();\n');
    write('dist/cli/cli.js', '"use strict";\n');
    write('packages/sandbox/dist/index.js', 'export {};\n');
    write('docs/architecture.md', '# x\n');
    write('test/e2e/a.test.ts', 'it();\n');
    // what the quickstart's runs write beside the playbooks: a rerun of it builds nothing
    write('playbooks/reports/mint-and-distribute-rewards.csv', 'day,amount\n');
    expect(digest(root)).toBe(before);
  });
});
