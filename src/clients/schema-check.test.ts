import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { precompiledWireValidators } from '../cli/precompile-validators.js';
import { routeResponseSchemas } from './dpm-wire.js';
import { registeredWireSchemas, wireProblems, wireSchemaKey } from './schema-check.js';

describe('wire schemas compiled at build time', () => {
  it('the build compiles every schema a client module registers', async () => {
    const compiled = new Set(precompiledWireValidators().keys());
    // every module of src/clients, whatever the build imports: none may register a schema the build missed
    const modules = (await readdir(import.meta.dirname)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    for (const file of modules)
      await import(/* @vite-ignore */ pathToFileURL(join(import.meta.dirname, file)).href);
    const registered = registeredWireSchemas();
    expect(registered.length).toBeGreaterThan(80);
    expect(registered.map(wireSchemaKey).filter((key) => !compiled.has(key))).toEqual([]);
  });

  it('a compiled validator finds what the run-time compile finds', async () => {
    const schema = routeResponseSchemas['GET /decentralized-parties'];
    expect(schema).toBeDefined();
    const code = precompiledWireValidators().get(wireSchemaKey(schema as object));
    expect(code).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'lb-wire-'));
    try {
      const file = join(dir, 'validator.cjs');
      await writeFile(file, code as string);
      const validate = createRequire(import.meta.url)(file) as ValidateFunction;
      const body = { parties: [{ party_id: 7, threshold: 'two' }], extra: true };
      expect(validate(body)).toBe(false);
      const fromBuild = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
      const atRunTime = wireProblems(schema as object, body).map((p) => p.keyword);
      expect(fromBuild.length).toBe(atRunTime.length);
      expect(fromBuild.map((line) => line.split(' ')[1]).sort()).toEqual([...atRunTime].sort());
      expect(validate({ parties: [], source: 'live', refreshing: false })).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('running from source, a schema that was never registered is refused: the build could not compile it', () => {
    expect(() => wireProblems({ type: 'object' }, {})).toThrow(/not registered/);
  });
});
