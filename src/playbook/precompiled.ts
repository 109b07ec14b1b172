/**
 * Validators the build compiled to code, one module per schema (dist/cli/validators/<key>.cjs, by
 * src/cli/precompile-validators.ts), keyed by the CRC-32 and length of the schema's JSON text: a command loads
 * the validators of the schemas it checks (the playbook's, and the `with` of each step kind the playbook uses) and
 * no other. A validator module carries the JSON text of its schema and is used only for that very schema, so
 * the key needs no cryptographic digest (loading Node's crypto was a twentieth of a cold `validate`). The text is
 * the schema as written (`JSON.stringify`, before its `$ref`s are inlined): the build and a start read the same
 * source, so its keys come in the same order, and a start computes the key with V8's serializer and zlib's CRC
 * alone (canonical JSON of the inlined schema, computed in JavaScript, was about 2 % of a cold `validate`).
 * Running from source there are none, and schemas are compiled at first use instead; both paths validate with
 * the same schemas and ajv options.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { crc32 } from 'node:zlib';
import type { JsonSchema } from '../engine/step.js';

/** The folder of the compiled validators, beside the bundle. */
export const SCHEMA_VALIDATORS_DIR = 'validators';

const load = createRequire(import.meta.url);
let isBuilt: boolean | undefined;

/**
 * The JSON text of a schema as written (its `$ref`s not inlined): what a compiled validator module says it checks.
 * Another order of the same keys is another text, and compiles at first use: still the same validation.
 */
export function schemaText(schema: JsonSchema): string {
  return JSON.stringify(schema);
}

/** The key of a schema's text among the compiled validators: its CRC-32 and its length, in hex. */
export function schemaKey(text: string): string {
  return `${crc32(text).toString(16).padStart(8, '0')}-${text.length.toString(16)}`;
}

/** The compiled validator of `schema` (as written; the build compiled it with its `$ref`s inlined), if any. */
export function precompiledValidator(schema: JsonSchema): ValidateFunction | undefined {
  isBuilt ??= existsSync(fileURLToPath(new URL(SCHEMA_VALIDATORS_DIR, import.meta.url)));
  if (!isBuilt) return undefined;
  const text = schemaText(schema);
  const compiled = compiledModule(schemaKey(text));
  // another schema of the same key (none in the build: it refuses two) is compiled at first use
  return compiled?.schemaText === text ? compiled.default : undefined;
}

interface CompiledModule {
  default: ValidateFunction;
  schemaText: string;
}

/**
 * The build packs the modules the same commands load into one file each, a step kind's validator with the kind's
 * own module (scripts/pack-modules.mjs): `packs.cjs` says which pack holds a key's validator and under which name;
 * a key it does not name is a file of its own.
 */
let packs: Readonly<Record<string, readonly [pack: string, name: string]>> | undefined;

function compiledModule(key: string): CompiledModule | undefined {
  packs ??= loadModule<Record<string, [string, string]>>('packs.cjs') ?? {};
  const packed = packs[key];
  if (packed === undefined) return loadModule<CompiledModule>(`${key}.cjs`);
  return loadModule<(name: string) => CompiledModule>(packed[0])?.(packed[1]);
}

function loadModule<T>(file: string): T | undefined {
  try {
    return load(`./${SCHEMA_VALIDATORS_DIR}/${file}`) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
