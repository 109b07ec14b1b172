/**
 * The OpenAPI document and Swagger UI the real server generates at run time and serves in insecure mode only
 * (dpm-api.md §0: `/swagger-ui/`, `/api-docs/openapi.json`): here built from the sandbox's own route table, one
 * operation per route with the reference's tags. Outside insecure mode these paths are unknown GETs (the web UI).
 */
import { DPM_VERSION } from './node.js';
import type { DpmRoute } from './routes/route.js';
import { queryOf } from './wire.generated.js';

const QUERY_SCHEMAS = {
  'canton-id': { type: 'string' },
  string: { type: 'string' },
  bool: { type: 'boolean' },
  u32: { type: 'integer', format: 'int32', minimum: 0 },
  i64: { type: 'integer', format: 'int64' },
} as const;

const TAGS: Array<[RegExp, string]> = [
  [/^\/governance\//, 'Governance'],
  [/^\/(workflows|onboarding|kick|add-party|change-threshold|contracts)(\/|$)/, 'Workflows'],
  [/^\/invitations/, 'Invitations'],
  [/^\/(packages|dars)/, 'Packages'],
  [/^\/auth/, 'Authentication'],
  [/^\/keys/, 'Keys'],
  [/^\/(decentralized-parties|external-parties)/, 'Parties'],
  [/^\/(network-info|operator-info|token-standard-contracts)/, 'Proxy'],
  [/^\/(vaults|services|credential|registrar|provider|instruments|transfer|holdings|coupon)/, 'Services'],
];

function tagOf(path: string): string {
  return TAGS.find(([pattern]) => pattern.test(path))?.[1] ?? 'Configuration';
}

function operationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;
}

export function openApiDocument(routes: readonly DpmRoute[]): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.template.startsWith('/swagger-ui') || r.template.startsWith('/api-docs')) continue;
    const params = [
      ...[...r.template.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...Object.entries(queryOf[`${r.method} ${r.template}`] ?? {}).map(([name, p]) => ({
        name,
        in: 'query',
        required: !p.optional,
        schema: QUERY_SCHEMAS[p.type],
      })),
    ];
    (paths[r.template] ??= {})[r.method.toLowerCase()] = {
      tags: [tagOf(r.template)],
      operationId: operationId(r.method, r.template),
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(r.body !== undefined
        ? { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } } }
        : {}),
      responses: { default: { description: 'see the DPM reference', content: { 'application/json': {} } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'dec-party-manager', version: DPM_VERSION },
    paths,
  };
}

export const SWAGGER_UI_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Swagger UI</title></head><body>' +
  '<div id="swagger-ui"></div><p>The OpenAPI document: <a href="/api-docs/openapi.json">/api-docs/openapi.json</a></p>' +
  '<!-- ledgerbook sandbox: the Swagger UI assets are not shipped --></body></html>';
