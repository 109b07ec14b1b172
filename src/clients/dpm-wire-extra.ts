/**
 * Response schemas of the DPM reads no playbook step calls (docs/reference/dpm-api.md §4 external parties,
 * §12 contracts / services / proxies). They complete `routeResponseSchemas` so the contract tests cover every
 * documented body. Same conventions as dpm-wire.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';

const id = { type: 'string', pattern: '^[^:]+(?::[^:]+)*::[^:]+$' } as const;
const optString = { type: ['string', 'null'] } as const;
const decimal = {
  type: 'string',
  pattern: '^-?\\d+(?:\\.\\d+)?$',
  description: 'a decimal amount as a string',
} as const;

function listOf<const K extends string, const I extends object>(key: K, items: I) {
  return {
    type: 'object',
    properties: { [key]: { type: 'array', items } } as { [P in K]: { type: 'array'; items: I } },
    required: [key],
  } as const;
}

function record<const P extends Record<string, object>>(properties: P) {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties) as Array<keyof P & string>,
  } as const;
}

export const externalPartiesResponseSchema = listOf('parties', {
  type: 'object',
  properties: {
    party_id: id,
    fingerprint: { type: 'string' },
    threshold: { type: 'integer', minimum: 0 },
    host_count: { type: 'integer', minimum: 0 },
    created_at: optString,
  },
  required: ['party_id', 'fingerprint', 'threshold', 'host_count'],
});

export const vaultsResponseSchema = listOf(
  'vaults',
  record({
    contract_id: { type: 'string' },
    vault_name: { type: 'string' },
    share_symbol: { type: 'string' },
    is_paused: { type: 'boolean' },
    vault_manager: id,
  }),
);

const service = <const R extends string>(role: R) =>
  listOf('services', {
    type: 'object',
    properties: { contract_id: { type: 'string' }, operator: id, [role]: id } as {
      contract_id: { type: 'string' };
      operator: typeof id;
    } & { [P in R]: typeof id },
    required: ['contract_id', 'operator', role],
  } as const);

export const instrumentsResponseSchema = listOf(
  'instruments',
  record({ contract_id: { type: 'string' }, instrument_admin: id, instrument_id: { type: 'string' } }),
);
export type InstrumentsResponse = FromSchema<typeof instrumentsResponseSchema>;

export const transferFactoriesResponseSchema = listOf(
  'transfer_factories',
  record({ contract_id: { type: 'string' }, expected_admin: id }),
);

export const transferPreapprovalsResponseSchema = record({
  cc: { type: 'integer', minimum: 0 },
  token: { type: 'integer', minimum: 0 },
});

export const holdingsResponseSchema = listOf(
  'holdings',
  record({
    instrument_admin: id,
    instrument_id: { type: 'string' },
    amount: decimal,
    locked_amount: decimal,
    preapproval_set_up: { type: 'boolean' },
  }),
);

export const contractsQueryResponseSchema = listOf(
  'contracts',
  record({ contract_id: { type: 'string' }, blob: { type: 'string' } }),
);

export const couponReassignmentDelegationResponseSchema = listOf(
  'delegations',
  record({
    cid: { type: 'string' },
    dso: id,
    assigners: { type: 'array', items: id },
    beneficiary_count: { type: 'integer', minimum: 0 },
  }),
);

export const networkInfoResponseSchema = record({
  dso_party_id: id,
  amulet_rules_cid: { type: 'string' },
  amulet_rules_blob: { type: 'string' },
});

export const operatorInfoResponseSchema = record({ party_id: id });
export type OperatorInfoResponse = FromSchema<typeof operatorInfoResponseSchema>;

/** POST /token-standard-contracts proxies the registry's JSON unchanged: any JSON value. */
export const tokenStandardContractsResponseSchema = {} as const;

export const extraRouteResponseSchemas = {
  'GET /external-parties': externalPartiesResponseSchema,
  'GET /vaults': vaultsResponseSchema,
  'GET /services/provider': service('provider'),
  'GET /services/user': service('user'),
  'GET /services/registrar': service('registrar'),
  'GET /credential-offers': listOf(
    'credential_offers',
    record({
      contract_id: { type: 'string' },
      operator: id,
      issuer: id,
      holder: id,
      credential_id: { type: 'string' },
      description: { type: 'string' },
      is_free: { type: 'boolean' },
    }),
  ),
  'GET /credentials': listOf(
    'credentials',
    record({
      contract_id: { type: 'string' },
      issuer: id,
      holder: id,
      credential_id: { type: 'string' },
      description: { type: 'string' },
      claims: {
        type: 'array',
        items: record({
          subject: { type: 'string' },
          property: { type: 'string' },
          value: { type: 'string' },
        }),
      },
    }),
  ),
  'GET /registrar-service-requests': listOf(
    'registrar_service_requests',
    record({
      contract_id: { type: 'string' },
      operator: id,
      provider: id,
      registrar: id,
      create_transfer_rule: { type: 'boolean' },
      create_allocation_factory: { type: 'boolean' },
    }),
  ),
  'GET /provider-configurations': listOf(
    'provider_configurations',
    record({ contract_id: { type: 'string' }, operator: id, provider: id }),
  ),
  'GET /transfer-factories': transferFactoriesResponseSchema,
  'GET /transfer-preapprovals': transferPreapprovalsResponseSchema,
  'GET /holdings': holdingsResponseSchema,
  'GET /contracts/query': contractsQueryResponseSchema,
  'GET /coupon-reassignment-delegation': couponReassignmentDelegationResponseSchema,
  'GET /network-info': networkInfoResponseSchema,
  'GET /operator-info': operatorInfoResponseSchema,
  'POST /token-standard-contracts': tokenStandardContractsResponseSchema,
} as const satisfies Record<`${'GET' | 'POST'} /${string}`, object>;
