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
