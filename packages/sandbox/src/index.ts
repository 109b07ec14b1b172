/** The sandbox: simulated DPM nodes, participants and identity provider on loopback (see README.md here). */
export {
  startSandbox,
  type Sandbox,
  type SandboxOptions,
  type SandboxUrls,
  type TargetFileOptions,
} from './host.js';
export { loadFaultsFile, type FaultSpec } from './faults.js';
export { SandboxError, type FileProblem, type SandboxErrorKind } from './errors.js';
export {
  FORK_SNAPSHOT_VERSION,
  type ForkContractRecord,
  type ForkDpmRecord,
  type ForkHeader,
  type ForkLedgerRecord,
  type ForkReadPartyRecord,
  type ForkRecord,
  type ForkSummary,
  type ForkTokenRecord,
  type ForkUnreadRecord,
} from './fork/snapshot.js';
export { checkForkable } from './fork/seed.js';
