import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './step-declaration.js';
import { durationSchema } from './playbook-schema.js';
import { annotate } from './schema-annotations.js';

/** `pointer → flags` of what annotate finds, values left out. */
function flags(schema: JsonSchema, value: unknown): Record<string, string> {
  return Object.fromEntries(
    [...annotate(schema, value)].map(([pointer, a]) => [
      pointer,
      [a.secret && 'secret', a.lazy && 'lazy', a.duration && 'duration'].filter(Boolean).join(' '),
    ]),
  );
}

const flat: JsonSchema = {
  type: 'object',
  properties: {
    until: { type: 'string', 'x-lazy-expression': true },
    timeout: { ...durationSchema },
    password: { anyOf: [{ type: 'string', 'x-secret': true }, { type: 'null' }] },
    plain: { type: 'string' },
    auth: {
      type: 'object',
      properties: { token: { type: 'string', 'x-secret': true }, wait: durationSchema },
    },
    list: { type: 'array', items: { type: 'string', 'x-secret': true } },
  },
  anyOf: [{ required: ['until'] }, { required: ['timeout'] }],
  additionalProperties: false,
};

describe('annotate', () => {
  it('finds the annotations of each field, scalar or nested, from its property', () => {
    const value = {
      until: '${{ response.status == 200 }}',
      timeout: '5m',
      password: '${{ secrets.P }}',
      plain: 'x',
      auth: { token: 't', wait: 3 },
      list: ['a', 'b'],
      extra: 'ignored',
    };
    expect(flags(flat, value)).toEqual({
      '/until': 'lazy',
      '/timeout': 'duration',
      '/password': 'secret',
      '/auth/token': 'secret',
      '/auth/wait': 'duration',
      '/list/0': 'secret',
      '/list/1': 'secret',
    });
    expect(annotate(flat, value).get('/timeout')?.value).toBe('5m');
    // the same schema asked again (its properties' annotations are remembered) gives the same
    expect(flags(flat, { timeout: 2, plain: 'y' })).toEqual({ '/timeout': 'duration' });
  });

  it('walks the whole schema when annotations sit outside its properties', () => {
    const branches: JsonSchema = {
      type: 'object',
      anyOf: [{ properties: { key: { type: 'string', 'x-secret': true } } }, { required: ['other'] }],
      patternProperties: { '^t_': { 'x-lazy-expression': true } },
      additionalProperties: durationSchema,
      $defs: { secret: { type: 'string', 'x-secret': true } },
      properties: { ref: { $ref: '#/$defs/secret' } },
    };
    expect(flags(branches, { key: 'k', t_x: 'a', other: '1s', ref: 'r' })).toEqual({
      '/key': 'secret duration',
      '/t_x': 'lazy',
      '/other': 'duration',
      '/ref': 'secret',
    });
  });

  it('finds nothing, without a walk, in a schema that annotates nothing', () => {
    const plain: JsonSchema = { type: 'object', properties: { run: { type: 'string' } } };
    expect(annotate(plain, { run: 'make' }).size).toBe(0);
  });
});
