import type { AnyStepKind } from '../engine/step.js';
import { coreApprove } from './core/approve.js';
import { coreAssert } from './core/assert.js';
import { coreLog } from './core/log.js';
import { coreShell } from './core/shell.js';
import { coreWait } from './core/wait.js';
import { governanceKinds } from './party/governance-kinds.js';
import { packageKinds } from './party/packages.js';
import { topologyKinds } from './party/topology.js';
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
  ...transferKinds,
];

/** Every step kind, by `uses` name. */
export const stepKinds: ReadonlyMap<string, AnyStepKind> = new Map(all.map((kind) => [kind.kind, kind]));
