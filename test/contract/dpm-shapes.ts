/**
 * The DPM response shapes as docs/reference/dpm-api.md documents them, field by field, written from the
 * reference (not from the sandbox or the client's wire schemas), and a checker that compares a body with them.
 *
 * Presence, as the reference says it (§0 "Optional fields"):
 * - `always`: listed without `?` — present and not null;
 * - `nullable`: listed as `T | null` (or shown as `null` in a sample) — present, null allowed;
 * - `optional`: listed with `?` — absent or null.
 * An object's fields are closed: a field the reference does not document is reported as an extra.
 */

export type Type =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'integer'; min?: number; max?: number }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly unknown[] }
  | { kind: 'array'; items: Type; nonEmpty?: boolean }
  | { kind: 'object'; fields: Fields }
  | { kind: 'map'; values: Type }
  | { kind: 'union'; variants: Type[] }
  | { kind: 'tagged'; tag: string }
  | { kind: 'any' };

export type Presence = 'always' | 'nullable' | 'optional';
export type Fields = Record<string, { presence: Presence; type: Type }>;

// ---- building blocks --------------------------------------------------------------------------------------------

export const str = (pattern?: RegExp): Type => (pattern ? { kind: 'string', pattern } : { kind: 'string' });
export const int = (min?: number, max?: number): Type => ({
  kind: 'integer',
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
});
export const num: Type = { kind: 'number' };
export const bool: Type = { kind: 'boolean' };
export const oneOf = (...values: readonly unknown[]): Type => ({ kind: 'enum', values });
/** `nonEmpty`: the reference says the field is omitted when empty, so a present list has items */
export const list = (items: Type, nonEmpty = false): Type => ({ kind: 'array', items, nonEmpty });
export const obj = (fields: Fields): Type => ({ kind: 'object', fields });
export const map = (values: Type): Type => ({ kind: 'map', values });
export const union = (...variants: Type[]): Type => ({ kind: 'union', variants });
/** an internally tagged enum whose variants' own fields the reference does not list field by field */
export const tagged = (tag: string): Type => ({ kind: 'tagged', tag });
export const anything: Type = { kind: 'any' };

export const always = (type: Type) => ({ presence: 'always' as const, type });
export const nullable = (type: Type) => ({ presence: 'nullable' as const, type });
export const optional = (type: Type) => ({ presence: 'optional' as const, type });

/** `CantonId` `"<prefix>::<namespace-hex>"`, the namespace 34 bytes (68 hex digits) */
export const cantonId = str(/^[^:]+::[0-9a-fA-F]{68}$/);
/** Noise secp256k1 compressed public key: 66 hex digits, `02…`/`03…` */
export const publicKey = str(/^0[23][0-9a-fA-F]{64}$/);
/** Unix seconds (i64), a plausible present-day value */
export const unixSeconds = int(1_600_000_000, 4_102_444_800);
export const isoTime = str(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/);
const u16 = int(0, 65535);

export const WORKFLOW_KINDS = [
  'Onboarding',
  'Kick',
  'Contracts',
  'Dars',
  'AddParty',
  'ChangeThreshold',
] as const;
export type Kind = (typeof WORKFLOW_KINDS)[number];

/** §7.1: `current_step` per kind in `step_index` order; `step_total` is the length */
export const STEPS: Record<Kind, readonly string[]> = {
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
};

// ---- §0.1 errors ------------------------------------------------------------------------------------------------

export const ERROR = obj({ error: always(str()) });
export const MESH_ERROR = obj({
  error: always(str()),
  missing_edges: always(
    list(
      obj({
        from: always(str()),
        to: always(str()),
        kind: always(oneOf('unreachable_from_coordinator', 'mesh_hole')),
      }),
    ),
  ),
});

// ---- §1 node / health / keys ------------------------------------------------------------------------------------

export const HEALTHZ = obj({ status: always(oneOf('ok')) });

export const AUTH_CONFIG = obj({
  auth_required: always(bool),
  keycloak_host: optional(str()),
  keycloak_realm: optional(str()),
  keycloak_client_id: optional(str()),
  auth0_domain: optional(str()),
  auth0_client_id: optional(str()),
  auth0_audience: optional(str()),
});

const TLS = obj({
  enabled: always(bool),
  ca_cert: nullable(str()),
  client_cert: nullable(str()),
  client_key: nullable(str()),
  domain: nullable(str()),
});

export const NODE_CONFIG = obj({
  node: always(
    obj({
      participant_id: always(cantonId),
      listen_address: always(str()),
      port: always(u16),
      public_address: nullable(str()),
    }),
  ),
  canton: always(
    obj({
      admin_api_host: always(str()),
      admin_api_port: always(u16),
      ledger_api_host: always(str()),
      ledger_api_port: always(u16),
      synchronizer: always(str()),
      network: always(oneOf('devnet', 'testnet', 'mainnet')),
      admin_api_tls: always(TLS),
      ledger_api_tls: always(TLS),
    }),
  ),
  timeouts: always(
    obj({
      handshake_timeout_secs: always(int(0)),
      message_timeout_secs: always(int(0)),
      connection_retry_attempts: always(int(0)),
      connection_retry_delay_secs: always(int(0)),
    }),
  ),
  noise_retry: always(
    obj({
      per_attempt_timeout_secs: always(int(0)),
      max_attempts: always(int(0)),
      backoff_ms: always(int(0)),
    }),
  ),
  reward_automation_interval_secs: always(int(0)),
  reward_max_creates: always(int(0)),
  reward_min_expiry_margin_secs: always(int(0)),
  keycloak: nullable(
    obj({ url: always(str()), realm: always(str()), client_id: always(str()), username: nullable(str()) }),
  ),
  auth0: nullable(obj({ domain: always(str()), client_id: always(str()), audience: always(str()) })),
  test_mode: always(bool),
  version: always(str()),
  build_version: always(str()),
  build_time: optional(str()),
});

export const KEYS_STATUS = obj({ has_keys: always(bool), public_key: nullable(publicKey) });

// ---- §2 peers / network config / connectivity -------------------------------------------------------------------

export const PEER = obj({
  participant_id: always(cantonId),
  name: always(str()),
  address: always(str()),
  port: always(u16),
  public_key: always(publicKey),
  party: optional(str()),
});
export const NETWORK_CONFIG = obj({ peers: always(list(PEER)) });
export const SUCCESS = obj({ success: always(oneOf(true)) });

export const WORKFLOW_INFO = obj({
  kind: always(oneOf(...WORKFLOW_KINDS)),
  role: always(oneOf('Coordinator', 'Peer')),
  step: always(str()),
  step_index: always(int(0)),
  step_total: always(int(1)),
});
export const PARTICIPANTS_STATUS = obj({
  statuses: always(
    list(
      obj({
        id: always(str()),
        status: always(oneOf('CurrentNode', 'Connected', 'Unreachable', 'HandshakeFailed')),
        latency_ms: optional(num),
        workflow: optional(WORKFLOW_INFO),
        version: optional(str()),
        build_version: optional(str()),
      }),
    ),
  ),
});

// ---- §3 party config --------------------------------------------------------------------------------------------

/** §3: the hard-coded defaults the server always stores and returns */
export const PACKAGE_CONFIG_DEFAULTS = {
  governance_action: '#governance-action-v1',
  governance_core: '#governance-core-v1',
  governance_rewards: '#governance-rewards-automation-v1',
  governance_token_custody: '#governance-token-custody-v1',
  governance_utility_credential: '#governance-utility-credential-v1',
  governance_utility_onboarding: '#governance-utility-onboarding-v1',
  utility_credential: '#utility-credential-v0',
  utility_credential_app: '#utility-credential-app-v0',
  utility_registry: '#utility-registry-app-v0',
  vault: '#bitsafe-vault-v0-rc8',
  vault_governance: '#bitsafe-vault-governance-v0-rc8',
};
export const PACKAGE_CONFIG = obj(
  Object.fromEntries(Object.keys(PACKAGE_CONFIG_DEFAULTS).map((key) => [key, optional(str())])),
);

export const PARTY_CONFIG = obj({
  dec_party_id: always(cantonId),
  member_party_id: optional(cantonId),
  user_id: optional(str()),
  keycloak_url: always(str()),
  keycloak_realm: always(str()),
  keycloak_client_id: always(str()),
  has_client_secret: always(bool),
  has_username: always(bool),
  has_password: always(bool),
  auth0_domain: optional(str()),
  auth0_audience: optional(str()),
  auth0_client_id: optional(str()),
  has_auth0_client_secret: always(bool),
  packages: always(PACKAGE_CONFIG),
});

// ---- §4 decentralized parties -----------------------------------------------------------------------------------

export const CONTRACT_INFO = obj({
  contract_id: always(str()),
  template_id: always(str(/^[A-Za-z_][\w.]*:[A-Za-z_]\w*$/)),
  package_id: always(str()),
  package_name: always(str()),
  package_version: always(str()),
  created_at: always(isoTime),
});
export const DECENTRALIZED_PARTY = obj({
  party_id: always(cantonId),
  threshold: always(int(1, 2147483647)),
  owners: always(list(str())),
  my_owner_key: optional(str()),
  participants: always(
    list(
      obj({
        participant_uid: always(cantonId),
        permission: always(oneOf('submission', 'confirmation', 'observation', 'unknown')),
        owner_key: optional(str()),
      }),
    ),
  ),
  contracts: optional(list(CONTRACT_INFO, true)),
  local_metadata: optional(obj({ annotations: always(map(str())) })),
});
export const DECENTRALIZED_PARTIES = obj({
  parties: always(list(DECENTRALIZED_PARTY)),
  source: always(oneOf('live', 'cache')),
  refreshing: always(bool),
});

// ---- §5 / §6 / §7 workflows -------------------------------------------------------------------------------------

export const WORKFLOW_RESPONSE = obj({
  status: always(oneOf('inprogress')),
  message: always(str()),
  instance_name: always(str(/^.+$/)),
});

/** §5: the 202 message per start route */
export const START_MESSAGES: Record<Kind, string> = {
  Onboarding: 'Onboarding workflow started',
  Kick: 'Kick workflow started',
  AddParty: 'Add-party workflow started',
  ChangeThreshold: 'Change-threshold workflow started',
  Contracts: 'Contracts workflow started',
  Dars: 'DARs distribution workflow started',
};

export const WORKFLOW_RUN = obj({
  instance_name: always(str()),
  kind: always(oneOf(...WORKFLOW_KINDS)),
  role: always(oneOf('Coordinator', 'Peer')),
  status: always(oneOf('inprogress', 'completed', 'failed', 'cancelled')),
  current_step: always(str()),
  step_index: always(int(0)),
  step_total: always(int(1)),
  config_json: always(str()),
  coordinator_pubkey: optional(publicKey),
  coordinator_instance: optional(str()),
  coordinator_name: optional(str()),
  expected_peers: always(list(cantonId)),
  completed_peers: always(list(cantonId)),
  dec_party_id: optional(cantonId),
  prefix: optional(str()),
  participants: optional(list(cantonId, true)),
  // "only when > 0"
  previous_threshold: optional(int(1, 2147483647)),
  new_threshold: optional(int(-2147483648, 2147483647)),
  kicked_participant: optional(cantonId),
  added_participant: optional(cantonId),
  package_names: optional(list(str(), true)),
  dar_filenames: optional(list(str(), true)),
  error: optional(str()),
  dismissed: always(bool),
  created_at: always(unixSeconds),
  updated_at: always(unixSeconds),
});
export const WORKFLOWS = obj({ runs: always(list(WORKFLOW_RUN)) });

const threshold32 = int(-2147483648, 2147483647);
/** §7: the coordinator's `config_json` per kind (PhantomData members serialize as `"_p": null`) */
export const COORDINATOR_CONFIG: Record<Kind, Type> = {
  Onboarding: obj({
    party_id_prefix: always(str()),
    instance_name: always(str()),
    threshold: nullable(threshold32),
    _p: nullable(oneOf(null)),
  }),
  Kick: obj({
    decentralized_party_id: always(cantonId),
    participant_id: always(cantonId),
    namespace_fingerprint: always(str()),
    new_threshold: always(threshold32),
    previous_threshold: always(threshold32),
    instance_name: always(str()),
    _p: nullable(oneOf(null)),
  }),
  AddParty: obj({
    decentralized_party_id: always(cantonId),
    new_participant_id: always(cantonId),
    new_threshold: always(threshold32),
    previous_threshold: always(threshold32),
    instance_name: always(str()),
    _p: nullable(oneOf(null)),
  }),
  ChangeThreshold: obj({
    decentralized_party_id: always(cantonId),
    new_threshold: always(threshold32),
    previous_threshold: always(threshold32),
    instance_name: always(str()),
    _p: nullable(oneOf(null)),
  }),
  Contracts: obj({
    decentralized_party_id: always(cantonId),
    participant_ids: always(list(cantonId)),
    participant_parties: always(list(cantonId)),
    operator_party: always(cantonId),
    contracts: nullable(list(tagged('name'))),
    instance_name: always(str()),
  }),
  Dars: obj({
    dar_files: always(list(obj({ filename: always(str()), data: always(str(/^[A-Za-z0-9+/]*={0,2}$/)) }))),
    instance_name: always(str()),
    peer_ids: nullable(list(cantonId)),
  }),
};
/** §7: a peer row's `config_json`, from the invite, nulls for absent */
export const PEER_CONFIG = obj({
  prefix: nullable(str()),
  participants: nullable(list(cantonId)),
  dar_filenames: nullable(list(str())),
  participant_id: nullable(cantonId),
  new_participant_id: nullable(cantonId),
  new_threshold: nullable(threshold32),
  previous_threshold: nullable(threshold32),
  package_names: nullable(list(str())),
});

export const MESSAGE = obj({ message: always(str()) });
export const WORKFLOW_STATUS = obj({
  status: always(oneOf('inprogress', 'completed', 'failed', 'cancelled', 'idle')),
  error: optional(str()),
});

// ---- §8 invitations ---------------------------------------------------------------------------------------------

export const INVITATION = obj({
  id: always(str()),
  invitation_type: always(oneOf(...WORKFLOW_KINDS)),
  coordinator_pubkey: always(publicKey),
  // "emitted as null, not omitted"
  coordinator_name: nullable(str()),
  received_at: always(unixSeconds),
  prefix: optional(str()),
  participants: optional(list(cantonId, true)),
  dar_filenames: optional(list(str())),
  kicked_participant: optional(cantonId),
  new_threshold: optional(threshold32),
  previous_threshold: optional(threshold32),
  dec_party_id: optional(cantonId),
  new_participant: optional(cantonId),
  package_names: optional(list(str())),
  workflow_instance: optional(str()),
});
export const INVITATIONS = obj({ invitations: always(list(INVITATION)) });

// ---- §9 auth ----------------------------------------------------------------------------------------------------

export const RIGHTS = obj({
  member_party_act_as: always(bool),
  member_party_read_as: always(bool),
  dec_party_act_as: always(bool),
  dec_party_read_as: always(bool),
});
export const AUTH_STATUS = obj({
  parties: always(
    list(
      obj({
        dec_party_id: always(cantonId),
        member_party_id: always(cantonId),
        user_id: always(str()),
        keycloak_url: optional(str()),
        keycloak_realm: optional(str()),
        auth0_domain: optional(str()),
        auth0_audience: optional(str()),
        status: always(
          union(
            obj({ status: always(oneOf('authenticated')) }),
            obj({ status: always(oneOf('mock')) }),
            obj({ status: always(oneOf('failed')), error: always(str()) }),
            obj({ status: always(oneOf('notconfigured')) }),
          ),
        ),
        rights: optional(RIGHTS),
      }),
    ),
  ),
});
export const AUTH_TEST = obj({
  results: always(list(obj({ party_id: always(str()), success: always(bool), error: optional(str()) }))),
});

// ---- §10 packages -----------------------------------------------------------------------------------------------

export const VETTED = list(
  obj({ package_id: always(str(/^.+$/)), package_name: always(str()), package_version: always(str()) }),
);
const PACKAGE_INFO = obj({ package_id: always(str(/^.+$/)), name: always(str()), version: always(str()) });
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
export const COMPARE_PEERS = obj({
  local_packages: always(list(PACKAGE_INFO)),
  peers: always(
    list(
      obj({
        participant_id: always(cantonId),
        name: always(str()),
        reachable: always(bool),
        error_kind: optional(oneOf(...PEER_ERROR_KINDS)),
        packages: always(list(PACKAGE_INFO)),
      }),
    ),
  ),
});

// ---- §11 governance reads ---------------------------------------------------------------------------------------

export const GOVERNANCE_STATE = obj({
  state: nullable(
    obj({
      contract_id: always(str()),
      vault_manager: always(cantonId),
      members: always(list(cantonId)),
      threshold: always(int()),
      action_confirmation_timeout_microseconds: optional(int()),
      package_ref: optional(str()),
      out_of_date: always(bool),
    }),
  ),
});
const CONFIRMATION = obj({
  contract_id: always(str()),
  action: always(tagged('type')),
  confirming_party: always(cantonId),
  created_at: always(int(0)),
  expires_at: always(int(0)),
});
export const GOVERNANCE_CONFIRMATIONS = obj({
  actions: always(
    list(
      obj({
        action_hash: always(str()),
        action: always(tagged('type')),
        confirmations: always(list(CONFIRMATION)),
        confirmation_count: always(int(0)),
        can_execute: always(bool),
        last_confirmation_at: always(int(0)),
      }),
    ),
  ),
  domain_actions: optional(
    list(
      obj({
        proposal_cid: always(str()),
        action_label: always(str()),
        description: optional(str()),
        confirmations: always(list(CONFIRMATION)),
        confirmation_count: always(int(0)),
        can_execute: always(bool),
        orphaned: always(bool),
        transfer_details: optional(anything),
        accept_transfer_details: optional(anything),
        service_request_details: optional(anything),
        proposer: optional(str()),
        created_at: optional(int(0)),
      }),
      true,
    ),
  ),
  threshold: always(num),
  member_party_id: optional(cantonId),
  rules_contract_id: optional(str()),
  gov_core_out_of_date: always(bool),
  gov_core_package_ref: optional(str()),
});

// ---- §11 governance: writes, the audit logs, requests; §9 grant-rights, §3 discovery ----------------------------

/** a decimal amount as the server writes a Daml decimal */
const decimal = str(/^-?\d+(\.\d+)?$/);
export const GOVERNANCE_TYPES = ['vault', 'core_self', 'core_domain'] as const;

export const KNOWN_MEMBERS = obj({
  members: always(list(obj({ participant_uid: always(cantonId), member_party_id: optional(cantonId) }))),
});
export const AUDIT = obj({
  entries: always(
    list(
      obj({
        id: always(int(1)),
        timestamp: always(unixSeconds),
        event_type: always(oneOf('propose', 'confirm', 'execute', 'expire', 'cancel', 'cancel_proposal')),
        party_id: always(cantonId),
        member_party_id: always(cantonId),
        governance_type: always(oneOf(...GOVERNANCE_TYPES)),
        action_summary: always(str()),
        details: always(anything),
        status: always(oneOf('success', 'failed')),
        error_message: optional(str()),
        created_at: always(unixSeconds),
      }),
    ),
  ),
  total_returned: always(int(0)),
});
export const CHAIN_AUDIT = obj({
  entries: always(
    list(
      obj({
        offset: always(int(1)),
        timestamp: always(unixSeconds),
        event_type: always(oneOf('propose', 'confirm', 'execute', 'expire', 'cancel', 'execute_result')),
        contract_id: always(str(/^00[0-9a-f]+$/)),
        template_id: always(str(/^[A-Za-z][\w.]*:[A-Za-z]\w*$/)),
        package_id: always(str(/^[0-9a-f]{64}$/)),
        governance_type: always(oneOf(...GOVERNANCE_TYPES)),
        action_summary: always(str()),
        choice: optional(str()),
        acting_parties: always(list(cantonId)),
        update_id: always(str()),
        details: always(anything),
      }),
    ),
  ),
  total_returned: always(int(0)),
  next_before_offset: nullable(int(1)),
});
const TOKEN_REQUEST = obj({
  contract_id: always(str()),
  holder: always(cantonId),
  amount: always(decimal),
  instrument_admin: always(cantonId),
  instrument_id: always(str()),
  expires_at: always(unixSeconds),
});
export const MINT_REQUESTS = obj({ mint_requests: always(list(TOKEN_REQUEST)) });
export const BURN_REQUESTS = obj({ burn_requests: always(list(TOKEN_REQUEST)) });
export const TRANSFER_INSTRUCTIONS = obj({
  transfer_instructions: always(
    list(
      obj({
        contract_id: always(str()),
        sender: always(cantonId),
        receiver: always(cantonId),
        amount: always(decimal),
        instrument_admin: always(cantonId),
        instrument_id: always(str()),
        status: always(oneOf('pending_receiver_acceptance', 'pending_internal_workflow')),
        pending_actions: optional(list(obj({ party: always(cantonId), action: always(str()) }), true)),
        expires_at: always(int(0)),
      }),
    ),
  ),
});
export const GRANT_RIGHTS = obj({ rights: always(RIGHTS) });
export const DISCOVERED_MEMBER = obj({
  user_id: always(str()),
  primary_party: optional(cantonId),
  description: optional(str()),
});

// ---- §4 external parties, §12 contracts / services / proxies ----------------------------------------------------

export const EXTERNAL_PARTIES = obj({
  parties: always(
    list(
      obj({
        party_id: always(cantonId),
        fingerprint: always(str()),
        threshold: always(int(0)),
        host_count: always(int(0)),
        created_at: optional(isoTime),
      }),
    ),
  ),
});
export const VAULTS = obj({
  vaults: always(
    list(
      obj({
        contract_id: always(str()),
        vault_name: always(str()),
        share_symbol: always(str()),
        is_paused: always(bool),
        vault_manager: always(cantonId),
      }),
    ),
  ),
});
export const SERVICES = (role: 'provider' | 'user' | 'registrar'): Type =>
  obj({
    services: always(
      list(obj({ contract_id: always(str()), operator: always(cantonId), [role]: always(cantonId) })),
    ),
  });
export const CREDENTIAL_OFFERS = obj({
  credential_offers: always(
    list(
      obj({
        contract_id: always(str()),
        operator: always(cantonId),
        issuer: always(cantonId),
        holder: always(cantonId),
        credential_id: always(str()),
        description: always(str()),
        is_free: always(bool),
      }),
    ),
  ),
});
export const CREDENTIALS = obj({
  credentials: always(
    list(
      obj({
        contract_id: always(str()),
        issuer: always(cantonId),
        holder: always(cantonId),
        credential_id: always(str()),
        description: always(str()),
        claims: always(list(obj({ subject: always(str()), property: always(str()), value: always(str()) }))),
      }),
    ),
  ),
});
export const REGISTRAR_SERVICE_REQUESTS = obj({
  registrar_service_requests: always(
    list(
      obj({
        contract_id: always(str()),
        operator: always(cantonId),
        provider: always(cantonId),
        registrar: always(cantonId),
        create_transfer_rule: always(bool),
        create_allocation_factory: always(bool),
      }),
    ),
  ),
});
export const PROVIDER_CONFIGURATIONS = obj({
  provider_configurations: always(
    list(obj({ contract_id: always(str()), operator: always(cantonId), provider: always(cantonId) })),
  ),
});
export const INSTRUMENTS = obj({
  instruments: always(
    list(
      obj({ contract_id: always(str()), instrument_admin: always(cantonId), instrument_id: always(str()) }),
    ),
  ),
});
export const TRANSFER_FACTORIES = obj({
  transfer_factories: always(list(obj({ contract_id: always(str()), expected_admin: always(cantonId) }))),
});
export const TRANSFER_PREAPPROVALS = obj({ cc: always(int(0)), token: always(int(0)) });
export const HOLDINGS = obj({
  holdings: always(
    list(
      obj({
        instrument_admin: always(cantonId),
        instrument_id: always(str()),
        amount: always(decimal),
        locked_amount: always(decimal),
        preapproval_set_up: always(bool),
      }),
    ),
  ),
});
export const CONTRACTS_QUERY = obj({
  contracts: always(list(obj({ contract_id: always(str()), blob: always(str(/^[A-Za-z0-9+/]+={0,2}$/)) }))),
});
export const COUPON_DELEGATIONS = obj({
  delegations: always(
    list(
      obj({
        cid: always(str()),
        dso: always(cantonId),
        assigners: always(list(cantonId)),
        beneficiary_count: always(int(0)),
      }),
    ),
  ),
});
export const NETWORK_INFO = obj({
  dso_party_id: always(cantonId),
  amulet_rules_cid: always(str(/^00[0-9a-f]+$/)),
  amulet_rules_blob: always(str()),
});
export const OPERATOR_INFO = obj({ party_id: always(cantonId) });

// ---- the checker ------------------------------------------------------------------------------------------------

export interface Conformance {
  /** `/pointer: what is wrong` */
  problems: string[];
  /** pointers of fields the reference does not document */
  extras: string[];
}

/** Compares `value` with `type`: every problem, and every undocumented field, by JSON pointer. */
export function conform(value: unknown, type: Type): Conformance {
  const result: Conformance = { problems: [], extras: [] };
  check(value, type, '', result);
  return result;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function check(value: unknown, type: Type, pointer: string, out: Conformance): void {
  const fail = (expected: string): void => {
    out.problems.push(`${pointer || '(body)'}: expected ${expected}, got ${describe(value)}`);
  };
  switch (type.kind) {
    case 'any':
      return;
    case 'string':
      if (typeof value !== 'string') return fail('a string');
      if (type.pattern && !type.pattern.test(value)) fail(`a string matching ${String(type.pattern)}`);
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('an integer');
      if ((type.min !== undefined && value < type.min) || (type.max !== undefined && value > type.max)) {
        fail(`an integer in ${type.min ?? '-∞'}..${type.max ?? '∞'}`);
      }
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('a number');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail('a boolean');
      return;
    case 'enum':
      if (!type.values.includes(value))
        fail(`one of ${type.values.map((v) => JSON.stringify(v)).join(', ')}`);
      return;
    case 'array':
      if (!Array.isArray(value)) return fail('an array');
      if (type.nonEmpty && value.length === 0) fail('a non-empty array (the field is omitted when empty)');
      value.forEach((item, i) => check(item, type.items, `${pointer}/${i}`, out));
      return;
    case 'map':
      if (!isRecord(value)) return fail('an object');
      for (const [key, item] of Object.entries(value)) check(item, type.values, `${pointer}/${key}`, out);
      return;
    case 'tagged':
      if (!isRecord(value)) return fail('an object');
      if (typeof value[type.tag] !== 'string') fail(`an object with a string \`${type.tag}\``);
      return;
    case 'union': {
      const tries = type.variants.map((variant) => conform(value, variant));
      if (!tries.some((t) => t.problems.length === 0 && t.extras.length === 0)) {
        fail(
          `one of ${type.variants.length} variants (${tries.map((t) => t.problems.concat(t.extras).join('; ')).join(' | ')})`,
        );
      }
      return;
    }
    case 'object': {
      if (!isRecord(value)) return fail('an object');
      for (const [name, field] of Object.entries(type.fields)) {
        const at = `${pointer}/${name}`;
        const present = Object.hasOwn(value, name);
        const fieldValue = value[name];
        if (!present) {
          if (field.presence !== 'optional')
            out.problems.push(`${at}: missing (the reference always sends it)`);
          continue;
        }
        if (fieldValue === null) {
          if (field.presence === 'always')
            out.problems.push(`${at}: null (the reference always sends a value)`);
          continue;
        }
        check(fieldValue, field.type, at, out);
      }
      for (const name of Object.keys(value)) {
        if (!Object.hasOwn(type.fields, name)) out.extras.push(`${pointer}/${name}`);
      }
      return;
    }
  }
}
