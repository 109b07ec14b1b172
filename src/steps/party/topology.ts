import type { AnyStepKind } from '../../engine/step.js';

/** Party topology step kinds: mesh, credentials, onboarding, invitations, membership, threshold, workflows. */
export const topologyKinds: readonly AnyStepKind[] = [];
