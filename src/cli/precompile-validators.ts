/**
 * Build time only (scripts/build.mjs): compiles every schema the CLI validates with — playbook, target, saved
 * plan, each step kind's `with` — to standalone JavaScript, so that start-up needs neither ajv's compiler nor a compile.
 */
import standaloneModule from 'ajv/dist/standalone/index.js';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import { planSchema } from '../engine/saved-plan.js';
import type { JsonSchema } from '../engine/step.js';
import { playbookSchema } from '../playbook/playbook-schema.js';
import { schemaKey } from '../playbook/precompiled.js';
import { inlineLocalRefs } from '../playbook/schema-annotations.js';
import { createAjv } from '../playbook/schema-check.js';
import { targetSchema } from '../playbook/target-schema.js';
import { stepKinds } from '../steps/index.js';

/** ajv's standalone module is CommonJS: the function is its `default`. */
const standaloneCode = standaloneModule.default;

export function validatedSchemas(): JsonSchema[] {
  return [
    playbookSchema,
    targetSchema,
    planSchema,
    ...[...stepKinds.values()].map((kind) => kind.withSchema),
  ];
}

export function precompiledValidatorsSource(): string {
  const ajv = createAjv({ source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` });
  const exports: Record<string, string> = {};
  for (const schema of validatedSchemas()) {
    const inlined = inlineLocalRefs(schema);
    const key = schemaKey(inlined);
    if (exports[key]) continue;
    const { $id: _id, ...withoutId } = inlined as Record<string, unknown>;
    ajv.addSchema(withoutId, key);
    exports[key] = key;
  }
  return standaloneCode(ajv, exports);
}
