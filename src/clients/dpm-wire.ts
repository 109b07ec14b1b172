/**
 * The DPM (dec-party-manager) wire shapes, from docs/reference/dpm-api.md: one JSON Schema (draft 2020-12)
 * per request and response body, the TypeScript types derived from them, and the route table the client and the
 * contract tests share.
 *
 * Conventions, all from the reference:
 * - Responses allow additional properties (servers add fields); requests we send allow none.
 * - An `Option` field of the server (`field?` in the reference) may be missing or `null` (§0 "Optional fields");
 *   a field the reference lists without `?` is required.
 * - Ids in responses are checked loosely (`<prefix>::<namespace>`): the published samples shorten namespaces. Ids in
 *   requests are checked as the server parses them: exactly one `::`, a namespace of 68 hex digits (34 bytes).
 * - Integers are `integer`; enums are exact (lowercase `permission`, workflow `status`, PascalCase `kind`/`role`).
 */
import type { FromSchema } from 'json-schema-to-ts';
import {
  extraRouteResponseSchemas,
  instrumentsResponseSchema,
  type InstrumentsResponse,
} from './dpm-wire-extra.js';
import {
  auditResponseSchema,
  burnRequestsResponseSchema,
  cancelProposalRequestSchema,
  cancelRequestSchema,
  chainAuditResponseSchema,
  confirmRequestSchema,
  discoverMemberPartyRequestSchema,
  discoverMemberPartyResponseSchema,
  executeRequestSchema,
  expireRequestSchema,
  grantRightsRequestSchema,
  grantRightsResponseSchema,
  knownMembersResponseSchema,
  mintRequestsResponseSchema,
  proposeRequestSchema,
  transferInstructionsResponseSchema,
  type AuditResponse,
  type BurnRequestsResponse,
  type CancelProposalRequest,
  type CancelRequest,
  type ChainAuditResponse,
  type ConfirmRequest,
  type DiscoverMemberPartyRequest,
  type DiscoverMemberPartyResponse,
  type ExecuteRequest,
  type ExpireRequest,
  type TransferInstructionsResponse,
  type GrantRightsRequest,
  type GrantRightsResponse,
  type KnownMembersResponse,
  type MintRequestsResponse,
  type ProposeRequest,
} from './dpm-wire-governance.js';
import { registerWireSchemas } from './schema-check.js';

// --- building blocks --------------------------------------------------------------------------------------------

/** A Canton id as the server sends it (loose: the samples use shortened namespaces). */
export const cantonIdSchema = {
  type: 'string',
  pattern: '^[^:]+(?::[^:]+)*::[^:]+$',
  description: '`<prefix>::<namespace>`',
} as const;

/** A Canton id as the server parses it in a request: one `::`, a namespace of 34 bytes (68 hex digits). */
export const cantonIdRequestSchema = {
  type: 'string',
  pattern: '^[^:]+(?::[^:]+)*::[0-9a-fA-F]{68}$',
  description: '`<prefix>::<68 hex digits>`',
} as const;

/** A Noise secp256k1 compressed public key: 66 hex digits, `02…` or `03…`. */
const publicKeySchema = { type: 'string', pattern: '^0[23][0-9a-fA-F]{64}$' } as const;

const optString = { type: ['string', 'null'] } as const;
const optInteger = { type: ['integer', 'null'] } as const;
const optIdList = { type: ['array', 'null'], items: cantonIdSchema } as const;
const optStringList = { type: ['array', 'null'], items: { type: 'string' } } as const;
const isoTime = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})$',
  description: 'ISO-8601 time',
} as const;
const unixSeconds = { type: 'integer', description: 'unix seconds' } as const;

export const WORKFLOW_KINDS = [
  'Onboarding',
  'Kick',
  'Contracts',
  'Dars',
  'AddParty',
  'ChangeThreshold',
] as const;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];
export const WORKFLOW_ROLES = ['Coordinator', 'Peer'] as const;
/** A persisted run's status (`idle` exists in the server's enum but is never persisted). */
export const WORKFLOW_RUN_STATUSES = ['inprogress', 'completed', 'failed', 'cancelled'] as const;
/** `WorkflowProgress`: the legacy status routes also answer `idle`. */
export const WORKFLOW_PROGRESS = [...WORKFLOW_RUN_STATUSES, 'idle'] as const;

const workflowKind = { enum: WORKFLOW_KINDS } as const;
const workflowRole = { enum: WORKFLOW_ROLES } as const;

/**
 * `current_step` values per kind in `step_index` order (§7.1); `step_total` is the length. Peer rows start at
 * `PEER_INITIAL_STEP`. Not enforced by the `/workflows` schema, so that a newer server's extra step does not
 * break decoding; the contract tests check the sandbox against it.
 */
export const WORKFLOW_STEPS = {
  Onboarding: [
    'WaitingForPeers',
    'GenerateKeys',
    'CreateProposals',
    'SignDns',
    'SubmitDns',
    'SignP2p',
    'SubmitFinal',
    'Complete',
  ],
  Kick: ['WaitingForPeers', 'ExportState', 'CreateProposals', 'SignProposals', 'SubmitKick', 'Complete'],
  AddParty: [
    'WaitingForPeers',
    'GenerateNewMemberKeys',
    'ExportState',
    'CreateProposals',
    'SignProposals',
    'SubmitProposals',
    'SyncAcs',
    'PrepareClearOnboarding',
    'ProposeClearOnboarding',
    'PrepareClearSign',
    'SignClearOnboarding',
    'SubmitClearOnboarding',
    'Complete',
  ],
  ChangeThreshold: [
    'WaitingForPeers',
    'ExportState',
    'CreateProposals',
    'SignProposals',
    'Submit',
    'Complete',
  ],
  Contracts: ['WaitingForPeers', 'PrepareSubmissions', 'SignSubmissions', 'ExecuteSubmissions', 'Complete'],
  Dars: ['WaitingForPeers', 'UploadDars', 'Complete'],
} as const satisfies Record<WorkflowKind, readonly string[]>;
export const PEER_INITIAL_STEP = 'Active';

/** The legacy per-kind routes (§6.1) and the label the server uses for the kind in their messages. */
export const LEGACY_WORKFLOW_ROUTES = {
  Onboarding: { status: '/onboarding/status', cancel: '/onboarding/cancel', label: 'Onboarding' },
  Kick: { status: '/kick/status', cancel: '/kick/cancel', label: 'Kick' },
  Contracts: { status: '/contracts/status', cancel: '/contracts/cancel', label: 'Contracts' },
  Dars: { status: '/dars/distribute/status', cancel: '/dars/cancel', label: 'DARs' },
  AddParty: { status: '/add-party/status', cancel: '/add-party/cancel', label: 'Add-party' },
  ChangeThreshold: {
    status: '/change-threshold/status',
    cancel: '/change-threshold/cancel',
    label: 'Change-threshold',
  },
} as const satisfies Record<WorkflowKind, { status: string; cancel: string; label: string }>;

// --- errors (§0.1) ----------------------------------------------------------------------------------------------

export const errorResponseSchema = {
  type: 'object',
  properties: { error: { type: 'string' } },
  required: ['error'],
} as const;
export type ErrorResponse = FromSchema<typeof errorResponseSchema>;

export const MISSING_EDGE_KINDS = ['unreachable_from_coordinator', 'mesh_hole'] as const;
export const onboardingMeshErrorResponseSchema = {
  type: 'object',
  properties: {
    error: { type: 'string' },
    missing_edges: {
      type: 'array',
      items: {
        type: 'object',
        properties: { from: { type: 'string' }, to: { type: 'string' }, kind: { enum: MISSING_EDGE_KINDS } },
        required: ['from', 'to', 'kind'],
      },
    },
  },
  required: ['error', 'missing_edges'],
} as const;
export type OnboardingMeshErrorResponse = FromSchema<typeof onboardingMeshErrorResponseSchema>;

// --- common small responses -------------------------------------------------------------------------------------

export const successResponseSchema = {
  type: 'object',
  properties: { success: { type: 'boolean' } },
  required: ['success'],
} as const;
export type SuccessResponse = FromSchema<typeof successResponseSchema>;

/** `{"message": …}`: cancel, dismiss, retry, accept, decline, legacy cancel. */
export const messageResponseSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;
export type MessageResponse = FromSchema<typeof messageResponseSchema>;

// --- §1 node / health / keys ------------------------------------------------------------------------------------

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
    keycloak_host: optString,
    keycloak_realm: optString,
    keycloak_client_id: optString,
    auth0_domain: optString,
    auth0_client_id: optString,
    auth0_audience: optString,
  },
  required: ['auth_required'],
} as const;
export type AuthConfigResponse = FromSchema<typeof authConfigResponseSchema>;

const tlsConfig = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    ca_cert: optString,
    client_cert: optString,
    client_key: optString,
    domain: optString,
  },
  required: ['enabled'],
} as const;

export const nodeConfigResponseSchema = {
  type: 'object',
  properties: {
    node: {
      type: 'object',
      properties: {
        participant_id: cantonIdSchema,
        listen_address: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535, description: 'the Noise port' },
        public_address: optString,
      },
      required: ['participant_id', 'listen_address', 'port'],
    },
    canton: {
      type: 'object',
      properties: {
        admin_api_host: { type: 'string' },
        admin_api_port: { type: 'integer' },
        ledger_api_host: { type: 'string' },
        ledger_api_port: { type: 'integer' },
        synchronizer: { type: 'string' },
        network: { enum: ['devnet', 'testnet', 'mainnet'] },
        admin_api_tls: tlsConfig,
        ledger_api_tls: tlsConfig,
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
        handshake_timeout_secs: { type: 'integer' },
        message_timeout_secs: { type: 'integer' },
        connection_retry_attempts: { type: 'integer' },
        connection_retry_delay_secs: { type: 'integer' },
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
        per_attempt_timeout_secs: { type: 'integer' },
        max_attempts: { type: 'integer' },
        backoff_ms: { type: 'integer' },
      },
      required: ['per_attempt_timeout_secs', 'max_attempts', 'backoff_ms'],
    },
    reward_automation_interval_secs: { type: 'integer' },
    reward_max_creates: { type: 'integer' },
    reward_min_expiry_margin_secs: { type: 'integer' },
    keycloak: {
      anyOf: [
        {
          type: 'object',
          properties: {
            url: { type: 'string' },
            realm: { type: 'string' },
            client_id: { type: 'string' },
            username: optString,
          },
          required: ['url', 'realm', 'client_id'],
        },
        { type: 'null' },
      ],
    },
    auth0: {
      anyOf: [
        {
          type: 'object',
          properties: {
            domain: { type: 'string' },
            client_id: { type: 'string' },
            audience: { type: 'string' },
          },
          required: ['domain', 'client_id', 'audience'],
        },
        { type: 'null' },
      ],
    },
    test_mode: { type: 'boolean', description: 'insecure mode' },
    version: { type: 'string' },
    build_version: { type: 'string' },
    build_time: optString,
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

export const keysStatusResponseSchema = {
  type: 'object',
  properties: {
    has_keys: { type: 'boolean' },
    public_key: { anyOf: [publicKeySchema, { type: 'null' }] },
  },
  required: ['has_keys'],
} as const;
export type KeysStatusResponse = FromSchema<typeof keysStatusResponseSchema>;

// --- §2 peers / network config / connectivity -------------------------------------------------------------------

export const peerSchema = {
  type: 'object',
  properties: {
    participant_id: cantonIdSchema,
    name: { type: 'string' },
    address: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535, description: 'the Noise port' },
    public_key: publicKeySchema,
    party: optString,
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

/** POST /network-config: a bare array that replaces the whole table (every node gets the full list, itself included). */
export const networkConfigRequestSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { ...peerSchema.properties, participant_id: cantonIdRequestSchema },
    required: peerSchema.required,
    additionalProperties: false,
  },
} as const;
export type NetworkConfigRequest = FromSchema<typeof networkConfigRequestSchema>;

export const workflowInfoSchema = {
  type: 'object',
  properties: {
    kind: workflowKind,
    role: workflowRole,
    step: { type: 'string' },
    step_index: { type: 'integer' },
    step_total: { type: 'integer' },
  },
  required: ['kind', 'role', 'step', 'step_index', 'step_total'],
} as const;

export const PARTICIPANT_CONNECTIVITY = [
  'CurrentNode',
  'Connected',
  'Unreachable',
  'HandshakeFailed',
] as const;
export const participantsStatusResponseSchema = {
  type: 'object',
  properties: {
    statuses: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          status: { enum: PARTICIPANT_CONNECTIVITY },
          latency_ms: optInteger,
          workflow: { anyOf: [workflowInfoSchema, { type: 'null' }] },
          version: optString,
          build_version: optString,
        },
        required: ['id', 'status'],
      },
    },
  },
  required: ['statuses'],
} as const;
export type ParticipantsStatusResponse = FromSchema<typeof participantsStatusResponseSchema>;
export type ParticipantStatus = ParticipantsStatusResponse['statuses'][number];

// --- §3 party config --------------------------------------------------------------------------------------------

export const PACKAGE_CONFIG_KEYS = [
  'governance_action',
  'governance_core',
  'governance_rewards',
  'governance_token_custody',
  'governance_utility_credential',
  'governance_utility_onboarding',
  'utility_credential',
  'utility_credential_app',
  'utility_registry',
  'vault',
  'vault_governance',
] as const;

/** `PackageConfig`: package references (`#name`) by role; every value is a string or null, known keys or not. */
export const packageConfigSchema = {
  type: 'object',
  properties: Object.fromEntries(PACKAGE_CONFIG_KEYS.map((key) => [key, optString])) as {
    [K in (typeof PACKAGE_CONFIG_KEYS)[number]]: typeof optString;
  },
  additionalProperties: optString,
} as const;
export type PackageConfig = FromSchema<typeof packageConfigSchema>;

export const partyConfigResponseSchema = {
  type: 'object',
  properties: {
    dec_party_id: cantonIdSchema,
    member_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    user_id: optString,
    keycloak_url: { type: 'string' },
    keycloak_realm: { type: 'string' },
    keycloak_client_id: { type: 'string' },
    has_client_secret: { type: 'boolean' },
    has_username: { type: 'boolean' },
    has_password: { type: 'boolean' },
    auth0_domain: optString,
    auth0_audience: optString,
    auth0_client_id: optString,
    has_auth0_client_secret: { type: 'boolean' },
    packages: packageConfigSchema,
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

/**
 * PUT /party-config. Secret fields: omitted = keep the stored value, `""` = clear it. A non-empty `auth0_domain`
 * selects the Auth0 path. `packages` is accepted and ignored by the server.
 */
export const partyConfigRequestSchema = {
  type: 'object',
  properties: {
    dec_party_id: cantonIdRequestSchema,
    member_party_id: cantonIdRequestSchema,
    user_id: { type: 'string', minLength: 1 },
    keycloak_url: { type: 'string' },
    keycloak_realm: { type: 'string' },
    keycloak_client_id: { type: 'string' },
    keycloak_client_secret: { type: 'string' },
    keycloak_username: { type: 'string' },
    keycloak_password: { type: 'string' },
    auth0_domain: { type: 'string' },
    auth0_audience: { type: 'string' },
    auth0_client_id: { type: 'string' },
    auth0_client_secret: { type: 'string' },
    packages: packageConfigSchema,
  },
  required: ['dec_party_id', 'member_party_id', 'user_id'],
  additionalProperties: false,
} as const;
export type PartyConfigRequest = FromSchema<typeof partyConfigRequestSchema>;

// --- §4 decentralized parties -----------------------------------------------------------------------------------

export const PARTICIPANT_PERMISSIONS = ['submission', 'confirmation', 'observation', 'unknown'] as const;

export const contractInfoSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    template_id: { type: 'string', description: '`Module.Path:Entity`' },
    package_id: { type: 'string' },
    package_name: { type: 'string' },
    package_version: { type: 'string' },
    created_at: isoTime,
  },
  required: ['contract_id', 'template_id', 'package_id', 'package_name', 'package_version', 'created_at'],
} as const;
export type ContractInfo = FromSchema<typeof contractInfoSchema>;

export const decentralizedPartySchema = {
  type: 'object',
  properties: {
    party_id: cantonIdSchema,
    threshold: { type: 'integer' },
    owners: { type: 'array', items: { type: 'string' }, description: 'namespace key fingerprints' },
    my_owner_key: optString,
    participants: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          participant_uid: cantonIdSchema,
          permission: { enum: PARTICIPANT_PERMISSIONS },
          owner_key: optString,
        },
        required: ['participant_uid', 'permission'],
      },
    },
    contracts: { type: ['array', 'null'], items: contractInfoSchema },
    local_metadata: {
      anyOf: [
        {
          type: 'object',
          properties: { annotations: { type: 'object', additionalProperties: { type: 'string' } } },
          required: ['annotations'],
        },
        { type: 'null' },
      ],
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

// --- §5 workflow start routes -----------------------------------------------------------------------------------

export const workflowResponseSchema = {
  type: 'object',
  properties: {
    status: { enum: WORKFLOW_PROGRESS },
    message: { type: 'string' },
    instance_name: { type: 'string', minLength: 1 },
  },
  required: ['status', 'message', 'instance_name'],
} as const;
export type WorkflowResponse = FromSchema<typeof workflowResponseSchema>;

const threshold = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;
const displayThreshold = { type: 'integer', minimum: 0, maximum: 2147483647 } as const;

export const onboardingRequestSchema = {
  type: 'object',
  properties: {
    party_id_prefix: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9_-]{0,179}$',
      description: 'starts with a letter; letters, digits, `-`, `_`; at most 180 characters',
    },
    peer_ids: {
      type: 'array',
      items: cantonIdRequestSchema,
      description: 'the other members; not this node',
    },
    threshold: { anyOf: [threshold, { type: 'null' }], description: 'default ceil(owners / 2)' },
  },
  required: ['party_id_prefix', 'peer_ids'],
  additionalProperties: false,
} as const;
export type OnboardingRequest = FromSchema<typeof onboardingRequestSchema>;

export const kickRequestSchema = {
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdRequestSchema,
    participant_id: cantonIdRequestSchema,
    new_threshold: threshold,
    previous_threshold: displayThreshold,
  },
  required: ['decentralized_party_id', 'participant_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type KickRequest = FromSchema<typeof kickRequestSchema>;

export const addPartyRequestSchema = {
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdRequestSchema,
    new_participant_id: cantonIdRequestSchema,
    new_threshold: threshold,
    previous_threshold: displayThreshold,
  },
  required: ['decentralized_party_id', 'new_participant_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type AddPartyRequest = FromSchema<typeof addPartyRequestSchema>;

export const changeThresholdRequestSchema = {
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdRequestSchema,
    new_threshold: threshold,
    previous_threshold: displayThreshold,
  },
  required: ['decentralized_party_id', 'new_threshold'],
  additionalProperties: false,
} as const;
export type ChangeThresholdRequest = FromSchema<typeof changeThresholdRequestSchema>;

export const FIELD_DEFINITION_TYPES = [
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
] as const;

/** A contract field, tagged by `type`; the variants' own fields (`value`, `id`, `inner`, `fields` …) pass through. */
export const fieldDefinitionSchema = {
  type: 'object',
  properties: { type: { enum: FIELD_DEFINITION_TYPES } },
  required: ['type'],
} as const;

export const contractDefinitionSchema = {
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
  type: 'object',
  properties: {
    decentralized_party_id: cantonIdRequestSchema,
    participant_ids: { type: 'array', items: cantonIdRequestSchema },
    participant_parties: {
      type: 'array',
      items: cantonIdRequestSchema,
      description: 'same order as participant_ids',
    },
    operator_party: cantonIdRequestSchema,
    contracts: { type: 'array', items: contractDefinitionSchema },
  },
  required: ['decentralized_party_id', 'participant_ids', 'participant_parties', 'operator_party'],
  additionalProperties: false,
} as const;
export type ContractsRequest = FromSchema<typeof contractsRequestSchema>;

const darFile = {
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

/** POST /dars/upload: this participant only; `peer_ids` is ignored there. */
export const darsUploadRequestSchema = {
  type: 'object',
  properties: {
    dar_files: { type: 'array', items: darFile },
    peer_ids: { type: 'array', items: cantonIdRequestSchema },
  },
  required: ['dar_files'],
  additionalProperties: false,
} as const;
export type DarsUploadRequest = FromSchema<typeof darsUploadRequestSchema>;

/** POST /dars/distribute: the same `DarsRequest`, with the peers (not this node) that must all accept. */
export const darsDistributeRequestSchema = {
  type: 'object',
  properties: {
    dar_files: { type: 'array', items: darFile, minItems: 1 },
    peer_ids: { type: 'array', items: cantonIdRequestSchema, minItems: 1 },
  },
  required: ['dar_files', 'peer_ids'],
  additionalProperties: false,
} as const;
export type DarsDistributeRequest = FromSchema<typeof darsDistributeRequestSchema>;

// --- §6 / §7 workflow control and records -----------------------------------------------------------------------

export const workflowRunSchema = {
  type: 'object',
  properties: {
    instance_name: { type: 'string' },
    kind: workflowKind,
    role: workflowRole,
    status: { enum: WORKFLOW_RUN_STATUSES },
    current_step: { type: 'string' },
    step_index: { type: 'integer', minimum: 0 },
    step_total: { type: 'integer', minimum: 1 },
    config_json: {
      type: 'string',
      description: 'JSON text: the coordinator start config, or the invite on peers',
    },
    coordinator_pubkey: optString,
    coordinator_instance: optString,
    coordinator_name: optString,
    expected_peers: { type: 'array', items: cantonIdSchema },
    completed_peers: { type: 'array', items: cantonIdSchema },
    dec_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    prefix: optString,
    participants: optIdList,
    previous_threshold: optInteger,
    new_threshold: optInteger,
    kicked_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    added_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    package_names: optStringList,
    dar_filenames: optStringList,
    error: optString,
    dismissed: { type: 'boolean' },
    created_at: unixSeconds,
    updated_at: unixSeconds,
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

/** GET /<kind>/status (legacy). */
export const workflowStatusResponseSchema = {
  type: 'object',
  properties: { status: { enum: WORKFLOW_PROGRESS }, error: optString },
  required: ['status'],
} as const;
export type WorkflowStatusResponse = FromSchema<typeof workflowStatusResponseSchema>;

// --- §8 invitations ---------------------------------------------------------------------------------------------

export const pendingInvitationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: '`<type lowercase>-<coordinator_pubkey[0..16]>-<workflow_instance>`' },
    invitation_type: workflowKind,
    coordinator_pubkey: { type: 'string' },
    coordinator_name: optString,
    received_at: unixSeconds,
    prefix: optString,
    participants: optIdList,
    dar_filenames: optStringList,
    kicked_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    new_threshold: optInteger,
    previous_threshold: optInteger,
    dec_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    new_participant: { anyOf: [cantonIdSchema, { type: 'null' }] },
    package_names: optStringList,
    workflow_instance: optString,
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

/** POST /invitations/accept and /invitations/decline. */
export const invitationActionRequestSchema = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1 } },
  required: ['id'],
  additionalProperties: false,
} as const;
export type InvitationActionRequest = FromSchema<typeof invitationActionRequestSchema>;

// --- §9 auth ----------------------------------------------------------------------------------------------------

export const rightsStatusSchema = {
  type: 'object',
  properties: {
    member_party_act_as: { type: 'boolean' },
    member_party_read_as: { type: 'boolean' },
    dec_party_act_as: { type: 'boolean' },
    dec_party_read_as: { type: 'boolean' },
  },
  required: ['member_party_act_as', 'member_party_read_as', 'dec_party_act_as', 'dec_party_read_as'],
} as const;
export type RightsStatus = FromSchema<typeof rightsStatusSchema>;

/** `AuthStatus`, internally tagged on `status`. */
export const authStatusSchema = {
  oneOf: [
    { type: 'object', properties: { status: { const: 'authenticated' } }, required: ['status'] },
    { type: 'object', properties: { status: { const: 'mock' } }, required: ['status'] },
    {
      type: 'object',
      properties: { status: { const: 'failed' }, error: { type: 'string' } },
      required: ['status', 'error'],
    },
    { type: 'object', properties: { status: { const: 'notconfigured' } }, required: ['status'] },
  ],
} as const;

export const authStatusResponseSchema = {
  type: 'object',
  properties: {
    parties: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          dec_party_id: cantonIdSchema,
          member_party_id: cantonIdSchema,
          user_id: { type: 'string' },
          keycloak_url: optString,
          keycloak_realm: optString,
          auth0_domain: optString,
          auth0_audience: optString,
          status: authStatusSchema,
          rights: { anyOf: [rightsStatusSchema, { type: 'null' }] },
        },
        required: ['dec_party_id', 'member_party_id', 'user_id', 'status'],
      },
    },
  },
  required: ['parties'],
} as const;
export type AuthStatusResponse = FromSchema<typeof authStatusResponseSchema>;
export type PartyAuthStatus = AuthStatusResponse['parties'][number];

export const authTestResponseSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { party_id: { type: 'string' }, success: { type: 'boolean' }, error: optString },
        required: ['party_id', 'success'],
      },
    },
  },
  required: ['results'],
} as const;
export type AuthTestResponse = FromSchema<typeof authTestResponseSchema>;

// --- §10 packages -----------------------------------------------------------------------------------------------

export const vettedPackagesResponseSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      package_id: { type: 'string', minLength: 1 },
      package_name: { type: 'string', description: 'empty when unknown' },
      package_version: { type: 'string', description: 'empty when unknown' },
    },
    required: ['package_id', 'package_name', 'package_version'],
  },
} as const;
export type VettedPackagesResponse = FromSchema<typeof vettedPackagesResponseSchema>;
export type VettedPackage = VettedPackagesResponse[number];

export const packageInfoSchema = {
  type: 'object',
  properties: { package_id: { type: 'string' }, name: { type: 'string' }, version: { type: 'string' } },
  required: ['package_id', 'name', 'version'],
} as const;
export type PackageInfo = FromSchema<typeof packageInfoSchema>;

export const PEER_ERROR_KINDS = [
  'tcp_connect_timeout',
  'tcp_connect_failed',
  'request_timeout',
  'transport',
  'handshake_failed',
  'bad_status',
  'decode_failed',
  'invalid_public_key',
  'other',
] as const;

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
          error_kind: { anyOf: [{ enum: PEER_ERROR_KINDS }, { type: 'null' }] },
          packages: { type: 'array', items: packageInfoSchema },
        },
        required: ['participant_id', 'name', 'reachable', 'packages'],
      },
    },
  },
  required: ['local_packages', 'peers'],
} as const;
export type ComparePeersResponse = FromSchema<typeof comparePeersResponseSchema>;

// --- §11 governance (the reads a playbook uses) -----------------------------------------------------------------

export const governanceStateSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    vault_manager: cantonIdSchema,
    members: { type: 'array', items: cantonIdSchema },
    threshold: { type: 'integer' },
    action_confirmation_timeout_microseconds: optInteger,
    package_ref: optString,
    out_of_date: { type: 'boolean' },
  },
  required: ['contract_id', 'vault_manager', 'members', 'threshold', 'out_of_date'],
} as const;
export type GovernanceState = FromSchema<typeof governanceStateSchema>;

export const governanceStateResponseSchema = {
  type: 'object',
  properties: { state: { anyOf: [governanceStateSchema, { type: 'null' }] } },
} as const;
export type GovernanceStateResponse = FromSchema<typeof governanceStateResponseSchema>;

/** `ActionType`, tagged by `type` (snake_case); the variants' own fields pass through. */
const actionTypeSchema = {
  type: 'object',
  properties: { type: { type: 'string', minLength: 1 } },
  required: ['type'],
} as const;

const governanceConfirmationSchema = {
  type: 'object',
  properties: {
    contract_id: { type: 'string' },
    action: actionTypeSchema,
    confirming_party: cantonIdSchema,
    created_at: { type: 'integer', description: 'unix seconds, 0 if unknown' },
    expires_at: { type: 'integer', description: 'unix seconds, 0 if unknown' },
  },
  required: ['contract_id', 'action', 'confirming_party', 'created_at', 'expires_at'],
} as const;

export const governanceConfirmationsResponseSchema = {
  type: 'object',
  properties: {
    actions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          action_hash: { type: 'string' },
          action: actionTypeSchema,
          confirmations: { type: 'array', items: governanceConfirmationSchema },
          confirmation_count: { type: 'integer' },
          can_execute: { type: 'boolean' },
          last_confirmation_at: unixSeconds,
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
          description: optString,
          confirmations: { type: 'array', items: governanceConfirmationSchema },
          confirmation_count: { type: 'integer' },
          can_execute: { type: 'boolean' },
          orphaned: { type: 'boolean' },
          transfer_details: {},
          accept_transfer_details: {},
          service_request_details: {},
          proposer: optString,
          created_at: optInteger,
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
    threshold: { type: 'integer' },
    member_party_id: { anyOf: [cantonIdSchema, { type: 'null' }] },
    rules_contract_id: {
      type: ['string', 'null'],
      description: 'changes after every confirm/execute: re-read it',
    },
    gov_core_out_of_date: { type: 'boolean' },
    gov_core_package_ref: optString,
  },
  required: ['actions', 'threshold', 'gov_core_out_of_date'],
} as const;
export type GovernanceConfirmationsResponse = FromSchema<typeof governanceConfirmationsResponseSchema>;

// --- the route table --------------------------------------------------------------------------------------------

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** One DPM route: how to call it and what it answers. `Res`/`Req` carry the decoded types for the client. */
export interface DpmRoute<Res = unknown, Req = undefined> {
  readonly method: HttpMethod;
  /** path template, parameters in braces: `/workflows/{instance_name}/cancel` */
  readonly path: string;
  /** the success status the server sends */
  readonly status: number;
  readonly response: object;
  readonly request?: object;
  /** may be repeated without a second side effect (a lost answer is then not ambiguous) */
  readonly idempotent: boolean;
  /** gated by DECPM_ADMIN_ROLE when that is set */
  readonly admin: boolean;
  /** type carrier only; never set */
  readonly types?: { response: Res; request: Req };
}

function route<Res, Req = undefined>(spec: Omit<DpmRoute<Res, Req>, 'types'>): DpmRoute<Res, Req> {
  return spec;
}

const get = <Res>(path: string, response: object) =>
  route<Res>({ method: 'GET', path, status: 200, response, idempotent: true, admin: false });

export const DPM_ROUTES = {
  healthz: get<HealthzResponse>('/healthz', healthzResponseSchema),
  authConfig: get<AuthConfigResponse>('/auth-config', authConfigResponseSchema),
  nodeConfig: get<NodeConfigResponse>('/node-config', nodeConfigResponseSchema),
  keysStatus: get<KeysStatusResponse>('/keys/status', keysStatusResponseSchema),
  networkConfig: get<NetworkConfigResponse>('/network-config', networkConfigResponseSchema),
  setNetworkConfig: route<SuccessResponse, NetworkConfigRequest>({
    method: 'POST',
    path: '/network-config',
    status: 200,
    response: successResponseSchema,
    request: networkConfigRequestSchema,
    idempotent: true, // replaces the whole table
    admin: true,
  }),
  participantsStatus: get<ParticipantsStatusResponse>(
    '/participants-status',
    participantsStatusResponseSchema,
  ),
  partyConfig: get<PartyConfigResponse>('/party-config/{dec_party_id}', partyConfigResponseSchema),
  putPartyConfig: route<SuccessResponse, PartyConfigRequest>({
    method: 'PUT',
    path: '/party-config',
    status: 200,
    response: successResponseSchema,
    request: partyConfigRequestSchema,
    idempotent: true,
    admin: true,
  }),
  decentralizedParties: get<DecentralizedPartiesResponse>(
    '/decentralized-parties',
    decentralizedPartiesResponseSchema,
  ),
  startOnboarding: start<OnboardingRequest>('/onboarding', onboardingRequestSchema),
  startKick: start<KickRequest>('/kick', kickRequestSchema),
  startAddParty: start<AddPartyRequest>('/add-party', addPartyRequestSchema),
  startChangeThreshold: start<ChangeThresholdRequest>('/change-threshold', changeThresholdRequestSchema),
  startContracts: start<ContractsRequest>('/contracts', contractsRequestSchema),
  distributeDars: start<DarsDistributeRequest>('/dars/distribute', darsDistributeRequestSchema),
  uploadDars: route<SuccessResponse, DarsUploadRequest>({
    method: 'POST',
    path: '/dars/upload',
    status: 200,
    response: successResponseSchema,
    request: darsUploadRequestSchema,
    idempotent: false,
    admin: true,
  }),
  workflows: get<WorkflowsResponse>('/workflows', workflowsResponseSchema),
  cancelWorkflow: control('/workflows/{instance_name}/cancel', false),
  dismissWorkflow: control('/workflows/{instance_name}/dismiss', true),
  retryWorkflow: control('/workflows/{instance_name}/retry', false),
  invitations: get<InvitationsResponse>('/invitations', invitationsResponseSchema),
  acceptInvitation: invitationAction('/invitations/accept'),
  declineInvitation: invitationAction('/invitations/decline'),
  vettedPackages: get<VettedPackagesResponse>('/packages/vetted', vettedPackagesResponseSchema),
  comparePeers: get<ComparePeersResponse>('/packages/compare-peers', comparePeersResponseSchema),
  packages: get<PackageConfig>('/packages', packageConfigSchema),
  authStatus: get<AuthStatusResponse>('/auth/status', authStatusResponseSchema),
  authTest: route<AuthTestResponse>({
    method: 'POST',
    path: '/auth/test',
    status: 200,
    response: authTestResponseSchema,
    idempotent: true, // fetches a token per party; changes nothing
    admin: false,
  }),
  governanceState: get<GovernanceStateResponse>('/governance/state', governanceStateResponseSchema),
  governanceConfirmations: get<GovernanceConfirmationsResponse>(
    '/governance/confirmations',
    governanceConfirmationsResponseSchema,
  ),
  instruments: get<InstrumentsResponse>('/instruments', instrumentsResponseSchema),
  governanceKnownMembers: get<KnownMembersResponse>('/governance/known-members', knownMembersResponseSchema),
  governanceAudit: get<AuditResponse>('/governance/audit', auditResponseSchema),
  governanceChainAudit: get<ChainAuditResponse>('/governance/chain-audit', chainAuditResponseSchema),
  governanceMintRequests: get<MintRequestsResponse>('/governance/mint-requests', mintRequestsResponseSchema),
  governanceBurnRequests: get<BurnRequestsResponse>('/governance/burn-requests', burnRequestsResponseSchema),
  governanceTransferInstructions: get<TransferInstructionsResponse>(
    '/governance/transfer-instructions',
    transferInstructionsResponseSchema,
  ),
  // governance writes: no idempotency key (each creates contracts with a fresh command id): a lost answer is
  // settled by reading confirmations and the audit log, never by sending again
  proposeGovernance: governanceWrite<ProposeRequest>('/governance/propose', proposeRequestSchema),
  confirmGovernance: governanceWrite<ConfirmRequest>('/governance/confirm', confirmRequestSchema),
  executeGovernance: governanceWrite<ExecuteRequest>('/governance/execute', executeRequestSchema),
  expireGovernance: governanceWrite<ExpireRequest>('/governance/expire', expireRequestSchema),
  cancelGovernance: governanceWrite<CancelRequest>('/governance/cancel', cancelRequestSchema, false),
  cancelProposal: governanceWrite<CancelProposalRequest>(
    '/governance/cancel-proposal',
    cancelProposalRequestSchema,
  ),
  grantRights: route<GrantRightsResponse, GrantRightsRequest>({
    method: 'POST',
    path: '/auth/grant-rights',
    status: 200,
    response: grantRightsResponseSchema,
    request: grantRightsRequestSchema,
    idempotent: true, // grants the same four rights again
    admin: true,
  }),
  discoverMemberParty: route<DiscoverMemberPartyResponse, DiscoverMemberPartyRequest>({
    method: 'POST',
    path: '/party-config/discover-member-party',
    status: 200,
    response: discoverMemberPartyResponseSchema,
    request: discoverMemberPartyRequestSchema,
    idempotent: true, // reads the user behind the credentials
    admin: true,
  }),
} as const;

function governanceWrite<Req>(path: string, request: object, admin = true): DpmRoute<MessageResponse, Req> {
  return route<MessageResponse, Req>({
    method: 'POST',
    path,
    status: 200,
    response: messageResponseSchema,
    request,
    idempotent: false,
    admin,
  });
}

function start<Req>(path: string, request: object): DpmRoute<WorkflowResponse, Req> {
  return route<WorkflowResponse, Req>({
    method: 'POST',
    path,
    status: 202,
    response: workflowResponseSchema,
    request,
    idempotent: false,
    admin: true,
  });
}

function control(path: string, idempotent: boolean): DpmRoute<MessageResponse> {
  return route<MessageResponse>({
    method: 'POST',
    path,
    status: 200,
    response: messageResponseSchema,
    idempotent,
    admin: true,
  });
}

function invitationAction(path: string): DpmRoute<MessageResponse, InvitationActionRequest> {
  return route<MessageResponse, InvitationActionRequest>({
    method: 'POST',
    path,
    status: 200,
    response: messageResponseSchema,
    request: invitationActionRequestSchema,
    idempotent: false,
    admin: true,
  });
}

export const LEGACY_STATUS_ROUTES = Object.fromEntries(
  WORKFLOW_KINDS.map((kind) => [
    kind,
    get<WorkflowStatusResponse>(LEGACY_WORKFLOW_ROUTES[kind].status, workflowStatusResponseSchema),
  ]),
) as Record<WorkflowKind, DpmRoute<WorkflowStatusResponse>>;

export const LEGACY_CANCEL_ROUTES = Object.fromEntries(
  WORKFLOW_KINDS.map((kind) => [kind, control(LEGACY_WORKFLOW_ROUTES[kind].cancel, false)]),
) as Record<WorkflowKind, DpmRoute<MessageResponse>>;

/** `"GET /node-config"`, `"POST /workflows/{instance_name}/cancel"` … */
export type RouteKey = `${HttpMethod} ${string}`;

function keyOf(r: DpmRoute<unknown, unknown>): RouteKey {
  return `${r.method} ${r.path}`;
}

const allRoutes: ReadonlyArray<DpmRoute<unknown, unknown>> = [
  ...Object.values(DPM_ROUTES),
  ...Object.values(LEGACY_STATUS_ROUTES),
  ...Object.values(LEGACY_CANCEL_ROUTES),
];

/**
 * Method + route template → the schema of the success body, for every route with a documented body: the routes
 * the client calls and the other reads of §11–§12. The sandbox contract test checks live answers against it.
 */
export const routeResponseSchemas: Readonly<Record<RouteKey, object>> = {
  ...Object.fromEntries(allRoutes.map((r) => [keyOf(r), r.response])),
  ...extraRouteResponseSchemas,
};

/** Method + route template → the success status, where it is not 200 (the workflow starts answer 202). */
export const routeSuccessStatus: Readonly<Record<RouteKey, number>> = Object.fromEntries(
  allRoutes.filter((r) => r.status !== 200).map((r) => [keyOf(r), r.status]),
);

/** Method + route template → the request body schema, for the routes that take one. */
export const routeRequestSchemas: Readonly<Record<RouteKey, object>> = Object.fromEntries(
  allRoutes.flatMap((r) => (r.request === undefined ? [] : [[keyOf(r), r.request]])),
);

registerWireSchemas(
  ...Object.values(routeResponseSchemas),
  ...Object.values(routeRequestSchemas),
  onboardingMeshErrorResponseSchema,
);
