import type { AnyStepKind } from '../contract.js';
import { dpmDeployContracts } from './deploy-contracts.js';
import { dpmDistributeDars } from './distribute-dars.js';
import { dpmVettedParity } from './vetted-parity.js';

/** Package and contract step kinds: DAR distribution, vetted parity, contract deployment. */
export const packageKinds: readonly AnyStepKind[] = [dpmDistributeDars, dpmVettedParity, dpmDeployContracts];
