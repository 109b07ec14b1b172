// Generated from contracts/dpm.openapi.yaml by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.
// The request bodies of the DPM operator API as the server decodes them; wire.ts makes decoder shapes of them.

/** Method + path template → the component of its request body. */
export const requestBodyOf: Readonly<Record<string, string>> = {
  'POST /network-config': 'NetworkConfigRequest',
  'PUT /party-config': 'PartyConfigRequest',
  'POST /onboarding': 'OnboardingRequest',
  'POST /kick': 'KickRequest',
  'POST /add-party': 'AddPartyRequest',
  'POST /change-threshold': 'ChangeThresholdRequest',
  'POST /contracts': 'ContractsRequest',
  'POST /dars/distribute': 'DarsDistributeRequest',
  'POST /dars/upload': 'DarsUploadRequest',
  'POST /invitations/accept': 'InvitationActionRequest',
  'POST /invitations/decline': 'InvitationActionRequest',
  'POST /governance/propose': 'ProposeRequest',
  'POST /governance/confirm': 'ConfirmRequest',
  'POST /governance/execute': 'ExecuteRequest',
  'POST /governance/expire': 'ExpireRequest',
  'POST /governance/cancel': 'CancelRequest',
  'POST /governance/cancel-proposal': 'CancelProposalRequest',
  'POST /auth/grant-rights': 'GrantRightsRequest',
  'POST /party-config/discover-member-party': 'DiscoverMemberPartyRequest',
};

/** The components the request bodies name (JSON Schema, `$ref`s to each other). */
export const requestComponents: Readonly<Record<string, object>> = {
  ActionType: {
    title: 'ActionType',
    oneOf: [
      {
        type: 'object',
        properties: {
          type: { const: 'governance_add_member' },
          member: { $ref: '#/components/schemas/CantonIdInRequest' },
          new_threshold: { type: 'integer', format: 'int64' },
        },
        required: ['type', 'member', 'new_threshold'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_remove_member' },
          member: { $ref: '#/components/schemas/CantonIdInRequest' },
          new_threshold: { type: 'integer', format: 'int64' },
        },
        required: ['type', 'member', 'new_threshold'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_set_threshold' },
          new_threshold: { type: 'integer', format: 'int64' },
        },
        required: ['type', 'new_threshold'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_set_timeout' },
          new_timeout_microseconds: { type: 'integer', format: 'int64' },
        },
        required: ['type', 'new_timeout_microseconds'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_add_additional_proposer' },
          additional_proposer: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'additional_proposer'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_remove_additional_proposer' },
          additional_proposer: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'additional_proposer'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'vault_deployment' },
          vault_rules_cid: { type: 'string' },
          vault_name: { type: 'string' },
          share_symbol: { type: 'string' },
          asset_instrument_id: { $ref: '#/components/schemas/InstrumentId' },
          limits: { $ref: '#/components/schemas/VaultLimits' },
          vault_backend_signatory: { $ref: '#/components/schemas/CantonIdInRequest' },
          vault_far_config: { anyOf: [{ $ref: '#/components/schemas/FarConfig' }, { type: 'null' }] },
          allocation_factory_cid: { type: 'string' },
          registrar_service_cid: { type: 'string' },
        },
        required: [
          'type',
          'vault_rules_cid',
          'vault_name',
          'share_symbol',
          'asset_instrument_id',
          'limits',
          'vault_backend_signatory',
          'allocation_factory_cid',
          'registrar_service_cid',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'yield_epoch_deployment' },
          vault_rules_cid: { type: 'string' },
          vault_cid: { type: 'string' },
          asset_instrument_id: { $ref: '#/components/schemas/InstrumentId' },
          vault_backend_signatory: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'vault_rules_cid', 'vault_cid', 'asset_instrument_id', 'vault_backend_signatory'],
      },
      {
        type: 'object',
        properties: { type: { const: 'vault_pause' }, vault_id: { type: 'string' } },
        required: ['type', 'vault_id'],
      },
      {
        type: 'object',
        properties: { type: { const: 'vault_unpause' }, vault_id: { type: 'string' } },
        required: ['type', 'vault_id'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'vault_update_limits' },
          vault_id: { type: 'string' },
          new_limits: { $ref: '#/components/schemas/VaultLimits' },
        },
        required: ['type', 'vault_id', 'new_limits'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'vault_update_backend' },
          vault_id: { type: 'string' },
          new_backend_signatory: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'vault_id', 'new_backend_signatory'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'vault_update_far_beneficiaries' },
          vault_id: { type: 'string' },
          new_beneficiaries: { type: 'array', items: { $ref: '#/components/schemas/AppRewardBeneficiary' } },
        },
        required: ['type', 'vault_id', 'new_beneficiaries'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'processor_deployment_request' },
          vault_processor_rules_cid: { type: 'string' },
          vault_backend_signatory: { $ref: '#/components/schemas/CantonIdInRequest' },
          allocation_factory_cid: { type: 'string' },
          processor_far_config: { anyOf: [{ $ref: '#/components/schemas/FarConfig' }, { type: 'null' }] },
          initial_supported_vaults: { type: 'array', items: { type: 'string' } },
        },
        required: [
          'type',
          'vault_processor_rules_cid',
          'vault_backend_signatory',
          'allocation_factory_cid',
          'initial_supported_vaults',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'utility_create_provider_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'utility_create_user_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'utility_setup' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          provider_service_cid: { type: 'string' },
          user_service_cid: { type: 'string' },
        },
        required: ['type', 'operator', 'provider_service_cid', 'user_service_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'utility_accept_holder_service_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          provider_service_cid: { type: 'string' },
          holder_service_request_cid: { type: 'string' },
          holder: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator', 'provider_service_cid', 'holder_service_request_cid', 'holder'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'credential_offer_free' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          user_service_cid: { type: 'string' },
          holder: { $ref: '#/components/schemas/CantonIdInRequest' },
          id: { type: 'string' },
          description: { type: 'string' },
          claims: { type: 'array', items: { $ref: '#/components/schemas/Claim' } },
        },
        required: ['type', 'operator', 'user_service_cid', 'holder', 'id', 'description', 'claims'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'credential_accept_free' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          user_service_cid: { type: 'string' },
          credential_offer_cid: { type: 'string' },
        },
        required: ['type', 'operator', 'user_service_cid', 'credential_offer_cid'],
      },
      {
        type: 'object',
        properties: { type: { const: 'dev_net_feature_app' }, amulet_rules_cid: { type: 'string' } },
        required: ['type', 'amulet_rules_cid'],
      },
    ],
    discriminator: { propertyName: 'type' },
  },
  AddPartyRequest: {
    title: 'AddPartyRequest',
    type: 'object',
    properties: {
      decentralized_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      new_participant_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      new_threshold: { type: 'integer', format: 'int32' },
      previous_threshold: { type: ['integer', 'null'], format: 'int32' },
    },
    required: ['decentralized_party_id', 'new_participant_id', 'new_threshold'],
    additionalProperties: false,
  },
  AppRewardBeneficiary: {
    title: 'AppRewardBeneficiary',
    type: 'object',
    properties: {
      beneficiary: { $ref: '#/components/schemas/CantonIdInRequest' },
      weight: { type: 'string' },
    },
    required: ['beneficiary', 'weight'],
  },
  BillingParams: {
    title: 'BillingParams',
    type: 'object',
    properties: {
      fee_per_day_usd: { type: 'string' },
      billing_period_minutes: { type: 'integer', format: 'int64' },
      deposit_target_amount_usd: { type: 'string' },
      holder_activity_weight: { type: ['string', 'null'] },
    },
    required: ['fee_per_day_usd', 'billing_period_minutes', 'deposit_target_amount_usd'],
  },
  CancelProposalRequest: {
    title: 'CancelProposalRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      proposal_cid: { type: 'string' },
      confirmation_cid: { type: ['string', 'null'] },
    },
    required: ['party_id', 'proposal_cid'],
  },
  CancelRequest: {
    title: 'CancelConfirmationRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      confirmation_cid: { type: 'string' },
      governance_type: { anyOf: [{ $ref: '#/components/schemas/GovernanceType' }, { type: 'null' }] },
    },
    required: ['party_id', 'confirmation_cid'],
  },
  CantonIdInRequest: { type: 'string' },
  ChangeThresholdRequest: {
    title: 'ChangeThresholdRequest',
    type: 'object',
    properties: {
      decentralized_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      new_threshold: { type: 'integer', format: 'int32' },
      previous_threshold: { type: ['integer', 'null'], format: 'int32' },
    },
    required: ['decentralized_party_id', 'new_threshold'],
    additionalProperties: false,
  },
  Claim: {
    title: 'Claim',
    type: 'object',
    properties: { subject: { type: 'string' }, property: { type: 'string' }, value: { type: 'string' } },
    required: ['subject', 'property', 'value'],
  },
  ConfirmRequest: {
    title: 'ConfirmActionRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      rules_contract_id: { type: 'string' },
      action: { $ref: '#/components/schemas/ActionType' },
      governance_type: { anyOf: [{ $ref: '#/components/schemas/GovernanceType' }, { type: 'null' }] },
      proposal_cid: { type: ['string', 'null'] },
    },
    required: ['party_id', 'rules_contract_id', 'action'],
  },
  ContractDefinition: {
    title: 'ContractDefinition',
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      package_id: { type: 'string' },
      module_name: { type: 'string' },
      entity_name: { type: 'string' },
      fields: { type: 'array', items: { $ref: '#/components/schemas/FieldDefinition' } },
    },
    required: ['id', 'name', 'package_id', 'module_name', 'entity_name', 'fields'],
  },
  ContractsRequest: {
    title: 'ContractsRequest',
    type: 'object',
    properties: {
      decentralized_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      participant_ids: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
      participant_parties: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
      operator_party: { $ref: '#/components/schemas/CantonIdInRequest' },
      contracts: { type: ['array', 'null'], items: { $ref: '#/components/schemas/ContractDefinition' } },
    },
    required: ['decentralized_party_id', 'participant_ids', 'participant_parties', 'operator_party'],
  },
  DarFile: {
    title: 'DarFile',
    type: 'object',
    properties: { filename: { type: 'string' }, data: { type: 'string' } },
    required: ['filename', 'data'],
  },
  DarsDistributeRequest: {
    title: 'DarsRequest',
    type: 'object',
    properties: {
      dar_files: { type: 'array', items: { $ref: '#/components/schemas/DarFile' } },
      peer_ids: { type: ['array', 'null'], items: { $ref: '#/components/schemas/CantonIdInRequest' } },
    },
    required: ['dar_files'],
  },
  DarsUploadRequest: {
    title: 'DarsRequest',
    type: 'object',
    properties: {
      dar_files: { type: 'array', items: { $ref: '#/components/schemas/DarFile' } },
      peer_ids: { type: ['array', 'null'], items: { $ref: '#/components/schemas/CantonIdInRequest' } },
    },
    required: ['dar_files'],
  },
  DiscoverMemberPartyRequest: {
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
  },
  ExecuteRequest: {
    title: 'ExecuteActionRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      rules_contract_id: { type: 'string' },
      action: { $ref: '#/components/schemas/ActionType' },
      confirmation_cids: { type: 'array', items: { type: 'string' } },
      disclosed_contracts: {
        type: ['array', 'null'],
        items: {
          title: 'DisclosedContractInput',
          type: 'object',
          properties: { contract_id: { type: 'string' }, blob: { type: 'string' } },
          required: ['contract_id', 'blob'],
        },
      },
      governance_type: { anyOf: [{ $ref: '#/components/schemas/GovernanceType' }, { type: 'null' }] },
      proposal_cid: { type: ['string', 'null'] },
    },
    required: ['party_id', 'rules_contract_id', 'action', 'confirmation_cids'],
  },
  ExpireRequest: {
    title: 'ExpireConfirmationRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      rules_contract_id: { type: 'string' },
      confirmation_cid: { type: 'string' },
      governance_type: { anyOf: [{ $ref: '#/components/schemas/GovernanceType' }, { type: 'null' }] },
    },
    required: ['party_id', 'rules_contract_id', 'confirmation_cid'],
  },
  FarConfig: {
    title: 'FarConfig',
    type: 'object',
    properties: {
      featured_app_right_cid: { type: 'string' },
      beneficiaries: { type: 'array', items: { $ref: '#/components/schemas/AppRewardBeneficiary' } },
    },
    required: ['featured_app_right_cid', 'beneficiaries'],
  },
  FieldDefinition: {
    title: 'FieldDefinition',
    oneOf: [
      { type: 'object', properties: { type: { const: 'decentralized_party' } }, required: ['type'] },
      { type: 'object', properties: { type: { const: 'operator_party' } }, required: ['type'] },
      {
        type: 'object',
        properties: {
          type: { const: 'participant_party' },
          id: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'id'],
      },
      {
        type: 'object',
        properties: { type: { const: 'text' }, value: { type: 'string' } },
        required: ['type', 'value'],
      },
      {
        type: 'object',
        properties: { type: { const: 'int64' }, value: { type: 'integer', format: 'int64' } },
        required: ['type', 'value'],
      },
      {
        type: 'object',
        properties: { type: { const: 'bool' }, value: { type: 'boolean' } },
        required: ['type', 'value'],
      },
      {
        type: 'object',
        properties: { type: { const: 'instrument' }, id: { type: 'string' } },
        required: ['type', 'id'],
      },
      { type: 'object', properties: { type: { const: 'attestors_set' } }, required: ['type'] },
      {
        type: 'object',
        properties: {
          type: { const: 'party_set' },
          parties: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
        },
        required: ['type', 'parties'],
      },
      {
        type: 'object',
        properties: { type: { const: 'rel_time' }, microseconds: { type: 'integer', format: 'int64' } },
        required: ['type', 'microseconds'],
      },
      {
        type: 'object',
        properties: { type: { const: 'optional' }, inner: { $ref: '#/components/schemas/FieldDefinition' } },
        required: ['type', 'inner'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'record' },
          fields: { type: 'array', items: { $ref: '#/components/schemas/FieldDefinition' } },
        },
        required: ['type', 'fields'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'governance_threshold' },
          value: { type: ['integer', 'null'], format: 'int64' },
        },
        required: ['type'],
      },
      { type: 'object', properties: { type: { const: 'none' } }, required: ['type'] },
    ],
    discriminator: { propertyName: 'type' },
  },
  GovernanceType: { title: 'GovernanceType', enum: ['vault', 'core_self', 'core_domain'] },
  GrantRightsRequest: {
    title: 'GrantRightsRequest',
    type: 'object',
    properties: {
      dec_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      admin_client_id: { type: 'string' },
      admin_client_secret: { type: 'string' },
    },
    required: ['dec_party_id', 'admin_client_id', 'admin_client_secret'],
  },
  InstrumentAllowance: {
    title: 'InstrumentAllowance',
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
  },
  InstrumentId: {
    title: 'InstrumentId',
    type: 'object',
    properties: { admin: { type: 'string' }, id: { type: 'string' } },
    required: ['admin', 'id'],
  },
  InstrumentIdentifier: {
    title: 'InstrumentIdentifier',
    type: 'object',
    properties: {
      source: { $ref: '#/components/schemas/CantonIdInRequest' },
      id: { type: 'string' },
      scheme: { type: 'string' },
    },
    required: ['source', 'id', 'scheme'],
  },
  InstrumentIssuerCredentials: {
    title: 'InstrumentIssuerCredentials',
    type: 'object',
    properties: {
      instrument_issuer: { $ref: '#/components/schemas/CantonIdInRequest' },
      credential_cids: { type: ['array', 'null'], items: { type: 'string' } },
    },
    required: ['instrument_issuer'],
  },
  InvitationActionRequest: {
    title: 'InvitationActionRequest',
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
  },
  KickRequest: {
    title: 'KickRequest',
    type: 'object',
    properties: {
      decentralized_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      participant_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      new_threshold: { type: 'integer', format: 'int32' },
      previous_threshold: { type: ['integer', 'null'], format: 'int32' },
    },
    required: ['decentralized_party_id', 'participant_id', 'new_threshold'],
    additionalProperties: false,
  },
  NetworkConfigRequest: {
    type: 'array',
    items: {
      title: 'Peer',
      type: 'object',
      properties: {
        participant_id: { $ref: '#/components/schemas/CantonIdInRequest' },
        name: { type: 'string' },
        address: { type: 'string' },
        port: { type: 'integer', format: 'uint16' },
        public_key: { type: 'string' },
        party: { type: ['string', 'null'] },
      },
      required: ['participant_id', 'name', 'address', 'port', 'public_key'],
    },
  },
  OnboardingRequest: {
    title: 'OnboardingRequest',
    type: 'object',
    properties: {
      party_id_prefix: { type: 'string' },
      peer_ids: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
      threshold: { type: ['integer', 'null'], format: 'int32' },
    },
    required: ['party_id_prefix', 'peer_ids'],
  },
  PartyConfigRequest: {
    title: 'PartyConfigRequest',
    type: 'object',
    properties: {
      dec_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      member_party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      user_id: { type: 'string' },
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
  },
  PartyCredentialRequirement: {
    title: 'PartyCredentialRequirement',
    type: 'object',
    properties: {
      issuer: { $ref: '#/components/schemas/CantonIdInRequest' },
      required_claims: { type: ['array', 'null'], items: { $ref: '#/components/schemas/RequiredClaim' } },
    },
    required: ['issuer'],
  },
  ProposalType: {
    title: 'ProposalType',
    oneOf: [
      {
        type: 'object',
        properties: {
          type: { const: 'setup_cc_preapproval' },
          provider: { $ref: '#/components/schemas/CantonIdInRequest' },
          expected_dso: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'provider', 'expected_dso'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'setup_token_preapproval' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          instrument_admin: { $ref: '#/components/schemas/CantonIdInRequest' },
          instrument_allowances: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/InstrumentAllowance' },
          },
        },
        required: ['type', 'operator', 'instrument_admin'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'transfer' },
          transfer_factory_cid: { type: 'string' },
          expected_admin: { $ref: '#/components/schemas/CantonIdInRequest' },
          receiver: { $ref: '#/components/schemas/CantonIdInRequest' },
          amount: { type: 'string' },
          instrument_id: { $ref: '#/components/schemas/InstrumentId' },
          input_holding_cids: { type: ['array', 'null'], items: { type: 'string' } },
          validity_window_hours: { type: ['integer', 'null'], format: 'uint32' },
        },
        required: ['type', 'transfer_factory_cid', 'expected_admin', 'receiver', 'amount', 'instrument_id'],
      },
      {
        type: 'object',
        properties: { type: { const: 'accept_transfer' }, transfer_instruction_cid: { type: 'string' } },
        required: ['type', 'transfer_instruction_cid'],
      },
      {
        type: 'object',
        properties: { type: { const: 'generic_vote' }, description: { type: 'string' } },
        required: ['type', 'description'],
      },
      { type: 'object', properties: { type: { const: 'provision_provider_service' } }, required: ['type'] },
      {
        type: 'object',
        properties: {
          type: { const: 'setup_utility' },
          provider_service_cid: { type: 'string' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          instrument_id_text: { type: 'string' },
          additional_identifiers: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/InstrumentIdentifier' },
          },
          create_transfer_rule: { type: 'boolean' },
          create_allocation_factory: { type: 'boolean' },
        },
        required: [
          'type',
          'provider_service_cid',
          'operator',
          'instrument_id_text',
          'create_transfer_rule',
          'create_allocation_factory',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'create_provider_service_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          provider: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator', 'provider'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'create_user_service_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          user: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator', 'user'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'set_provider_app_reward_beneficiaries' },
          instrument_configuration_cid: { type: 'string' },
          provider_app_reward_beneficiaries: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/AppRewardBeneficiary' },
          },
        },
        required: ['type', 'instrument_configuration_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'setup_coupon_reassignment_delegation' },
          dso: { $ref: '#/components/schemas/CantonIdInRequest' },
          assigners: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
          new_beneficiaries: { type: 'array', items: { $ref: '#/components/schemas/RewardBeneficiary' } },
          prior_delegation: { type: ['string', 'null'] },
        },
        required: ['type', 'dso', 'assigners', 'new_beneficiaries'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'revoke_coupon_reassignment_delegation' },
          delegation: { type: 'string' },
        },
        required: ['type', 'delegation'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'set_enable_result_contracts' },
          registrar_service_cid: { type: 'string' },
          enable_result_contracts: { type: ['boolean', 'null'] },
        },
        required: ['type', 'registrar_service_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'create_delegated_batched_markers_proxy' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
        },
        required: ['type', 'operator'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'setup_minting_delegation' },
          delegate: { $ref: '#/components/schemas/CantonIdInRequest' },
          dso: { $ref: '#/components/schemas/CantonIdInRequest' },
          expires_at_micros: { type: 'integer', format: 'int64' },
          amulet_merge_limit: { type: 'integer', format: 'int64' },
          description: { type: 'string' },
        },
        required: ['type', 'delegate', 'dso', 'expires_at_micros', 'amulet_merge_limit', 'description'],
      },
      {
        type: 'object',
        properties: { type: { const: 'accept_external_party_setup' }, proposal_cid: { type: 'string' } },
        required: ['type', 'proposal_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'mint' },
          allocation_factory_cid: { type: 'string' },
          instrument_id: { $ref: '#/components/schemas/InstrumentId' },
          instrument_configuration_cid: { type: 'string' },
          recipient: { $ref: '#/components/schemas/CantonIdInRequest' },
          amount: { type: 'string' },
          description: { type: 'string' },
        },
        required: [
          'type',
          'allocation_factory_cid',
          'instrument_id',
          'instrument_configuration_cid',
          'recipient',
          'amount',
          'description',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'offer_free_credential' },
          user_service_cid: { type: 'string' },
          holder: { $ref: '#/components/schemas/CantonIdInRequest' },
          id: { type: 'string' },
          description: { type: 'string' },
          claims: { type: 'array', items: { $ref: '#/components/schemas/Claim' } },
        },
        required: ['type', 'user_service_cid', 'holder', 'id', 'description', 'claims'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'offer_paid_credential' },
          user_service_cid: { type: 'string' },
          holder: { $ref: '#/components/schemas/CantonIdInRequest' },
          id: { type: 'string' },
          description: { type: 'string' },
          claims: { type: 'array', items: { $ref: '#/components/schemas/Claim' } },
          billing_params: { $ref: '#/components/schemas/BillingParams' },
          deposit_initial_amount_usd: { type: ['string', 'null'] },
        },
        required: ['type', 'user_service_cid', 'holder', 'id', 'description', 'claims', 'billing_params'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'accept_free_credential' },
          user_service_cid: { type: 'string' },
          credential_offer_cid: { type: 'string' },
        },
        required: ['type', 'user_service_cid', 'credential_offer_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'burn' },
          allocation_factory_cid: { type: 'string' },
          instrument_id: { $ref: '#/components/schemas/InstrumentId' },
          instrument_configuration_cid: { type: 'string' },
          holder: { $ref: '#/components/schemas/CantonIdInRequest' },
          amount: { type: 'string' },
          description: { type: 'string' },
        },
        required: [
          'type',
          'allocation_factory_cid',
          'instrument_id',
          'instrument_configuration_cid',
          'holder',
          'amount',
          'description',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'accept_mint_request' },
          mint_request_cid: { type: 'string' },
          instrument_configuration_cid: { type: 'string' },
          issuer_credential_cids: { type: ['array', 'null'], items: { type: 'string' } },
          description: { type: 'string' },
        },
        required: ['type', 'mint_request_cid', 'instrument_configuration_cid', 'description'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'accept_burn_request' },
          burn_request_cid: { type: 'string' },
          instrument_configuration_cid: { type: 'string' },
          issuer_credential_cids: { type: ['array', 'null'], items: { type: 'string' } },
          description: { type: 'string' },
        },
        required: ['type', 'burn_request_cid', 'instrument_configuration_cid', 'description'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'create_provider_configuration' },
          provider_service_cid: { type: 'string' },
          registrar_requirements: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/PartyCredentialRequirement' },
          },
          holder_requirements: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/PartyCredentialRequirement' },
          },
        },
        required: ['type', 'provider_service_cid'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'create_registrar_service_request' },
          operator: { $ref: '#/components/schemas/CantonIdInRequest' },
          provider: { $ref: '#/components/schemas/CantonIdInRequest' },
          create_transfer_rule: { type: 'boolean' },
          create_allocation_factory: { type: 'boolean' },
        },
        required: ['type', 'operator', 'provider', 'create_transfer_rule', 'create_allocation_factory'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'onboard_registrar' },
          provider_service_cid: { type: 'string' },
          registrar_service_request_cid: { type: 'string' },
          provider_configuration_cid: { type: 'string' },
        },
        required: [
          'type',
          'provider_service_cid',
          'registrar_service_request_cid',
          'provider_configuration_cid',
        ],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'provision_instrument' },
          registrar_service_cid: { type: 'string' },
          instrument_id_text: { type: 'string' },
          additional_identifiers: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/InstrumentIdentifier' },
          },
          issuer_requirements: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/PartyCredentialRequirement' },
          },
          holder_requirements: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/PartyCredentialRequirement' },
          },
          initial_instrument_issuers: {
            type: ['array', 'null'],
            items: { $ref: '#/components/schemas/CantonIdInRequest' },
          },
        },
        required: ['type', 'registrar_service_cid', 'instrument_id_text'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'onboard_instrument_issuers' },
          instrument_configuration_cid: { type: 'string' },
          instrument_issuers: { type: 'array', items: { $ref: '#/components/schemas/CantonIdInRequest' } },
        },
        required: ['type', 'instrument_configuration_cid', 'instrument_issuers'],
      },
      {
        type: 'object',
        properties: {
          type: { const: 'offboard_instrument_issuers' },
          instrument_issuers: {
            type: 'array',
            items: { $ref: '#/components/schemas/InstrumentIssuerCredentials' },
          },
        },
        required: ['type', 'instrument_issuers'],
      },
    ],
    discriminator: { propertyName: 'type' },
  },
  ProposeRequest: {
    title: 'ProposeActionRequest',
    type: 'object',
    properties: {
      party_id: { $ref: '#/components/schemas/CantonIdInRequest' },
      rules_contract_id: { type: 'string' },
      proposal: { $ref: '#/components/schemas/ProposalType' },
    },
    required: ['party_id', 'rules_contract_id', 'proposal'],
  },
  RequiredClaim: {
    title: 'RequiredClaim',
    type: 'object',
    properties: { property: { type: 'string' }, value: { type: 'string' } },
    required: ['property', 'value'],
  },
  RewardBeneficiary: {
    title: 'RewardBeneficiary',
    type: 'object',
    properties: {
      beneficiary: { $ref: '#/components/schemas/CantonIdInRequest' },
      percentage: { type: 'string' },
    },
    required: ['beneficiary', 'percentage'],
  },
  VaultLimits: {
    title: 'VaultLimits',
    type: 'object',
    properties: {
      max_total_deposit: { type: ['string', 'null'] },
      min_deposit_amount: { type: ['string', 'null'] },
      min_withdrawal_amount: { type: ['string', 'null'] },
    },
  },
};

/** Method + path template → the query parameters its extractor reads (`optional`: an `Option` field). */
export const queryOf: Readonly<
  Record<
    string,
    Readonly<Record<string, { type: 'string' | 'canton-id' | 'bool' | 'u32' | 'i64'; optional: boolean }>>
  >
> = {
  'GET /decentralized-parties': {
    prefix: { type: 'string', optional: true },
    refresh: { type: 'bool', optional: true },
  },
  'GET /packages': { party_id: { type: 'string', optional: true } },
  'GET /governance/state': { party_id: { type: 'canton-id', optional: false } },
  'GET /governance/confirmations': { party_id: { type: 'canton-id', optional: false } },
  'GET /instruments': { party_id: { type: 'canton-id', optional: false } },
  'GET /governance/known-members': { party_id: { type: 'canton-id', optional: false } },
  'GET /governance/audit': {
    party_id: { type: 'canton-id', optional: false },
    limit: { type: 'i64', optional: true },
    offset: { type: 'i64', optional: true },
  },
  'GET /governance/chain-audit': {
    party_id: { type: 'canton-id', optional: false },
    limit: { type: 'u32', optional: true },
    before_offset: { type: 'i64', optional: true },
    refresh: { type: 'bool', optional: true },
  },
  'GET /governance/mint-requests': { party_id: { type: 'canton-id', optional: false } },
  'GET /governance/burn-requests': { party_id: { type: 'canton-id', optional: false } },
  'GET /governance/transfer-instructions': { party_id: { type: 'canton-id', optional: false } },
  'GET /vaults': { party_id: { type: 'canton-id', optional: false } },
  'GET /services/provider': { party_id: { type: 'canton-id', optional: false } },
  'GET /services/user': { party_id: { type: 'canton-id', optional: false } },
  'GET /services/registrar': { party_id: { type: 'canton-id', optional: false } },
  'GET /credential-offers': { party_id: { type: 'canton-id', optional: false } },
  'GET /credentials': { party_id: { type: 'canton-id', optional: false } },
  'GET /registrar-service-requests': { party_id: { type: 'canton-id', optional: false } },
  'GET /provider-configurations': { party_id: { type: 'canton-id', optional: false } },
  'GET /transfer-factories': { party_id: { type: 'canton-id', optional: false } },
  'GET /transfer-preapprovals': { party_id: { type: 'canton-id', optional: false } },
  'GET /holdings': { party_id: { type: 'canton-id', optional: false } },
  'GET /contracts/query': {
    party_id: { type: 'canton-id', optional: false },
    package_id: { type: 'string', optional: false },
    module_name: { type: 'string', optional: false },
    entity_name: { type: 'string', optional: false },
    interface: { type: 'bool', optional: true },
    active_only: { type: 'bool', optional: true },
  },
  'GET /coupon-reassignment-delegation': { party_id: { type: 'canton-id', optional: false } },
};
