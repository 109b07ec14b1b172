import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { damagedBuildMessage, damagedBuildProblem } from './damaged-build.js';

let dir: string;
const thrownBy = (file: string): unknown => {
  try {
    createRequire(join(dir, 'x.cjs'))(`./${file}`);
  } catch (error) {
    return error;
  }
  throw new Error(`${file} loaded`);
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-damaged-'));
  await writeFile(join(dir, 'cut.cjs'), 'module.exports = function () {\n  return 1;\n');
  await writeFile(join(dir, 'needs.cjs'), "module.exports = require('./gone.cjs');\n");
  await writeFile(join(dir, 'throws.cjs'), "JSON.parse('{');\n");
  await writeFile(join(dir, 'package.json'), '{}\n');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('a damaged build', () => {
  it('is a module of the CLI that does not compile, named with the message', () => {
    const error = thrownBy('cut.cjs');
    expect(damagedBuildProblem(error, dir)).toBe(
      `ledgerbook's build is damaged: ${join(dir, 'cut.cjs')} does not compile (Unexpected end of input)`,
    );
    expect(damagedBuildMessage(error, dir)).toContain('hint: build it again (`npm run build -- --force`');
  });

  it('is a module of the CLI that another of its modules loads and is missing', () => {
    expect(damagedBuildProblem(thrownBy('needs.cjs'), dir)).toBe(
      `ledgerbook's build is damaged: ./gone.cjs, which ${join(dir, 'needs.cjs')} loads, is missing`,
    );
  });

  it('is none of the other errors: a module outside the CLI, a syntax error in data, a thrown value', () => {
    expect(damagedBuildProblem(thrownBy('cut.cjs'), join(dir, 'elsewhere'))).toBeUndefined();
    expect(damagedBuildProblem(thrownBy('needs.cjs'), join(tmpdir(), 'elsewhere'))).toBeUndefined();
    // JSON.parse's SyntaxError, thrown while a module of the CLI runs, is not a module that does not compile
    expect(damagedBuildProblem(thrownBy('throws.cjs'), dir)).toBeUndefined();
    expect(damagedBuildProblem('a string', dir)).toBeUndefined();
    expect(damagedBuildMessage(new Error('boom'), dir)).toBeUndefined();
  });
});
