/**
 * The coordinator's start configuration per kind, persisted as the run's `config_json` (dpm-api.md §7), and the
 * peer's invitation-derived configuration.
 */
import type { PendingInvitation } from '../types.js';

/** `FieldDefinition` (dpm-api.md §5.5), tagged by `type` */
export type FieldDefinition =
  | { type: 'decentralized_party' }
  | { type: 'operator_party' }
  | { type: 'participant_party'; id: string }
  | { type: 'text'; value: string }
  | { type: 'int64'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'instrument'; id: string }
  | { type: 'attestors_set' }
  | { type: 'party_set'; parties: string[] }
  | { type: 'rel_time'; microseconds: number }
  | { type: 'optional'; inner: FieldDefinition }
  | { type: 'record'; fields: FieldDefinition[] }
  | { type: 'governance_threshold'; value?: number }
  | { type: 'none' };

export interface ContractDefinition {
  id: string;
  name: string;
  /** a package id, or `#<package-name>` */
  package_id: string;
  module_name: string;
  entity_name: string;
  fields: FieldDefinition[];
}

export interface DarFile {
  filename: string;
  /** standard base64 of the .dar bytes */
  data: string;
}

export interface OnboardingConfig {
  party_id_prefix: string;
  instance_name: string;
  threshold: number | null;
  _p: null;
}

export interface KickConfig {
  decentralized_party_id: string;
  participant_id: string;
  namespace_fingerprint: string;
  new_threshold: number;
  previous_threshold: number;
  instance_name: string;
  _p: null;
}

export interface AddPartyConfig {
  decentralized_party_id: string;
  new_participant_id: string;
  new_threshold: number;
  previous_threshold: number;
  instance_name: string;
  _p: null;
}

export interface ChangeThresholdConfig {
  decentralized_party_id: string;
  new_threshold: number;
  previous_threshold: number;
  instance_name: string;
  _p: null;
}

export interface ContractsConfig {
  decentralized_party_id: string;
  participant_ids: string[];
  participant_parties: string[];
  operator_party: string;
  contracts: ContractDefinition[];
  instance_name: string;
}

export interface DarsConfig {
  dar_files: DarFile[];
  instance_name: string;
  peer_ids: string[];
}

/** the peer row's config_json: what the invitation said, nulls for what it did not */
export function peerConfigJson(invitation: PendingInvitation): string {
  return JSON.stringify({
    prefix: invitation.prefix ?? null,
    participants: invitation.participants ?? [],
    dar_filenames: invitation.dar_filenames ?? [],
    participant_id: invitation.kicked_participant ?? null,
    new_participant_id: invitation.new_participant ?? null,
    new_threshold: invitation.new_threshold ?? null,
    previous_threshold: invitation.previous_threshold ?? null,
    package_names: invitation.package_names ?? [],
  });
}

export function parseConfig<T>(configJson: string): T {
  return JSON.parse(configJson) as T;
}
