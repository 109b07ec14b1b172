import type { AnyStepKind } from '../contract.js';
import { dpmGovernanceReview } from './governance-review.js';
import { dpmGovernance } from './governance.js';
import { dpmGrantRights } from './grant-rights.js';

/** Governance step kinds: decisions of the party's members, and the ledger rights they act with. */
export const governanceKinds: readonly AnyStepKind[] = [dpmGovernance, dpmGovernanceReview, dpmGrantRights];
