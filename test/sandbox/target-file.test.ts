/**
 * The target file the sandbox writes (for `sandbox up --write-target` and the embedded default) is one the CLI's
 * target schema accepts: the sandbox is a package of its own and cannot check that itself.
 */
import { startWorld, type World } from '@ledgerbook/sandbox/testing';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { targetSchema } from '../../src/playbook/target-schema.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.stop());

it('writes a target file that the target schema accepts', () => {
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(targetSchema);
  const target: unknown = parse(world.sandbox.targetYaml());
  expect(validate(target), JSON.stringify(validate.errors)).toBe(true);
});
