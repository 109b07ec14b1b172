/**
 * contracts/dpm.openapi.yaml, the DPM operator API's one description: a well-formed OpenAPI 3.1 document whose
 * schemas all compile, and what is generated from it (the client's view, the sandbox's request bodies) up to
 * date.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { newAjv } from '../../src/ajv.js';
import { DPM_ROUTES, routeRequestSchemas, routeResponseSchemas } from '../../src/clients/dpm-wire.js';
import {
  GENERATED_FILES,
  clientView,
  componentsOf,
  dpmOperations,
  dpmNamesSource,
  dpmWireSource,
  loadDpmDocument,
  refName,
  sandboxRequestsSource,
  strictView,
} from '../../scripts/dpm-contract.js';

const root = join(import.meta.dirname, '..', '..');
const doc = loadDpmDocument();
const operations = dpmOperations(doc);

describe('contracts/dpm.openapi.yaml', () => {
  it('is OpenAPI 3.1 with a unique operationId per operation and a JSON success body each', () => {
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
    const ids = operations.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.length).toBeGreaterThan(70);
  });

  it('names only components that exist, and every component compiles (strict ajv) in both views', () => {
    const text = readFileSync(join(root, 'contracts/dpm.openapi.yaml'), 'utf8');
    for (const [, ref] of text.matchAll(/\$ref: '([^']+)'/g)) {
      if (ref!.startsWith('#/components/responses/')) continue;
      expect(doc.components.schemas, ref).toHaveProperty([refName(ref!)]);
    }
    const ajv = newAjv({ allErrors: true, strict: true, allowUnionTypes: true });
    // the request bodies compile in the client's view (the generated module, checked below); FieldDefinition
    // refers to itself, which only the sandbox's decoder follows
    for (const name of componentsOf(doc, 'response')) {
      expect(() => ajv.compile(strictView(doc, name)), name).not.toThrow();
    }
  });

  it('the client view: a nullable field may be missing, a list may come empty; requests closed, unions by tag', () => {
    const component = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        note: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        count: { type: 'integer', format: 'int32' },
      },
      required: ['id', 'note', 'tags'],
    };
    expect(clientView(component, 'response')).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        note: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer' },
      },
      required: ['id', 'tags'],
    });
    expect(clientView(component, 'request')).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        note: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        count: { type: 'integer' },
      },
      required: ['id', 'note', 'tags'],
      additionalProperties: false,
    });
    const tagged = {
      title: 'Shape',
      oneOf: [
        { type: 'object', properties: { kind: { const: 'dot' } }, required: ['kind'] },
        {
          type: 'object',
          properties: { kind: { const: 'line' }, length: { type: 'integer' } },
          required: ['kind', 'length'],
        },
      ],
      discriminator: { propertyName: 'kind' },
    };
    expect(clientView(tagged, 'request')).toEqual({
      title: 'Shape',
      type: 'object',
      properties: { kind: { enum: ['dot', 'line'] } },
      required: ['kind'],
      additionalProperties: true,
    });
  });

  it('describes every route the client calls and every body it checks', () => {
    const keys = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const route of Object.values(DPM_ROUTES)) expect(keys).toContain(`${route.method} ${route.path}`);
    expect(Object.keys(routeResponseSchemas).sort()).toEqual([...keys].sort());
    expect(Object.keys(routeRequestSchemas).sort()).toEqual(
      operations
        .filter((op) => op.request !== undefined)
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
    );
  });

  it.each([
    [GENERATED_FILES.client, dpmWireSource],
    [GENERATED_FILES.names, dpmNamesSource],
    [GENERATED_FILES.sandbox, sandboxRequestsSource],
  ] as const)('%s is what the document generates (`npm run contracts`)', async (path, source) => {
    const file = join(root, path);
    const options = (await prettier.resolveConfig(file)) ?? {};
    const expected = await prettier.format(source(doc), { ...options, filepath: file });
    expect(readFileSync(file, 'utf8') === expected, `${path} is out of date: run \`npm run contracts\``).toBe(
      true,
    );
  });
});
