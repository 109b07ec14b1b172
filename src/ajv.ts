/**
 * ajv's schema compiler, loaded on first use. The build compiles the CLI's own schemas ahead of time, so a start
 * that only validates a playbook never parses the compiler; tests and the clients' response checks load it when
 * they first compile.
 */
import { createRequire } from 'node:module';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { Ajv2020, Options, Plugin } from 'ajv/dist/2020.js';

const load = createRequire(import.meta.url);

export function newAjv(options: Options): Ajv2020 {
  const { Ajv2020: Ajv } = load('ajv/dist/2020.js') as typeof Ajv2020Module;
  return new Ajv(options);
}

/** ajv-formats' plugin (CommonJS: the module itself is the plugin). */
export function formatsPlugin(): Plugin<unknown> {
  return load('ajv-formats') as Plugin<unknown>;
}
