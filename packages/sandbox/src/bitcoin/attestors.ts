/**
 * The attestors (wrapped-api.md §10.4–§10.5), applied lazily: whenever the ledger is read or written (and when
 * the sandbox starts), the work that fell due since is done, so that work due while no sandbox process ran is
 * applied by the next one — each exactly once. A deposit is minted to its account's owner once it has 6
 * confirmations and the processing delay has passed, unless its amount lies outside the account's limits (then
 * it is marked rejected, with why). A withdraw account with a pending balance gets, after the burn delay, a
 * withdraw request carrying the Bitcoin transaction id of the payout (or none, under the legacy fault).
 */
import { Decimal } from 'decimal.js';
import { LedgerError } from '../ledger/errors.js';
import { digestId, type Ledger } from '../ledger/ledger.js';
import { formatTime } from '../ledger/lf.js';
import type { Contract } from '../ledger/model.js';
import type { FaultBook } from '../faults.js';
import {
  DepositAccount,
  type DepositAccountArg,
  WithdrawAccount,
  type WithdrawAccountArg,
  withinLimits,
} from '../token/accounts.js';
import type { World } from '../token/world.js';
import { type BitcoinNetwork, depositAddress } from './address.js';
import { CHAIN_NS, type BitcoinChain, type ChainNote, type Deposit } from './chain.js';

export const CONFIRMATIONS = 6;

export interface AttestorTimings {
  /** the chain's block interval */
  blockIntervalMs: number;
  /** after the 6th confirmation, before the mint */
  processingMs: number;
  /** after a burn, before the withdraw request */
  burnDelayMs: number;
}

export class Attestors {
  private running: Promise<void> | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly chain: BitcoinChain,
    private readonly world: World,
    private readonly faults: FaultBook,
    private readonly timings: AttestorTimings,
    /** the participant the attestors' submissions go through */
    private readonly participant: string,
    readonly network: BitcoinNetwork,
    private readonly log: (line: string) => void,
  ) {}

  /** the deposit account an address belongs to (by account id, or contract id for an account without one) */
  accountOfAddress(address: string): Contract<DepositAccountArg> | undefined {
    for (const account of this.ledger.contractsOfTemplate(DepositAccount)) {
      if (depositAddress(this.network, account.arg.id ?? account.cid) === address) return account;
    }
    return undefined;
  }

  /** the moment a deposit will be (or was) minted, if its 6th confirmation is known */
  dueAt(deposit: Deposit): number | undefined {
    const confirmed = this.chain.timeOf(deposit.height + CONFIRMATIONS - 1);
    return confirmed === undefined ? undefined : confirmed + this.timings.processingMs;
  }

  /** Applies the work due now; concurrent callers share one run. */
  catchUp(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<void> {
    this.syncStall();
    const now = Date.now();
    for (const deposit of this.chain.pending()) {
      const due = this.dueAt(deposit);
      if (due !== undefined && due <= now)
        await this.attempt(`mint of deposit ${deposit.txid}`, () => this.mint(deposit));
    }
    for (const account of [...this.ledger.contractsOfTemplate(WithdrawAccount)]) {
      if (new Decimal(account.arg.pendingBalance).greaterThan(0)) {
        await this.attempt(`withdraw request of account ${account.cid}`, () =>
          this.processBurn(account, now),
        );
      }
    }
  }

  /** an attestor step the ledger refused (a contract in use) is tried again at the next catch-up */
  private async attempt(what: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      this.log(`attestors: ${what} deferred: ${error.message}`);
    }
  }

  /** the stall-chain fault stops the chain while it is active */
  private syncStall(): void {
    const stalled = this.faults.take('stall-chain') !== undefined;
    if (stalled && !this.chain.stalled) this.chain.stall();
    if (!stalled && this.chain.stalled) this.chain.resume();
  }

  private outcome(
    deposit: Deposit,
    status: 'minted' | 'rejected',
    reason?: string,
    holdingCid?: string,
  ): ChainNote {
    return {
      type: 'outcome',
      txid: deposit.txid,
      status,
      ...(reason !== undefined ? { reason } : {}),
      ...(holdingCid !== undefined ? { holdingCid } : {}),
      atMs: Date.now(),
    };
  }

  private async mint(deposit: Deposit): Promise<void> {
    const account = this.accountOfAddress(deposit.address);
    if (account === undefined) {
      this.ledger.note(
        CHAIN_NS,
        this.outcome(deposit, 'rejected', `no deposit account has the address ${deposit.address}`),
      );
      return;
    }
    const value = new Decimal(deposit.amount);
    if (!withinLimits(value, account.arg.limits)) {
      const limits = account.arg.limits;
      const reason =
        limits?.minAmount !== null && limits?.minAmount !== undefined && value.lessThan(limits.minAmount)
          ? `Deposit amount ${deposit.amount} is below minimum ${limits.minAmount}`
          : `Deposit amount ${deposit.amount} exceeds maximum ${limits?.maxAmount ?? ''}`;
      this.ledger.note(CHAIN_NS, this.outcome(deposit, 'rejected', reason));
      return;
    }
    // a fixed update id per deposit fixes the new holding's id (node 1: the first create under the exercise)
    const updateId = `1220${digestId(`attestor-mint/${deposit.txid}/${deposit.vout}`)}`;
    const holdingCid = `00${digestId(`${updateId}/1`)}`;
    await this.ledger.submit({
      participant: this.participant,
      userId: 'sandbox-attestors',
      actAs: [this.world.admin],
      commandId: `attestor-mint-${deposit.txid}-${deposit.vout}`,
      commands: [
        {
          kind: 'exercise',
          target: DepositAccount,
          cid: account.cid,
          choice: 'CBTCDepositAccount_CompleteDeposit',
          arg: {
            amount: deposit.amount,
            bitcoinBlock: String(deposit.height),
            btcTxId: deposit.txid,
            vout: String(deposit.vout),
          },
        },
      ],
      notes: [{ ns: CHAIN_NS, body: this.outcome(deposit, 'minted', undefined, holdingCid) }],
      internal: true,
      updateId,
    });
  }

  private async processBurn(account: Contract<WithdrawAccountArg>, now: number): Promise<void> {
    const late = this.faults.take('late-burns');
    if (late !== undefined && late.ms === undefined) return;
    const due = account.createdAt / 1000 + this.timings.burnDelayMs + (late?.ms ?? 0);
    if (due > now) return;
    const legacy = this.faults.take('legacy-withdraw-requests') !== undefined;
    const txid = digestId(`payout/${account.cid}`);
    const requestCid = `00${digestId(`1220${digestId(`attestor-burn/${account.cid}`)}/1`)}`;
    await this.ledger.submit({
      participant: this.participant,
      userId: 'sandbox-attestors',
      actAs: [this.world.admin],
      commandId: `attestor-burn-${account.cid}`,
      commands: [
        {
          kind: 'exercise',
          target: WithdrawAccount,
          cid: account.cid,
          choice: 'CBTCWithdrawAccount_ProcessWithdrawals',
          arg: { btcTxId: legacy ? null : txid },
        },
      ],
      notes: [
        {
          ns: CHAIN_NS,
          body: {
            type: 'payout',
            payout: {
              txid,
              address: account.arg.destinationBtcAddress,
              amount: new Decimal(account.arg.pendingBalance).toFixed(8),
              paidAtMs: now,
              withdrawRequestCid: requestCid,
            },
          } satisfies ChainNote,
        },
      ],
      internal: true,
      updateId: `1220${digestId(`attestor-burn/${account.cid}`)}`,
    });
  }

  /** when the chain and the attestors last stood (for the bitcoin API) */
  status(): Record<string, unknown> {
    return {
      height: this.chain.height(),
      blockIntervalMs: this.chain.intervalMs,
      stalled: this.chain.stalled,
      network: this.network,
      confirmationsRequired: CONFIRMATIONS,
      processingMs: this.timings.processingMs,
      burnDelayMs: this.timings.burnDelayMs,
      time: formatTime(Date.now() * 1000),
    };
  }
}
