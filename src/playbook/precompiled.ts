/**
 * Validators the build compiled to code, one module per schema (dist/cli/validators/, by
 * src/cli/precompile-validators.ts), found by a key of the schema's JSON text: a command loads the validators of
 * the schemas it checks (the playbook's, and the `with` of each step kind the playbook uses) and no other. A
 * validator module carries the JSON text of its schema and is used only for that very schema, so the key need not
 * tell every text apart: it is the text's length and a hash of 64 of its characters, spread over it, which a start
 * computes at no cost (a hash of the whole text in JavaScript took a few milliseconds; Node's zlib for its CRC
 * loads Node's streams, and its crypto more). The texts of a key are told apart by the index the build writes
 * (validators/packs.cjs): each key's validators, where they are, in turn. The text is the schema as written
 * (`JSON.stringify`, before its `$ref`s are inlined): the build and a start read the same source, so its keys come
 * in the same order. Running from source there are none, and schemas are compiled at first use instead; both
 * paths validate with the same schemas and ajv options.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from './step-declaration.js';

/** The folder of the compiled validators, beside the bundle. */
export const SCHEMA_VALIDATORS_DIR = 'validators';

const load = createRequire(import.meta.url);

/**
 * The JSON text of a schema as written (its `$ref`s not inlined): what a compiled validator module says it checks.
 * Another order of the same keys is another text, and compiles at first use: still the same validation.
 */
export function schemaText(schema: JsonSchema): string {
  return JSON.stringify(schema);
}

/** characters of a schema's text its key hashes */
const KEY_SAMPLES = 64;

/** The key of a schema's text among the compiled validators: a hash of 64 of its characters and its length, in hex. */
export function schemaKey(text: string): string {
  const step = Math.max(1, Math.floor(text.length / KEY_SAMPLES));
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < text.length; i += step) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `${(hash >>> 0).toString(16).padStart(8, '0')}-${text.length.toString(16)}`;
}

/** The compiled validator of `schema` (as written; the build compiled it with its `$ref`s inlined), if any. */
export function precompiledValidator(schema: JsonSchema): ValidateFunction | undefined {
  // running from source there is no index, and none of the validators it would list
  index ??= loadModule<ValidatorIndex>('packs.cjs') ?? {};
  const text = schemaText(schema);
  for (const [file, name] of index[schemaKey(text)] ?? []) {
    const compiled =
      name === undefined
        ? loadModule<CompiledModule>(file)
        : loadModule<(name: string) => CompiledModule>(file)?.(name);
    if (compiled?.schemaText === text) return compiled.default;
  }
  return undefined;
}

interface CompiledModule {
  default: ValidateFunction;
  schemaText: string;
}

/**
 * Where the build put each key's validators (scripts/pack-modules.mjs): a validator the same commands load as its
 * step kind's module is in that module's pack (`[pack, name]`), any other a file of its own (`[file]`).
 */
type ValidatorIndex = Readonly<
  Record<string, readonly (readonly [pack: string, name: string] | readonly [file: string])[]>
>;
let index: ValidatorIndex | undefined;

function loadModule<T>(file: string): T | undefined {
  try {
    return load(`./${SCHEMA_VALIDATORS_DIR}/${file}`) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
