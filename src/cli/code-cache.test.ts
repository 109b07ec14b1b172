/**
 * The start-up code cache (code-cache.ts), as the build makes it and the executable reads it: built to CommonJS
 * like dist/cli/main.js, run in child processes on a folder of modules of this test's own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// in the repository (`.dist-*` is ignored), like dist/
let root: string;
let loader: string;

beforeAll(async () => {
  root = await mkdtemp(join(import.meta.dirname, '../../.dist-code-cache-test-'));
  loader = join(root, 'code-cache.cjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'code-cache.ts')],
    outfile: loader,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs `dir/mod.js` under the cache: what it printed, and how each module of `dir` was compiled. */
function run(dir: string, mode: 'record' | 'use'): { output: string; compiled: string[] } {
  const script = `
    const vm = require('node:vm');
    const compiled = [];
    const Script = vm.Script;
    vm.Script = class extends Script {
      constructor(code, options) {
        super(code, options);
        compiled.push(options.cachedData === undefined ? 'compiled' : this.cachedDataRejected ? 'rejected' : 'cached');
      }
    };
    const cache = require(${JSON.stringify(loader)});
    const dir = ${JSON.stringify(dir)};
    if (${JSON.stringify(mode)} === 'record') cache.recordCodeCache(dir, dir); else cache.useCodeCache(dir);
    const mod = require(dir + '/mod.js');
    console.log(JSON.stringify({ output: mod.word() + ' ' + mod.where(), compiled }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as {
    output: string;
    compiled: string[];
  };
}

const module = (word: string): string =>
  `exports.word = () => '${word}';\nexports.where = () => new Error('x').stack.split('\\n')[1].trim();\n`;

describe('the code cache', () => {
  it('is made by a recording run and used by the next, for the file it was made from', async () => {
    const dir = join(root, 'a');
    await mkdir(dir);
    await writeFile(join(dir, 'mod.js'), module('one'));
    expect(run(dir, 'record').compiled).toEqual(['compiled']);
    const used = run(dir, 'use');
    expect(used.compiled).toEqual(['cached']);
    expect(used.output).toMatch(new RegExp(`^one at .*${join(dir, 'mod.js').replaceAll('/', '\\/')}:2:`));
  });

  it('serves no stale code: a module edited to the same length compiles afresh (V8 checks only the length)', async () => {
    const dir = join(root, 'b');
    await mkdir(dir);
    await writeFile(join(dir, 'mod.js'), module('one'));
    run(dir, 'record');
    await writeFile(join(dir, 'mod.js'), module('two'));
    const used = run(dir, 'use');
    expect(used.output).toMatch(/^two /);
    // compiled by Node, as without a cache
    expect(used.compiled).toEqual([]);
  });

  it('a folder moved elsewhere compiles afresh, and its stack traces name where it now is', async () => {
    const from = join(root, 'c');
    const to = join(root, 'd');
    await mkdir(from);
    await writeFile(join(from, 'mod.js'), module('one'));
    run(from, 'record');
    await cp(from, to, { recursive: true });
    const used = run(to, 'use');
    expect(used.compiled).toEqual([]);
    expect(used.output).toContain(join(to, 'mod.js'));
  });

  it('a module with an import() gets no cache, and a start compiles it as Node does, without looking for one', async () => {
    const dir = join(root, 'e');
    await mkdir(dir);
    await writeFile(join(dir, 'mod.js'), `${module('one')}exports.later = () => import('node:path');\n`);
    expect(run(dir, 'record').compiled).toEqual([]);
    expect(existsSync(join(dir, 'code-cache', 'mod.js.bin'))).toBe(false);
    const used = run(dir, 'use');
    expect(used.compiled).toEqual([]);
    expect(used.output).toMatch(/^one /);
  });
});
