/**
 * One simulated decentralized-party manager: its persisted tables (peers, party credentials, workflow runs,
 * pending invitations, the party cache), its in-memory registry of live coordinator runs and peer loops, and its
 * end of the Noise mesh. `stop()` drops everything in memory (a crash or restart); `start()` reloads the tables
 * and resumes in-progress runs as the real server does (dpm-api.md §7.3 "Server restart").
 */
import { join } from 'node:path';
import type { Synchronizer } from '../canton.js';
import type { FaultBook } from '../faults.js';
import type { LedgerNodeEnv } from '../ledger/api/context.js';
import type { World } from '../token/world.js';
import {
  type CoordinatorMessage,
  type Mesh,
  type MeshEndpoint,
  type MeshMessage,
  type MeshReply,
} from '../mesh.js';
import type { Timings } from '../profile.js';
import { readJson, writeJsonAtomic } from '../store.js';
import { Aborted, nowSeconds, sleep } from '../time.js';
import { TokenVerifier, type TrustedIssuer } from '../auth/verifier.js';
import { ownerKeyOf, prefixOf } from './keys.js';
import type { CoordinatorRun, NodeStateFile, PendingInvitation, RunRow } from './types.js';
import type { WorkflowKind } from './workflows/kinds.js';

export const DPM_VERSION = '0.1.9';
export const DPM_BUILD_VERSION = '0.1.9-ledgerbook-sandbox';

export interface NodeIdentity {
  name: string;
  /** 1-based */
  index: number;
  participantId: string;
  /** Noise public key: compressed secp256k1, 66 hex */
  publicKey: string;
  /** the simulated Noise port shown in node-config (nothing listens on it) */
  noisePort: number;
}

export interface NodeAuthConfig {
  /** DECPM_INSECURE: any token accepted */
  insecure: boolean;
  /** top-level Keycloak config in JWT mode: the issuer is `${url}/realms/${realm}` */
  keycloak?: { url: string; realm: string; clientId: string };
  /** DECPM_ADMIN_ROLE */
  adminRole?: string;
}

export interface NodeEnv {
  stateDir: string;
  network: 'devnet' | 'testnet' | 'mainnet';
  timings: Timings;
  faults: FaultBook;
  mesh: Mesh;
  canton: Synchronizer;
  /** this node's participant: the ledger the node acts on for its parties (governance, contracts, reads) */
  participant: LedgerNodeEnv;
  /** the token world: the DSO and the parties the node's proxies name (GET /network-info) */
  world: World;
  auth: NodeAuthConfig;
  /** asks the host to restart this node (a restart fault fired inside a run) */
  requestRestart(node: string, downMs: number): void;
  /**
   * Whose credentials the node used, for the host's caller log (`GET /callers`): `dpm`, a request authenticated
   * with a verified token of `subject`; `party`, the node got a token with credentials saved for a party (or an
   * admin client's, to grant rights) and acts with it.
   */
  noteCaller(api: 'dpm' | 'party', subject: string): void;
  log(line: string): void;
}

/**
 * What a node's workflows do when the node starts or a peer's message arrives. Whoever builds the node hands
 * them in (host.ts, with dpm/workflows/behaviour.ts): the workflows import the node, never the other way round.
 */
export interface NodeWorkflows {
  /** a run found in progress when the node starts: its coordinator, or its peer loop, takes it up again */
  resume(node: DpmNode, row: RunRow): void;
  /** refreshes the party cache for a prefix (`''`: every party) in the background */
  refreshPartyCache(node: DpmNode, prefix: string): void;
  invite(node: DpmNode, invitation: PendingInvitation): void;
  cancelInvite(node: DpmNode, from: string, instance: string): void;
  retry(node: DpmNode, from: string, instance: string): void;
  coordinatorMessage(node: DpmNode, from: string, message: CoordinatorMessage): MeshReply;
}

export class DpmNode implements MeshEndpoint {
  readonly name: string;
  readonly participantId: string;
  readonly publicKey: string;
  readonly coordinators = new Map<string, CoordinatorRun>();
  /**
   * Starts between their first check and their insert (they await peers in between), by instance and by party:
   * a second start of either is refused at once, as the real service refuses it, instead of both going through.
   */
  readonly starting = new Map<string, WorkflowKind>();
  readonly peerLoops = new Map<string, AbortController>();
  /** prefixes with a background cache refresh in flight */
  readonly refreshing = new Set<string>();
  readonly verifier: TokenVerifier;
  state: NodeStateFile = emptyState();
  /** serializes the unauthenticated bootstrap PUT /party-config */
  bootstrapInProgress = false;
  private lifetime = new AbortController();
  private up = false;
  private readonly file: string;

  constructor(
    readonly identity: NodeIdentity,
    readonly env: NodeEnv,
    private readonly workflows: NodeWorkflows,
  ) {
    this.name = identity.name;
    this.participantId = identity.participantId;
    this.publicKey = identity.publicKey;
    this.file = join(env.stateDir, 'nodes', `${identity.name}.json`);
    this.verifier = new TokenVerifier(() => this.trustedIssuers());
    env.mesh.join(this);
  }

  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  get timings(): Timings {
    return this.env.timings;
  }

  /** Loads the persisted tables and resumes in-progress runs; invitations are not sent again. */
  start(): void {
    if (this.up) this.stop();
    this.state = readJson<NodeStateFile>(this.file) ?? emptyState();
    this.lifetime = new AbortController();
    this.up = true;
    for (const row of this.state.runs) {
      if (row.status !== 'inprogress') continue;
      this.workflows.resume(this, row);
    }
    this.spawn('boot refresh of the party cache', async (signal) => {
      await sleep(this.timings.bootRefreshMs, signal);
      this.workflows.refreshPartyCache(this, '');
    });
  }

  /** Drops all in-memory state: coordinator registry, peer loops, background tasks. */
  stop(): void {
    this.up = false;
    this.lifetime.abort();
    this.coordinators.clear();
    this.peerLoops.clear();
    this.refreshing.clear();
    this.bootstrapInProgress = false;
  }

  isUp(): boolean {
    return this.up;
  }

  save(): void {
    // owner-only: the party_credentials table holds client secrets and passwords, as the real node's database does
    writeJsonAtomic(this.file, this.state, 0o600);
  }

  /** Runs a background task bound to this node's lifetime; an abort ends it quietly, other errors are logged. */
  spawn(label: string, task: (signal: AbortSignal) => Promise<void>): void {
    const signal = this.lifetime.signal;
    task(signal).catch((error: unknown) => {
      if (error instanceof Aborted || signal.aborted) return;
      this.env.log(
        `${this.name}: ${label} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    });
  }

  // ---- tables ----------------------------------------------------------------------------------------------

  run(instance: string): RunRow | undefined {
    return this.state.runs.find((r) => r.instance_name === instance);
  }

  updateRun(row: RunRow, patch: Partial<RunRow>): void {
    Object.assign(row, patch, { updated_at: nowSeconds() });
    if (patch.error === undefined && 'error' in patch) delete row.error;
    this.save();
  }

  peerByKey(publicKey: string): { participant_id: string; name: string } | undefined {
    return this.state.peers.find((p) => p.public_key.toLowerCase() === publicKey.toLowerCase());
  }

  peerKey(participantId: string): string | undefined {
    return this.state.peers.find((p) => p.participant_id === participantId)?.public_key;
  }

  isConfiguredPeer(participantId: string): boolean {
    return this.state.peers.some((p) => p.participant_id === participantId);
  }

  /** this participant's owner key in a party's decentralized namespace */
  ownerKey(partyIdOrPrefix: string): string {
    return ownerKeyOf(this.participantId, prefixOf(partyIdOrPrefix));
  }

  /** the top-level issuer plus one per party_credentials row (dpm-api.md §0.2 step 3) */
  trustedIssuers(): TrustedIssuer[] {
    const out: TrustedIssuer[] = [];
    const keycloak = this.env.auth.keycloak;
    if (keycloak !== undefined) {
      out.push({
        issuer: `${keycloak.url.replace(/\/+$/, '')}/realms/${keycloak.realm}`,
        clientId: keycloak.clientId,
      });
    }
    for (const row of this.state.party_credentials) {
      if (row.keycloak_url !== '' && row.keycloak_realm !== '') {
        out.push({
          issuer: `${row.keycloak_url.replace(/\/+$/, '')}/realms/${row.keycloak_realm}`,
          clientId: row.keycloak_client_id,
        });
      }
    }
    return out;
  }

  addInvitation(invitation: PendingInvitation): void {
    this.state.invitations = this.state.invitations.filter((i) => i.id !== invitation.id);
    this.state.invitations.push(invitation);
    // at most 16 pending invitations per coordinator: the oldest are evicted
    const sameCoordinator = this.state.invitations.filter(
      (i) => i.coordinator_pubkey === invitation.coordinator_pubkey,
    );
    for (const old of sameCoordinator.slice(0, Math.max(0, sameCoordinator.length - 16))) {
      this.state.invitations = this.state.invitations.filter((i) => i !== old);
    }
    this.save();
  }

  // ---- the mesh ------------------------------------------------------------------------------------------

  async send(to: string, message: MeshMessage): Promise<MeshReply> {
    return this.env.mesh.send(this, to, message);
  }

  receive(from: string, message: MeshMessage): Promise<MeshReply> {
    return Promise.resolve(this.answer(from, message));
  }

  private answer(from: string, message: MeshMessage): MeshReply {
    switch (message.type) {
      case 'health': {
        const oldest = this.state.runs
          .filter((r) => r.status === 'inprogress')
          .sort((a, b) => a.created_at - b.created_at)[0];
        return {
          type: 'health',
          version: DPM_VERSION,
          buildVersion: DPM_BUILD_VERSION,
          ...(oldest !== undefined
            ? {
                workflow: {
                  kind: oldest.kind,
                  role: oldest.role,
                  step: oldest.current_step,
                  step_index: oldest.step_index,
                  step_total: oldest.step_total,
                },
              }
            : {}),
        };
      }
      case 'list-peers':
        return { type: 'peers', participantIds: this.state.peers.map((p) => p.participant_id) };
      case 'invite':
        this.workflows.invite(this, message.invitation);
        return { type: 'ack' };
      case 'cancel-invite':
        this.workflows.cancelInvite(this, from, message.instance);
        return { type: 'ack' };
      case 'retry':
        this.workflows.retry(this, from, message.instance);
        return { type: 'ack' };
      case 'decline':
      case 'poll':
      case 'step-done':
        return this.workflows.coordinatorMessage(this, from, message);
      case 'owner-key': {
        const party = this.env.canton.party(message.partyId);
        const owner = party?.owners.find((o) => o.participantUid === this.participantId);
        return { type: 'owner-key', ownerKey: owner?.ownerKey };
      }
      case 'member-party': {
        const member = this.state.party_credentials.find(
          (c) => c.dec_party_id === message.partyId,
        )?.member_party_id;
        return { type: 'member-party', ...(member === undefined ? {} : { memberPartyId: member }) };
      }
      case 'packages':
        return {
          type: 'packages',
          packages: this.env.canton
            .uploadedPackages(this.participantId)
            .map((p) => ({ package_id: p.packageId, name: p.name, version: p.version })),
        };
    }
  }
}

function emptyState(): NodeStateFile {
  return { version: 1, peers: [], party_credentials: [], runs: [], invitations: [], party_cache: [] };
}
