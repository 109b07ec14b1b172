/**
 * The WebSocket half of the published ledger contract: the AsyncAPI documents' message schemas (the request a
 * client sends on a channel, the frames the participant streams back) as validators. ajv (draft-07, which the
 * documents' schemas are written in) with format checks off: the documents use `int64`/`int32` as annotations.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Finding } from './openapi.js';

const specsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/specs');

export const ASYNCAPI_FILES = {
  'ledger-3.5.1': 'canton-json-api-v2.asyncapi.yaml',
  'ledger-3.4.12': 'canton-json-api-v2-3.4.12.asyncapi.yaml',
} as const;
export type AsyncApiName = keyof typeof ASYNCAPI_FILES;

const validators = new Map<string, ValidateFunction>();
const loaded = new Map<AsyncApiName, Ajv>();

function ajvFor(name: AsyncApiName): Ajv {
  let ajv = loaded.get(name);
  if (ajv === undefined) {
    const document = parse(readFileSync(path.join(specsDir, ASYNCAPI_FILES[name]), 'utf8')) as {
      components: { schemas: Record<string, unknown> };
    };
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: name, components: { schemas: document.components.schemas } });
    loaded.set(name, ajv);
  }
  return ajv;
}

/** Validates a message against the document's `components.schemas[schema]`. */
export function validateMessage(
  name: AsyncApiName,
  schema: string,
  value: unknown,
): { valid: boolean; findings: Finding[] } {
  const key = `${name}#${schema}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajvFor(name).compile({ $ref: `${name}#/components/schemas/${schema}` });
    validators.set(key, validate);
  }
  const valid = validate(value);
  return {
    valid,
    findings: (validate.errors ?? []).map((e) => ({ at: e.instancePath, message: e.message ?? 'invalid' })),
  };
}
