/**
 * Validators the build compiled to code, one module per schema (dist/cli/validators/<key>.cjs, by
 * src/cli/precompile-validators.ts), keyed by the digest of the schema they check: a command loads the validators
 * of the schemas it checks (the playbook's, and the `with` of each step kind the playbook uses) and no other.
 * Running from source there are none, and schemas are compiled at first use instead; both paths validate with
 * the same schemas and ajv options.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { digestOf } from '../engine/digest.js';
import type { JsonSchema } from '../engine/step.js';

/** The folder of the compiled validators, beside the bundle. */
export const SCHEMA_VALIDATORS_DIR = 'validators';

const load = createRequire(import.meta.url);
let isBuilt: boolean | undefined;

/** The key of a schema among the compiled validators: the digest of its (refs-inlined) JSON. */
export function schemaKey(schema: JsonSchema): string {
  return digestOf(schema);
}

export function precompiledValidator(schema: JsonSchema): ValidateFunction | undefined {
  isBuilt ??= existsSync(fileURLToPath(new URL(SCHEMA_VALIDATORS_DIR, import.meta.url)));
  if (!isBuilt) return undefined;
  try {
    return (load(`./${SCHEMA_VALIDATORS_DIR}/${schemaKey(schema)}.cjs`) as { default: ValidateFunction })
      .default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
