/**
 * The DPM's records as they travel on the wire and as the sandbox persists them (field names are the wire's,
 * snake_case, dpm-api.md §2–§8).
 */
import type { WorkflowKind } from './workflows/kinds.js';

export interface Peer {
  participant_id: string;
  name: string;
  address: string;
  /** the Noise port */
  port: number;
  public_key: string;
  party?: string | null;
}

/** a row of the party_credentials table: outbound credentials for one decentralized party */
export interface PartyCredentials {
  dec_party_id: string;
  member_party_id: string;
  user_id: string;
  keycloak_url: string;
  keycloak_realm: string;
  keycloak_client_id: string;
  keycloak_client_secret?: string;
  keycloak_username?: string;
  keycloak_password?: string;
  auth0_domain?: string;
  auth0_audience?: string;
  auth0_client_id?: string;
  auth0_client_secret?: string;
}

export interface PendingInvitation {
  id: string;
  invitation_type: WorkflowKind;
  coordinator_pubkey: string;
  coordinator_name: string | null;
  received_at: number;
  prefix?: string;
  participants?: string[];
  dar_filenames?: string[];
  kicked_participant?: string;
  new_threshold?: number;
  previous_threshold?: number;
  dec_party_id?: string;
  new_participant?: string;
  package_names?: string[];
  workflow_instance?: string;
}

export type RunStatus = 'inprogress' | 'completed' | 'failed' | 'cancelled';
export type RunRole = 'Coordinator' | 'Peer';

/** a persisted workflow_runs row (the derived display fields of WorkflowRun are computed when listed) */
export interface RunRow {
  instance_name: string;
  kind: WorkflowKind;
  role: RunRole;
  status: RunStatus;
  current_step: string;
  step_index: number;
  step_total: number;
  config_json: string;
  coordinator_pubkey?: string;
  coordinator_instance?: string;
  expected_peers: string[];
  completed_peers: string[];
  dec_party_id?: string;
  error?: string;
  dismissed: boolean;
  created_at: number;
  updated_at: number;
}

export interface ParticipantInfo {
  participant_uid: string;
  permission: 'submission' | 'confirmation' | 'observation' | 'unknown';
  owner_key?: string;
}

export interface ContractInfo {
  contract_id: string;
  template_id: string;
  package_id: string;
  package_name: string;
  package_version: string;
  created_at: string;
}

export interface DecentralizedParty {
  party_id: string;
  threshold: number;
  owners: string[];
  my_owner_key?: string;
  participants: ParticipantInfo[];
  contracts?: ContractInfo[];
}

/** a cached /decentralized-parties row */
export interface CachedParty {
  party: DecentralizedParty;
  updated_at: number;
}

/** a row of the node's governance audit log (GET /governance/audit) */
export interface AuditRow {
  id: number;
  timestamp: number;
  event_type: 'propose' | 'confirm' | 'execute' | 'expire' | 'cancel' | 'cancel_proposal';
  party_id: string;
  member_party_id: string;
  governance_type: string;
  action_summary: string;
  details: unknown;
  status: 'success' | 'failed';
  error_message?: string;
  created_at: number;
}

export interface NodeStateFile {
  version: 1;
  peers: Peer[];
  party_credentials: PartyCredentials[];
  runs: RunRow[];
  invitations: PendingInvitation[];
  party_cache: CachedParty[];
  /** absent in state files written before governance was simulated */
  audit?: AuditRow[];
  /** GET /governance/chain-audit's cache of entries read from the ledger, per party */
  chain_audit_cache?: Record<string, unknown[]>;
}

/** a run this node coordinates, in memory (dpm/workflows/coordinator.ts) */
export interface CoordinatorRun {
  instance: string;
  kind: WorkflowKind;
  /** the in-memory status the legacy per-kind status route reports */
  status: 'inprogress' | 'completed' | 'failed' | 'cancelled';
  /** `init`: invitations going out and the start delay (polls get 503); `linger`: answering Disconnect */
  phase: 'init' | 'running' | 'linger';
  /** peers that have polled this run since the coordinator (re)started: in memory only */
  connected: Set<string>;
  quorum: number;
  abort: AbortController;
}
