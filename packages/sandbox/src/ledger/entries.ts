/**
 * What the ledger log records (log.ts writes them, one per line) and what a snapshot holds. Short keys: a
 * 100,000-transfer run writes hundreds of thousands of these.
 */

export interface StoredCreate {
  n: number;
  k: 'c';
  cid: string;
  /** package-id form */
  tpl: string;
  arg: unknown;
  /** the parties that see the event */
  wit: string[];
}

export interface StoredExercise {
  n: number;
  k: 'e';
  cid: string;
  tpl: string;
  /** the interface, package-id form, for an interface choice */
  if?: string;
  ch: string;
  arg: unknown;
  cons: boolean;
  act: string[];
  res: unknown;
  last: number;
  wit: string[];
  /** consuming: the stakeholders of the consumed contract (they see its archive) */
  sh?: string[];
}

export type StoredNode = StoredCreate | StoredExercise;

/** a sandbox-internal record another module keeps in the ledger log (the Bitcoin chain's deposits, …) */
export interface Note {
  ns: string;
  body: unknown;
}

export interface TxEntry {
  t: 'tx';
  o: number;
  u: string;
  /** record time, microseconds */
  rt: number;
  /** the submitting participant */
  p: string;
  c?: string;
  w?: string;
  user?: string;
  act: string[];
  sub?: string;
  nodes: StoredNode[];
  /** notes committed atomically with the transaction */
  notes?: Note[];
}

export type Permission = 'submission' | 'confirmation' | 'observation';

export interface PartyEntry {
  t: 'party';
  o: number;
  u: string;
  rt: number;
  party: string;
  participant: string;
  permission: Permission;
}

export interface Right {
  kind:
    | 'CanActAs'
    | 'CanReadAs'
    | 'CanExecuteAs'
    | 'CanExecuteAsAnyParty'
    | 'CanReadAsAnyParty'
    | 'IdentityProviderAdmin'
    | 'ParticipantAdmin';
  party?: string;
}

export interface UserRecord {
  id: string;
  primaryParty?: string;
  isDeactivated: boolean;
  annotations: Record<string, string>;
  rights: Right[];
  resourceVersion: number;
}

export interface UserEntry {
  t: 'user';
  participant: string;
  op: 'put' | 'delete';
  user: UserRecord;
}

export interface NoteEntry {
  t: 'note';
  note: Note;
}

export type LogEntry = TxEntry | PartyEntry | UserEntry | NoteEntry;

export interface StoredContract {
  cid: string;
  tpl: string;
  arg: unknown;
  /** createdAt, microseconds */
  at: number;
  o: number;
  n: number;
}

export interface DedupRecord {
  /** the change id: user, the actAs set, command id */
  key: string;
  offset: number;
  updateId: string;
  submissionId?: string;
  /** microseconds */
  rt: number;
}

export interface PartyRecord {
  party: string;
  /** participant → permission */
  hosting: Record<string, Permission>;
}

export interface Snapshot {
  version: 1;
  end: number;
  /** offsets at or before this were pruned from the update history */
  pruned: number;
  contracts: StoredContract[];
  parties: PartyRecord[];
  users: Record<string, UserRecord[]>;
  dedup: DedupRecord[];
  notes: Record<string, unknown>;
  /** log segment number → the first offset written to it (what pruning a segment prunes) */
  segments: Record<string, number>;
}

/** an entry that takes an offset */
export type OffsetEntry = TxEntry | PartyEntry;

export function takesOffset(entry: LogEntry): entry is OffsetEntry {
  return entry.t === 'tx' || entry.t === 'party';
}
