/**
 * The six workflow kinds of the decentralized-party manager: their steps in order (dpm-api.md §7.1), who acts at
 * each step, and the texts and routes that belong to each kind.
 */

export const WORKFLOW_KINDS = [
  'Onboarding',
  'Kick',
  'Contracts',
  'Dars',
  'AddParty',
  'ChangeThreshold',
] as const;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

/**
 * `gate`: waits until enough peers have polled (accepted); `peers`: peers act, the step advances when enough
 * peers completed it; `both`: the coordinator acts, then waits like `peers`; `coordinator`: the coordinator's
 * own Canton work; `complete`: completion effects, then the Disconnect linger.
 */
export type StepActor = 'gate' | 'peers' | 'both' | 'coordinator' | 'complete';

export interface StepDef {
  name: string;
  actor: StepActor;
}

export interface KindDef {
  kind: WorkflowKind;
  /** in peer row names and invitation ids */
  lowercase: string;
  steps: readonly StepDef[];
  /** quorum: all invitees, or clamp(M−1, 1, n) from the cached party threshold */
  quorum: 'all' | 'threshold';
  /** how long the coordinator keeps answering Disconnect at Complete */
  linger: 'long' | 'short';
  startedMessage: string;
  /** the label of the legacy per-kind routes' messages */
  legacyLabel: string;
  legacyStatusPath: string;
  legacyCancelPath: string;
}

const gate: StepDef = { name: 'WaitingForPeers', actor: 'gate' };
const complete: StepDef = { name: 'Complete', actor: 'complete' };
const coord = (name: string): StepDef => ({ name, actor: 'coordinator' });
const peers = (name: string): StepDef => ({ name, actor: 'peers' });

export const KINDS: Record<WorkflowKind, KindDef> = {
  Onboarding: {
    kind: 'Onboarding',
    lowercase: 'onboarding',
    steps: [
      gate,
      { name: 'GenerateKeys', actor: 'both' },
      coord('CreateProposals'),
      peers('SignDns'),
      coord('SubmitDns'),
      peers('SignP2p'),
      coord('SubmitFinal'),
      complete,
    ],
    quorum: 'all',
    linger: 'long',
    startedMessage: 'Onboarding workflow started',
    legacyLabel: 'Onboarding',
    legacyStatusPath: '/onboarding/status',
    legacyCancelPath: '/onboarding/cancel',
  },
  Kick: {
    kind: 'Kick',
    lowercase: 'kick',
    steps: [
      gate,
      coord('ExportState'),
      coord('CreateProposals'),
      peers('SignProposals'),
      coord('SubmitKick'),
      complete,
    ],
    quorum: 'threshold',
    linger: 'short',
    startedMessage: 'Kick workflow started',
    legacyLabel: 'Kick',
    legacyStatusPath: '/kick/status',
    legacyCancelPath: '/kick/cancel',
  },
  Contracts: {
    kind: 'Contracts',
    lowercase: 'contracts',
    steps: [
      gate,
      coord('PrepareSubmissions'),
      { name: 'SignSubmissions', actor: 'both' },
      coord('ExecuteSubmissions'),
      complete,
    ],
    quorum: 'threshold',
    linger: 'long',
    startedMessage: 'Contracts workflow started',
    legacyLabel: 'Contracts',
    legacyStatusPath: '/contracts/status',
    legacyCancelPath: '/contracts/cancel',
  },
  Dars: {
    kind: 'Dars',
    lowercase: 'dars',
    steps: [gate, peers('UploadDars'), complete],
    quorum: 'all',
    linger: 'long',
    startedMessage: 'DARs distribution workflow started',
    legacyLabel: 'DARs',
    legacyStatusPath: '/dars/distribute/status',
    legacyCancelPath: '/dars/cancel',
  },
  AddParty: {
    kind: 'AddParty',
    lowercase: 'addparty',
    steps: [
      gate,
      peers('GenerateNewMemberKeys'),
      coord('ExportState'),
      coord('CreateProposals'),
      peers('SignProposals'),
      coord('SubmitProposals'),
      peers('SyncAcs'),
      coord('PrepareClearOnboarding'),
      peers('ProposeClearOnboarding'),
      coord('PrepareClearSign'),
      peers('SignClearOnboarding'),
      coord('SubmitClearOnboarding'),
      complete,
    ],
    quorum: 'all',
    linger: 'short',
    startedMessage: 'Add-party workflow started',
    legacyLabel: 'Add-party',
    legacyStatusPath: '/add-party/status',
    legacyCancelPath: '/add-party/cancel',
  },
  ChangeThreshold: {
    kind: 'ChangeThreshold',
    lowercase: 'changethreshold',
    steps: [
      gate,
      coord('ExportState'),
      coord('CreateProposals'),
      peers('SignProposals'),
      coord('Submit'),
      complete,
    ],
    quorum: 'all',
    linger: 'short',
    startedMessage: 'Change-threshold workflow started',
    legacyLabel: 'Change-threshold',
    legacyStatusPath: '/change-threshold/status',
    legacyCancelPath: '/change-threshold/cancel',
  },
};

export function isWorkflowKind(value: unknown): value is WorkflowKind {
  return typeof value === 'string' && (WORKFLOW_KINDS as readonly string[]).includes(value);
}
