/**
 * The one ledger every sandbox node's participant serves: active contracts, parties and where they are hosted,
 * each participant's users and rights, command deduplication, and the update history. Submissions are
 * interpreted (tx.ts), then — after the capacity model's confirmation latency, during which the contracts they
 * consume are locked — committed: one log line (log.ts), then the in-memory state. Offsets are monotonic and
 * shared by transactions and party allocations. Other sandbox modules keep their own records in the same log as
 * notes (the Bitcoin chain's deposits), atomically with a transaction when they must be.
 *
 * In-process callers (the DPM nodes, the registry, the attestors, the faucet) use this class directly; the
 * JSON Ledger API (server.ts) is one more caller that adds authentication, rights and the wire formats.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { stateError } from '../errors.js';
import { blobOf, readBlob, storedContract } from './blob.js';
import {
  type DedupRecord,
  type LogEntry,
  type Note,
  type OffsetEntry,
  type PartyEntry,
  type Permission,
  type Snapshot,
  type StoredNode,
  type TxEntry,
  type UserRecord,
  takesOffset,
} from './entries.js';
import { errors, LedgerError } from './errors.js';
import { decode, LfError, nowMicros } from './lf.js';
import { DEFAULT_LOG_SETTINGS, LedgerLog, type LogSettings } from './log.js';
import {
  type Catalog,
  type Contract,
  type InterfaceDef,
  type TemplateDef,
  packageIdForm,
  stakeholders,
} from './model.js';
import { DamlAssertion, Tx, type TxNode } from './tx.js';

export type Command =
  | { kind: 'create'; template: TemplateDef; arg: unknown }
  | { kind: 'exercise'; target: TemplateDef | InterfaceDef; cid: string; choice: string; arg: unknown }
  | { kind: 'createAndExercise'; template: TemplateDef; createArg: unknown; choice: string; arg: unknown };

export interface DisclosedInput {
  createdEventBlob: string;
  contractId?: string;
  templateId?: string;
}

export interface SubmitRequest {
  participant: string;
  userId: string;
  actAs: string[];
  readAs?: string[];
  commandId: string;
  submissionId?: string;
  workflowId?: string;
  commands: Command[];
  disclosed?: DisclosedInput[];
  deduplication?: { kind: 'duration'; micros: number } | { kind: 'offset'; offset: number };
  /** sandbox notes committed with the transaction */
  notes?: Note[];
  /** the capacity model's confirmation latency, ms; the consumed contracts are locked meanwhile */
  latencyMs?: number;
  /** sandbox automation acting in-process: no hosting check */
  internal?: boolean;
  /** a fixed update id, which also fixes the contract ids (the deterministic sandbox world) */
  updateId?: string;
}

/** Decentralized parties come from the synchronizer the DPM nodes share (canton.ts). */
export interface Topology {
  decentralizedHosting(party: string): Record<string, Permission> | undefined;
  decentralizedParties(): string[];
}

export interface Extension {
  /** the state a snapshot recorded (undefined on a fresh ledger) */
  restore(state: unknown): void;
  snapshot(): unknown;
  apply(body: unknown): void;
}

export interface LedgerOptions {
  stateDir: string;
  catalog: Catalog;
  topology: Topology;
  synchronizerId: string;
  /** offsets whose updates and archived contracts stay in memory (older ones are read from the log) */
  historyWindow?: number;
  log?: LogSettings;
  /**
   * the participant's maximum deduplication duration (Canton's `max-deduplication-duration`), microseconds;
   * default 7 days, Canton's. 0: a committed command id is never refused again.
   */
  maxDeduplicationMicros?: number;
}

const SEVEN_DAYS_MICROS = 7 * 24 * 3600 * 1_000_000;

interface Archived {
  contract: Contract;
  offset: number;
}

export class Ledger {
  readonly catalog: Catalog;
  readonly synchronizerId: string;
  private readonly topology: Topology;
  private readonly log: LedgerLog<Snapshot>;
  private readonly historyWindow: number;
  private readonly maxDedup: number;

  private ledgerEnd = 0;
  private prunedOffset = 0;
  /** log segment → the first offset in it */
  private readonly segmentStarts = new Map<number, number>([[1, 1]]);
  private readonly contracts = new Map<string, Contract>();
  private readonly byParty = new Map<string, Set<string>>();
  private readonly byTemplate = new Map<TemplateDef, Set<string>>();
  private readonly parties = new Map<string, Record<string, Permission>>();
  private readonly users = new Map<string, Map<string, UserRecord>>();
  private readonly dedup = new Map<string, DedupRecord>();
  /** the last `historyWindow` offset-taking entries, oldest first */
  private readonly recent: OffsetEntry[] = [];
  private readonly archived = new Map<string, Archived>();
  private readonly archivedOrder: Archived[] = [];
  private readonly lockedBy = new Map<string, string>();
  private readonly inFlight = new Set<string>();
  private readonly extensions = new Map<string, Extension>();
  private readonly watchers = new Set<(entry: OffsetEntry) => void>();
  private opened = false;

  constructor(options: LedgerOptions) {
    this.catalog = options.catalog;
    this.topology = options.topology;
    this.synchronizerId = options.synchronizerId;
    this.historyWindow = options.historyWindow ?? 10_000;
    this.maxDedup = options.maxDeduplicationMicros ?? SEVEN_DAYS_MICROS;
    this.log = new LedgerLog<Snapshot>(join(options.stateDir, 'ledger'), options.log ?? DEFAULT_LOG_SETTINGS);
  }

  /** sandbox modules that keep notes register before open() */
  registerExtension(ns: string, extension: Extension): void {
    if (this.opened) throw new Error(`register the ${ns} extension before the ledger opens`);
    this.extensions.set(ns, extension);
  }

  /** Recovers the state from the state dir; true when the ledger is new (nothing was recorded). */
  open(): boolean {
    const { snapshot, entries } = this.log.recover();
    if (snapshot !== undefined) this.restore(snapshot);
    else for (const ext of this.extensions.values()) ext.restore(undefined);
    for (const entry of entries) this.apply(entry as LogEntry);
    this.opened = true;
    return snapshot === undefined && entries.length === 0;
  }

  close(): void {
    this.log.close();
  }

  get end(): number {
    return this.ledgerEnd;
  }

  /** offsets at or before this are no longer in the update history */
  get pruned(): number {
    return this.prunedOffset;
  }

  // ---- parties -----------------------------------------------------------------------------------------------

  partyKnown(party: string): boolean {
    return this.parties.has(party) || this.topology.decentralizedHosting(party) !== undefined;
  }

  hosting(party: string): Record<string, Permission> {
    return this.parties.get(party) ?? this.topology.decentralizedHosting(party) ?? {};
  }

  allParties(): string[] {
    return [...new Set([...this.parties.keys(), ...this.topology.decentralizedParties()])].sort();
  }

  /** Allocates (or hosts on one more participant) a party; one offset, like Canton's topology transaction. */
  allocateParty(party: string, participant: string, permission: Permission = 'submission'): PartyEntry {
    const entry: PartyEntry = {
      t: 'party',
      o: this.ledgerEnd + 1,
      u: updateId(),
      rt: nowMicros(),
      party,
      participant,
      permission,
    };
    this.commit(entry);
    return entry;
  }

  // ---- users ---------------------------------------------------------------------------------------------

  user(participant: string, id: string): UserRecord | undefined {
    return this.users.get(participant)?.get(id);
  }

  listUsers(participant: string): UserRecord[] {
    return [...(this.users.get(participant)?.values() ?? [])].sort((a, b) => a.id.localeCompare(b.id));
  }

  putUser(participant: string, user: UserRecord): void {
    this.commit({
      t: 'user',
      participant,
      op: 'put',
      user: { ...user, resourceVersion: user.resourceVersion + 1 },
    });
  }

  deleteUser(participant: string, user: UserRecord): void {
    this.commit({ t: 'user', participant, op: 'delete', user });
  }

  // ---- notes ---------------------------------------------------------------------------------------------

  note(ns: string, body: unknown): void {
    this.commit({ t: 'note', note: { ns, body } });
  }

  // ---- contracts -----------------------------------------------------------------------------------------

  active(cid: string): Contract | undefined {
    return this.contracts.get(cid);
  }

  /** active contracts a party is a stakeholder of */
  *contractsOf(party: string): Generator<Contract> {
    for (const cid of this.byParty.get(party) ?? []) {
      const contract = this.contracts.get(cid);
      if (contract !== undefined) yield contract;
    }
  }

  /** active contracts of a template */
  *contractsOfTemplate<A>(template: TemplateDef<A>): Generator<Contract<A>> {
    for (const cid of this.byTemplate.get(template) ?? []) {
      const contract = this.contracts.get(cid);
      if (contract !== undefined) yield contract as Contract<A>;
    }
  }

  *allContracts(): Generator<Contract> {
    yield* this.contracts.values();
  }

  activeCount(): number {
    return this.contracts.size;
  }

  /**
   * The contracts of `parties` (all parties when undefined) active at `offset`, in creation order. An offset
   * older than the in-memory history answers PARTICIPANT_PRUNED_DATA_ACCESSED.
   */
  activeAt(offset: number, parties: string[] | undefined): Contract[] {
    if (offset > this.ledgerEnd) throw errors.offsetAfterLedgerEnd('ACS', offset, this.ledgerEnd);
    if (offset <= 0) return [];
    const horizon = this.historyHorizon();
    if (offset < horizon) throw errors.prunedDataAccessed(offset, horizon);
    const out: Contract[] = [];
    const seen = new Set<string>();
    const consider = (contract: Contract): void => {
      if (contract.offset <= offset && !seen.has(contract.cid)) {
        seen.add(contract.cid);
        out.push(contract);
      }
    };
    if (parties === undefined) {
      for (const c of this.contracts.values()) consider(c);
    } else {
      for (const p of parties) for (const c of this.contractsOf(p)) consider(c);
    }
    if (offset < this.ledgerEnd) {
      for (const a of this.archivedOrder) {
        if (
          a.offset > offset &&
          (parties === undefined || stakeholders(a.contract).some((p) => parties.includes(p)))
        ) {
          consider(a.contract);
        }
      }
    }
    return out.sort((a, b) => a.offset - b.offset || a.nodeId - b.nodeId);
  }

  /** the oldest offset whose ACS memory can answer */
  private historyHorizon(): number {
    return Math.max(1, (this.recent[0]?.o ?? this.ledgerEnd + 1) - 1);
  }

  blob(contract: Contract): string {
    return blobOf(contract);
  }

  /** an archived contract still in memory, with the offset that archived it */
  archivedContract(cid: string): Archived | undefined {
    return this.archived.get(cid);
  }

  // ---- history ---------------------------------------------------------------------------------------------

  /**
   * Offset-taking entries after `begin` (exclusive) up to `end` (inclusive), at most `limit`: from memory, or
   * from the retained log segments for older ones.
   */
  entriesAfter(begin: number, end = this.ledgerEnd, limit = Number.MAX_SAFE_INTEGER): OffsetEntry[] {
    if (begin < this.prunedOffset) throw errors.prunedDataAccessed(begin, this.prunedOffset);
    const out: OffsetEntry[] = [];
    const first = this.recent[0]?.o ?? this.ledgerEnd + 1;
    if (begin + 1 < first) {
      for (const raw of this.log.history()) {
        const entry = raw as LogEntry;
        if (!takesOffset(entry) || entry.o <= begin) continue;
        if (entry.o >= first || entry.o > end || out.length >= limit) break;
        out.push(entry);
      }
    }
    for (const entry of this.recent) {
      if (out.length >= limit || entry.o > end) break;
      if (entry.o > begin) out.push(entry);
    }
    return out;
  }

  /** the transaction with this update id, from memory or the retained log */
  findUpdate(predicate: (entry: OffsetEntry) => boolean): OffsetEntry | undefined {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const entry = this.recent[i] as OffsetEntry;
      if (predicate(entry)) return entry;
    }
    const first = this.recent[0]?.o ?? this.ledgerEnd + 1;
    for (const raw of this.log.history()) {
      const entry = raw as LogEntry;
      if (takesOffset(entry) && entry.o < first && predicate(entry)) return entry;
    }
    return undefined;
  }

  /** called with every offset-taking entry as it commits; returns the unsubscribe function */
  watch(listener: (entry: OffsetEntry) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** resolves at the next commit that takes an offset, or after `timeoutMs` */
  nextOffset(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const stop = this.watch(done);
      function done(): void {
        clearTimeout(timer);
        stop();
        resolve();
      }
    });
  }

  /**
   * Re-creates contracts under new ids, unchanged (an `Archive` and a create, authorized by their signatories):
   * what a client holding the old ids meets when someone else used them first (the stale-contracts fault).
   */
  async rotate(cids: string[]): Promise<TxEntry | undefined> {
    const contracts = cids
      .map((cid) => this.contracts.get(cid))
      .filter((c): c is Contract => c !== undefined);
    if (contracts.length === 0) return undefined;
    const first = contracts[0] as Contract;
    const participant = Object.keys(this.hosting(first.template.signatories(first.arg)[0] ?? ''))[0] ?? '';
    return this.submit({
      participant,
      userId: 'sandbox-fault',
      actAs: [...new Set(contracts.flatMap((c) => c.template.signatories(c.arg)))],
      commandId: `stale-contracts-${updateId()}`,
      commands: contracts.flatMap((c): Command[] => [
        { kind: 'exercise', target: c.template, cid: c.cid, choice: 'Archive', arg: {} },
        { kind: 'create', template: c.template, arg: c.arg },
      ]),
      internal: true,
    });
  }

  // ---- submission ----------------------------------------------------------------------------------------

  /**
   * Interprets and commits one submission. Rejections are LedgerErrors (the JSON API answers them as they are).
   * Resolves with the committed transaction.
   */
  async submit(request: SubmitRequest): Promise<TxEntry> {
    const changeId = changeKey(request.userId, request.actAs, request.commandId);
    if (this.inFlight.has(changeId)) throw errors.alreadyInFlight(request.commandId);
    this.checkDeduplication(changeId, request);
    if (!request.internal) this.checkHosting(request.participant, request.actAs);
    const disclosed = this.disclosedContracts(request.disclosed ?? []);
    const now = nowMicros();
    const u = request.updateId ?? updateId();
    const tx = new Tx(
      {
        active: (cid) => this.contracts.get(cid),
        locked: (cid) => this.lockedBy.has(cid),
        partyKnown: (p) => this.partyKnown(p),
      },
      { actAs: request.actAs, readAs: request.readAs ?? [] },
      disclosed,
      now,
      u,
    );
    try {
      for (const command of request.commands) runCommand(tx, command);
    } catch (error) {
      throw asLedgerError(error);
    }
    const latency = request.latencyMs ?? 0;
    if (latency > 0) {
      for (const cid of tx.consumed.keys())
        if (!tx.created.some((c) => c.cid === cid)) this.lockedBy.set(cid, u);
      this.inFlight.add(changeId);
      try {
        await new Promise((resolve) => setTimeout(resolve, latency));
        // a transaction that committed meanwhile may have consumed what this one only fetched
        const gone = [...tx.inputs].find((cid) => !this.contracts.has(cid));
        if (gone !== undefined) throw errors.contractNotFound(gone);
        this.checkDeduplication(changeId, request);
      } finally {
        for (const [cid, holder] of this.lockedBy) if (holder === u) this.lockedBy.delete(cid);
        this.inFlight.delete(changeId);
      }
    }
    const entry: TxEntry = {
      t: 'tx',
      o: this.ledgerEnd + 1,
      u,
      rt: now,
      p: request.participant,
      ...(request.commandId ? { c: request.commandId } : {}),
      ...(request.workflowId ? { w: request.workflowId } : {}),
      user: request.userId,
      act: [...request.actAs],
      ...(request.submissionId ? { sub: request.submissionId } : {}),
      nodes: tx.nodes.map(storeNode),
      ...(request.notes && request.notes.length > 0 ? { notes: request.notes } : {}),
    };
    this.commit(entry);
    return entry;
  }

  /** the record of an earlier successful submission with this change id, if deduplication still remembers it */
  deduplicated(userId: string, actAs: string[], commandId: string): DedupRecord | undefined {
    return this.dedup.get(changeKey(userId, actAs, commandId));
  }

  private checkDeduplication(changeId: string, request: SubmitRequest): void {
    const previous = this.dedup.get(changeId);
    if (previous === undefined) return;
    const period = request.deduplication;
    // the participant's maximum bounds every period, an offset's too: past it, the change id is forgotten
    const withinMax = nowMicros() - previous.rt < this.maxDedup;
    const duplicate =
      withinMax &&
      (period?.kind === 'offset'
        ? previous.offset > period.offset
        : nowMicros() - previous.rt < (period?.micros ?? this.maxDedup));
    if (duplicate) throw errors.duplicateCommand(previous.submissionId, previous.offset);
  }

  private checkHosting(participant: string, actAs: string[]): void {
    const refused = actAs.filter((p) => this.hosting(p)[participant] !== 'submission');
    if (refused.length > 0) throw errors.notHosted(refused);
  }

  private disclosedContracts(inputs: DisclosedInput[]): Map<string, Contract> {
    const out = new Map<string, Contract>();
    for (const input of inputs) {
      const claimed = readBlob(input.createdEventBlob);
      if (claimed === undefined)
        throw errors.invalidArgument(
          "a disclosed contract's createdEventBlob is not a created event blob of this ledger",
        );
      if (input.contractId && input.contractId !== claimed.cid) {
        throw errors.invalidArgument(
          `disclosed contract ${input.contractId}: its createdEventBlob is the blob of ${claimed.cid}`,
        );
      }
      if (input.templateId && !sameTemplate(input.templateId, claimed.tpl, this.catalog)) {
        throw errors.invalidArgument(
          `disclosed contract ${claimed.cid}: templateId ${input.templateId} does not match its blob (${claimed.tpl})`,
        );
      }
      const contract = this.contracts.get(claimed.cid);
      // an archived disclosed contract fails where it is used (CONTRACT_NOT_FOUND), as on a participant
      if (contract === undefined) continue;
      if (blobOf(contract) !== input.createdEventBlob) {
        throw errors.invalidArgument(
          `disclosed contract ${claimed.cid}: the createdEventBlob does not match the contract`,
        );
      }
      out.set(contract.cid, contract);
    }
    return out;
  }

  // ---- commit and replay -------------------------------------------------------------------------------

  private commit(entry: LogEntry): void {
    this.log.append(JSON.stringify(entry), takesOffset(entry));
    this.apply(entry);
    if (takesOffset(entry)) {
      for (const watcher of this.watchers) watcher(entry);
      if (this.log.full()) this.rotateLog();
    }
  }

  /** a snapshot and a new log segment; the history of the segments dropped beyond the retention is pruned */
  private rotateLog(): void {
    this.segmentStarts.set(this.log.currentSegment + 1, this.ledgerEnd + 1);
    const oldest = this.log.oldestAfterRotation();
    const start = this.segmentStarts.get(oldest);
    if (oldest > 1 && start !== undefined) this.prunedOffset = Math.max(this.prunedOffset, start - 1);
    for (const segment of [...this.segmentStarts.keys()])
      if (segment < oldest) this.segmentStarts.delete(segment);
    this.log.rotate(this.snapshot());
  }

  private apply(entry: LogEntry): void {
    switch (entry.t) {
      case 'tx':
        this.applyTx(entry);
        break;
      case 'party': {
        const hosting = this.parties.get(entry.party) ?? {};
        hosting[entry.participant] = entry.permission;
        this.parties.set(entry.party, hosting);
        this.advance(entry);
        break;
      }
      case 'user': {
        let users = this.users.get(entry.participant);
        if (users === undefined) this.users.set(entry.participant, (users = new Map<string, UserRecord>()));
        if (entry.op === 'put') users.set(entry.user.id, entry.user);
        else users.delete(entry.user.id);
        break;
      }
      case 'note':
        this.applyNote(entry.note);
        break;
    }
  }

  private applyNote(note: Note): void {
    const extension = this.extensions.get(note.ns);
    if (extension === undefined)
      throw stateError(`the ledger log holds a note for ${note.ns}, which this sandbox does not know`);
    extension.apply(note.body);
  }

  private applyTx(entry: TxEntry): void {
    const created = new Map<string, Contract>();
    for (const node of entry.nodes) {
      if (node.k === 'c') {
        const template = this.catalog.template(node.tpl);
        if (template === undefined) {
          throw stateError(
            `the ledger log holds a contract of ${node.tpl}, a template this sandbox does not run`,
          );
        }
        created.set(node.cid, {
          cid: node.cid,
          template,
          arg: node.arg,
          createdAt: entry.rt,
          offset: entry.o,
          nodeId: node.n,
        });
      }
    }
    for (const node of entry.nodes) {
      if (node.k !== 'e' || !node.cons) continue;
      if (created.delete(node.cid)) continue;
      const contract = this.contracts.get(node.cid);
      if (contract === undefined) continue;
      this.removeContract(contract);
      const archived = { contract, offset: entry.o };
      this.archived.set(node.cid, archived);
      this.archivedOrder.push(archived);
    }
    for (const contract of created.values()) this.addContract(contract);
    if (entry.c !== undefined && entry.user !== undefined) {
      this.dedup.set(changeKey(entry.user, entry.act, entry.c), {
        key: changeKey(entry.user, entry.act, entry.c),
        offset: entry.o,
        updateId: entry.u,
        ...(entry.sub ? { submissionId: entry.sub } : {}),
        rt: entry.rt,
      });
    }
    for (const note of entry.notes ?? []) this.applyNote(note);
    this.advance(entry);
  }

  private addContract(contract: Contract): void {
    this.contracts.set(contract.cid, contract);
    for (const p of stakeholders(contract)) {
      let set = this.byParty.get(p);
      if (set === undefined) this.byParty.set(p, (set = new Set()));
      set.add(contract.cid);
    }
    let set = this.byTemplate.get(contract.template);
    if (set === undefined) this.byTemplate.set(contract.template, (set = new Set()));
    set.add(contract.cid);
  }

  private removeContract(contract: Contract): void {
    this.contracts.delete(contract.cid);
    for (const p of stakeholders(contract)) this.byParty.get(p)?.delete(contract.cid);
    this.byTemplate.get(contract.template)?.delete(contract.cid);
  }

  private advance(entry: OffsetEntry): void {
    this.ledgerEnd = entry.o;
    this.recent.push(entry);
    const horizon = entry.o - this.historyWindow;
    let drop = 0;
    while (drop < this.recent.length && (this.recent[drop] as OffsetEntry).o <= horizon) drop++;
    if (drop > 0) this.recent.splice(0, drop);
    let dropArchived = 0;
    while (
      dropArchived < this.archivedOrder.length &&
      (this.archivedOrder[dropArchived] as Archived).offset <= horizon
    ) {
      this.archived.delete((this.archivedOrder[dropArchived] as Archived).contract.cid);
      dropArchived++;
    }
    if (dropArchived > 0) this.archivedOrder.splice(0, dropArchived);
  }

  private snapshot(): Snapshot {
    // the records outlive a shorter refusal window: in-process callers (the world's genesis, the DPM's
    // contracts) read them to stay idempotent across restarts, whatever the participant refuses
    const keep = Math.max(this.maxDedup, SEVEN_DAYS_MICROS);
    const now = nowMicros();
    for (const [key, record] of this.dedup) if (now - record.rt > keep) this.dedup.delete(key);
    return {
      version: 1,
      end: this.ledgerEnd,
      pruned: this.prunedOffset,
      contracts: [...this.contracts.values()].map(storedContract),
      parties: [...this.parties].map(([party, hosting]) => ({ party, hosting })),
      users: Object.fromEntries([...this.users].map(([p, users]) => [p, [...users.values()]])),
      dedup: [...this.dedup.values()],
      notes: Object.fromEntries([...this.extensions].map(([ns, ext]) => [ns, ext.snapshot()])),
      segments: Object.fromEntries(this.segmentStarts),
    };
  }

  private restore(snapshot: Snapshot): void {
    this.ledgerEnd = snapshot.end;
    this.prunedOffset = snapshot.pruned;
    this.segmentStarts.clear();
    for (const [segment, offset] of Object.entries(snapshot.segments ?? {}))
      this.segmentStarts.set(Number(segment), offset);
    for (const c of snapshot.contracts) {
      const template = this.catalog.template(c.tpl);
      if (template === undefined)
        throw stateError(
          `the ledger snapshot holds a contract of ${c.tpl}, a template this sandbox does not run`,
        );
      const contract: Contract = {
        cid: c.cid,
        template,
        arg: c.arg,
        createdAt: c.at,
        offset: c.o,
        nodeId: c.n,
      };
      // indexed by party and by template, as a committed contract is (the registry and the DPM look up by template)
      this.addContract(contract);
    }
    for (const p of snapshot.parties) this.parties.set(p.party, { ...p.hosting });
    for (const [participant, users] of Object.entries(snapshot.users)) {
      this.users.set(participant, new Map(users.map((u) => [u.id, u])));
    }
    for (const d of snapshot.dedup) this.dedup.set(d.key, d);
    for (const [ns, ext] of this.extensions) ext.restore(snapshot.notes[ns]);
  }
}

function runCommand(tx: Tx, command: Command): void {
  switch (command.kind) {
    case 'create': {
      const arg = decodeCreate(command.template, command.arg);
      tx.create(command.template, arg);
      return;
    }
    case 'exercise':
      tx.exerciseCommand(command.cid, command.choice, command.arg, command.target);
      return;
    case 'createAndExercise': {
      const cid = tx.create(command.template, decodeCreate(command.template, command.createArg));
      tx.exerciseCommand(cid, command.choice, command.arg, command.template);
      return;
    }
  }
}

function decodeCreate(template: TemplateDef, arg: unknown): unknown {
  try {
    return decode(template.argType, arg);
  } catch (error) {
    if (error instanceof LfError)
      throw errors.preprocessing(
        `create argument of ${packageIdForm(template.pkg, template.name)}: ${error.message}`,
      );
    throw error;
  }
}

function asLedgerError(error: unknown): unknown {
  if (error instanceof LedgerError) return error;
  if (error instanceof DamlAssertion) return errors.interpretation(error.message);
  if (error instanceof LfError) return errors.preprocessing(error.message);
  return error;
}

function storeNode(node: TxNode): StoredNode {
  const tpl = packageIdForm(node.contract.template.pkg, node.contract.template.name);
  if (node.kind === 'create')
    return {
      n: node.nodeId,
      k: 'c',
      cid: node.contract.cid,
      tpl,
      arg: node.contract.arg,
      wit: node.witnesses,
    };
  return {
    n: node.nodeId,
    k: 'e',
    cid: node.contract.cid,
    tpl,
    ...(node.iface ? { if: packageIdForm(node.iface.pkg, node.iface.name) } : {}),
    ch: node.choice,
    arg: node.arg,
    cons: node.consuming,
    act: node.actors,
    res: node.result,
    last: node.lastDescendantNodeId,
    wit: node.witnesses,
    ...(node.consuming ? { sh: stakeholders(node.contract) } : {}),
  };
}

function changeKey(userId: string, actAs: string[], commandId: string): string {
  return `${userId}\u0000${[...new Set(actAs)].sort().join(',')}\u0000${commandId}`;
}

function updateId(): string {
  return `1220${randomBytes(32).toString('hex')}`;
}

function sameTemplate(given: string, stored: string, catalog: Catalog): boolean {
  const a = catalog.lookup(given);
  const b = catalog.lookup(stored);
  return a !== undefined && a === b;
}

/** a stable id from text (deterministic world contracts and update ids) */
export function digestId(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
