/**
 * The fork snapshot: what `ledgerbook sandbox up --fork TARGET` read from a network, one JSON record per line, in
 * the order it was read (a header first). The product writes it with its read clients; the sandbox seeds a copy of
 * the network from it (seed.ts). Every body is as the service answered it on the wire, minus secrets: party
 * configurations carry only whether a secret is set (dpm-api.md §3), never the secret.
 */

export const FORK_SNAPSHOT_VERSION = 1;

export interface ForkHeader {
  kind: 'header';
  version: typeof FORK_SNAPSHOT_VERSION;
  /** the target the network was read through */
  source: { name: string; network: 'devnet' | 'testnet' | 'mainnet' };
  /** ISO-8601 */
  readAt: string;
  /** the target's nodes, in the target's order: the copy's nodes keep their names and participant ids */
  nodes: Array<{ name: string; participantId: string; party?: string }>;
  instrument?: { admin: string; id: string };
  /** the target's named parties (name → party id) */
  parties: Record<string, string>;
}

/** a DPM read of one node (dpm-api.md): the route's answer as it came */
export interface ForkDpmRecord {
  kind: 'dpm';
  node: string;
  read:
    | 'node-config'
    | 'network-config'
    | 'decentralized-parties'
    | 'vetted-packages'
    | 'party-config'
    | 'invitations'
    | 'workflows';
  body: unknown;
}

/** a participant read of one node (canton-json-api.md) */
export interface ForkLedgerRecord {
  kind: 'ledger';
  node: string;
  read: 'ledger-end' | 'parties' | 'packages';
  body: unknown;
}

/** a party whose active contracts were read in full on a node (the copy's view of it is the network's) */
export interface ForkReadPartyRecord {
  kind: 'read-party';
  node: string;
  party: string;
}

/** one active contract, as the participant's created event has it (canton-json-api.md §3) */
export interface ForkContractRecord {
  kind: 'contract';
  node: string;
  contractId: string;
  templateId: string;
  createArgument: unknown;
  createdEventBlob?: string;
  /** ISO-8601 */
  createdAt?: string;
  offset?: number;
  /**
   * archived before the fork, but still known to the network's participant (events by contract id): the copy
   * knows it as archived too, at the fork's offset, and never delivers it as an update after the fork
   */
  archived?: boolean;
}

/** a token service read (wrapped-api.md): the instrument, the rules contracts, the rewards history */
export interface ForkTokenRecord {
  kind: 'token';
  read: 'instrument' | 'account-rules' | 'rewards' | 'bitcoin-deposits';
  body: unknown;
}

/** a read the target's credentials may not make, or a service that did not answer: named, not copied */
export interface ForkUnreadRecord {
  kind: 'unread';
  service: string;
  read: string;
  reason: string;
}

export type ForkRecord =
  | ForkHeader
  | ForkDpmRecord
  | ForkLedgerRecord
  | ForkReadPartyRecord
  | ForkContractRecord
  | ForkTokenRecord
  | ForkUnreadRecord;

/** What a fork copied and what it simulates, as `sandbox up --fork` reports it (also kept in the state dir's fork.json). */
export interface ForkSummary {
  source: ForkHeader['source'];
  readAt: string;
  /** counts per kind: nodes, decentralized parties, packages, contracts, party configs, runs, invitations, … */
  copied: Record<string, number>;
  /** contracts of templates the sandbox does not run, by template id */
  notCopied: Record<string, number>;
  /** what was not copied beyond templates: reads the target's credentials could not make, runs in progress */
  unread: string[];
  /** what the copy simulates as every sandbox does */
  simulated: string[];
}
