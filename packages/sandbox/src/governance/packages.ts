/**
 * The packages the DPM's governance lives in (dpm-api.md §3 PackageConfig, §11). `governance-core` is the sample
 * DAR's package (playbooks/dars/governance-core-0.2.0.dar): it reaches a participant only when a DAR is uploaded
 * or distributed, and the contracts workflow deploys its GovernanceRules. The interface package and the
 * token-issuance plugin are part of every sandbox participant from the start, as the token's packages are; their
 * ids are the sandbox's own (derived from name and version), since no DAR of them ships with the project.
 */
import { createHash } from 'node:crypto';
import type { Package } from '../ledger/model.js';

function derived(name: string, version: string): Package {
  const id = createHash('sha256').update(`ledgerbook-sandbox/package/${name}/${version}`).digest('hex');
  return { id, name, version };
}

export const GOV_PKG = {
  /** the sample DAR's main package (its id is the sha256 of its stand-in .dalf) */
  core: {
    id: '0ba5f6c01995aa4b2ed054003750e1f2af09575cdf82251aeed0b9599b0d26dc',
    name: 'governance-core',
    version: '0.2.0',
  },
  action: derived('governance-action-v1', '0.1.0'),
  utilityOnboarding: derived('governance-utility-onboarding-v1', '0.3.0'),
} as const satisfies Record<string, Package>;

/** installed on every participant at start, like the token's packages */
export const GOVERNANCE_BUILTIN_PACKAGES: Package[] = [GOV_PKG.action, GOV_PKG.utilityOnboarding];
