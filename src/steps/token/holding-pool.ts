/**
 * The lanes of a distribution: the sender's spendable holdings, each the head of a chain of transfers. A transfer
 * takes a holding (or, near the end, several) out of the pool; its change comes back as the lane's next holding.
 * Holdings in flight are nobody else's, so several transfers run at once without contending for the same
 * contract. A transfer the ledger refused gives its inputs back; one whose outcome is unknown takes them out
 * until the holdings are read again from the ledger.
 */
import { AmountDecimal, formatAmount } from '../../clients/amount.js';
import { StepError } from '../../errors.js';

export interface PoolHolding {
  cid: string;
  amount: AmountDecimal;
}

/** The smallest amount a holding can have (10 fraction digits). */
const UNIT = new AmountDecimal('0.0000000001');

export class HoldingPool {
  /** spendable and not in flight, largest first */
  private free: PoolHolding[] = [];
  private readonly busy = new Map<string, PoolHolding>();
  private waiters: Array<() => void> = [];
  /** a submission's outcome is unknown, or a holding was archived elsewhere: read the holdings again */
  stale = false;

  /** The spendable holdings as the ledger shows them now; holdings in flight stay with their transfers. */
  reset(holdings: readonly PoolHolding[]): void {
    this.free = holdings.filter((h) => !this.busy.has(h.cid));
    this.sort();
    this.stale = false;
    this.wake();
  }

  /** free and in flight */
  get size(): number {
    return this.free.length + this.busy.size;
  }

  get freeHoldings(): readonly PoolHolding[] {
    return this.free;
  }

  get total(): AmountDecimal {
    let sum = new AmountDecimal(0);
    for (const h of [...this.free, ...this.busy.values()]) sum = sum.plus(h.amount);
    return sum;
  }

  /**
   * Inputs worth at least `amount`: the largest free holding when it covers it, else the fewest largest ones that
   * do together. Waits while holdings in flight may come back; reads the holdings again (`refresh`) when some left
   * the pool with an unknown fate; fails when the pool can never cover it.
   */
  async take(
    amount: AmountDecimal,
    signal: AbortSignal,
    refresh: () => Promise<void>,
  ): Promise<PoolHolding[]> {
    for (;;) {
      signal.throwIfAborted();
      const taken = this.pick(amount);
      if (taken !== undefined) {
        this.free = this.free.filter((h) => !taken.includes(h));
        for (const h of taken) this.busy.set(h.cid, h);
        return taken;
      }
      if (this.stale) {
        // holdings left the pool with an unknown fate: the ledger says which are spendable now
        await refresh();
        continue;
      }
      if (this.busy.size === 0) {
        const have = formatAmount(this.total);
        throw new StepError(
          `the sender's spendable holdings (${have}) do not cover the ${formatAmount(amount)} this transfer needs`,
          {
            hint: 'the balance fell since the run checked it (another payment from the same party?): check it with token.balance, then run again',
          },
        );
      }
      await this.changed(signal);
    }
  }

  /** These free holdings, for a transfer planned on them (a split); those no longer free are left out. */
  claim(holdings: readonly PoolHolding[]): PoolHolding[] {
    const wanted = new Set(holdings.map((h) => h.cid));
    const taken = this.free.filter((h) => wanted.has(h.cid));
    this.free = this.free.filter((h) => !wanted.has(h.cid));
    for (const h of taken) this.busy.set(h.cid, h);
    return taken;
  }

  /** The transfer landed: its inputs are gone, its change (if any) is free for the next transfer. */
  settle(inputs: readonly PoolHolding[], change: readonly PoolHolding[]): void {
    for (const h of inputs) this.busy.delete(h.cid);
    // a read of the holdings in between may have found the change already
    const known = new Set(this.free.map((h) => h.cid));
    this.free.push(...change.filter((h) => h.amount.greaterThan(0) && !known.has(h.cid)));
    this.sort();
    this.wake();
  }

  /** The ledger refused the transfer: its inputs are spendable again. */
  restore(inputs: readonly PoolHolding[]): void {
    for (const h of inputs) {
      if (this.busy.delete(h.cid)) this.free.push(h);
    }
    this.sort();
    this.wake();
  }

  /** The transfer's outcome is unknown, or an input was archived elsewhere: leave them out until read again. */
  drop(inputs: readonly PoolHolding[]): void {
    for (const h of inputs) this.busy.delete(h.cid);
    this.stale = true;
    this.wake();
  }

  private pick(amount: AmountDecimal): PoolHolding[] | undefined {
    const largest = this.free[0];
    if (largest === undefined) return undefined;
    if (largest.amount.greaterThanOrEqualTo(amount)) return [largest];
    const inputs: PoolHolding[] = [];
    let sum = new AmountDecimal(0);
    for (const h of this.free) {
      inputs.push(h);
      sum = sum.plus(h.amount);
      if (sum.greaterThanOrEqualTo(amount)) return inputs;
    }
    return undefined;
  }

  private sort(): void {
    this.free.sort((a, b) => b.amount.comparedTo(a.amount));
  }

  private changed(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * One round of splitting towards `lanes` holdings: which free holdings to halve (the largest ones, as many as are
 * still missing) and the amount each splits off. Holdings too small to halve are left alone.
 */
export function splitRound(
  free: readonly PoolHolding[],
  lanes: number,
): Array<{ holding: PoolHolding; amount: string }> {
  const missing = lanes - free.length;
  if (missing <= 0) return [];
  return free
    .filter((h) => h.amount.greaterThanOrEqualTo(UNIT.times(2)))
    .slice(0, missing)
    .map((holding) => ({
      holding,
      amount: formatAmount(holding.amount.dividedBy(2).toDecimalPlaces(10, AmountDecimal.ROUND_DOWN)),
    }));
}
