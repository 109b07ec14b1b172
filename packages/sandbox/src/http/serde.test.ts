import { describe, expect, it } from 'vitest';
import { DecodeError, S, cantonIdProblem, decodeJsonBody, decodeQuery } from './serde.js';

const id = `p::1220${'ab'.repeat(32)}`;
const shape = S.struct(
  'KickRequest',
  {
    decentralized_party_id: S.cantonId,
    participant_id: S.cantonId,
    new_threshold: S.i32,
    previous_threshold: S.option(S.i32),
  },
  true,
);

function failure(text: string, s = shape): string {
  try {
    decodeJsonBody(text, s);
  } catch (error) {
    if (error instanceof DecodeError) return error.message;
    throw error;
  }
  return expect.fail('decoded');
}

describe('decodeJsonBody (serde_json texts as actix wraps them)', () => {
  it('decodes a valid body; a missing Option field is absent', () => {
    expect(
      decodeJsonBody(`{"decentralized_party_id":"${id}","participant_id":"${id}","new_threshold":2}`, shape),
    ).toEqual({ decentralized_party_id: id, participant_id: id, new_threshold: 2 });
  });

  it.each([
    ['', 'EOF while parsing a value at line 1 column 0'],
    ['{', 'EOF while parsing an object at line 1 column 1'],
    ['{"a" 1}', 'expected `:` at line 1 column 6'],
    ['{"a":1,}', 'trailing comma at line 1 column 8'],
    ['[1 2]', 'expected `,` or `]` at line 1 column 4'],
    ['{} x', 'trailing characters at line 1 column 4'],
    ['{\n  "a": tru }', 'expected ident at line 2 column 11'],
    ['{"a": 01}', 'invalid number at line 1 column 8'],
  ])('syntax: %j', (text, message) => {
    expect(failure(text, S.struct('T', {}))).toBe(`Json deserialize error: ${message}`);
  });

  it('reports a missing field at the closing brace', () => {
    expect(failure('{}')).toBe(
      'Json deserialize error: missing field `decentralized_party_id` at line 1 column 2',
    );
  });

  it('reports an unknown field at the end of its key', () => {
    expect(failure('{"zz":1}')).toBe(
      'Json deserialize error: unknown field `zz`, expected one of `decentralized_party_id`, `participant_id`, `new_threshold`, `previous_threshold` at line 1 column 5',
    );
  });

  it('reports types and ranges the serde way', () => {
    const t = S.struct('T', { n: S.i32, s: S.string, v: S.vec(S.string) });
    expect(failure('{"n":"2"}', t)).toBe(
      'Json deserialize error: invalid type: string "2", expected i32 at line 1 column 8',
    );
    expect(failure('{"n":1.5}', t)).toBe(
      'Json deserialize error: invalid type: floating point `1.5`, expected i32 at line 1 column 8',
    );
    expect(failure('{"n":3000000000}', t)).toBe(
      'Json deserialize error: invalid value: integer `3000000000`, expected i32 at line 1 column 15',
    );
    expect(failure('{"n":1,"s":{}}', t)).toBe(
      'Json deserialize error: invalid type: map, expected a string at line 1 column 12',
    );
    expect(failure('{"n":1,"s":"x","v":"x"}', t)).toBe(
      'Json deserialize error: invalid type: string "x", expected a sequence at line 1 column 22',
    );
    expect(failure('{}', S.vec(S.string))).toBe(
      'Json deserialize error: invalid type: map, expected a sequence at line 1 column 1',
    );
  });

  it('ignores unknown fields on types without deny_unknown_fields', () => {
    expect(decodeJsonBody('{"id":"x","extra":[1,{"a":null}]}', S.struct('T', { id: S.string }))).toEqual({
      id: 'x',
    });
  });
});

describe('cantonIdProblem', () => {
  it.each([
    [id, undefined],
    ['nocolons', "Invalid Canton ID format: expected 'prefix::namespace', got 'nocolons'"],
    ['a::b::c', "Invalid Canton ID format: expected 'prefix::namespace', got 'a::b::c'"],
    ['a::12g0', "Invalid character 'g' at position 2"],
    ['a::123', 'Odd number of digits'],
    ['a::1220', 'Invalid namespace length: expected 34 bytes, got 2'],
  ])('%s', (text, problem) => {
    expect(cantonIdProblem(text)).toBe(problem);
  });
});

describe('decodeQuery (serde_urlencoded)', () => {
  it('decodes optional and required fields', () => {
    expect(
      decodeQuery(new URLSearchParams('refresh=true'), {
        prefix: { type: 'string', optional: true },
        refresh: { type: 'bool', optional: true },
      }),
    ).toEqual({
      prefix: undefined,
      refresh: true,
    });
  });

  it('refuses a bad bool and a missing field with the actix texts', () => {
    expect(() =>
      decodeQuery(new URLSearchParams('refresh=yes'), { refresh: { type: 'bool', optional: true } }),
    ).toThrow('Query deserialize error: provided string was not `true` or `false`');
    expect(() => decodeQuery(new URLSearchParams(''), { party_id: { type: 'canton-id' } })).toThrow(
      'Query deserialize error: missing field `party_id`',
    );
  });
});

describe('internally tagged enums (serde `tag = "type"`)', () => {
  const field: ReturnType<typeof S.tagged> = S.tagged('FieldDefinition', {
    decentralized_party: null,
    text: { value: S.string },
    governance_threshold: { value: S.option(S.i64) },
    optional: { inner: S.lazy(() => field) },
  });
  const body = S.struct('T', { fields: S.vec(field) });

  it('decodes unit and struct variants; unknown fields of a variant are ignored', () => {
    expect(
      decodeJsonBody(
        '{"fields":[{"type":"decentralized_party","x":1},{"type":"text","value":"v"},{"type":"governance_threshold"},{"type":"optional","inner":{"type":"text","value":"w"}}]}',
        body,
      ),
    ).toEqual({
      fields: [
        { type: 'decentralized_party' },
        { type: 'text', value: 'v' },
        { type: 'governance_threshold' },
        { type: 'optional', inner: { type: 'text', value: 'w' } },
      ],
    });
  });

  it('refuses an unknown variant, a missing tag and a variant’s missing field where the object ends', () => {
    expect(failure('{"fields":[{"type":"bogus"}]}', body)).toBe(
      'Json deserialize error: unknown variant `bogus`, expected one of `decentralized_party`, `text`, `governance_threshold`, `optional` at line 1 column 27',
    );
    expect(failure('{"fields":[{"value":"v"}]}', body)).toBe(
      'Json deserialize error: missing field `type` at line 1 column 24',
    );
    expect(failure('{"fields":[{"type":"text"}]}', body)).toBe(
      'Json deserialize error: missing field `value` at line 1 column 26',
    );
    expect(failure('{"fields":[{"type":"optional","inner":{"type":"nope"}}]}', body)).toMatch(
      /^Json deserialize error: unknown variant `nope`, expected one of .* at line 1 column 54$/,
    );
  });

  it('refuses a value outside a fieldless enum', () => {
    const t = S.struct('T', {
      governance_type: S.option(S.unitEnum('GovernanceType', ['vault', 'core_self'])),
    });
    expect(failure('{"governance_type":"core"}', t)).toBe(
      'Json deserialize error: unknown variant `core`, expected one of `vault`, `core_self` at line 1 column 25',
    );
  });
});
