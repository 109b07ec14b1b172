/**
 * The reads of one run, shared between its ledger clients (docs/architecture.md "Reads shared within a run").
 *
 * - **The snapshot offset.** A read that needs the ledger "now" — active contracts without an offset of their
 *   own, updates without an end — is made at the run's snapshot of that participant's ledger end instead of a
 *   ledger end read of its own: one read of the ledger end serves every step's observation. The snapshot is the
 *   newest ledger end the run has read there. It is dropped, so that the next read takes a fresh one, when this
 *   run writes to any ledger (a submission, before it is sent and once it is answered or failed: a transaction
 *   shows on every participant that hosts one of its parties), and when it is older than `maxAgeMs` (what others
 *   write — attestors, receivers, other operators, DPM workflows — is seen at most that late). An updates query
 *   asked again at the same snapshot is a poll looking for news: it reads a fresh ledger end.
 * - **Answers at an offset.** The contracts active at an offset never change, so an answer is kept by who asked
 *   (the client's service and credentials), the parties, the filters and the offset, and a later identical query
 *   at the same offset is answered from it. Only small answers are kept (`maxContracts`), and only the last
 *   `maxAnswers` of them.
 *
 * A plain `ledgerEnd()`, updates and completions are always read from the participant: they are how a run looks
 * for news (a wait, a settlement after an ambiguous answer). Nothing here decides a send: every ledger command
 * carries a deterministic command id under the participant's deduplication, and a command on a contract that is
 * gone is refused by the ledger, so a read at most `maxAgeMs` old can cost a retry, never a second payment.
 */
import type { ActiveContract } from './ledger-wire.js';

export interface ReadCacheOptions {
  /** how long a snapshot of the ledger end serves; default 1 s */
  maxAgeMs?: number;
  /** answers with more contracts are not kept; default 1,000 */
  maxContracts?: number;
  /** how many answers are kept (the oldest goes first); default 64 */
  maxAnswers?: number;
  /** a monotonic clock in ms; default `performance.now` */
  now?: () => number;
}

/** A kept answer: the contracts and the entries that were not active contracts, as the participant sent them. */
export interface KeptAnswer {
  contracts: readonly ActiveContract[];
  skipped: Readonly<Record<string, number>>;
}

interface Snapshot {
  offset: number;
  readAt: number;
  generation: number;
  /** the updates queries already answered at this snapshot */
  asked: Set<string>;
}

const DEFAULT_MAX_AGE_MS = 1_000;
const DEFAULT_MAX_CONTRACTS = 1_000;
const DEFAULT_MAX_ANSWERS = 64;

export class ReadCache {
  readonly maxContracts: number;
  private readonly maxAgeMs: number;
  private readonly maxAnswers: number;
  private readonly now: () => number;
  /** bumped by every write of the run: a snapshot taken under an older generation is not used */
  private generation = 0;
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly answers = new Map<string, KeptAnswer>();

  constructor(options: ReadCacheOptions = {}) {
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.maxContracts = options.maxContracts ?? DEFAULT_MAX_CONTRACTS;
    this.maxAnswers = options.maxAnswers ?? DEFAULT_MAX_ANSWERS;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * The offset to read the participant at: the run's snapshot while it serves, else a fresh ledger end (which
   * becomes the snapshot). `poll`: the key of an updates query, which gets a fresh ledger end when it was asked
   * at this snapshot before.
   */
  async snapshotOffset(
    participant: string,
    readLedgerEnd: () => Promise<number>,
    poll?: string,
  ): Promise<number> {
    const snapshot = this.snapshots.get(participant);
    if (
      snapshot !== undefined &&
      snapshot.generation === this.generation &&
      this.now() - snapshot.readAt < this.maxAgeMs &&
      (poll === undefined || !snapshot.asked.has(poll))
    ) {
      if (poll !== undefined) snapshot.asked.add(poll);
      return snapshot.offset;
    }
    const offset = await readLedgerEnd();
    if (poll !== undefined) this.snapshots.get(participant)?.asked.add(poll);
    return offset;
  }

  /**
   * A ledger end read from the participant, `generation` being `generation()` from before the read: it becomes the
   * snapshot unless the run wrote since, or a newer one is already held.
   */
  sawLedgerEnd(participant: string, offset: number, generation: number): void {
    if (generation !== this.generation) return;
    const current = this.snapshots.get(participant);
    if (current !== undefined && current.generation === generation && current.offset > offset) return;
    this.snapshots.set(participant, { offset, readAt: this.now(), generation, asked: new Set() });
  }

  /** The current generation, to pass back to `sawLedgerEnd` once the read it started is answered. */
  currentGeneration(): number {
    return this.generation;
  }

  /** The run wrote (or is about to write, or a write of it ended): every snapshot is dropped. */
  wrote(): void {
    this.generation++;
    this.snapshots.clear();
  }

  /** A kept answer of exactly this query, or undefined. */
  answer(key: string): KeptAnswer | undefined {
    return this.answers.get(key);
  }

  /** Keeps an answer (the caller kept it only when it has at most `maxContracts` contracts). */
  keep(key: string, answer: KeptAnswer): void {
    this.answers.delete(key);
    this.answers.set(key, answer);
    while (this.answers.size > this.maxAnswers) {
      const oldest = this.answers.keys().next();
      if (oldest.done === true) break;
      this.answers.delete(oldest.value);
    }
  }
}

/** The key of a query: who asked, as which parties, through which filters, and where (an offset, a range). */
export function queryKey(reader: string, parties: readonly string[], filters: unknown, at: unknown): string {
  return JSON.stringify([reader, parties, filters, at]);
}
