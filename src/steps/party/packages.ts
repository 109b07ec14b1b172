import type { AnyStepKind } from '../../engine/step.js';

/** Package and contract step kinds: DAR distribution, vetted parity, contract deployment. */
export const packageKinds: readonly AnyStepKind[] = [];
