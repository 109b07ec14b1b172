import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaKey, schemaText } from '../playbook/precompiled.js';
import { precompiledValidators, validatedSchemas } from './precompile-validators.js';

describe('the precompiled schema validators', () => {
  it('are one module per schema, under the key precompiled.ts looks up, each carrying the very schema it checks', async () => {
    const modules = await precompiledValidators();
    // in the repository, where the validators find ajv's run-time helpers (as dist/ does); `.dist-*` is ignored
    const dir = await mkdtemp(join(import.meta.dirname, '../../.dist-validators-test-'));
    try {
      const load = createRequire(join(dir, 'x.cjs'));
      for (const schema of await validatedSchemas()) {
        const text = schemaText(schema);
        const code = modules.get(schemaKey(text));
        expect(code).toBeDefined();
        const file = join(dir, `${schemaKey(text)}.cjs`);
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
