/**
 * ActionType (dpm-api.md §11) ↔ the ledger: the governance self-management actions as governance-core's
 * `GovernanceSelfAction` and back, the deterministic hash confirmations of one action are grouped by, and the
 * domain proposals the sandbox runs, as the contracts `POST /governance/propose` creates.
 */
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { TemplateDef } from '../../ledger/model.js';
import { AcceptBurnRequest, AcceptMintRequest, GenericVoteProposal } from '../../governance/proposals.js';
import type { SelfAction } from '../../governance/rules.js';
import type { ActionType, ProposalType } from './wire.js';

/** the self action of a governance_* ActionType; undefined for every other variant */
export function selfActionOf(action: ActionType): SelfAction | undefined {
  const int = (v: unknown): string => String(v);
  switch (action.type) {
    case 'governance_add_member':
      return {
        tag: 'SelfAction_AddMemberAndSetThreshold',
        value: { newMember: String(action['member']), newThresholdAfterAdd: int(action['new_threshold']) },
      };
    case 'governance_remove_member':
      return {
        tag: 'SelfAction_RemoveMemberAndSetThreshold',
        value: {
          removedMember: String(action['member']),
          newThresholdAfterRemove: int(action['new_threshold']),
        },
      };
    case 'governance_set_threshold':
      return { tag: 'SelfAction_SetThreshold', value: { updatedThreshold: int(action['new_threshold']) } };
    case 'governance_set_timeout':
      return {
        tag: 'SelfAction_SetTimeout',
        value: { updatedTimeout: { microseconds: int(action['new_timeout_microseconds']) } },
      };
    case 'governance_add_additional_proposer':
      return {
        tag: 'SelfAction_AddAdditionalProposer',
        value: { additionalProposer: String(action['additional_proposer']) },
      };
    case 'governance_remove_additional_proposer':
      return {
        tag: 'SelfAction_RemoveAdditionalProposer',
        value: { additionalProposer: String(action['additional_proposer']) },
      };
    default:
      return undefined;
  }
}

/** the ActionType a self confirmation's action reads as, with the server's field order */
export function actionTypeOf(action: SelfAction): ActionType {
  switch (action.tag) {
    case 'SelfAction_AddMemberAndSetThreshold':
      return {
        type: 'governance_add_member',
        member: action.value.newMember,
        new_threshold: Number(action.value.newThresholdAfterAdd),
      };
    case 'SelfAction_RemoveMemberAndSetThreshold':
      return {
        type: 'governance_remove_member',
        member: action.value.removedMember,
        new_threshold: Number(action.value.newThresholdAfterRemove),
      };
    case 'SelfAction_SetThreshold':
      return { type: 'governance_set_threshold', new_threshold: Number(action.value.updatedThreshold) };
    case 'SelfAction_SetTimeout':
      return {
        type: 'governance_set_timeout',
        new_timeout_microseconds: Number(action.value.updatedTimeout.microseconds),
      };
    case 'SelfAction_AddAdditionalProposer':
      return {
        type: 'governance_add_additional_proposer',
        additional_proposer: action.value.additionalProposer,
      };
    case 'SelfAction_RemoveAdditionalProposer':
      return {
        type: 'governance_remove_additional_proposer',
        additional_proposer: action.value.additionalProposer,
      };
  }
}

/** a deterministic 16-hex hash of an action's JSON, as the server groups confirmations by */
export function actionHash(action: ActionType): string {
  return createHash('sha256').update(JSON.stringify(action)).digest('hex').slice(0, 16);
}

/** the domain confirmations' `action`: the server puts this placeholder there (the proposal encodes the action) */
export const DOMAIN_PLACEHOLDER_ACTION: ActionType = { type: 'governance_set_threshold', new_threshold: 0 };

// ---- proposals -----------------------------------------------------------------------------------------------

/** the 400 texts of the server's ProposalType validation (propose only) */
export function proposalProblem(proposal: ProposalType): string | undefined {
  const positive = (value: unknown, field: string): string | undefined => {
    const text = String(value);
    const valid = /^-?\d+(\.\d+)?$/.test(text) && new Decimal(text).greaterThan(0);
    return valid ? undefined : `${field} must be strictly positive, got ${text}`;
  };
  switch (proposal.type) {
    case 'transfer':
      return (
        positive(proposal['amount'], 'amount') ??
        (proposal['validity_window_hours'] === 0 ? 'validity_window_hours must be greater than 0' : undefined)
      );
    case 'mint':
    case 'burn':
      return positive(proposal['amount'], 'amount');
    case 'offer_paid_credential':
      return proposal['deposit_initial_amount_usd'] === undefined
        ? undefined
        : positive(proposal['deposit_initial_amount_usd'], 'deposit_initial_amount_usd');
    case 'setup_minting_delegation': {
      if (Number(proposal['amulet_merge_limit']) <= 0) return 'amulet_merge_limit must be greater than 0';
      const micros = Number(proposal['expires_at_micros']);
      if (micros <= 0) return `expires_at_micros must be positive, got ${micros}`;
      const now = Date.now() * 1000;
      return micros <= now
        ? `expires_at_micros must be in the future, got ${micros} (now ${now})`
        : undefined;
    }
    case 'accept_external_party_setup':
      return String(proposal['proposal_cid']).trim() === '' ? 'proposal_cid must not be empty' : undefined;
    case 'onboard_instrument_issuers': {
      const issuers = proposal['instrument_issuers'] as string[];
      if (issuers.length === 0) return 'instrument_issuers must not be empty';
      const twice = issuers.find((p, i) => issuers.indexOf(p) !== i);
      return twice === undefined ? undefined : `instrument_issuers must not list ${twice} more than once`;
    }
    case 'offboard_instrument_issuers': {
      const rows = proposal['instrument_issuers'] as Array<{
        instrument_issuer: string;
        credential_cids?: string[];
      }>;
      if (rows.length === 0) return 'instrument_issuers must not be empty';
      const parties = new Set<string>();
      const cids = new Set<string>();
      for (const row of rows) {
        if ((row.credential_cids ?? []).length === 0)
          return `credential_cids must not be empty for issuer ${row.instrument_issuer}`;
        if (parties.has(row.instrument_issuer))
          return `duplicate instrument issuer not allowed: ${row.instrument_issuer}`;
        parties.add(row.instrument_issuer);
        for (const cid of row.credential_cids ?? []) {
          if (cids.has(cid)) return `duplicate credential cid not allowed: ${cid}`;
          cids.add(cid);
        }
      }
      return undefined;
    }
    case 'revoke_coupon_reassignment_delegation':
      return String(proposal['delegation']).trim() === '' ? 'delegation must not be empty' : undefined;
    default:
      return undefined;
  }
}

/** the proposal contract a ProposalType creates, when the sandbox runs that kind of proposal */
export function proposalContract(
  proposal: ProposalType,
  governanceParty: string,
  proposer: string,
): { template: TemplateDef; arg: Record<string, unknown> } | undefined {
  const base = { governanceParty, proposer };
  switch (proposal.type) {
    case 'generic_vote':
      return {
        template: GenericVoteProposal,
        arg: { ...base, description: proposal['description'] },
      };
    case 'accept_mint_request':
    case 'accept_burn_request': {
      const mint = proposal.type === 'accept_mint_request';
      const credentials = proposal['issuer_credential_cids'] as string[] | undefined;
      return {
        template: mint ? AcceptMintRequest : AcceptBurnRequest,
        arg: {
          ...base,
          ...(mint
            ? { mintRequestCid: proposal['mint_request_cid'] }
            : { burnRequestCid: proposal['burn_request_cid'] }),
          instrumentConfigurationCid: proposal['instrument_configuration_cid'],
          extraArgsMeta: { values: {} },
          issuerCredentialCids: credentials ?? null,
          description: proposal['description'],
        },
      };
    }
    default:
      return undefined;
  }
}

/** the proposal kinds the sandbox runs, for the refusal of the others */
export const SIMULATED_PROPOSALS = ['generic_vote', 'accept_mint_request', 'accept_burn_request'];
