/**
 * The governance request bodies (dpm-api.md §11) as the real server deserializes them: `ActionType` and
 * `ProposalType` are enums tagged by `type` (snake_case), their variants' fields as the server's types declare
 * them (optional where serde defaults them); `governance_type` is `vault` (the default), `core_self` or
 * `core_domain`. A body that does not decode is a 400 text/plain before the handler runs.
 */
import { S, type Shape } from '../../http/serde.js';

const id = S.cantonId;
const str = S.string;
/** Daml decimals travel as JSON strings */
const decimal = S.string;
const opt = S.option;
const vec = S.vec;

const InstrumentId = S.struct('InstrumentId', { admin: str, id: str });
const VaultLimits = S.struct('VaultLimits', {
  max_total_deposit: opt(decimal),
  min_deposit_amount: opt(decimal),
  min_withdrawal_amount: opt(decimal),
});
const AppRewardBeneficiary = S.struct('AppRewardBeneficiary', { beneficiary: id, weight: decimal });
const RewardBeneficiary = S.struct('RewardBeneficiary', { beneficiary: id, percentage: decimal });
const FarConfig = S.struct('FarConfig', {
  featured_app_right_cid: str,
  beneficiaries: vec(AppRewardBeneficiary),
});
const Claim = S.struct('Claim', { subject: str, property: str, value: str });
const RequiredClaim = S.struct('RequiredClaim', { property: str, value: str });
const PartyCredentialRequirement = S.struct('PartyCredentialRequirement', {
  issuer: id,
  required_claims: opt(vec(RequiredClaim)),
});
const InstrumentAllowance = S.struct('InstrumentAllowance', { id: str });
const InstrumentIdentifier = S.struct('InstrumentIdentifier', { source: id, id: str, scheme: str });
const InstrumentIssuerCredentials = S.struct('InstrumentIssuerCredentials', {
  instrument_issuer: id,
  credential_cids: opt(vec(str)),
});
const BillingParams = S.struct('BillingParams', {
  fee_per_day_usd: decimal,
  billing_period_minutes: S.i64,
  deposit_target_amount_usd: decimal,
  holder_activity_weight: opt(decimal),
});

export const actionTypeShape: Shape = S.tagged('ActionType', {
  governance_add_member: { member: id, new_threshold: S.i64 },
  governance_remove_member: { member: id, new_threshold: S.i64 },
  governance_set_threshold: { new_threshold: S.i64 },
  governance_set_timeout: { new_timeout_microseconds: S.i64 },
  governance_add_additional_proposer: { additional_proposer: id },
  governance_remove_additional_proposer: { additional_proposer: id },
  vault_deployment: {
    vault_rules_cid: str,
    vault_name: str,
    share_symbol: str,
    asset_instrument_id: InstrumentId,
    limits: VaultLimits,
    vault_backend_signatory: id,
    vault_far_config: opt(FarConfig),
    allocation_factory_cid: str,
    registrar_service_cid: str,
  },
  yield_epoch_deployment: {
    vault_rules_cid: str,
    vault_cid: str,
    asset_instrument_id: InstrumentId,
    vault_backend_signatory: id,
  },
  vault_pause: { vault_id: str },
  vault_unpause: { vault_id: str },
  vault_update_limits: { vault_id: str, new_limits: VaultLimits },
  vault_update_backend: { vault_id: str, new_backend_signatory: id },
  vault_update_far_beneficiaries: { vault_id: str, new_beneficiaries: vec(AppRewardBeneficiary) },
  processor_deployment_request: {
    vault_processor_rules_cid: str,
    vault_backend_signatory: id,
    allocation_factory_cid: str,
    processor_far_config: opt(FarConfig),
    initial_supported_vaults: vec(str),
  },
  utility_create_provider_request: { operator: id },
  utility_create_user_request: { operator: id },
  utility_setup: { operator: id, provider_service_cid: str, user_service_cid: str },
  utility_accept_holder_service_request: {
    operator: id,
    provider_service_cid: str,
    holder_service_request_cid: str,
    holder: id,
  },
  credential_offer_free: {
    operator: id,
    user_service_cid: str,
    holder: id,
    id: str,
    description: str,
    claims: vec(Claim),
  },
  credential_accept_free: { operator: id, user_service_cid: str, credential_offer_cid: str },
  dev_net_feature_app: { amulet_rules_cid: str },
});

export const proposalTypeShape: Shape = S.tagged('ProposalType', {
  setup_cc_preapproval: { provider: id, expected_dso: id },
  setup_token_preapproval: {
    operator: id,
    instrument_admin: id,
    instrument_allowances: opt(vec(InstrumentAllowance)),
  },
  transfer: {
    transfer_factory_cid: str,
    expected_admin: id,
    receiver: id,
    amount: decimal,
    instrument_id: InstrumentId,
    input_holding_cids: opt(vec(str)),
    validity_window_hours: opt(S.u32),
  },
  accept_transfer: { transfer_instruction_cid: str },
  generic_vote: { description: str },
  provision_provider_service: null,
  setup_utility: {
    provider_service_cid: str,
    operator: id,
    instrument_id_text: str,
    additional_identifiers: opt(vec(InstrumentIdentifier)),
    create_transfer_rule: S.bool,
    create_allocation_factory: S.bool,
  },
  create_provider_service_request: { operator: id, provider: id },
  create_user_service_request: { operator: id, user: id },
  set_provider_app_reward_beneficiaries: {
    instrument_configuration_cid: str,
    provider_app_reward_beneficiaries: opt(vec(AppRewardBeneficiary)),
  },
  setup_coupon_reassignment_delegation: {
    dso: id,
    assigners: vec(id),
    new_beneficiaries: vec(RewardBeneficiary),
    prior_delegation: opt(str),
  },
  revoke_coupon_reassignment_delegation: { delegation: str },
  set_enable_result_contracts: { registrar_service_cid: str, enable_result_contracts: opt(S.bool) },
  create_delegated_batched_markers_proxy: { operator: id },
  setup_minting_delegation: {
    delegate: id,
    dso: id,
    expires_at_micros: S.i64,
    amulet_merge_limit: S.i64,
    description: str,
  },
  accept_external_party_setup: { proposal_cid: str },
  mint: {
    allocation_factory_cid: str,
    instrument_id: InstrumentId,
    instrument_configuration_cid: str,
    recipient: id,
    amount: decimal,
    description: str,
  },
  offer_free_credential: { user_service_cid: str, holder: id, id: str, description: str, claims: vec(Claim) },
  offer_paid_credential: {
    user_service_cid: str,
    holder: id,
    id: str,
    description: str,
    claims: vec(Claim),
    billing_params: BillingParams,
    deposit_initial_amount_usd: opt(decimal),
  },
  accept_free_credential: { user_service_cid: str, credential_offer_cid: str },
  burn: {
    allocation_factory_cid: str,
    instrument_id: InstrumentId,
    instrument_configuration_cid: str,
    holder: id,
    amount: decimal,
    description: str,
  },
  accept_mint_request: {
    mint_request_cid: str,
    instrument_configuration_cid: str,
    issuer_credential_cids: opt(vec(str)),
    description: str,
  },
  accept_burn_request: {
    burn_request_cid: str,
    instrument_configuration_cid: str,
    issuer_credential_cids: opt(vec(str)),
    description: str,
  },
  create_provider_configuration: {
    provider_service_cid: str,
    registrar_requirements: opt(vec(PartyCredentialRequirement)),
    holder_requirements: opt(vec(PartyCredentialRequirement)),
  },
  create_registrar_service_request: {
    operator: id,
    provider: id,
    create_transfer_rule: S.bool,
    create_allocation_factory: S.bool,
  },
  onboard_registrar: {
    provider_service_cid: str,
    registrar_service_request_cid: str,
    provider_configuration_cid: str,
  },
  provision_instrument: {
    registrar_service_cid: str,
    instrument_id_text: str,
    additional_identifiers: opt(vec(InstrumentIdentifier)),
    issuer_requirements: opt(vec(PartyCredentialRequirement)),
    holder_requirements: opt(vec(PartyCredentialRequirement)),
    initial_instrument_issuers: opt(vec(id)),
  },
  onboard_instrument_issuers: { instrument_configuration_cid: str, instrument_issuers: vec(id) },
  offboard_instrument_issuers: { instrument_issuers: vec(InstrumentIssuerCredentials) },
});

export const GOVERNANCE_TYPES = ['vault', 'core_self', 'core_domain'] as const;
export type GovernanceType = (typeof GOVERNANCE_TYPES)[number];
const governanceType = S.unitEnum('GovernanceType', GOVERNANCE_TYPES);

/** an ActionType value: its `type` and the variant's fields, as decoded */
export interface ActionType {
  type: string;
  [field: string]: unknown;
}

export type ProposalType = ActionType;

export interface ProposeRequest {
  party_id: string;
  rules_contract_id: string;
  proposal: ProposalType;
}

export interface ConfirmRequest {
  party_id: string;
  rules_contract_id: string;
  action: ActionType;
  governance_type?: GovernanceType;
  proposal_cid?: string;
}

export interface ExecuteRequest extends ConfirmRequest {
  confirmation_cids: string[];
  disclosed_contracts?: Array<{ contract_id: string; blob: string }>;
}

export interface ExpireRequest {
  party_id: string;
  rules_contract_id: string;
  confirmation_cid: string;
  governance_type?: GovernanceType;
}

export interface CancelRequest {
  party_id: string;
  confirmation_cid: string;
  governance_type?: GovernanceType;
}

export interface CancelProposalRequest {
  party_id: string;
  proposal_cid: string;
  confirmation_cid?: string;
}

export const proposeShape = S.struct('ProposeActionRequest', {
  party_id: id,
  rules_contract_id: str,
  proposal: proposalTypeShape,
});

export const confirmShape = S.struct('ConfirmActionRequest', {
  party_id: id,
  rules_contract_id: str,
  action: actionTypeShape,
  governance_type: opt(governanceType),
  proposal_cid: opt(str),
});

export const executeShape = S.struct('ExecuteActionRequest', {
  party_id: id,
  rules_contract_id: str,
  action: actionTypeShape,
  confirmation_cids: vec(str),
  disclosed_contracts: opt(vec(S.struct('DisclosedContractInput', { contract_id: str, blob: str }))),
  governance_type: opt(governanceType),
  proposal_cid: opt(str),
});

export const expireShape = S.struct('ExpireConfirmationRequest', {
  party_id: id,
  rules_contract_id: str,
  confirmation_cid: str,
  governance_type: opt(governanceType),
});

export const cancelShape = S.struct('CancelConfirmationRequest', {
  party_id: id,
  confirmation_cid: str,
  governance_type: opt(governanceType),
});

export const cancelProposalShape = S.struct('CancelProposalRequest', {
  party_id: id,
  proposal_cid: str,
  confirmation_cid: opt(str),
});

export interface GrantRightsRequest {
  dec_party_id: string;
  admin_client_id: string;
  admin_client_secret: string;
}

export const grantRightsShape = S.struct('GrantRightsRequest', {
  dec_party_id: id,
  admin_client_id: str,
  admin_client_secret: str,
});

export interface DiscoverMemberPartyRequest {
  keycloak_url?: string;
  keycloak_realm?: string;
  keycloak_client_id?: string;
  keycloak_client_secret?: string;
  keycloak_username?: string;
  keycloak_password?: string;
  auth0_domain?: string;
  auth0_audience?: string;
  auth0_client_id?: string;
  auth0_client_secret?: string;
}

export const discoverMemberPartyShape = S.struct('DiscoverMemberPartyRequest', {
  keycloak_url: opt(str),
  keycloak_realm: opt(str),
  keycloak_client_id: opt(str),
  keycloak_client_secret: opt(str),
  keycloak_username: opt(str),
  keycloak_password: opt(str),
  auth0_domain: opt(str),
  auth0_audience: opt(str),
  auth0_client_id: opt(str),
  auth0_client_secret: opt(str),
});
