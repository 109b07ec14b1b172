/**
 * The nodes' Noise mesh, simulated in-process. A message from A reaches B only when A lists B in its peers table
 * with B's real public key, B lists A with A's real key (otherwise the handshake fails), both are up, and neither
 * is cut off by an `unreachable` fault. Peers are found by participant id and key; the address and port of a
 * peers-table entry are kept but not used for routing.
 */
import type { FaultBook } from './faults.js';
import type { WorkflowKind } from './dpm/workflows/kinds.js';
import type { PendingInvitation } from './dpm/types.js';
import { sleep } from './time.js';

/** compare-peers' `error_kind` values a transport failure maps to */
export type MeshErrorKind =
  'tcp_connect_failed' | 'tcp_connect_timeout' | 'handshake_failed' | 'invalid_public_key';

export class MeshError extends Error {
  constructor(
    readonly kind: MeshErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface PackageInfo {
  package_id: string;
  name: string;
  version: string;
}

/** a node's oldest in-progress run, as its Health reply reports it */
export interface WorkflowInfo {
  kind: WorkflowKind;
  role: 'Coordinator' | 'Peer';
  step: string;
  step_index: number;
  step_total: number;
}

/** the messages a run's coordinator answers (dpm/workflows/coordinator.ts) */
export type CoordinatorMessage = Extract<MeshMessage, { type: 'decline' | 'poll' | 'step-done' }>;

export type MeshMessage =
  | { type: 'health' }
  | { type: 'list-peers' }
  | { type: 'invite'; invitation: PendingInvitation }
  | { type: 'decline'; kind: WorkflowKind; instance: string }
  | { type: 'cancel-invite'; instance: string }
  | { type: 'retry'; instance: string }
  | { type: 'poll'; instance: string }
  | { type: 'step-done'; instance: string; step: string }
  | { type: 'owner-key'; partyId: string }
  /** RequestMemberParty: the member party this node acts as in a decentralized party (its party config) */
  | { type: 'member-party'; partyId: string }
  | { type: 'packages' };

export type MeshReply =
  | { type: 'health'; version: string; buildVersion: string; workflow?: WorkflowInfo }
  | { type: 'peers'; participantIds: string[] }
  | { type: 'member-party'; memberPartyId?: string }
  | { type: 'ack' }
  /** the coordinator has no such run, or it is still in its init window (the real node answers 503) */
  | { type: 'unavailable' }
  | { type: 'wait' }
  /** the step to execute; UploadDars carries the DAR bundle */
  | { type: 'command'; step: string; stepIndex: number; darFiles?: Array<{ filename: string; data: string }> }
  | { type: 'disconnect' }
  | { type: 'owner-key'; ownerKey: string | undefined }
  | { type: 'packages'; packages: PackageInfo[] };

export interface MeshEndpoint {
  readonly participantId: string;
  readonly publicKey: string;
  readonly name: string;
  /** false while the node is stopped or restarting */
  isUp(): boolean;
  /** the public key this node's peers table holds for a participant, if any */
  peerKey(participantId: string): string | undefined;
  receive(from: string, message: MeshMessage): Promise<MeshReply>;
}

const PUBLIC_KEY = /^0[23][0-9a-fA-F]{64}$/;

export class Mesh {
  private readonly endpoints = new Map<string, MeshEndpoint>();

  constructor(
    private readonly faults: FaultBook,
    private readonly latencyMs: number,
  ) {}

  join(endpoint: MeshEndpoint): void {
    this.endpoints.set(endpoint.participantId, endpoint);
  }

  /** Sends one message from `from` to `to`, as the sender's peers table describes `to`. */
  async send(from: MeshEndpoint, to: string, message: MeshMessage): Promise<MeshReply> {
    const key = from.peerKey(to);
    if (key === undefined) throw new MeshError('tcp_connect_failed', `Unknown peer: ${to}`);
    if (!PUBLIC_KEY.test(key)) throw new MeshError('invalid_public_key', `Invalid public key for ${to}`);
    const target = this.endpoints.get(to);
    // a slow node (the `latency` fault) answers its peers as slowly as it answers HTTP
    const latency = this.latencyMs + (target ? this.faults.latencyMs(target.name) : 0);
    if (latency > 0) await sleep(latency);
    if (this.faults.isCutOff(from.name) || (target !== undefined && this.faults.isCutOff(target.name))) {
      throw new MeshError('tcp_connect_timeout', 'TCP connection timeout: deadline has elapsed');
    }
    if (target === undefined || !target.isUp()) {
      throw new MeshError('tcp_connect_failed', 'TCP connection failed: Connection refused (os error 111)');
    }
    if (
      key.toLowerCase() !== target.publicKey ||
      target.peerKey(from.participantId)?.toLowerCase() !== from.publicKey
    ) {
      throw new MeshError('handshake_failed', 'Handshake failed');
    }
    return target.receive(from.participantId, message);
  }
}
