// Generated from contracts/dpm.openapi.yaml by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.
// The client’s view of the document (scripts/dpm-contract.ts clientView).
import type { FromSchema } from 'json-schema-to-ts';

export const healthzResponseSchema = {
  type: 'object',
  properties: { status: { const: 'ok' } },
  required: ['status'],
} as const;
export type HealthzResponse = FromSchema<typeof healthzResponseSchema>;
export const authConfigResponseSchema = {
  type: 'object',
  properties: {
    auth_required: { type: 'boolean' },
    keycloak_host: { type: ['string', 'null'] },
    keycloak_realm: { type: ['string', 'null'] },
    keycloak_client_id: { type: ['string', 'null'] },
    auth0_domain: { type: ['string', 'null'] },
    auth0_client_id: { type: ['string', 'null'] },
    auth0_audience: { type: ['string', 'null'] },
  },
  required: ['auth_required'],
} as const;
export type AuthConfigResponse = FromSchema<typeof authConfigResponseSchema>;
export const cantonIdSchema = {
  type: 'string',
  pattern: '^[^:]+(?::[^:]+)*::[^:]+$',
  description: '`<prefix>::<namespace>`',
} as const;
export type CantonId = FromSchema<typeof cantonIdSchema>;
export const tlsConfigSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    ca_cert: { type: ['string', 'null'] },
    client_cert: { type: ['string', 'null'] },
    client_key: { type: ['string', 'null'] },
    domain: { type: ['string', 'null'] },
  },
  required: ['enabled'],
} as const;
export type TlsConfig = FromSchema<typeof tlsConfigSchema>;
export const nodeConfigResponseSchema = {
  type: 'object',
  properties: {
    node: {
      type: 'object',
      properties: {
        participant_id: cantonIdSchema,
        listen_address: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535, description: 'the Noise port' },
        public_address: { type: ['string', 'null'] },
      },
      required: ['participant_id', 'listen_address', 'port'],
    },
    canton: {
      type: 'object',
      properties: {
        admin_api_host: { type: 'string' },
        admin_api_port: { type: 'integer', minimum: 0, maximum: 65535 },
        ledger_api_host: { type: 'string' },
        ledger_api_port: { type: 'integer', minimum: 0, maximum: 65535 },
        synchronizer: { type: 'string' },
        network: { enum: ['devnet', 'testnet', 'mainnet'] },
        admin_api_tls: tlsConfigSchema,
        ledger_api_tls: tlsConfigSchema,
      },
      required: [
        'admin_api_host',
        'admin_api_port',
        'ledger_api_host',
        'ledger_api_port',
        'synchronizer',
        'network',
        'admin_api_tls',
        'ledger_api_tls',
      ],
    },
    timeouts: {
      type: 'object',
      properties: {
        handshake_timeout_secs: { type: 'integer', minimum: 0 },
        message_timeout_secs: { type: 'integer', minimum: 0 },
        connection_retry_attempts: { type: 'integer', minimum: 0 },
        connection_retry_delay_secs: { type: 'integer', minimum: 0 },
      },
      required: [
        'handshake_timeout_secs',
        'message_timeout_secs',
        'connection_retry_attempts',
        'connection_retry_delay_secs',
      ],
    },
    noise_retry: {
      type: 'object',
      properties: {
        per_attempt_timeout_secs: { type: 'integer', minimum: 0 },
        max_attempts: { type: 'integer', minimum: 0 },
        backoff_ms: { type: 'integer', minimum: 0 },
      },
      required: ['per_attempt_timeout_secs', 'max_attempts', 'backoff_ms'],
    },
    reward_automation_interval_secs: { type: 'integer', minimum: 0 },
    reward_max_creates: { type: 'integer', minimum: 0 },
    reward_min_expiry_margin_secs: { type: 'integer', minimum: 0 },
    keycloak: {
      type: ['object', 'null'],
      properties: {
        url: { type: 'string' },
        realm: { type: 'string' },
        client_id: { type: 'string' },
        username: { type: ['string', 'null'] },
      },
      required: ['url', 'realm', 'client_id'],
    },
    auth0: {
      type: ['object', 'null'],
      properties: { domain: { type: 'string' }, client_id: { type: 'string' }, audience: { type: 'string' } },
      required: ['domain', 'client_id', 'audience'],
    },
    test_mode: { type: 'boolean', description: 'insecure mode' },
    version: { type: 'string' },
    build_version: { type: 'string' },
    build_time: { type: ['string', 'null'] },
  },
  required: [
    'node',
    'canton',
    'timeouts',
    'noise_retry',
    'reward_automation_interval_secs',
    'reward_max_creates',
    'reward_min_expiry_margin_secs',
    'test_mode',
    'version',
    'build_version',
  ],
} as const;
export type NodeConfigResponse = FromSchema<typeof nodeConfigResponseSchema>;
export const publicKeySchema = { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$' } as const;
export type PublicKey = FromSchema<typeof publicKeySchema>;
export const keysStatusResponseSchema = {
  type: 'object',
  properties: { has_keys: { type: 'boolean' }, public_key: { anyOf: [publicKeySchema, { type: 'null' }] } },
  required: ['has_keys'],
} as const;
export type KeysStatusResponse = FromSchema<typeof keysStatusResponseSchema>;
export const peerSchema = {
  type: 'object',
  properties: {
    participant_id: cantonIdSchema,
    name: { type: 'string' },
    address: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535, description: 'the Noise port' },
    public_key: publicKeySchema,
    party: { type: ['string', 'null'] },
  },
  required: ['participant_id', 'name', 'address', 'port', 'public_key'],
} as const;
export type Peer = FromSchema<typeof peerSchema>;
export const networkConfigResponseSchema = {
  type: 'object',
  properties: { peers: { type: 'array', items: peerSchema } },
  required: ['peers'],
} as const;
export type NetworkConfigResponse = FromSchema<typeof networkConfigResponseSchema>;
export const successResponseSchema = {
  type: 'object',
  properties: { success: { const: true } },
  required: ['success'],
} as const;
export type SuccessResponse = FromSchema<typeof successResponseSchema>;
export const cantonIdInRequestSchema = {
  type: 'string',
  pattern: '^[^:]+(?::[^:]+)*::[0-9a-fA-F]{68}$',
} as const;
export type CantonIdInRequest = FromSchema<typeof cantonIdInRequestSchema>;
export const networkConfigRequestSchema = {
  type: 'array',
  items: {
    title: 'Peer',
    type: 'object',
    properties: {
      participant_id: cantonIdInRequestSchema,
      name: { type: 'string' },
      address: { type: 'string' },
      port: { type: 'integer', minimum: 0, maximum: 65535, description: 'the Noise port' },
      public_key: { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$' },
      party: { type: ['string', 'null'] },
    },
    required: ['participant_id', 'name', 'address', 'port', 'public_key'],
    additionalProperties: false,
  },
} as const;
export type NetworkConfigRequest = FromSchema<typeof networkConfigRequestSchema>;
export const workflowInfoSchema = {
  type: ['object', 'null'],
  properties: {
    kind: { enum: ['Onboarding', 'Kick', 'Contracts', 'Dars', 'AddParty', 'ChangeThreshold'] },
    role: { enum: ['Coordinator', 'Peer'] },
    step: { type: 'string' },
    step_index: { type: 'integer', minimum: 0 },
    step_total: { type: 'integer', minimum: 1 },
  },
  required: ['kind', 'role', 'step', 'step_index', 'step_total'],
} as const;
export type WorkflowInfo = FromSchema<typeof workflowInfoSchema>;
export const participantsStatusResponseSchema = {
  type: 'object',
  properties: {
    statuses: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          status: { enum: ['CurrentNode', 'Connected', 'Unreachable', 'HandshakeFailed'] },
          latency_ms: { type: ['number', 'null'] },
          workflow: workflowInfoSchema,
          version: { type: ['string', 'null'] },
          build_version: { type: ['string', 'null'] },
        },
        required: ['id', 'status'],
      },
    },
  },
  required: ['statuses'],
} as const;
export type ParticipantsStatusResponse = FromSchema<typeof participantsStatusResponseSchema>;
export const partyConfigResponseSchema = {
  type: 'object',
  properties: {
    dec_party_id: cantonIdSchema,
    member_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    user_id: { type: ['string', 'null'] },
    keycloak_url: { type: 'string' },
    keycloak_realm: { type: 'string' },
    keycloak_client_id: { type: 'string' },
    has_client_secret: { type: 'boolean' },
    has_username: { type: 'boolean' },
    has_password: { type: 'boolean' },
    auth0_domain: { type: ['string', 'null'] },
    auth0_audience: { type: ['string', 'null'] },
    auth0_client_id: { type: ['string', 'null'] },
    has_auth0_client_secret: { type: 'boolean' },
    packages: {
      type: 'object',
      properties: {
        governance_action: { type: ['string', 'null'] },
        governance_core: { type: ['string', 'null'] },
        governance_rewards: { type: ['string', 'null'] },
        governance_token_custody: { type: ['string', 'null'] },
        governance_utility_credential: { type: ['string', 'null'] },
        governance_utility_onboarding: { type: ['string', 'null'] },
        utility_credential: { type: ['string', 'null'] },
        utility_credential_app: { type: ['string', 'null'] },
        utility_registry: { type: ['string', 'null'] },
        vault: { type: ['string', 'null'] },
        vault_governance: { type: ['string', 'null'] },
      },
    },
  },
  required: [
    'dec_party_id',
    'keycloak_url',
    'keycloak_realm',
    'keycloak_client_id',
    'has_client_secret',
    'has_username',
    'has_password',
    'has_auth0_client_secret',
    'packages',
  ],
} as const;
export type PartyConfigResponse = FromSchema<typeof partyConfigResponseSchema>;
export const partyConfigRequestSchema = {
  title: 'PartyConfigRequest',
  type: 'object',
  properties: {
    dec_party_id: cantonIdInRequestSchema,
    member_party_id: cantonIdInRequestSchema,
    user_id: { type: 'string', minLength: 1 },
    keycloak_url: { type: ['string', 'null'] },
    keycloak_realm: { type: ['string', 'null'] },
    keycloak_client_id: { type: ['string', 'null'] },
    keycloak_client_secret: { type: ['string', 'null'] },
    keycloak_username: { type: ['string', 'null'] },
    keycloak_password: { type: ['string', 'null'] },
    auth0_domain: { type: ['string', 'null'] },
    auth0_audience: { type: ['string', 'null'] },
    auth0_client_id: { type: ['string', 'null'] },
    auth0_client_secret: { type: ['string', 'null'] },
    packages: {},
  },
  required: ['dec_party_id', 'member_party_id', 'user_id'],
  additionalProperties: false,
} as const;
export type PartyConfigRequest = FromSchema<typeof partyConfigRequestSchema>;
export const contractInfoSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    template_id: {
      type: 'string',
      pattern: '^[A-Za-z_][\\w.]*:[A-Za-z_]\\w*$',
      description: '`Module.Path:Entity`',
    },
    package_id: { type: 'string' },
    package_name: { type: 'string' },
    package_version: { type: 'string' },
    created_at: {
      type: 'string',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})$',
      description: 'ISO-8601 time',
    },
  },
  required: ['contract_id', 'template_id', 'package_id', 'package_name', 'package_version', 'created_at'],
} as const;
export type ContractInfo = FromSchema<typeof contractInfoSchema>;
export const decentralizedPartySchema = {
  type: 'object',
  properties: {
    party_id: cantonIdSchema,
    threshold: { type: 'integer', minimum: 1, maximum: 2147483647 },
    owners: { type: 'array', items: { type: 'string' }, description: 'namespace key fingerprints' },
    my_owner_key: { type: ['string', 'null'] },
    participants: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          participant_uid: cantonIdSchema,
          permission: { enum: ['submission', 'confirmation', 'observation', 'unknown'] },
          owner_key: { type: ['string', 'null'] },
        },
        required: ['participant_uid', 'permission'],
      },
    },
    contracts: { type: ['array', 'null'], items: contractInfoSchema },
    local_metadata: {
      type: ['object', 'null'],
      properties: { annotations: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['annotations'],
    },
  },
  required: ['party_id', 'threshold', 'owners', 'participants'],
} as const;
export type DecentralizedParty = FromSchema<typeof decentralizedPartySchema>;
export const decentralizedPartiesResponseSchema = {
  type: 'object',
  properties: {
    parties: { type: 'array', items: decentralizedPartySchema },
    source: { enum: ['live', 'cache'] },
    refreshing: { type: 'boolean' },
  },
  required: ['parties', 'source', 'refreshing'],
} as const;
export type DecentralizedPartiesResponse = FromSchema<typeof decentralizedPartiesResponseSchema>;
export const workflowResponseSchema = {
  type: 'object',
  properties: {
    status: { const: 'inprogress' },
    message: { type: 'string' },
    instance_name: { type: 'string', pattern: '^.+$' },
  },
  required: ['status', 'message', 'instance_name'],
} as const;
export type WorkflowResponse = FromSchema<typeof workflowResponseSchema>;
export const onboardingRequestSchema = {
  title: 'OnboardingRequest',
  type: 'object',
  properties: {
    party_id_prefix: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9_-]{0,179}$',
      description: 'starts with a letter; letters, digits, `-`, `_`; at most 180 characters',
    },
    peer_ids: {
      type: 'array',
      items: cantonIdInRequestSchema,
      description: 'the other members; not this node',
    },
    threshold: { type: ['integer', 'null'], minimum: 1, maximum: 2147483647 },
  },
  required: ['party_id_prefix', 'peer_ids'],
  additionalProperties: false,
} as const;
export type OnboardingRequest = FromSchema<typeof onboardingRequestSchema>;
export const kickRequestSchema = {
  title: 'KickRequest',
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdInRequestSchema,
    participant_id: cantonIdInRequestSchema,
    new_threshold: { type: 'integer', minimum: 1, maximum: 2147483647 },
    previous_threshold: { type: ['integer', 'null'], minimum: 0, maximum: 2147483647 },
  },
  required: ['decentralized_party_id', 'participant_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type KickRequest = FromSchema<typeof kickRequestSchema>;
export const addPartyRequestSchema = {
  title: 'AddPartyRequest',
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdInRequestSchema,
    new_participant_id: cantonIdInRequestSchema,
    new_threshold: { type: 'integer', minimum: 1, maximum: 2147483647 },
    previous_threshold: { type: ['integer', 'null'], minimum: 0, maximum: 2147483647 },
  },
  required: ['decentralized_party_id', 'new_participant_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type AddPartyRequest = FromSchema<typeof addPartyRequestSchema>;
export const changeThresholdRequestSchema = {
  title: 'ChangeThresholdRequest',
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdInRequestSchema,
    new_threshold: { type: 'integer', minimum: 1, maximum: 2147483647 },
    previous_threshold: { type: ['integer', 'null'], minimum: 0, maximum: 2147483647 },
  },
  required: ['decentralized_party_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type ChangeThresholdRequest = FromSchema<typeof changeThresholdRequestSchema>;
export const fieldDefinitionSchema = {
  title: 'FieldDefinition',
  type: 'object',
  properties: {
    type: {
      enum: [
        'decentralized_party',
        'operator_party',
        'participant_party',
        'text',
        'int64',
        'bool',
        'instrument',
        'attestors_set',
        'party_set',
        'rel_time',
        'optional',
        'record',
        'governance_threshold',
        'none',
      ],
    },
  },
  required: ['type'],
  additionalProperties: true,
} as const;
export type FieldDefinition = FromSchema<typeof fieldDefinitionSchema>;
export const contractDefinitionSchema = {
  title: 'ContractDefinition',
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    package_id: { type: 'string', description: 'a package id or a symbolic `#name`' },
    module_name: { type: 'string' },
    entity_name: { type: 'string' },
    fields: { type: 'array', items: fieldDefinitionSchema },
  },
  required: ['id', 'name', 'package_id', 'module_name', 'entity_name', 'fields'],
  additionalProperties: false,
} as const;
export type ContractDefinition = FromSchema<typeof contractDefinitionSchema>;
export const contractsRequestSchema = {
  title: 'ContractsRequest',
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdInRequestSchema,
    participant_ids: { type: 'array', items: cantonIdInRequestSchema },
    participant_parties: {
      type: 'array',
      items: cantonIdInRequestSchema,
      description: 'same order as participant_ids',
    },
    operator_party: cantonIdInRequestSchema,
    contracts: { type: ['array', 'null'], items: contractDefinitionSchema },
  },
  required: ['decentralized_party_id', 'participant_ids', 'participant_parties', 'operator_party'],
  additionalProperties: false,
} as const;
export type ContractsRequest = FromSchema<typeof contractsRequestSchema>;
export const darFileSchema = {
  title: 'DarFile',
  type: 'object',
  properties: {
    filename: { type: 'string', minLength: 1 },
    data: {
      type: 'string',
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      description: 'standard base64 of the .dar bytes',
    },
  },
  required: ['filename', 'data'],
  additionalProperties: false,
} as const;
export type DarFile = FromSchema<typeof darFileSchema>;
export const darsDistributeRequestSchema = {
  title: 'DarsRequest',
  type: 'object',
  properties: {
    dar_files: { type: 'array', items: darFileSchema, minItems: 1 },
    peer_ids: { type: ['array', 'null'], items: cantonIdInRequestSchema, minItems: 1 },
  },
  required: ['dar_files'],
  additionalProperties: false,
} as const;
export type DarsDistributeRequest = FromSchema<typeof darsDistributeRequestSchema>;
export const darsUploadRequestSchema = {
  title: 'DarsRequest',
  type: 'object',
  properties: {
    dar_files: { type: 'array', items: darFileSchema },
    peer_ids: { type: ['array', 'null'], items: cantonIdInRequestSchema },
  },
  required: ['dar_files'],
  additionalProperties: false,
} as const;
export type DarsUploadRequest = FromSchema<typeof darsUploadRequestSchema>;
export const unixSecondsSchema = { type: 'integer', description: 'unix seconds' } as const;
export type UnixSeconds = FromSchema<typeof unixSecondsSchema>;
export const workflowRunSchema = {
  type: 'object',
  properties: {
    instance_name: { type: 'string' },
    kind: { enum: ['Onboarding', 'Kick', 'Contracts', 'Dars', 'AddParty', 'ChangeThreshold'] },
    role: { enum: ['Coordinator', 'Peer'] },
    status: { enum: ['inprogress', 'completed', 'failed', 'cancelled'] },
    current_step: { type: 'string' },
    step_index: { type: 'integer', minimum: 0 },
    step_total: { type: 'integer', minimum: 1 },
    config_json: {
      type: 'string',
      description: 'JSON text: the coordinator start config, or the invite on peers',
    },
    coordinator_pubkey: { anyOf: [publicKeySchema, { type: 'null' }] },
    coordinator_instance: { type: ['string', 'null'] },
    coordinator_name: { type: ['string', 'null'] },
    expected_peers: { type: 'array', items: cantonIdSchema },
    completed_peers: { type: 'array', items: cantonIdSchema },
    dec_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    prefix: { type: ['string', 'null'] },
    participants: { type: ['array', 'null'], items: cantonIdSchema },
    previous_threshold: { type: ['integer', 'null'], minimum: 1, maximum: 2147483647 },
    new_threshold: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647 },
    kicked_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    added_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    package_names: { type: ['array', 'null'], items: { type: 'string' } },
    dar_filenames: { type: ['array', 'null'], items: { type: 'string' } },
    error: { type: ['string', 'null'] },
    dismissed: { type: 'boolean' },
    created_at: unixSecondsSchema,
    updated_at: unixSecondsSchema,
  },
  required: [
    'instance_name',
    'kind',
    'role',
    'status',
    'current_step',
    'step_index',
    'step_total',
    'config_json',
    'expected_peers',
    'completed_peers',
    'dismissed',
    'created_at',
    'updated_at',
  ],
} as const;
export type WorkflowRun = FromSchema<typeof workflowRunSchema>;
export const workflowsResponseSchema = {
  type: 'object',
  properties: { runs: { type: 'array', items: workflowRunSchema } },
  required: ['runs'],
} as const;
export type WorkflowsResponse = FromSchema<typeof workflowsResponseSchema>;
export const messageResponseSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;
export type MessageResponse = FromSchema<typeof messageResponseSchema>;
export const pendingInvitationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: '`<type lowercase>-<coordinator_pubkey[0..16]>-<workflow_instance>`' },
    invitation_type: { enum: ['Onboarding', 'Kick', 'Contracts', 'Dars', 'AddParty', 'ChangeThreshold'] },
    coordinator_pubkey: publicKeySchema,
    coordinator_name: { type: ['string', 'null'] },
    received_at: unixSecondsSchema,
    prefix: { type: ['string', 'null'] },
    participants: { type: ['array', 'null'], items: cantonIdSchema },
    dar_filenames: { type: ['array', 'null'], items: { type: 'string' } },
    kicked_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    new_threshold: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647 },
    previous_threshold: { type: ['integer', 'null'], minimum: -2147483648, maximum: 2147483647 },
    dec_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    new_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    package_names: { type: ['array', 'null'], items: { type: 'string' } },
    workflow_instance: { type: ['string', 'null'] },
  },
  required: ['id', 'invitation_type', 'coordinator_pubkey', 'received_at'],
} as const;
export type PendingInvitation = FromSchema<typeof pendingInvitationSchema>;
export const invitationsResponseSchema = {
  type: 'object',
  properties: { invitations: { type: 'array', items: pendingInvitationSchema } },
  required: ['invitations'],
} as const;
export type InvitationsResponse = FromSchema<typeof invitationsResponseSchema>;
export const invitationActionRequestSchema = {
  title: 'InvitationActionRequest',
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 } },
  required: ['id'],
  additionalProperties: false,
} as const;
export type InvitationActionRequest = FromSchema<typeof invitationActionRequestSchema>;
export const vettedPackagesResponseSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      package_id: { type: 'string', pattern: '^.+$' },
      package_name: { type: 'string', description: 'empty when unknown' },
      package_version: { type: 'string', description: 'empty when unknown' },
    },
    required: ['package_id', 'package_name', 'package_version'],
  },
} as const;
export type VettedPackagesResponse = FromSchema<typeof vettedPackagesResponseSchema>;
export const packageInfoSchema = {
  type: 'object',
  properties: {
    package_id: { type: 'string', pattern: '^.+$' },
    name: { type: 'string' },
    version: { type: 'string' },
  },
  required: ['package_id', 'name', 'version'],
} as const;
export type PackageInfo = FromSchema<typeof packageInfoSchema>;
export const comparePeersResponseSchema = {
  type: 'object',
  properties: {
    local_packages: { type: 'array', items: packageInfoSchema, description: 'uploaded, vetted or not' },
    peers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          participant_id: cantonIdSchema,
          name: { type: 'string' },
          reachable: { type: 'boolean' },
          error_kind: {
            enum: [
              'tcp_connect_timeout',
              'tcp_connect_failed',
              'request_timeout',
              'transport',
              'handshake_failed',
              'bad_status',
              'decode_failed',
              'invalid_public_key',
              'other',
              null,
            ],
          },
          packages: { type: 'array', items: packageInfoSchema },
        },
        required: ['participant_id', 'name', 'reachable', 'packages'],
      },
    },
  },
  required: ['local_packages', 'peers'],
} as const;
export type ComparePeersResponse = FromSchema<typeof comparePeersResponseSchema>;
export const packageConfigSchema = {
  description:
    'package references (`#name`) by role (§3); every value is a string or null, known keys or not',
  type: 'object',
  additionalProperties: { type: ['string', 'null'] },
  properties: {
    governance_action: { type: ['string', 'null'] },
    governance_core: { type: ['string', 'null'] },
    governance_rewards: { type: ['string', 'null'] },
    governance_token_custody: { type: ['string', 'null'] },
    governance_utility_credential: { type: ['string', 'null'] },
    governance_utility_onboarding: { type: ['string', 'null'] },
    utility_credential: { type: ['string', 'null'] },
    utility_credential_app: { type: ['string', 'null'] },
    utility_registry: { type: ['string', 'null'] },
    vault: { type: ['string', 'null'] },
    vault_governance: { type: ['string', 'null'] },
  },
} as const;
export type PackageConfig = FromSchema<typeof packageConfigSchema>;
export const rightsStatusSchema = {
  type: ['object', 'null'],
  properties: {
    member_party_act_as: { type: 'boolean' },
    member_party_read_as: { type: 'boolean' },
    dec_party_act_as: { type: 'boolean' },
    dec_party_read_as: { type: 'boolean' },
  },
  required: ['member_party_act_as', 'member_party_read_as', 'dec_party_act_as', 'dec_party_read_as'],
} as const;
export type RightsStatus = FromSchema<typeof rightsStatusSchema>;
export const partyAuthStatusSchema = {
  type: 'object',
  properties: {
    dec_party_id: cantonIdSchema,
    member_party_id: cantonIdSchema,
    user_id: { type: 'string' },
    keycloak_url: { type: ['string', 'null'] },
    keycloak_realm: { type: ['string', 'null'] },
    auth0_domain: { type: ['string', 'null'] },
    auth0_audience: { type: ['string', 'null'] },
    status: {
      anyOf: [
        { type: 'object', properties: { status: { const: 'authenticated' } }, required: ['status'] },
        { type: 'object', properties: { status: { const: 'mock' } }, required: ['status'] },
        {
          type: 'object',
          properties: { status: { const: 'failed' }, error: { type: 'string' } },
          required: ['status', 'error'],
        },
        { type: 'object', properties: { status: { const: 'notconfigured' } }, required: ['status'] },
      ],
    },
    rights: rightsStatusSchema,
  },
  required: ['dec_party_id', 'member_party_id', 'user_id', 'status'],
} as const;
export type PartyAuthStatus = FromSchema<typeof partyAuthStatusSchema>;
export const authStatusResponseSchema = {
  type: 'object',
  properties: { parties: { type: 'array', items: partyAuthStatusSchema } },
  required: ['parties'],
} as const;
export type AuthStatusResponse = FromSchema<typeof authStatusResponseSchema>;
export const authTestResponseSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          party_id: { type: 'string' },
          success: { type: 'boolean' },
          error: { type: ['string', 'null'] },
        },
        required: ['party_id', 'success'],
      },
    },
  },
  required: ['results'],
} as const;
export type AuthTestResponse = FromSchema<typeof authTestResponseSchema>;
export const governanceStateSchema = {
  type: ['object', 'null'],
  properties: {
    contract_id: { type: 'string' },
    vault_manager: cantonIdSchema,
    members: { type: 'array', items: cantonIdSchema },
    threshold: { type: 'integer' },
    action_confirmation_timeout_microseconds: { type: ['integer', 'null'] },
    package_ref: { type: ['string', 'null'] },
    out_of_date: { type: 'boolean' },
  },
  required: ['contract_id', 'vault_manager', 'members', 'threshold', 'out_of_date'],
} as const;
export type GovernanceState = FromSchema<typeof governanceStateSchema>;
export const governanceStateResponseSchema = {
  type: 'object',
  properties: { state: governanceStateSchema },
  required: ['state'],
} as const;
export type GovernanceStateResponse = FromSchema<typeof governanceStateResponseSchema>;
export const governanceConfirmationSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    action: {
      type: 'object',
      properties: { type: { type: 'string' } },
      additionalProperties: true,
      required: ['type'],
    },
    confirming_party: cantonIdSchema,
    created_at: { type: 'integer', minimum: 0, description: 'unix seconds, 0 if unknown' },
    expires_at: { type: 'integer', minimum: 0, description: 'unix seconds, 0 if unknown' },
  },
  required: ['contract_id', 'action', 'confirming_party', 'created_at', 'expires_at'],
} as const;
export type GovernanceConfirmation = FromSchema<typeof governanceConfirmationSchema>;
export const governanceConfirmationsResponseSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          action_hash: { type: 'string' },
          action: {
            type: 'object',
            properties: { type: { type: 'string' } },
            additionalProperties: true,
            required: ['type'],
          },
          confirmations: { type: 'array', items: governanceConfirmationSchema },
          confirmation_count: { type: 'integer', minimum: 0 },
          can_execute: { type: 'boolean' },
          last_confirmation_at: { type: 'integer', minimum: 0, description: 'unix seconds' },
        },
        required: [
          'action_hash',
          'action',
          'confirmations',
          'confirmation_count',
          'can_execute',
          'last_confirmation_at',
        ],
      },
    },
    domain_actions: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: {
          proposal_cid: { type: 'string' },
          action_label: { type: 'string' },
          description: { type: ['string', 'null'] },
          confirmations: { type: 'array', items: governanceConfirmationSchema },
          confirmation_count: { type: 'integer', minimum: 0 },
          can_execute: { type: 'boolean' },
          orphaned: { type: 'boolean' },
          transfer_details: {},
          accept_transfer_details: {},
          service_request_details: {},
          proposer: { type: ['string', 'null'] },
          created_at: { type: ['integer', 'null'], minimum: 0 },
        },
        required: [
          'proposal_cid',
          'action_label',
          'confirmations',
          'confirmation_count',
          'can_execute',
          'orphaned',
        ],
      },
    },
    threshold: { type: 'number' },
    member_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    rules_contract_id: {
      type: ['string', 'null'],
      description: 'changes after every confirm/execute: re-read it',
    },
    gov_core_out_of_date: { type: 'boolean' },
    gov_core_package_ref: { type: ['string', 'null'] },
  },
  required: ['actions', 'threshold', 'gov_core_out_of_date'],
} as const;
export type GovernanceConfirmationsResponse = FromSchema<typeof governanceConfirmationsResponseSchema>;
export const instrumentsResponseSchema = {
  type: 'object',
  properties: {
    instruments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          instrument_admin: cantonIdSchema,
          instrument_id: { type: 'string' },
        },
        required: ['contract_id', 'instrument_admin', 'instrument_id'],
      },
    },
  },
  required: ['instruments'],
} as const;
export type InstrumentsResponse = FromSchema<typeof instrumentsResponseSchema>;
export const knownMembersResponseSchema = {
  type: 'object',
  properties: {
    members: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          participant_uid: cantonIdSchema,
          member_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
        },
        required: ['participant_uid'],
      },
    },
  },
  required: ['members'],
} as const;
export type KnownMembersResponse = FromSchema<typeof knownMembersResponseSchema>;
export const auditResponseSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', minimum: 1 },
          timestamp: unixSecondsSchema,
          event_type: { enum: ['propose', 'confirm', 'execute', 'expire', 'cancel', 'cancel_proposal'] },
          party_id: cantonIdSchema,
          member_party_id: cantonIdSchema,
          governance_type: { enum: ['vault', 'core_self', 'core_domain'] },
          action_summary: { type: 'string' },
          details: {},
          status: { enum: ['success', 'failed'] },
          error_message: { type: ['string', 'null'] },
          created_at: unixSecondsSchema,
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
export const chainAuditResponseSchema = {
  type: 'object',
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          offset: { type: 'integer', minimum: 1 },
          timestamp: unixSecondsSchema,
          event_type: {
            type: 'string',
            description:
              'the ledger event (the samples: CreatedEvent, ExercisedEvent, ArchivedEvent); the sandbox names the governance step instead (propose, confirm, execute, expire, cancel, execute_result)',
          },
          contract_id: { type: 'string', pattern: '^00[0-9a-f]+$' },
          template_id: { type: 'string', pattern: '^[A-Za-z][\\w.]*:[A-Za-z]\\w*$' },
          package_id: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          governance_type: { enum: ['vault', 'core_self', 'core_domain'] },
          action_summary: { type: 'string' },
          choice: { type: ['string', 'null'] },
          acting_parties: { type: 'array', items: cantonIdSchema },
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
    next_before_offset: { type: ['integer', 'null'], minimum: 1 },
  },
  required: ['entries', 'total_returned'],
} as const;
export type ChainAuditResponse = FromSchema<typeof chainAuditResponseSchema>;
export const tokenRequestSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    holder: cantonIdSchema,
    amount: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'a decimal amount' },
    instrument_admin: cantonIdSchema,
    instrument_id: { type: 'string' },
    expires_at: unixSecondsSchema,
  },
  required: ['contract_id', 'holder', 'amount', 'instrument_admin', 'instrument_id', 'expires_at'],
} as const;
export type TokenRequest = FromSchema<typeof tokenRequestSchema>;
export const mintRequestsResponseSchema = {
  type: 'object',
  properties: { mint_requests: { type: 'array', items: tokenRequestSchema } },
  required: ['mint_requests'],
} as const;
export type MintRequestsResponse = FromSchema<typeof mintRequestsResponseSchema>;
export const burnRequestsResponseSchema = {
  type: 'object',
  properties: { burn_requests: { type: 'array', items: tokenRequestSchema } },
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
          sender: cantonIdSchema,
          receiver: cantonIdSchema,
          amount: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', description: 'a decimal amount' },
          instrument_admin: cantonIdSchema,
          instrument_id: { type: 'string' },
          status: { enum: ['pending_receiver_acceptance', 'pending_internal_workflow'] },
          pending_actions: {
            type: ['array', 'null'],
            items: {
              type: 'object',
              properties: { party: cantonIdSchema, action: { type: 'string' } },
              required: ['party', 'action'],
            },
          },
          expires_at: { type: 'integer', minimum: 0 },
        },
        required: [
          'contract_id',
          'sender',
          'receiver',
          'amount',
          'instrument_admin',
          'instrument_id',
          'status',
          'expires_at',
        ],
      },
    },
  },
  required: ['transfer_instructions'],
} as const;
export type TransferInstructionsResponse = FromSchema<typeof transferInstructionsResponseSchema>;
export const proposalTypeSchema = {
  title: 'ProposalType',
  type: 'object',
  properties: {
    type: {
      enum: [
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
      ],
    },
  },
  required: ['type'],
  additionalProperties: true,
} as const;
export type ProposalType = FromSchema<typeof proposalTypeSchema>;
export const proposeRequestSchema = {
  title: 'ProposeActionRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    rules_contract_id: { type: 'string', minLength: 1 },
    proposal: proposalTypeSchema,
  },
  required: ['party_id', 'rules_contract_id', 'proposal'],
  additionalProperties: false,
} as const;
export type ProposeRequest = FromSchema<typeof proposeRequestSchema>;
export const actionTypeSchema = {
  title: 'ActionType',
  type: 'object',
  properties: {
    type: {
      enum: [
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
      ],
    },
  },
  required: ['type'],
  additionalProperties: true,
} as const;
export type ActionType = FromSchema<typeof actionTypeSchema>;
export const governanceTypeSchema = {
  title: 'GovernanceType',
  enum: ['vault', 'core_self', 'core_domain'],
} as const;
export type GovernanceType = FromSchema<typeof governanceTypeSchema>;
export const confirmRequestSchema = {
  title: 'ConfirmActionRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    rules_contract_id: { type: 'string', minLength: 1 },
    action: actionTypeSchema,
    governance_type: { anyOf: [governanceTypeSchema, { type: 'null' }] },
    proposal_cid: { type: ['string', 'null'], minLength: 1 },
  },
  required: ['party_id', 'rules_contract_id', 'action'],
  additionalProperties: false,
} as const;
export type ConfirmRequest = FromSchema<typeof confirmRequestSchema>;
export const executeRequestSchema = {
  title: 'ExecuteActionRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    rules_contract_id: { type: 'string', minLength: 1 },
    action: actionTypeSchema,
    confirmation_cids: { type: 'array', items: { type: 'string', minLength: 1 } },
    disclosed_contracts: {
      type: ['array', 'null'],
      items: {
        title: 'DisclosedContractInput',
        type: 'object',
        properties: { contract_id: { type: 'string', minLength: 1 }, blob: { type: 'string' } },
        required: ['contract_id', 'blob'],
        additionalProperties: false,
      },
    },
    governance_type: { anyOf: [governanceTypeSchema, { type: 'null' }] },
    proposal_cid: { type: ['string', 'null'], minLength: 1 },
  },
  required: ['party_id', 'rules_contract_id', 'action', 'confirmation_cids'],
  additionalProperties: false,
} as const;
export type ExecuteRequest = FromSchema<typeof executeRequestSchema>;
export const expireRequestSchema = {
  title: 'ExpireConfirmationRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    rules_contract_id: { type: 'string', minLength: 1 },
    confirmation_cid: { type: 'string', minLength: 1 },
    governance_type: { anyOf: [governanceTypeSchema, { type: 'null' }] },
  },
  required: ['party_id', 'rules_contract_id', 'confirmation_cid'],
  additionalProperties: false,
} as const;
export type ExpireRequest = FromSchema<typeof expireRequestSchema>;
export const cancelRequestSchema = {
  title: 'CancelConfirmationRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    confirmation_cid: { type: 'string', minLength: 1 },
    governance_type: { anyOf: [governanceTypeSchema, { type: 'null' }] },
  },
  required: ['party_id', 'confirmation_cid'],
  additionalProperties: false,
} as const;
export type CancelRequest = FromSchema<typeof cancelRequestSchema>;
export const cancelProposalRequestSchema = {
  title: 'CancelProposalRequest',
  type: 'object',
  properties: {
    party_id: cantonIdInRequestSchema,
    proposal_cid: { type: 'string', minLength: 1 },
    confirmation_cid: { type: ['string', 'null'], minLength: 1 },
  },
  required: ['party_id', 'proposal_cid'],
  additionalProperties: false,
} as const;
export type CancelProposalRequest = FromSchema<typeof cancelProposalRequestSchema>;
export const grantRightsResponseSchema = {
  type: 'object',
  properties: {
    rights: {
      type: 'object',
      properties: {
        member_party_act_as: { type: 'boolean' },
        member_party_read_as: { type: 'boolean' },
        dec_party_act_as: { type: 'boolean' },
        dec_party_read_as: { type: 'boolean' },
      },
      required: ['member_party_act_as', 'member_party_read_as', 'dec_party_act_as', 'dec_party_read_as'],
    },
  },
  required: ['rights'],
} as const;
export type GrantRightsResponse = FromSchema<typeof grantRightsResponseSchema>;
export const grantRightsRequestSchema = {
  title: 'GrantRightsRequest',
  type: 'object',
  properties: {
    dec_party_id: cantonIdInRequestSchema,
    admin_client_id: { type: 'string', minLength: 1 },
    admin_client_secret: { type: 'string', minLength: 1 },
  },
  required: ['dec_party_id', 'admin_client_id', 'admin_client_secret'],
  additionalProperties: false,
} as const;
export type GrantRightsRequest = FromSchema<typeof grantRightsRequestSchema>;
export const discoverMemberPartyResponseSchema = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    primary_party: { anyOf: [cantonIdSchema, { type: 'null' }] },
    description: { type: ['string', 'null'] },
  },
  required: ['user_id'],
} as const;
export type DiscoverMemberPartyResponse = FromSchema<typeof discoverMemberPartyResponseSchema>;
export const discoverMemberPartyRequestSchema = {
  title: 'DiscoverMemberPartyRequest',
  type: 'object',
  properties: {
    keycloak_url: { type: ['string', 'null'] },
    keycloak_realm: { type: ['string', 'null'] },
    keycloak_client_id: { type: ['string', 'null'] },
    keycloak_client_secret: { type: ['string', 'null'] },
    keycloak_username: { type: ['string', 'null'] },
    keycloak_password: { type: ['string', 'null'] },
    auth0_domain: { type: ['string', 'null'] },
    auth0_audience: { type: ['string', 'null'] },
    auth0_client_id: { type: ['string', 'null'] },
    auth0_client_secret: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;
export type DiscoverMemberPartyRequest = FromSchema<typeof discoverMemberPartyRequestSchema>;
export const workflowStatusResponseSchema = {
  type: 'object',
  properties: {
    status: { enum: ['inprogress', 'completed', 'failed', 'cancelled', 'idle'] },
    error: { type: ['string', 'null'] },
  },
  required: ['status'],
} as const;
export type WorkflowStatusResponse = FromSchema<typeof workflowStatusResponseSchema>;
export const externalPartiesResponseSchema = {
  type: 'object',
  properties: {
    parties: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          party_id: cantonIdSchema,
          fingerprint: { type: 'string' },
          threshold: { type: 'integer', minimum: 0 },
          host_count: { type: 'integer', minimum: 0 },
          created_at: {
            type: ['string', 'null'],
            pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})$',
          },
        },
        required: ['party_id', 'fingerprint', 'threshold', 'host_count'],
      },
    },
  },
  required: ['parties'],
} as const;
export type ExternalPartiesResponse = FromSchema<typeof externalPartiesResponseSchema>;
export const vaultsResponseSchema = {
  type: 'object',
  properties: {
    vaults: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          vault_name: { type: 'string' },
          share_symbol: { type: 'string' },
          is_paused: { type: 'boolean' },
          vault_manager: cantonIdSchema,
        },
        required: ['contract_id', 'vault_name', 'share_symbol', 'is_paused', 'vault_manager'],
      },
    },
  },
  required: ['vaults'],
} as const;
export type VaultsResponse = FromSchema<typeof vaultsResponseSchema>;
export const providerServicesResponseSchema = {
  type: 'object',
  properties: {
    services: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: { type: 'string' }, operator: cantonIdSchema, provider: cantonIdSchema },
        required: ['contract_id', 'operator', 'provider'],
      },
    },
  },
  required: ['services'],
} as const;
export type ProviderServicesResponse = FromSchema<typeof providerServicesResponseSchema>;
export const userServicesResponseSchema = {
  type: 'object',
  properties: {
    services: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: { type: 'string' }, operator: cantonIdSchema, user: cantonIdSchema },
        required: ['contract_id', 'operator', 'user'],
      },
    },
  },
  required: ['services'],
} as const;
export type UserServicesResponse = FromSchema<typeof userServicesResponseSchema>;
export const registrarServicesResponseSchema = {
  type: 'object',
  properties: {
    services: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: { type: 'string' }, operator: cantonIdSchema, registrar: cantonIdSchema },
        required: ['contract_id', 'operator', 'registrar'],
      },
    },
  },
  required: ['services'],
} as const;
export type RegistrarServicesResponse = FromSchema<typeof registrarServicesResponseSchema>;
export const credentialOffersResponseSchema = {
  type: 'object',
  properties: {
    credential_offers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          operator: cantonIdSchema,
          issuer: cantonIdSchema,
          holder: cantonIdSchema,
          credential_id: { type: 'string' },
          description: { type: 'string' },
          is_free: { type: 'boolean' },
        },
        required: ['contract_id', 'operator', 'issuer', 'holder', 'credential_id', 'description', 'is_free'],
      },
    },
  },
  required: ['credential_offers'],
} as const;
export type CredentialOffersResponse = FromSchema<typeof credentialOffersResponseSchema>;
export const credentialsResponseSchema = {
  type: 'object',
  properties: {
    credentials: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          issuer: cantonIdSchema,
          holder: cantonIdSchema,
          credential_id: { type: 'string' },
          description: { type: 'string' },
          claims: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                subject: { type: 'string' },
                property: { type: 'string' },
                value: { type: 'string' },
              },
              required: ['subject', 'property', 'value'],
            },
          },
        },
        required: ['contract_id', 'issuer', 'holder', 'credential_id', 'description', 'claims'],
      },
    },
  },
  required: ['credentials'],
} as const;
export type CredentialsResponse = FromSchema<typeof credentialsResponseSchema>;
export const registrarServiceRequestsResponseSchema = {
  type: 'object',
  properties: {
    registrar_service_requests: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          operator: cantonIdSchema,
          provider: cantonIdSchema,
          registrar: cantonIdSchema,
          create_transfer_rule: { type: 'boolean' },
          create_allocation_factory: { type: 'boolean' },
        },
        required: [
          'contract_id',
          'operator',
          'provider',
          'registrar',
          'create_transfer_rule',
          'create_allocation_factory',
        ],
      },
    },
  },
  required: ['registrar_service_requests'],
} as const;
export type RegistrarServiceRequestsResponse = FromSchema<typeof registrarServiceRequestsResponseSchema>;
export const providerConfigurationsResponseSchema = {
  type: 'object',
  properties: {
    provider_configurations: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: { type: 'string' }, operator: cantonIdSchema, provider: cantonIdSchema },
        required: ['contract_id', 'operator', 'provider'],
      },
    },
  },
  required: ['provider_configurations'],
} as const;
export type ProviderConfigurationsResponse = FromSchema<typeof providerConfigurationsResponseSchema>;
export const transferFactoriesResponseSchema = {
  type: 'object',
  properties: {
    transfer_factories: {
      type: 'array',
      items: {
        type: 'object',
        properties: { contract_id: { type: 'string' }, expected_admin: cantonIdSchema },
        required: ['contract_id', 'expected_admin'],
      },
    },
  },
  required: ['transfer_factories'],
} as const;
export type TransferFactoriesResponse = FromSchema<typeof transferFactoriesResponseSchema>;
export const transferPreapprovalsResponseSchema = {
  type: 'object',
  properties: { cc: { type: 'integer', minimum: 0 }, token: { type: 'integer', minimum: 0 } },
  required: ['cc', 'token'],
} as const;
export type TransferPreapprovalsResponse = FromSchema<typeof transferPreapprovalsResponseSchema>;
export const holdingsResponseSchema = {
  type: 'object',
  properties: {
    holdings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          instrument_admin: cantonIdSchema,
          instrument_id: { type: 'string' },
          amount: {
            type: 'string',
            pattern: '^-?\\d+(\\.\\d+)?$',
            description: 'a decimal amount as a string',
          },
          locked_amount: {
            type: 'string',
            pattern: '^-?\\d+(\\.\\d+)?$',
            description: 'a decimal amount as a string',
          },
          preapproval_set_up: { type: 'boolean' },
        },
        required: ['instrument_admin', 'instrument_id', 'amount', 'locked_amount', 'preapproval_set_up'],
      },
    },
  },
  required: ['holdings'],
} as const;
export type HoldingsResponse = FromSchema<typeof holdingsResponseSchema>;
export const contractsQueryResponseSchema = {
  type: 'object',
  properties: {
    contracts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          contract_id: { type: 'string' },
          blob: { type: 'string', pattern: '^[A-Za-z0-9+/]+={0,2}$' },
        },
        required: ['contract_id', 'blob'],
      },
    },
  },
  required: ['contracts'],
} as const;
export type ContractsQueryResponse = FromSchema<typeof contractsQueryResponseSchema>;
export const couponReassignmentDelegationResponseSchema = {
  type: 'object',
  properties: {
    delegations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          cid: { type: 'string' },
          dso: cantonIdSchema,
          assigners: { type: 'array', items: cantonIdSchema },
          beneficiary_count: { type: 'integer', minimum: 0 },
        },
        required: ['cid', 'dso', 'assigners', 'beneficiary_count'],
      },
    },
  },
  required: ['delegations'],
} as const;
export type CouponReassignmentDelegationResponse = FromSchema<
  typeof couponReassignmentDelegationResponseSchema
>;
export const networkInfoResponseSchema = {
  type: 'object',
  properties: {
    dso_party_id: cantonIdSchema,
    amulet_rules_cid: { type: 'string', pattern: '^00[0-9a-f]+$' },
    amulet_rules_blob: { type: 'string' },
  },
  required: ['dso_party_id', 'amulet_rules_cid', 'amulet_rules_blob'],
} as const;
export type NetworkInfoResponse = FromSchema<typeof networkInfoResponseSchema>;
export const operatorInfoResponseSchema = {
  type: 'object',
  properties: { party_id: cantonIdSchema },
  required: ['party_id'],
} as const;
export type OperatorInfoResponse = FromSchema<typeof operatorInfoResponseSchema>;
export const tokenStandardContractsResponseSchema = {} as const;
export type TokenStandardContractsResponse = FromSchema<typeof tokenStandardContractsResponseSchema>;
export const errorResponseSchema = {
  type: 'object',
  properties: { error: { type: 'string' } },
  required: ['error'],
} as const;
export type ErrorResponse = FromSchema<typeof errorResponseSchema>;
export const onboardingMeshErrorResponseSchema = {
  type: 'object',
  properties: {
    error: { type: 'string' },
    missing_edges: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          from: { type: 'string' },
          to: { type: 'string' },
          kind: { enum: ['unreachable_from_coordinator', 'mesh_hole'] },
        },
        required: ['from', 'to', 'kind'],
      },
    },
  },
  required: ['error', 'missing_edges'],
} as const;
export type OnboardingMeshErrorResponse = FromSchema<typeof onboardingMeshErrorResponseSchema>;

/** Every route of the document: method, path, success status, body schemas. */
export const dpmOperations = {
  healthz: {
    method: 'GET',
    path: '/healthz',
    status: 200,
    response: healthzResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  authConfig: {
    method: 'GET',
    path: '/auth-config',
    status: 200,
    response: authConfigResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  nodeConfig: {
    method: 'GET',
    path: '/node-config',
    status: 200,
    response: nodeConfigResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  keysStatus: {
    method: 'GET',
    path: '/keys/status',
    status: 200,
    response: keysStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  networkConfig: {
    method: 'GET',
    path: '/network-config',
    status: 200,
    response: networkConfigResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  setNetworkConfig: {
    method: 'POST',
    path: '/network-config',
    status: 200,
    response: successResponseSchema,
    request: networkConfigRequestSchema,
    query: {},
    idempotent: true,
    admin: true,
  },
  participantsStatus: {
    method: 'GET',
    path: '/participants-status',
    status: 200,
    response: participantsStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  partyConfig: {
    method: 'GET',
    path: '/party-config/{dec_party_id}',
    status: 200,
    response: partyConfigResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  putPartyConfig: {
    method: 'PUT',
    path: '/party-config',
    status: 200,
    response: successResponseSchema,
    request: partyConfigRequestSchema,
    query: {},
    idempotent: true,
    admin: true,
  },
  decentralizedParties: {
    method: 'GET',
    path: '/decentralized-parties',
    status: 200,
    response: decentralizedPartiesResponseSchema,
    query: { prefix: { type: 'string', optional: true }, refresh: { type: 'bool', optional: true } },
    idempotent: true,
    admin: false,
  },
  startOnboarding: {
    method: 'POST',
    path: '/onboarding',
    status: 202,
    response: workflowResponseSchema,
    request: onboardingRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  startKick: {
    method: 'POST',
    path: '/kick',
    status: 202,
    response: workflowResponseSchema,
    request: kickRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  startAddParty: {
    method: 'POST',
    path: '/add-party',
    status: 202,
    response: workflowResponseSchema,
    request: addPartyRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  startChangeThreshold: {
    method: 'POST',
    path: '/change-threshold',
    status: 202,
    response: workflowResponseSchema,
    request: changeThresholdRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  startContracts: {
    method: 'POST',
    path: '/contracts',
    status: 202,
    response: workflowResponseSchema,
    request: contractsRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  distributeDars: {
    method: 'POST',
    path: '/dars/distribute',
    status: 202,
    response: workflowResponseSchema,
    request: darsDistributeRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  uploadDars: {
    method: 'POST',
    path: '/dars/upload',
    status: 200,
    response: successResponseSchema,
    request: darsUploadRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  workflows: {
    method: 'GET',
    path: '/workflows',
    status: 200,
    response: workflowsResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  cancelWorkflow: {
    method: 'POST',
    path: '/workflows/{instance_name}/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  dismissWorkflow: {
    method: 'POST',
    path: '/workflows/{instance_name}/dismiss',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: true,
    admin: true,
  },
  retryWorkflow: {
    method: 'POST',
    path: '/workflows/{instance_name}/retry',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  invitations: {
    method: 'GET',
    path: '/invitations',
    status: 200,
    response: invitationsResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  acceptInvitation: {
    method: 'POST',
    path: '/invitations/accept',
    status: 200,
    response: messageResponseSchema,
    request: invitationActionRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  declineInvitation: {
    method: 'POST',
    path: '/invitations/decline',
    status: 200,
    response: messageResponseSchema,
    request: invitationActionRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  vettedPackages: {
    method: 'GET',
    path: '/packages/vetted',
    status: 200,
    response: vettedPackagesResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  comparePeers: {
    method: 'GET',
    path: '/packages/compare-peers',
    status: 200,
    response: comparePeersResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  packages: {
    method: 'GET',
    path: '/packages',
    status: 200,
    response: packageConfigSchema,
    query: { party_id: { type: 'string', optional: true } },
    idempotent: true,
    admin: false,
  },
  authStatus: {
    method: 'GET',
    path: '/auth/status',
    status: 200,
    response: authStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  authTest: {
    method: 'POST',
    path: '/auth/test',
    status: 200,
    response: authTestResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  governanceState: {
    method: 'GET',
    path: '/governance/state',
    status: 200,
    response: governanceStateResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  governanceConfirmations: {
    method: 'GET',
    path: '/governance/confirmations',
    status: 200,
    response: governanceConfirmationsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  instruments: {
    method: 'GET',
    path: '/instruments',
    status: 200,
    response: instrumentsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  governanceKnownMembers: {
    method: 'GET',
    path: '/governance/known-members',
    status: 200,
    response: knownMembersResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  governanceAudit: {
    method: 'GET',
    path: '/governance/audit',
    status: 200,
    response: auditResponseSchema,
    query: {
      party_id: { type: 'canton-id', optional: false },
      limit: { type: 'i64', optional: true },
      offset: { type: 'i64', optional: true },
    },
    idempotent: true,
    admin: false,
  },
  governanceChainAudit: {
    method: 'GET',
    path: '/governance/chain-audit',
    status: 200,
    response: chainAuditResponseSchema,
    query: {
      party_id: { type: 'canton-id', optional: false },
      limit: { type: 'u32', optional: true },
      before_offset: { type: 'i64', optional: true },
      refresh: { type: 'bool', optional: true },
    },
    idempotent: true,
    admin: false,
  },
  governanceMintRequests: {
    method: 'GET',
    path: '/governance/mint-requests',
    status: 200,
    response: mintRequestsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  governanceBurnRequests: {
    method: 'GET',
    path: '/governance/burn-requests',
    status: 200,
    response: burnRequestsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  governanceTransferInstructions: {
    method: 'GET',
    path: '/governance/transfer-instructions',
    status: 200,
    response: transferInstructionsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  proposeGovernance: {
    method: 'POST',
    path: '/governance/propose',
    status: 200,
    response: messageResponseSchema,
    request: proposeRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  confirmGovernance: {
    method: 'POST',
    path: '/governance/confirm',
    status: 200,
    response: messageResponseSchema,
    request: confirmRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  executeGovernance: {
    method: 'POST',
    path: '/governance/execute',
    status: 200,
    response: messageResponseSchema,
    request: executeRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  expireGovernance: {
    method: 'POST',
    path: '/governance/expire',
    status: 200,
    response: messageResponseSchema,
    request: expireRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  cancelGovernance: {
    method: 'POST',
    path: '/governance/cancel',
    status: 200,
    response: messageResponseSchema,
    request: cancelRequestSchema,
    query: {},
    idempotent: false,
    admin: false,
  },
  cancelProposal: {
    method: 'POST',
    path: '/governance/cancel-proposal',
    status: 200,
    response: messageResponseSchema,
    request: cancelProposalRequestSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  grantRights: {
    method: 'POST',
    path: '/auth/grant-rights',
    status: 200,
    response: grantRightsResponseSchema,
    request: grantRightsRequestSchema,
    query: {},
    idempotent: true,
    admin: true,
  },
  discoverMemberParty: {
    method: 'POST',
    path: '/party-config/discover-member-party',
    status: 200,
    response: discoverMemberPartyResponseSchema,
    request: discoverMemberPartyRequestSchema,
    query: {},
    idempotent: true,
    admin: true,
  },
  legacyStatusOnboarding: {
    method: 'GET',
    path: '/onboarding/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyStatusKick: {
    method: 'GET',
    path: '/kick/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyStatusContracts: {
    method: 'GET',
    path: '/contracts/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyStatusDars: {
    method: 'GET',
    path: '/dars/distribute/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyStatusAddParty: {
    method: 'GET',
    path: '/add-party/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyStatusChangeThreshold: {
    method: 'GET',
    path: '/change-threshold/status',
    status: 200,
    response: workflowStatusResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  legacyCancelOnboarding: {
    method: 'POST',
    path: '/onboarding/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  legacyCancelKick: {
    method: 'POST',
    path: '/kick/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  legacyCancelContracts: {
    method: 'POST',
    path: '/contracts/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  legacyCancelDars: {
    method: 'POST',
    path: '/dars/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  legacyCancelAddParty: {
    method: 'POST',
    path: '/add-party/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  legacyCancelChangeThreshold: {
    method: 'POST',
    path: '/change-threshold/cancel',
    status: 200,
    response: messageResponseSchema,
    query: {},
    idempotent: false,
    admin: true,
  },
  externalParties: {
    method: 'GET',
    path: '/external-parties',
    status: 200,
    response: externalPartiesResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  vaults: {
    method: 'GET',
    path: '/vaults',
    status: 200,
    response: vaultsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  providerServices: {
    method: 'GET',
    path: '/services/provider',
    status: 200,
    response: providerServicesResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  userServices: {
    method: 'GET',
    path: '/services/user',
    status: 200,
    response: userServicesResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  registrarServices: {
    method: 'GET',
    path: '/services/registrar',
    status: 200,
    response: registrarServicesResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  credentialOffers: {
    method: 'GET',
    path: '/credential-offers',
    status: 200,
    response: credentialOffersResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  credentials: {
    method: 'GET',
    path: '/credentials',
    status: 200,
    response: credentialsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  registrarServiceRequests: {
    method: 'GET',
    path: '/registrar-service-requests',
    status: 200,
    response: registrarServiceRequestsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  providerConfigurations: {
    method: 'GET',
    path: '/provider-configurations',
    status: 200,
    response: providerConfigurationsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  transferFactories: {
    method: 'GET',
    path: '/transfer-factories',
    status: 200,
    response: transferFactoriesResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  transferPreapprovals: {
    method: 'GET',
    path: '/transfer-preapprovals',
    status: 200,
    response: transferPreapprovalsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  holdings: {
    method: 'GET',
    path: '/holdings',
    status: 200,
    response: holdingsResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  contractsQuery: {
    method: 'GET',
    path: '/contracts/query',
    status: 200,
    response: contractsQueryResponseSchema,
    query: {
      party_id: { type: 'canton-id', optional: false },
      package_id: { type: 'string', optional: false },
      module_name: { type: 'string', optional: false },
      entity_name: { type: 'string', optional: false },
      interface: { type: 'bool', optional: true },
      active_only: { type: 'bool', optional: true },
    },
    idempotent: true,
    admin: false,
  },
  couponReassignmentDelegation: {
    method: 'GET',
    path: '/coupon-reassignment-delegation',
    status: 200,
    response: couponReassignmentDelegationResponseSchema,
    query: { party_id: { type: 'canton-id', optional: false } },
    idempotent: true,
    admin: false,
  },
  networkInfo: {
    method: 'GET',
    path: '/network-info',
    status: 200,
    response: networkInfoResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  operatorInfo: {
    method: 'GET',
    path: '/operator-info',
    status: 200,
    response: operatorInfoResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
  tokenStandardContracts: {
    method: 'POST',
    path: '/token-standard-contracts',
    status: 200,
    response: tokenStandardContractsResponseSchema,
    query: {},
    idempotent: true,
    admin: false,
  },
} as const;
