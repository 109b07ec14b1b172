/**
 * The governance read routes the contracts workflow is checked with (dpm-api.md §11): the state of the party's
 * active GovernanceRules contract and the pending confirmations (none: governance actions are not simulated).
 */
import { GOVERNANCE_RULES_TEMPLATE, type ContractRecord } from '../../canton.js';
import { json, text } from '../../http/reply.js';
import { DecodeError, decodeQuery } from '../../http/serde.js';
import type { DpmNode } from '../node.js';
import { route, type DpmRoute, type DpmRequest } from './route.js';

/** one day, the governance-core default confirmation timeout */
const CONFIRMATION_TIMEOUT_MICROSECONDS = 86_400_000_000;

function partyIdOf(request: Pick<DpmRequest, 'query'>): string | DecodeError {
  try {
    return decodeQuery(request.query, { party_id: { type: 'canton-id' } }).party_id as string;
  } catch (error) {
    if (error instanceof DecodeError) return error;
    throw error;
  }
}

function activeRules(node: DpmNode, partyId: string): ContractRecord | undefined {
  return node.env.canton
    .party(partyId)
    ?.contracts.filter((c) => c.templateId === GOVERNANCE_RULES_TEMPLATE)
    .at(-1);
}

export const governanceRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/governance/state',
    access: 'auth',
    handle: (request) => {
      const partyId = partyIdOf(request);
      if (partyId instanceof DecodeError) return text(400, partyId.message);
      const { node } = request;
      const rules = activeRules(node, partyId);
      const party = node.env.canton.party(partyId);
      if (rules === undefined || party === undefined) return json(200, { state: null });
      return json(200, {
        state: {
          contract_id: rules.contractId,
          vault_manager: partyId,
          members: rules.memberParties,
          threshold: party.threshold,
          action_confirmation_timeout_microseconds: CONFIRMATION_TIMEOUT_MICROSECONDS,
          package_ref: `#${rules.packageName}`,
          out_of_date: false,
        },
      });
    },
  }),
  route({
    method: 'GET',
    template: '/governance/confirmations',
    access: 'auth',
    handle: (request) => {
      const partyId = partyIdOf(request);
      if (partyId instanceof DecodeError) return text(400, partyId.message);
      const { node } = request;
      const rules = activeRules(node, partyId);
      const member = node.state.party_credentials.find((c) => c.dec_party_id === partyId)?.member_party_id;
      return json(200, {
        actions: [],
        threshold: node.env.canton.party(partyId)?.threshold ?? 2,
        ...(member !== undefined ? { member_party_id: member } : {}),
        ...(rules !== undefined ? { rules_contract_id: rules.contractId } : {}),
        gov_core_out_of_date: false,
        ...(rules !== undefined ? { gov_core_package_ref: `#${rules.packageName}` } : {}),
      });
    },
  }),
];
