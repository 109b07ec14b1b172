/**
 * The governance request bodies (dpm-api.md §11) as the handlers see them, and their decoder shapes, which come
 * from the API's description (contracts/dpm.openapi.yaml, through ../wire.ts): `ActionType` and `ProposalType`
 * are enums tagged by `type` (snake_case), their variants' fields as the server's types declare them;
 * `governance_type` is `vault` (the default), `core_self` or `core_domain`. A body that does not decode is a 400
 * text/plain before the handler runs.
 */
import { requestShape } from '../wire.js';

export const GOVERNANCE_TYPES = ['vault', 'core_self', 'core_domain'] as const;
export type GovernanceType = (typeof GOVERNANCE_TYPES)[number];

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

export const proposeShape = requestShape('POST /governance/propose');

export const confirmShape = requestShape('POST /governance/confirm');

export const executeShape = requestShape('POST /governance/execute');

export const expireShape = requestShape('POST /governance/expire');

export const cancelShape = requestShape('POST /governance/cancel');

export const cancelProposalShape = requestShape('POST /governance/cancel-proposal');

export interface GrantRightsRequest {
  dec_party_id: string;
  admin_client_id: string;
  admin_client_secret: string;
}

export const grantRightsShape = requestShape('POST /auth/grant-rights');

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

export const discoverMemberPartyShape = requestShape('POST /party-config/discover-member-party');
