/**
 * The published wire contracts (test/fixtures/specs, copies of ../shared/specs) as validators: a request our
 * clients send, or a response the sandbox returns, is checked against the operation the document declares for
 * its method and path.
 *
 * Library: openapi-backend (ajv underneath). The Canton documents are not valid OpenAPI 3.0 to the letter —
 * `$ref` with sibling `description`/`title`, several hundred of them — so strict loaders refuse them; openapi-backend
 * in `quick` mode skips validating the document itself and still resolves every `$ref` for request and response
 * validation. Pinned to 5.20 because 5.21 pulls a ref-parser that requires Node 22.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend } from 'openapi-backend';
import { parse } from 'yaml';

const specsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/specs');

/** The documents by a short name. */
export const SPEC_FILES = {
  'ledger-3.5.1': 'canton-json-api-v2.openapi.yaml',
  'ledger-3.4.12': 'canton-json-api-v2-3.4.12.openapi.yaml',
  'token-metadata': 'token-standard/splice-api-token-metadata-v1.yaml',
  'token-transfer-instruction': 'token-standard/splice-api-token-transfer-instruction-v1.yaml',
  'token-allocation': 'token-standard/splice-api-token-allocation-v1.yaml',
  'token-allocation-instruction': 'token-standard/splice-api-token-allocation-instruction-v1.yaml',
} as const;

export type SpecName = keyof typeof SPEC_FILES;

export interface Finding {
  /** where in the body (JSON pointer), or the part of the request ('query', 'path') */
  at: string;
  message: string;
}

export interface Verdict {
  valid: boolean;
  /** the document's operationId the method and path matched, if any */
  operationId: string | undefined;
  findings: Finding[];
}

type Backend = OpenAPIBackend;

const backends = new Map<SpecName, Promise<Backend>>();

/** The parsed document, for tests that read a schema out of it. */
export function specDocument(name: SpecName): Record<string, unknown> {
  return parse(readFileSync(path.join(specsDir, SPEC_FILES[name]), 'utf8')) as Record<string, unknown>;
}

async function backend(name: SpecName): Promise<Backend> {
  let api = backends.get(name);
  if (api === undefined) {
    api = (async () => {
      const b = new OpenAPIBackend({
        definition: specDocument(name) as never,
        quick: true,
        strict: false,
        validate: true,
        ajvOpts: { strict: false, allErrors: true },
      });
      await b.init();
      return b;
    })();
    backends.set(name, api);
  }
  return api;
}

/**
 * Registry documents declare paths relative to the registry base (`/registry/…`); the real service mounts them
 * under `/api/token-standard/v0/registrars/{admin}`. Pass the path from `/registry` on.
 */
function requestPath(p: string): { path: string; query: Record<string, string> } {
  const url = new URL(p, 'http://x');
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

function findingsOf(
  errors: ReadonlyArray<{ instancePath?: string; message?: string }> | null | undefined,
): Finding[] {
  return (errors ?? []).map((e) => ({ at: e.instancePath ?? '', message: e.message ?? 'invalid' }));
}

/** Validates a request (method, path with query string, JSON body) against the document. */
export async function validateRequest(
  name: SpecName,
  method: string,
  pathWithQuery: string,
  body?: unknown,
): Promise<Verdict> {
  const api = await backend(name);
  const { path: p, query } = requestPath(pathWithQuery);
  const request = {
    method: method.toLowerCase(),
    path: p,
    query,
    headers: { 'content-type': 'application/json' },
    body,
  };
  const operation = api.matchOperation(request);
  if (operation === undefined) {
    return {
      valid: false,
      operationId: undefined,
      findings: [{ at: 'path', message: `${method} ${p} is not an operation of ${SPEC_FILES[name]}` }],
    };
  }
  const result = api.validateRequest(request, operation);
  return { valid: result.valid, operationId: operation.operationId, findings: findingsOf(result.errors) };
}

/**
 * Validates a response body for the operation of (method, path) with its status: a declared status, or the
 * document's `default` response (Canton declares its `JsCantonError` there).
 */
export async function validateResponse(
  name: SpecName,
  method: string,
  pathWithQuery: string,
  status: number,
  body: unknown,
): Promise<Verdict> {
  const api = await backend(name);
  const { path: p, query } = requestPath(pathWithQuery);
  const operation = api.matchOperation({ method: method.toLowerCase(), path: p, query, headers: {} });
  if (operation === undefined) {
    return {
      valid: false,
      operationId: undefined,
      findings: [{ at: 'path', message: `${method} ${p} is not an operation of ${SPEC_FILES[name]}` }],
    };
  }
  const result = api.validateResponse(body, operation, status);
  return { valid: result.valid, operationId: operation.operationId, findings: findingsOf(result.errors) };
}
