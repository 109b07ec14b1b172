/** The governance templates and interface, for the ledger's catalog (next to the token's). */
import type { Catalog } from '../ledger/model.js';
import { GovernableActionI, PROPOSAL_TEMPLATES } from './proposals.js';
import { GOVERNANCE_RULES_TEMPLATES } from './rules.js';

export function addGovernance(catalog: Catalog): Catalog {
  return catalog.add(GovernableActionI, ...GOVERNANCE_RULES_TEMPLATES, ...PROPOSAL_TEMPLATES);
}
