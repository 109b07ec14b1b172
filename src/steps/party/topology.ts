import type { AnyStepKind } from '../contract.js';
import { dpmAcceptInvitations } from './accept-invitations.js';
import { dpmAddParty } from './add-party.js';
import { dpmChangeThreshold } from './change-threshold.js';
import { dpmKick } from './kick.js';
import { dpmNetwork } from './network.js';
import { dpmOnboardParty } from './onboard-party.js';
import { dpmPartyConfig } from './party-config.js';
import { dpmWorkflow } from './workflow-control.js';

/** Party topology step kinds: mesh, credentials, onboarding, invitations, membership, threshold, workflows. */
export const topologyKinds: readonly AnyStepKind[] = [
  dpmNetwork,
  dpmPartyConfig,
  dpmOnboardParty,
  dpmAcceptInvitations,
  dpmKick,
  dpmAddParty,
  dpmChangeThreshold,
  dpmWorkflow,
];
