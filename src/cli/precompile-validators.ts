/**
 * Build time only (scripts/build.mjs): compiles every schema the CLI validates with — playbook, target, saved
 * plan, each step kind's `with`, and every wire schema the clients check bodies with — to standalone JavaScript,
 * so that neither start-up nor a run needs ajv's compiler or a compile.
 */
import standaloneModule from 'ajv/dist/standalone/index.js';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import { newAjv } from '../ajv.js';
// Imported for their registrations: every client, and the token flows above them.
import '../clients/factory.js';
import '../clients/token-flows.js';
import { WIRE_AJV_OPTIONS, registeredWireSchemas, wireSchemaKey } from '../clients/schema-check.js';
import { planSchema } from '../engine/saved-plan.js';
import type { JsonSchema } from '../playbook/step-declaration.js';
import { playbookSchema } from '../playbook/playbook-schema.js';
import { schemaKey, schemaText } from '../playbook/precompiled.js';
import { inlineLocalRefs } from '../playbook/schema-annotations.js';
import { createAjv } from '../playbook/schema-check.js';
import { targetSchema } from '../playbook/target-schema.js';
import { declareAllStepKinds } from '../steps/index.js';

/** ajv's standalone module is CommonJS: the function is its `default`. */
const standaloneCode = standaloneModule.default;

export async function validatedSchemas(): Promise<JsonSchema[]> {
  const kinds = await declareAllStepKinds();
  return [playbookSchema, targetSchema, planSchema, ...[...kinds.values()].map((kind) => kind.withSchema)];
}

/**
 * Every schema the CLI validates with, compiled: one module per schema, by file name (`<key>.cjs`, or
 * `<key>.<n>.cjs` for the n-th text of a key precompiled.ts looks it up by), so that a command loads the validators
 * of the step kinds its playbook uses and no other.
 */
export async function precompiledValidators(): Promise<Map<string, string>> {
  const modules = new Map<string, string>();
  const textsOfKey = new Map<string, string[]>();
  for (const schema of await validatedSchemas()) {
    const text = schemaText(schema);
    const key = schemaKey(text);
    const texts = textsOfKey.get(key) ?? [];
    if (texts.includes(text)) continue;
    texts.push(text);
    textsOfKey.set(key, texts);
    const name = texts.length === 1 ? key : `${key}.${texts.length}`;
    const ajv = createAjv({ source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` });
    // compiled as validatorFor compiles it when there is no build: its `$ref`s inlined
    const { $id: _id, ...withoutId } = inlineLocalRefs(schema) as Record<string, unknown>;
    // the schema it checks, which precompiled.ts compares with the schema it is asked for
    const code = `${withOwnHelpers(standaloneCode(ajv, ajv.compile(withoutId)))}\nmodule.exports.schemaText = ${JSON.stringify(text)};\n`;
    modules.set(name, code);
  }
  return modules;
}

/** A string's length in code points (a lone surrogate counts as one), as ajv's `ucs2length` counts for `minLength`. */
export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Whether two values of JSON data are equal, as ajv's `equal` (fast-deep-equal) tells for `uniqueItems`. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.prototype.hasOwnProperty.call(b, key) &&
      jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** ajv's run-time helpers a compiled validator requires, and ours written into its code instead */
const OWN_HELPERS = new Map<string, { toString(): string }>([
  ['require("ajv/dist/runtime/ucs2length").default', codePointCount],
  ['require("ajv/dist/runtime/equal").default', jsonEqual],
]);

/** A validator's code with our helpers written in: a start then finds and reads no file of ajv's for it. */
export function withOwnHelpers(code: string): string {
  let own = code;
  for (const [helper, ours] of OWN_HELPERS) own = own.replaceAll(helper, `(${ours.toString()})`);
  return own;
}

/**
 * The clients' wire schemas, compiled with the options `wireProblems` uses: one module per schema, named as it
 * looks them up (its key), so that a run loads only the validators it uses.
 */
export function precompiledWireValidators(): Map<string, string> {
  const modules = new Map<string, string>();
  for (const schema of registeredWireSchemas()) {
    const key = wireSchemaKey(schema);
    if (modules.has(key)) continue;
    const ajv = newAjv({ ...WIRE_AJV_OPTIONS, code: { source: true } });
    modules.set(key, standaloneCode(ajv, ajv.compile(schema)));
  }
  return modules;
}
