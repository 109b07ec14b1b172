import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { hasUrlCredentials, hideUrlCredentials } from '../../url-credentials.js';

const withSchema = {
  type: 'object',
  properties: {
    until: {
      type: 'string',
      'x-lazy-expression': true,
      description:
        'The condition, evaluated at every poll: `${{ response.status == 200 }}`. In scope: `response` ({status, body, headers}) with `http`, `attempt`, `elapsed_ms`, and everything a step sees.',
    },
    http: {
      type: 'object',
      description: 'Poll this URL with GET; without `until`, waits for a 2xx answer.',
      properties: {
        url: { type: 'string', pattern: '^https?://' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['url'],
      additionalProperties: false,
    },
    interval: { ...durationSchema, description: 'Time between polls (default 2s).' },
    timeout: { ...durationSchema, description: 'Give up after this long (default 5m).' },
  },
  anyOf: [{ required: ['until'] }, { required: ['http'] }],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `core.wait`; its run-time code is ./wait.ts. */
export const coreWaitDeclaration = declareStep<With>({
  kind: 'core.wait',
  summary: 'Poll an HTTP GET or an expression until a condition holds.',
  withSchema,
  outputs: {
    response: 'the last response ({status, body, headers}) when polling http',
    attempts: 'polls made',
  },
  needsTarget: false,
  check(w) {
    // a URL from a step's outputs is refused by the HTTP client when the step runs
    if (!w.http || !hasUrlCredentials(w.http.url)) return [];
    return [
      {
        pointer: '/http/url',
        message: `${hideUrlCredentials(w.http.url)} carries credentials in the URL (user:password@): they would be printed in messages, logs and events`,
        hint: "remove 'user:password@'; send a credential in a header instead: headers: { authorization: '${{ secrets.NAME }}' }",
      },
    ];
  },
});
