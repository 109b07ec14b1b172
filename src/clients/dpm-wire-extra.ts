/**
 * Response schemas of the DPM reads no playbook step calls yet (../shared/reference/dpm-api.md §4 external
 * parties, §11 governance reads, §12 contracts / services / proxies). They complete `routeResponseSchemas` so the
 * contract tests cover every documented body. Where the reference leaves an element's fields open (`[…]`), the
 * element is only required to be an object. Same conventions as dpm-wire.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';

const id = { type: 'string', pattern: '^[^:]+(?::[^:]+)*::[^:]+$' } as const;
const optString = { type: ['string', 'null'] } as const;
const decimal = {
  type: 'string',
  pattern: '^-?\\d+(?:\\.\\d+)?$',
  description: 'a decimal amount as a string',
} as const;
const anyObject = { type: 'object' } as const;

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

export const knownMembersResponseSchema = listOf('members', {
  type: 'object',
  properties: { participant_uid: id, member_party_id: { anyOf: [id, { type: 'null' }] } },
  required: ['participant_uid'],
});
export type KnownMembersResponse = FromSchema<typeof knownMembersResponseSchema>;

export const governanceAuditResponseSchema = {
  type: 'object',
  properties: {
    entries: { type: 'array', items: anyObject },
    total_returned: { type: 'integer', minimum: 0 },
  },
  required: ['entries', 'total_returned'],
} as const;

export const chainAuditResponseSchema = {
  type: 'object',
  properties: {
    entries: { type: 'array', items: anyObject },
    total_returned: { type: 'integer', minimum: 0 },
    next_before_offset: { type: ['integer', 'null'] },
  },
  required: ['entries', 'total_returned'],
} as const;

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
  'GET /governance/known-members': knownMembersResponseSchema,
  'GET /governance/audit': governanceAuditResponseSchema,
  'GET /governance/chain-audit': chainAuditResponseSchema,
  'GET /governance/transfer-instructions': listOf('transfer_instructions', anyObject),
  'GET /governance/mint-requests': listOf('mint_requests', anyObject),
  'GET /governance/burn-requests': listOf('burn_requests', anyObject),
  'GET /vaults': vaultsResponseSchema,
  'GET /services/provider': service('provider'),
  'GET /services/user': service('user'),
  'GET /services/registrar': service('registrar'),
  'GET /credential-offers': listOf('credential_offers', anyObject),
  'GET /credentials': listOf('credentials', anyObject),
  'GET /registrar-service-requests': listOf('registrar_service_requests', anyObject),
  'GET /provider-configurations': listOf('provider_configurations', anyObject),
  'GET /instruments': instrumentsResponseSchema,
  'GET /transfer-factories': transferFactoriesResponseSchema,
  'GET /transfer-preapprovals': transferPreapprovalsResponseSchema,
  'GET /holdings': holdingsResponseSchema,
  'GET /contracts/query': contractsQueryResponseSchema,
  'GET /coupon-reassignment-delegation': couponReassignmentDelegationResponseSchema,
  'GET /network-info': networkInfoResponseSchema,
  'GET /operator-info': operatorInfoResponseSchema,
  'POST /token-standard-contracts': tokenStandardContractsResponseSchema,
} as const satisfies Record<`${'GET' | 'POST'} /${string}`, object>;
