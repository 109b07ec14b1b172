/**
 * Checks wire bodies against their JSON Schemas (draft 2020-12). Problems name the JSON pointer and what was
 * expected, never the value itself, so that a problem can go into an error message without leaking what a body
 * held.
 *
 * Every schema a client checks with is registered where it is declared (`registerWireSchemas`). The build
 * compiles each registered schema to code (dist/cli/wire-validators/, src/cli/precompile-validators.ts),
 * so a run of the built CLI never loads ajv's compiler for them; running from source (vitest) they are compiled
 * at first use, and checking with a schema that was never registered is refused there, so that a schema the
 * build would miss fails a test instead of slowing a run.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv } from '../ajv.js';

export interface WireProblem {
  /** JSON pointer of the offending value (for a missing property: where it should be) */
  pointer: string;
  /** the schema keyword that failed: `required`, `type`, `enum`, `pattern`, … */
  keyword: string;
  message: string;
}

/** The ajv options of every wire check, at build time and at run time alike. */
export const WIRE_AJV_OPTIONS: Readonly<Options> = { allErrors: true, strict: true, allowUnionTypes: true };

/** Where the build writes the compiled wire validators, beside the bundle's chunks: one module per schema. */
export const WIRE_VALIDATORS_DIR = 'wire-validators';

const registered = new Set<object>();

/** Declares schemas the clients check bodies with; the build compiles each of them ahead of time. */
export function registerWireSchemas(...schemas: readonly object[]): void {
  for (const schema of schemas) registered.add(schema);
}

/** Every schema registered by the client modules imported so far. */
export function registeredWireSchemas(): object[] {
  return [...registered];
}

/** The name of a schema's compiled validator: the digest of its JSON. */
export function wireSchemaKey(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

let ajv: Ajv2020 | undefined;
/** whether this is the built CLI, with its compiled validators (not a run from source) */
let isBuilt: boolean | undefined;
const compiled = new WeakMap<object, ValidateFunction>();
const load = createRequire(import.meta.url);

/** The validator the build compiled for `schema`, if any: only the schemas a run uses are loaded. */
function builtValidator(schema: object): ValidateFunction | undefined {
  isBuilt ??= existsSync(fileURLToPath(new URL(WIRE_VALIDATORS_DIR, import.meta.url)));
  if (!isBuilt) return undefined;
  try {
    return (load(`./${WIRE_VALIDATORS_DIR}/${wireSchemaKey(schema)}.cjs`) as { default: ValidateFunction })
      .default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = builtValidator(schema);
    if (validate === undefined) {
      if (!isBuilt && !registered.has(schema))
        throw new Error(
          'a wire schema that was not registered (registerWireSchemas): the build cannot compile it',
        );
      ajv ??= newAjv({ ...WIRE_AJV_OPTIONS });
      validate = ajv.compile(schema);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

function toProblem(error: ErrorObject): WireProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        pointer: `${error.instancePath}/${String(params.missingProperty)}`,
        keyword: 'required',
        message: 'is missing',
      };
    case 'additionalProperties':
      return {
        pointer: `${error.instancePath}/${String(params.additionalProperty)}`,
        keyword: 'additionalProperties',
        message: 'is not allowed here',
      };
    case 'enum':
      return {
        pointer: error.instancePath,
        keyword: 'enum',
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return {
        pointer: error.instancePath,
        keyword: 'const',
        message: `must be ${JSON.stringify(params.allowedValue)}`,
      };
    default:
      return { pointer: error.instancePath, keyword: error.keyword, message: error.message ?? 'is invalid' };
  }
}

/** Every problem of `value` against `schema`; empty when it conforms. */
export function wireProblems(schema: object, value: unknown): WireProblem[] {
  const validate = validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(toProblem);
}

/** A short, human description of the first problems: `/parties/0/threshold must be integer; … (3 more)`. */
export function describeProblems(problems: readonly WireProblem[], max = 3): string {
  const shown = problems.slice(0, max).map((p) => `${p.pointer || '(body)'} ${p.message}`);
  const rest = problems.length - shown.length;
  return rest > 0 ? `${shown.join('; ')}; … (${rest} more)` : shown.join('; ');
}
