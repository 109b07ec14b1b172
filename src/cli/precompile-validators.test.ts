import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaKey, schemaText } from '../playbook/precompiled.js';
import {
  codePointCount,
  jsonEqual,
  precompiledValidators,
  validatedSchemas,
  withOwnHelpers,
} from './precompile-validators.js';

describe('the precompiled schema validators', () => {
  it('are one module per schema, under the key precompiled.ts looks up, each carrying the very schema it checks', async () => {
    const modules = await precompiledValidators();
    // in the repository, where the validators find ajv's run-time helpers (as dist/ does); `.dist-*` is ignored
    const dir = await mkdtemp(join(import.meta.dirname, '../../.dist-validators-test-'));
    try {
      const load = createRequire(join(dir, 'x.cjs'));
      for (const schema of await validatedSchemas()) {
        const text = schemaText(schema);
        const name = [...modules.keys()].find(
          (n) =>
            n.replace(/\.\d+$/, '') === schemaKey(text) && modules.get(n)?.includes(JSON.stringify(text)),
        );
        const code = name === undefined ? undefined : modules.get(name);
        expect(code).toBeDefined();
        // ajv's string-length and equality helpers are written in; a start reads no file of ajv's for them
        expect(code).not.toMatch(/ajv\/dist\/runtime\/(ucs2length|equal)/);
        const file = join(dir, `${name}.cjs`);
        await writeFile(file, code ?? '');
        const compiled = load(file) as { default: unknown; schemaText: unknown };
        expect(typeof compiled.default).toBe('function');
        expect(compiled.schemaText).toBe(text);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("our helpers written into the validators in place of ajv's", () => {
  const ajvRuntime = createRequire(import.meta.url);
  const ucs2length = (ajvRuntime('ajv/dist/runtime/ucs2length') as { default: (text: string) => number })
    .default;
  const ajvEqual = (ajvRuntime('ajv/dist/runtime/equal') as { default: (a: unknown, b: unknown) => boolean })
    .default;
  const strings = [
    '',
    'abc',
    'caf\u00e9',
    '\u{1F600}',
    'a\u{1F600}b',
    '\uD800',
    'a\uD800',
    '\uDC00\uD800',
    '\uD800\uDC00\uDC00',
  ];
  it('count code points as ucs2length does, lone surrogates included', () => {
    for (const text of strings) expect(codePointCount(text)).toBe(ucs2length(text));
  });

  it('tell equal JSON values as fast-deep-equal does', () => {
    const values: unknown[] = [
      null,
      0,
      1,
      -0,
      Number.NaN,
      '',
      'a',
      true,
      false,
      [],
      [1],
      [1, 2],
      [2, 1],
      {},
      { a: 1 },
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      { a: { b: [1, { c: null }] } },
      { a: { b: [1, { c: 0 }] } },
      [[]],
      [{}],
      { 0: 1 },
      ['1'],
    ];
    for (const a of values)
      for (const b of values)
        expect(jsonEqual(a, b), `${JSON.stringify(a)} ${JSON.stringify(b)}`).toBe(ajvEqual(a, b));
  });

  it("work as written into a validator's code, on their own", () => {
    const code = withOwnHelpers(
      'module.exports = [require("ajv/dist/runtime/ucs2length").default, require("ajv/dist/runtime/equal").default];',
    );
    const exported: { exports: unknown } = { exports: undefined };
    runInNewContext(code, { module: exported });
    const [count, equal] = exported.exports as [
      (text: string) => number,
      (a: unknown, b: unknown) => boolean,
    ];
    expect(count('a\u{1F600}')).toBe(2);
    expect(equal({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(equal({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
  });
});
