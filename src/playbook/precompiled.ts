/**
 * Validators the build compiled to code (dist/cli/validators.generated.cjs, by src/cli/precompile-validators.ts),
 * keyed by the digest of the schema they check. Running from source there are none, and schemas are compiled
 * at first use instead; both paths validate with the same schemas and ajv options.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { digestOf } from '../engine/digest.js';
import type { JsonSchema } from '../engine/step.js';

export const PRECOMPILED_FILE = './validators.generated.cjs';

let table: Readonly<Record<string, ValidateFunction>> | undefined;

function load(): Readonly<Record<string, ValidateFunction>> {
  try {
    return createRequire(import.meta.url)(PRECOMPILED_FILE) as Record<string, ValidateFunction>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return {};
    throw error;
  }
}

/** The key of a schema in the table: the digest of its (refs-inlined) JSON. */
export function schemaKey(schema: JsonSchema): string {
  return digestOf(schema);
}

export function precompiledValidator(schema: JsonSchema): ValidateFunction | undefined {
  table ??= load();
  return table[schemaKey(schema)];
}
