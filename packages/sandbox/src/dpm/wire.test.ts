import { describe, expect, it } from 'vitest';
import { DecodeError, S, decodeJsonBody } from '../http/serde.js';
import { requestShape, shapeOf } from './wire.js';

const id = `p::1220${'ab'.repeat(32)}`;

function failure(text: string, route: string): string {
  try {
    decodeJsonBody(text, requestShape(route));
  } catch (error) {
    if (error instanceof DecodeError) return error.message;
    throw error;
  }
  return expect.fail('decoded');
}

describe('the decoder shapes of the DPM document', () => {
  it('reads titles, integer widths, Option fields and deny_unknown_fields as the server declares them', () => {
    expect(
      shapeOf({
        title: 'KickRequest',
        type: 'object',
        properties: {
          decentralized_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
          new_threshold: { type: 'integer', format: 'int32' },
          previous_threshold: { type: ['integer', 'null'], format: 'int32' },
          note: { type: 'string' },
        },
        required: ['decentralized_party_id', 'new_threshold'],
        additionalProperties: false,
      }),
    ).toEqual(
      S.struct(
        'KickRequest',
        {
          decentralized_party_id: S.cantonId,
          new_threshold: S.i32,
          previous_threshold: S.option(S.i32),
          note: S.option(S.string),
        },
        true,
      ),
    );
  });

  it('reads a oneOf with a discriminator as an internally tagged enum, a titled enum as a fieldless one', () => {
    expect(
      shapeOf({
        title: 'Shape',
        oneOf: [
          { type: 'object', properties: { type: { const: 'dot' } }, required: ['type'] },
          {
            type: 'object',
            properties: { type: { const: 'line' }, length: { type: 'integer', format: 'uint32' } },
            required: ['type', 'length'],
          },
        ],
        discriminator: { propertyName: 'type' },
      }),
    ).toEqual(S.tagged('Shape', { dot: null, line: { length: S.u32 } }));
    expect(shapeOf({ title: 'GovernanceType', enum: ['vault', 'core_self'] })).toEqual(
      S.unitEnum('GovernanceType', ['vault', 'core_self']),
    );
  });

  it('refuses bodies with the real server texts, from the document’s request bodies', () => {
    expect(
      failure(`{"decentralized_party_id":"${id}","new_threshold":2,"x":1}`, 'POST /change-threshold'),
    ).toBe(
      'Json deserialize error: unknown field `x`, expected one of `decentralized_party_id`, `new_threshold`, ' +
        '`previous_threshold` at line 1 column 121',
    );
    expect(failure('{"peer_ids":[]}', 'POST /onboarding')).toBe(
      'Json deserialize error: missing field `party_id_prefix` at line 1 column 15',
    );
    expect(failure('[{"filename":"a.dar"}]', 'POST /dars/upload')).toBe(
      'Json deserialize error: invalid type: sequence, expected struct DarsRequest at line 1 column 1',
    );
    expect(
      failure(
        `{"party_id":"${id}","rules_contract_id":"00","action":{"type":"nope"}}`,
        'POST /governance/confirm',
      ),
    ).toMatch(/^Json deserialize error: unknown variant `nope`, expected one of `governance_add_member`, /);
  });

  it('has a request body for every route that takes one, and no other', () => {
    expect(() => requestShape('GET /healthz')).toThrow(/no request body/);
    for (const route of ['POST /network-config', 'PUT /party-config', 'POST /invitations/accept'])
      expect(requestShape(route)).toBeDefined();
  });
});
