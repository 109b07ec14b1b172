/**
 * The DPM reference's view of contracts/dpm.openapi.yaml (scripts/dpm-contract.ts `strictView`) as a checker:
 * a body is compared field by field with a component of the document — present when the document says it is
 * always sent (null only where it is nullable), absent or null when optional, and nothing undocumented (an object
 * is closed unless the document opens it).
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv } from '../../src/ajv.js';
import type { RouteKey } from '../../src/clients/dpm-wire.js';
import { type DpmDocument, dpmOperations, loadDpmDocument, strictView } from '../../scripts/dpm-contract.js';

export interface Conformance {
  /** `/pointer: what is wrong` */
  problems: string[];
  /** pointers of fields the reference does not document */
  extras: string[];
}

const document = loadDpmDocument();

/** Method + path template → the component of its success body. */
const responseComponent = new Map<RouteKey, string>(
  dpmOperations(document).map((op) => [`${op.method} ${op.path}`, op.response]),
);

/** The component that documents the success body of `route`. */
export function responseOf(route: RouteKey): string {
  const component = responseComponent.get(route);
  if (component === undefined) throw new Error(`the document has no route ${route}`);
  return component;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorOf(doc: DpmDocument, component: string): ValidateFunction {
  const key = doc === document ? component : `${component} of another document`;
  let validate = doc === document ? validators.get(key) : undefined;
  if (validate === undefined) {
    ajv ??= newAjv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
    validate = ajv.compile(strictView(doc, component));
    if (doc === document) validators.set(key, validate);
  }
  return validate;
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath || '(body)';
  switch (error.keyword) {
    case 'required':
      return `${error.instancePath}/${String(params.missingProperty)}: missing (the reference always sends it)`;
    case 'type':
      return params.type === 'null' || (error.data === null && error.instancePath !== '')
        ? `${at}: null (the reference always sends a value)`
        : `${at}: expected ${String(params.type)}, got ${JSON.stringify(error.data)}`;
    case 'enum':
    case 'const':
      return `${at}: expected ${JSON.stringify(params.allowedValues ?? params.allowedValue)}, got ${JSON.stringify(error.data)}`;
    default:
      return `${at}: ${error.message ?? error.keyword}, got ${JSON.stringify(error.data)}`;
  }
}

/**
 * Compares `value` with a component of the document (by name) as the reference reads it: every problem, and
 * every undocumented field, by JSON pointer. `doc` defaults to contracts/dpm.openapi.yaml.
 */
export function conform(value: unknown, component: string, doc: DpmDocument = document): Conformance {
  const validate = validatorOf(doc, component);
  if (validate(value)) return { problems: [], extras: [] };
  const errors = validate.errors ?? [];
  // a failed branch of anyOf (a nullable field, a union) is reported through its parts; the summary adds nothing
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const result: Conformance = { problems: [], extras: [] };
  for (const error of errors) {
    if (error.keyword === 'additionalProperties') {
      const name = String((error.params as { additionalProperty: string }).additionalProperty);
      result.extras.push(`${error.instancePath}/${name}`);
    } else if (error.keyword === 'anyOf') {
      result.problems.push(`${error.instancePath || '(body)'}: matches none of the documented variants`);
    } else if (!(anyOfPaths.has(error.instancePath) && error.keyword === 'type' && error.data !== null)) {
      result.problems.push(describe(error));
    }
  }
  result.problems = [...new Set(result.problems)];
  return result;
}
