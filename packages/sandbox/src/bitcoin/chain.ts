/**
 * The simulated Bitcoin chain. Its height derives from wall-clock time: the chain is a list of epochs, each
 * starting at a time and a height with a block interval (or stalled), so the height of any moment — also of a
 * moment when no sandbox process ran — is known. Mining blocks by hand, a stall fault, or a new profile's block
 * interval each start a new epoch. Deposits (coins sent to an address) and payouts (withdrawals paid out) are
 * recorded too. Everything is kept as notes in the ledger log, so a deposit's mint and its "minted" mark commit
 * together, exactly once.
 */
import type { Extension } from '../ledger/ledger.js';

export interface Epoch {
  startMs: number;
  startHeight: number;
  /** 0 while the chain is stalled */
  intervalMs: number;
}

export type DepositStatus = 'pending' | 'minted' | 'rejected';

export interface Deposit {
  txid: string;
  vout: number;
  address: string;
  /** BTC, a decimal string */
  amount: string;
  sentAtMs: number;
  /** the block that includes it (the next block after it was sent) */
  height: number;
  status: DepositStatus;
  /** why it was not minted */
  reason?: string;
  holdingCid?: string;
  mintedAtMs?: number;
}

export interface Payout {
  txid: string;
  address: string;
  amount: string;
  paidAtMs: number;
  withdrawRequestCid: string;
}

export type ChainNote =
  | { type: 'epoch'; epoch: Epoch }
  | { type: 'deposit'; deposit: Deposit }
  | {
      type: 'outcome';
      txid: string;
      status: DepositStatus;
      reason?: string;
      holdingCid?: string;
      atMs: number;
    }
  | { type: 'payout'; payout: Payout };

interface ChainState {
  epochs: Epoch[];
  deposits: Deposit[];
  payouts: Payout[];
}

export const CHAIN_NS = 'bitcoin';

export class BitcoinChain implements Extension {
  private epochs: Epoch[] = [];
  private readonly deposits = new Map<string, Deposit>();
  private payouts: Payout[] = [];

  constructor(private readonly write: (note: ChainNote) => void) {}

  // ---- Extension -------------------------------------------------------------------------------------

  restore(state: unknown): void {
    const s = state as ChainState | undefined;
    this.epochs = s?.epochs ?? [];
    this.deposits.clear();
    for (const d of s?.deposits ?? []) this.deposits.set(d.txid, d);
    this.payouts = s?.payouts ?? [];
  }

  snapshot(): ChainState {
    return { epochs: this.epochs, deposits: [...this.deposits.values()], payouts: this.payouts };
  }

  apply(body: unknown): void {
    const note = body as ChainNote;
    switch (note.type) {
      case 'epoch':
        this.epochs.push(note.epoch);
        break;
      case 'deposit':
        this.deposits.set(note.deposit.txid, { ...note.deposit });
        break;
      case 'outcome': {
        const d = this.deposits.get(note.txid);
        if (d === undefined) break;
        d.status = note.status;
        if (note.reason !== undefined) d.reason = note.reason;
        if (note.holdingCid !== undefined) d.holdingCid = note.holdingCid;
        d.mintedAtMs = note.atMs;
        break;
      }
      case 'payout':
        this.payouts.push(note.payout);
        break;
    }
  }

  // ---- height ----------------------------------------------------------------------------------------

  /** Starts the chain (first run) or a new epoch when the block interval of this run differs. */
  start(intervalMs: number, now = Date.now()): void {
    const last = this.epochs.at(-1);
    if (last === undefined) this.newEpoch({ startMs: now, startHeight: 0, intervalMs });
    else if (last.intervalMs !== 0 && last.intervalMs !== intervalMs)
      this.newEpoch({ startMs: now, startHeight: this.height(now), intervalMs });
  }

  private newEpoch(epoch: Epoch): void {
    this.write({ type: 'epoch', epoch });
  }

  get intervalMs(): number {
    return this.epochs.at(-1)?.intervalMs ?? 0;
  }

  /** the block interval to resume with after a stall */
  private lastInterval(): number {
    return [...this.epochs].reverse().find((e) => e.intervalMs > 0)?.intervalMs ?? 1000;
  }

  height(now = Date.now()): number {
    const e = this.epochs.at(-1);
    if (e === undefined) return 0;
    return e.intervalMs === 0
      ? e.startHeight
      : e.startHeight + Math.max(0, Math.floor((now - e.startMs) / e.intervalMs));
  }

  get stalled(): boolean {
    return this.intervalMs === 0;
  }

  stall(now = Date.now()): void {
    if (!this.stalled) this.newEpoch({ startMs: now, startHeight: this.height(now), intervalMs: 0 });
  }

  resume(now = Date.now()): void {
    if (this.stalled)
      this.newEpoch({ startMs: now, startHeight: this.height(now), intervalMs: this.lastInterval() });
  }

  /** mines `blocks` at once (tests); the chain goes on from the new height */
  mine(blocks: number, now = Date.now()): number {
    this.newEpoch({ startMs: now, startHeight: this.height(now) + blocks, intervalMs: this.intervalMs });
    return this.height(now);
  }

  /** the moment the chain reached `height`, or undefined if it has not */
  timeOf(height: number, now = Date.now()): number | undefined {
    for (let i = 0; i < this.epochs.length; i++) {
      const e = this.epochs[i] as Epoch;
      const end = this.epochs[i + 1]?.startMs ?? now;
      if (height <= e.startHeight) return e.startMs;
      if (e.intervalMs === 0) continue;
      const t = e.startMs + (height - e.startHeight) * e.intervalMs;
      if (t <= end) return t;
    }
    return undefined;
  }

  // ---- deposits and payouts ----------------------------------------------------------------------------

  recordDeposit(deposit: Deposit): void {
    this.write({ type: 'deposit', deposit });
  }

  deposit(txid: string): Deposit | undefined {
    return this.deposits.get(txid);
  }

  allDeposits(): Deposit[] {
    return [...this.deposits.values()].sort((a, b) => a.sentAtMs - b.sentAtMs);
  }

  pending(): Deposit[] {
    return this.allDeposits().filter((d) => d.status === 'pending');
  }

  confirmations(deposit: Deposit, now = Date.now()): number {
    return Math.max(0, this.height(now) - deposit.height + 1);
  }

  allPayouts(): Payout[] {
    return [...this.payouts];
  }

  txCount(): number {
    return this.deposits.size + this.payouts.length;
  }
}
