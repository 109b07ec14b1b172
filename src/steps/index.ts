import type { AnyStepKind } from '../engine/step.js';
import { coreApprove } from './core/approve.js';
import { coreAssert } from './core/assert.js';
import { coreLog } from './core/log.js';
import { coreShell } from './core/shell.js';
import { coreWait } from './core/wait.js';
import { governanceKinds } from './party/governance-kinds.js';
import { packageKinds } from './party/packages.js';
import { topologyKinds } from './party/topology.js';
import { sandboxBtcSend } from './simulated/btc-send.js';
import { tokenAllocate } from './token/allocate.js';
import { tokenCredentials } from './token/credentials.js';
import { tokenDarCheck } from './token/dar-check.js';
import { tokenDepositAccount } from './token/deposit-account.js';
import { tokenDepositAddress } from './token/deposit-address.js';
import { tokenFaucet } from './token/faucet.js';
import { rewardsReport } from './token/rewards-report.js';
import { tokenSettleAllocation } from './token/settle-allocation.js';
import { tokenWaitForMint } from './token/wait-for-mint.js';
import { tokenWithdraw } from './token/withdraw.js';
import { tokenWithdrawAccount } from './token/withdraw-account.js';
import { transferKinds } from './token/transfer-kinds.js';

const all: readonly AnyStepKind[] = [
  coreShell,
  coreWait,
  coreAssert,
  coreApprove,
  coreLog,
  ...topologyKinds,
  ...packageKinds,
  ...governanceKinds,
  tokenCredentials,
  tokenDepositAccount,
  tokenDepositAddress,
  tokenWaitForMint,
  tokenWithdrawAccount,
  tokenWithdraw,
  tokenAllocate,
  tokenSettleAllocation,
  tokenDarCheck,
  tokenFaucet,
  rewardsReport,
  sandboxBtcSend,
  ...transferKinds,
];

/** Every step kind, by `uses` name. */
export const stepKinds: ReadonlyMap<string, AnyStepKind> = new Map(all.map((kind) => [kind.kind, kind]));
