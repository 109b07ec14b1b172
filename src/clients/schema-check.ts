/**
 * Checks wire bodies against their JSON Schemas (draft 2020-12). Each schema is compiled once, on first use, and
 * kept for the life of the process. Problems name the JSON pointer and what was expected, never the value itself,
 * so that a problem can go into an error message without leaking what a body held.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv } from '../ajv.js';

export interface WireProblem {
  /** JSON pointer of the offending value (for a missing property: where it should be) */
  pointer: string;
  /** the schema keyword that failed: `required`, `type`, `enum`, `pattern`, … */
  keyword: string;
  message: string;
}

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    ajv ??= newAjv({ allErrors: true, strict: true, allowUnionTypes: true });
    validate = ajv.compile(schema);
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
