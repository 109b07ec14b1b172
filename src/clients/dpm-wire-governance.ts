/**
 * The DPM's governance and auth wire shapes beyond the reads of dpm-wire.ts (docs/reference/dpm-api.md §9,
 * §11): the write requests (propose, confirm, execute, expire, cancel, cancel-proposal), grant-rights and
 * member-party discovery, and the answers of the audit, chain-audit, token-request and known-members reads. Same
 * conventions as dpm-wire.ts: requests we send allow no unknown field; responses allow servers' additions.
 */
import type { FromSchema } from 'json-schema-to-ts';

const id = { type: 'string', pattern: '^[^:]+(?::[^:]+)*::[^:]+$' } as const;
const requestId = { type: 'string', pattern: '^[^:]+(?::[^:]+)*::[0-9a-fA-F]{68}$' } as const;
const cid = { type: 'string', minLength: 1 } as const;
const optString = { type: ['string', 'null'] } as const;
const decimal = { type: 'string', pattern: '^-?\\d+(?:\\.\\d+)?$', description: 'a decimal amount' } as const;

/** `ActionType` variants (§11), tagged by `type` */
export const ACTION_TYPES = [
  'governance_add_member',
  'governance_remove_member',
  'governance_set_threshold',
  'governance_set_timeout',
  'governance_add_additional_proposer',
  'governance_remove_additional_proposer',
  'vault_deployment',
  'yield_epoch_deployment',
  'vault_pause',
  'vault_unpause',
  'vault_update_limits',
  'vault_update_backend',
  'vault_update_far_beneficiaries',
  'processor_deployment_request',
  'utility_create_provider_request',
  'utility_create_user_request',
  'utility_setup',
  'utility_accept_holder_service_request',
  'credential_offer_free',
  'credential_accept_free',
  'dev_net_feature_app',
] as const;

/** `ProposalType` variants (§11), tagged by `type` */
export const PROPOSAL_TYPES = [
  'setup_cc_preapproval',
  'setup_token_preapproval',
  'transfer',
  'accept_transfer',
  'generic_vote',
  'provision_provider_service',
  'setup_utility',
  'create_provider_service_request',
  'create_user_service_request',
  'set_provider_app_reward_beneficiaries',
  'setup_coupon_reassignment_delegation',
  'revoke_coupon_reassignment_delegation',
  'set_enable_result_contracts',
  'create_delegated_batched_markers_proxy',
  'setup_minting_delegation',
  'accept_external_party_setup',
  'mint',
  'offer_free_credential',
  'offer_paid_credential',
  'accept_free_credential',
  'burn',
  'accept_mint_request',
  'accept_burn_request',
  'create_provider_configuration',
  'create_registrar_service_request',
  'onboard_registrar',
  'provision_instrument',
  'onboard_instrument_issuers',
  'offboard_instrument_issuers',
] as const;

export const GOVERNANCE_TYPES = ['vault', 'core_self', 'core_domain'] as const;
export type GovernanceType = (typeof GOVERNANCE_TYPES)[number];

/** an ActionType or ProposalType: its tag and the variant's own fields */
const tagged = <const T extends readonly string[]>(types: T) =>
  ({
    type: 'object',
    properties: { type: { enum: types } },
    required: ['type'],
  }) as const;

export const actionTypeSchema = tagged(ACTION_TYPES);
export const proposalTypeSchema = tagged(PROPOSAL_TYPES);
export type ActionType = { type: (typeof ACTION_TYPES)[number] } & Record<string, unknown>;
export type ProposalType = { type: (typeof PROPOSAL_TYPES)[number] } & Record<string, unknown>;

const governanceType = { enum: GOVERNANCE_TYPES } as const;

export const proposeRequestSchema = {
  type: 'object',
  properties: { party_id: requestId, rules_contract_id: cid, proposal: proposalTypeSchema },
  required: ['party_id', 'rules_contract_id', 'proposal'],
  additionalProperties: false,
} as const;
export interface ProposeRequest {
  party_id: string;
  rules_contract_id: string;
  proposal: ProposalType;
}

export const confirmRequestSchema = {
  type: 'object',
  properties: {
    party_id: requestId,
    rules_contract_id: cid,
    action: actionTypeSchema,
    governance_type: governanceType,
    proposal_cid: cid,
  },
  required: ['party_id', 'rules_contract_id', 'action'],
  additionalProperties: false,
} as const;
export interface ConfirmRequest {
  party_id: string;
  rules_contract_id: string;
  action: ActionType;
  governance_type?: GovernanceType;
  proposal_cid?: string;
}

export const executeRequestSchema = {
  type: 'object',
  properties: {
    ...confirmRequestSchema.properties,
    confirmation_cids: { type: 'array', items: cid },
    disclosed_contracts: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: cid, blob: { type: 'string' } },
        required: ['contract_id', 'blob'],
        additionalProperties: false,
      },
    },
  },
  required: ['party_id', 'rules_contract_id', 'action', 'confirmation_cids'],
  additionalProperties: false,
} as const;
export interface ExecuteRequest extends ConfirmRequest {
  confirmation_cids: string[];
  disclosed_contracts?: Array<{ contract_id: string; blob: string }>;
}

export const expireRequestSchema = {
  type: 'object',
  properties: {
    party_id: requestId,
    rules_contract_id: cid,
    confirmation_cid: cid,
    governance_type: governanceType,
  },
  required: ['party_id', 'rules_contract_id', 'confirmation_cid'],
  additionalProperties: false,
} as const;
export type ExpireRequest = FromSchema<typeof expireRequestSchema>;

export const cancelRequestSchema = {
  type: 'object',
  properties: { party_id: requestId, confirmation_cid: cid, governance_type: governanceType },
  required: ['party_id', 'confirmation_cid'],
  additionalProperties: false,
} as const;
export type CancelRequest = FromSchema<typeof cancelRequestSchema>;

export const cancelProposalRequestSchema = {
  type: 'object',
  properties: { party_id: requestId, proposal_cid: cid, confirmation_cid: cid },
  required: ['party_id', 'proposal_cid'],
  additionalProperties: false,
} as const;
export type CancelProposalRequest = FromSchema<typeof cancelProposalRequestSchema>;

// --- §9 auth ------------------------------------------------------------------------------------------------------

export const grantRightsRequestSchema = {
  type: 'object',
  properties: {
    dec_party_id: requestId,
    admin_client_id: { type: 'string', minLength: 1 },
    admin_client_secret: { type: 'string', minLength: 1 },
  },
  required: ['dec_party_id', 'admin_client_id', 'admin_client_secret'],
  additionalProperties: false,
} as const;
export type GrantRightsRequest = FromSchema<typeof grantRightsRequestSchema>;

const rights = {
  type: 'object',
  properties: {
    member_party_act_as: { type: 'boolean' },
    member_party_read_as: { type: 'boolean' },
    dec_party_act_as: { type: 'boolean' },
    dec_party_read_as: { type: 'boolean' },
  },
  required: ['member_party_act_as', 'member_party_read_as', 'dec_party_act_as', 'dec_party_read_as'],
} as const;

export const grantRightsResponseSchema = {
  type: 'object',
  properties: { rights },
  required: ['rights'],
} as const;
export type GrantRightsResponse = FromSchema<typeof grantRightsResponseSchema>;

export const discoverMemberPartyRequestSchema = {
  type: 'object',
  properties: Object.fromEntries(
    [
      'keycloak_url',
      'keycloak_realm',
      'keycloak_client_id',
      'keycloak_client_secret',
      'keycloak_username',
      'keycloak_password',
      'auth0_domain',
      'auth0_audience',
      'auth0_client_id',
      'auth0_client_secret',
    ].map((k) => [k, { type: 'string' }]),
  ) as Record<string, { type: 'string' }>,
  additionalProperties: false,
} as const;
export type DiscoverMemberPartyRequest = Partial<Record<string, string>>;

export const discoverMemberPartyResponseSchema = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    primary_party: { anyOf: [id, { type: 'null' }] },
    description: optString,
  },
  required: ['user_id'],
} as const;
export type DiscoverMemberPartyResponse = FromSchema<typeof discoverMemberPartyResponseSchema>;

// --- §11 reads ----------------------------------------------------------------------------------------------------

export const AUDIT_EVENTS = ['propose', 'confirm', 'execute', 'expire', 'cancel', 'cancel_proposal'] as const;

export const auditResponseSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          timestamp: { type: 'integer' },
          event_type: { type: 'string' },
          party_id: id,
          member_party_id: id,
          governance_type: { type: 'string' },
          action_summary: { type: 'string' },
          details: {},
          status: { type: 'string' },
          error_message: optString,
          created_at: { type: 'integer' },
        },
        required: [
          'id',
          'timestamp',
          'event_type',
          'party_id',
          'member_party_id',
          'governance_type',
          'action_summary',
          'details',
          'status',
          'created_at',
        ],
      },
    },
    total_returned: { type: 'integer', minimum: 0 },
  },
  required: ['entries', 'total_returned'],
} as const;
export type AuditResponse = FromSchema<typeof auditResponseSchema>;
export type AuditEntry = AuditResponse['entries'][number];

export const chainAuditResponseSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          offset: { type: 'integer' },
          timestamp: { type: 'integer' },
          event_type: { type: 'string' },
          contract_id: { type: 'string' },
          template_id: { type: 'string' },
          package_id: { type: 'string' },
          governance_type: { type: 'string' },
          action_summary: { type: 'string' },
          choice: optString,
          acting_parties: { type: 'array', items: { type: 'string' } },
          update_id: { type: 'string' },
          details: {},
        },
        required: [
          'offset',
          'timestamp',
          'event_type',
          'contract_id',
          'template_id',
          'package_id',
          'governance_type',
          'action_summary',
          'acting_parties',
          'update_id',
          'details',
        ],
      },
    },
    total_returned: { type: 'integer', minimum: 0 },
    next_before_offset: { type: ['integer', 'null'] },
  },
  required: ['entries', 'total_returned'],
} as const;
export type ChainAuditResponse = FromSchema<typeof chainAuditResponseSchema>;

const tokenRequest = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    holder: id,
    amount: decimal,
    instrument_admin: id,
    instrument_id: { type: 'string' },
    expires_at: { type: 'integer' },
  },
  required: ['contract_id', 'holder', 'amount', 'instrument_admin', 'instrument_id', 'expires_at'],
} as const;
export type TokenRequest = FromSchema<typeof tokenRequest>;

export const mintRequestsResponseSchema = {
  type: 'object',
  properties: { mint_requests: { type: 'array', items: tokenRequest } },
  required: ['mint_requests'],
} as const;
export type MintRequestsResponse = FromSchema<typeof mintRequestsResponseSchema>;

export const burnRequestsResponseSchema = {
  type: 'object',
  properties: { burn_requests: { type: 'array', items: tokenRequest } },
  required: ['burn_requests'],
} as const;
export type BurnRequestsResponse = FromSchema<typeof burnRequestsResponseSchema>;

export const transferInstructionsResponseSchema = {
  type: 'object',
  properties: {
    transfer_instructions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          sender: id,
          receiver: id,
          amount: decimal,
          instrument_admin: id,
          instrument_id: { type: 'string' },
          status: { enum: ['pending_receiver_acceptance', 'pending_internal_workflow'] },
          pending_actions: {
            type: ['array', 'null'],
            items: {
              type: 'object',
              properties: { party: id, action: { type: 'string' } },
              required: ['party', 'action'],
            },
          },
          expires_at: { type: 'integer' },
        },
        required: [
          'contract_id',
          'sender',
          'receiver',
          'amount',
          'instrument_admin',
          'instrument_id',
          'status',
        ],
      },
    },
  },
  required: ['transfer_instructions'],
} as const;
export type TransferInstructionsResponse = FromSchema<typeof transferInstructionsResponseSchema>;

export const knownMembersResponseSchema = {
  type: 'object',
  properties: {
    members: {
      type: 'array',
      items: {
        type: 'object',
        properties: { participant_uid: id, member_party_id: { anyOf: [id, { type: 'null' }] } },
        required: ['participant_uid'],
      },
    },
  },
  required: ['members'],
} as const;
export type KnownMembersResponse = FromSchema<typeof knownMembersResponseSchema>;
