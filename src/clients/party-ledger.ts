/**
 * A party's view of the token on one participant: its holdings of an instrument, its transfer offers, its deposit
 * and withdraw accounts, withdraw requests and credentials, and submitting commands as the party. Thin and typed:
 * no policy (no selection of inputs, no retries, no batching). Holdings and offers are read through their token
 * standard interface views (an interface query returns `createArgument: null`); instruments are matched on admin
 * and id exactly, and only the party's own contracts count.
 */
import { AmountDecimal, amountProblem, amountValue, formatAmount, sumAmounts } from './amount.js';
import type { ActiveContractsOptions, CallOptions, LedgerClient, SubmitOptions } from './ledger.js';
import type { DeduplicationPeriod } from './ledger-request.js';
import { LedgerError } from './ledger-errors.js';
import type { ActiveContract, CreatedEvent, Transaction } from './ledger-wire.js';
import { describeProblems, wireProblems } from './schema-check.js';
import type { PreparedCommands } from './token-commands.js';
import {
  TOKEN_CHOICES,
  TOKEN_INTERFACES,
  TOKEN_TEMPLATES,
  allocationViewSchema,
  credentialPayloadSchema,
  depositAccountPayloadSchema,
  executedTransferPayloadSchema,
  holdingViewSchema,
  sameEntity,
  transferInstructionViewSchema,
  userServicePayloadSchema,
  withdrawAccountPayloadSchema,
  withdrawRequestPayloadSchema,
  type AccountLimits,
  type AllocationView,
  type CredentialPayload,
  type DepositAccountPayload,
  type ExecutedTransferPayload,
  type HoldingView,
  type InstrumentId,
  type TransferInstructionView,
  type UserServicePayload,
  type WithdrawAccountPayload,
  type WithdrawRequestPayload,
} from './token-wire.js';

export interface HoldingLock {
  holders: string[];
  expiresAt: string | null;
  context: string | null;
}

export interface Holding {
  contractId: string;
  /** the concrete template (package-id form) */
  templateId: string;
  owner: string;
  instrumentId: InstrumentId;
  /** from the Holding view, as the ledger wrote it ("0.0500000000") */
  amount: string;
  lock: HoldingLock | null;
  meta: Record<string, string>;
  synchronizerId: string | undefined;
  createdEventBlob: string | undefined;
}

export interface Holdings {
  activeAtOffset: number;
  /** spendable: no lock */
  unlocked: Holding[];
  /**
   * locked (e.g. to the registrar while an offer is pending): not spendable, not in `unlockedTotal`. Empty when
   * the read was asked `withLocked: false` (only counted and summed then).
   */
  locked: Holding[];
  unlockedTotal: string;
  lockedTotal: string;
  lockedCount: number;
  /** holdings of the party whose view the participant could not compute, with its reason */
  unreadable: Array<{ contractId: string; reason: string }>;
}

export interface TransferOffer {
  contractId: string;
  /** the concrete template (a registry TransferOffer, package-id form) */
  templateId: string;
  /** incoming: the party is the receiver; outgoing: the sender */
  direction: 'incoming' | 'outgoing';
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  requestedAt: string | undefined;
  /** expired offers are listed too: compare with the clock */
  executeBefore: string | undefined;
  /** `TransferPendingReceiverAcceptance` or `TransferPendingInternalWorkflow` */
  status: string | undefined;
  meta: Record<string, string>;
  /** the offset of the transaction that created it, when the participant says */
  offset: number | undefined;
}

/** One settlement leg's funds locked for its executor (an Allocation, read through its view). */
export interface Allocation {
  contractId: string;
  templateId: string;
  executor: string;
  settlementId: string;
  legId: string;
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  allocateBefore: string | undefined;
  settleBefore: string | undefined;
  holdingCids: string[];
}

/** A settled transfer (accepted by the receiver, or direct to a preapproved one), as the registry records it. */
export interface ExecutedTransfer {
  contractId: string;
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  executedAt: string | undefined;
  meta: Record<string, string>;
}

/** How an offer ended, from the choice that consumed it. */
export type OfferEnd = 'accepted' | 'rejected' | 'withdrawn' | 'other';

/**
 * One event of the history of a party's transfers of an instrument: an offer made (a TransferInstruction
 * created), an offer consumed (and by which choice), a settlement recorded by the registry.
 */
export type TransferEvent = { offset: number; updateId: string } & (
  | { kind: 'offer'; offer: TransferOffer }
  | { kind: 'offer-ended'; contractId: string; end: OfferEnd }
  | { kind: 'settled'; transfer: ExecutedTransfer }
);

const OFFER_ENDS: Record<string, OfferEnd> = {
  [TOKEN_CHOICES.accept]: 'accepted',
  [TOKEN_CHOICES.reject]: 'rejected',
  [TOKEN_CHOICES.withdraw]: 'withdrawn',
};

interface ContractRef {
  contractId: string;
  templateId: string;
  synchronizerId: string | undefined;
  createdEventBlob: string | undefined;
}

export interface DepositAccount extends ContractRef {
  /** what the gateway knows the account by: its `id`, or its contract id when `id` is null (older accounts) */
  accountId: string;
  id: string | null;
  owner: string;
  operator: string;
  registrar: string;
  lastProcessedBitcoinBlock: string;
  limits: AccountLimits | null;
}

export interface WithdrawAccount extends ContractRef {
  accountId: string;
  id: string | null;
  owner: string;
  operator: string;
  registrar: string;
  destinationBtcAddress: string;
  /** burned but not yet paid out; "0" when absent */
  pendingBalance: string;
  limits: AccountLimits | null;
}

export interface WithdrawRequest extends ContractRef {
  owner: string;
  registrar: string;
  amount: string;
  destinationBtcAddress: string;
  /** null in the legacy model until the payout is broadcast */
  btcTxId: string | null;
  sourceAccountId: string | null;
}

export interface Credential extends ContractRef {
  issuer: string;
  holder: string;
  id: string | undefined;
  description: string | undefined;
  claims: Array<{ subject?: string; property?: string; value?: string }>;
}

export interface UserService extends ContractRef {
  operator: string | undefined;
  user: string;
  dso: string | undefined;
}

export interface ReadOptions extends ActiveContractsOptions {
  /** default: the ledger end */
  activeAtOffset?: number;
  /**
   * holdings: keep the locked ones (default), or only count and sum them — a sender with 100,000 pending offers
   * has 100,000 locked holdings, which a distribution needs the total of, not the list
   */
  withLocked?: boolean;
}

export interface PartySubmitOptions extends SubmitOptions {
  deduplication?: DeduplicationPeriod;
  /** this submission's own id (see `Submission.submissionId`) */
  submissionId?: string;
}

/** A credential that makes its holder a Minter of the wrapped token (`hasCBTCRole` = `Minter`). */
export function isMinterCredential(credential: Pick<Credential, 'claims'>): boolean {
  return credential.claims.some((claim) => claim.property === 'hasCBTCRole' && claim.value === 'Minter');
}

function limitsOf(value: unknown): AccountLimits | null {
  if (typeof value !== 'object' || value === null) return null;
  const { minAmount, maxAmount } = value as { minAmount?: unknown; maxAmount?: unknown };
  const min = typeof minAmount === 'string' ? minAmount : null;
  const max = typeof maxAmount === 'string' ? maxAmount : null;
  return min === null && max === null ? null : { minAmount: min, maxAmount: max };
}

function refOf(contract: ActiveContract): ContractRef {
  return {
    contractId: contract.createdEvent.contractId,
    templateId: contract.createdEvent.templateId,
    synchronizerId: contract.synchronizerId,
    createdEventBlob: contract.createdEvent.createdEventBlob,
  };
}

function sameInstrument(a: InstrumentId, b: InstrumentId): boolean {
  return a.admin === b.admin && a.id === b.id;
}

/** `<admin>|<id>`: how holdings of different instruments are told apart */
export function instrumentKey(instrument: InstrumentId): string {
  return `${instrument.admin}|${instrument.id}`;
}

type HoldingsRead = Map<string, Holdings | undefined> & {
  activeAtOffset: number;
  unreadable: Holdings['unreadable'];
};

function emptyHoldings(activeAtOffset: number): Holdings {
  return {
    activeAtOffset,
    unlocked: [],
    locked: [],
    unlockedTotal: '0',
    lockedTotal: '0',
    lockedCount: 0,
    unreadable: [],
  };
}

export class PartyLedger {
  constructor(
    readonly ledger: LedgerClient,
    /** the party id this client acts and reads as */
    readonly party: string,
  ) {}

  /** The party's holdings of exactly this instrument, unlocked and locked, with exact totals. */
  async holdings(instrument: InstrumentId, options: ReadOptions = {}): Promise<Holdings> {
    const key = instrumentKey(instrument);
    const all = await this.readHoldings((i) => instrumentKey(i) === key, options);
    return all.get(key) ?? { ...emptyHoldings(all.activeAtOffset), unreadable: all.unreadable };
  }

  /**
   * The party's holdings of every instrument, by instrument (`<admin>|<id>`); holdings whose view is unreadable
   * are listed with each instrument's result and in `unreadable`.
   */
  async holdingsByInstrument(options: ReadOptions = {}): Promise<{
    activeAtOffset: number;
    byInstrument: Map<string, Holdings>;
    unreadable: Holdings['unreadable'];
  }> {
    const all = await this.readHoldings(() => true, options);
    const byInstrument = new Map(
      [...all].filter((entry): entry is [string, Holdings] => entry[1] !== undefined),
    );
    return { activeAtOffset: all.activeAtOffset, byInstrument, unreadable: all.unreadable };
  }

  private async readHoldings(
    wanted: (instrument: InstrumentId) => boolean,
    options: ReadOptions,
  ): Promise<HoldingsRead> {
    const unreadable: Holdings['unreadable'] = [];
    const groups = new Map<
      string,
      { unlocked: Holding[]; locked: Holding[]; lockedSum: AmountDecimal; lockedCount: number }
    >();
    const withLocked = options.withLocked !== false;
    const { activeAtOffset } = await this.ledger.activeContracts(
      {
        parties: [this.party],
        filters: [{ interfaceId: TOKEN_INTERFACES.holding, includeInterfaceView: true }],
        ...(options.activeAtOffset === undefined ? {} : { activeAtOffset: options.activeAtOffset }),
      },
      {
        ...options,
        onContract: (contract) => {
          const event = contract.createdEvent;
          const view = (event.interfaceViews ?? []).find((v) =>
            sameEntity(v.interfaceId, TOKEN_INTERFACES.holding),
          );
          const status = view?.viewStatus;
          if (
            view === undefined ||
            (status !== undefined && status.code !== 0) ||
            view.viewValue === undefined
          ) {
            const reason = status?.message || 'the participant returned no Holding view';
            unreadable.push({ contractId: event.contractId, reason });
            return;
          }
          const problems = wireProblems(holdingViewSchema, view.viewValue);
          if (problems.length > 0) {
            unreadable.push({ contractId: event.contractId, reason: `view ${describeProblems(problems)}` });
            return;
          }
          const value = view.viewValue as HoldingView;
          if (value.owner !== this.party || !wanted(value.instrumentId)) return;
          const amountIssue = amountProblem(value.amount);
          if (amountIssue !== undefined) {
            unreadable.push({ contractId: event.contractId, reason: amountIssue });
            return;
          }
          const lock = value.lock ?? null;
          const key = instrumentKey(value.instrumentId);
          let group = groups.get(key);
          if (group === undefined)
            groups.set(
              key,
              (group = { unlocked: [], locked: [], lockedSum: new AmountDecimal(0), lockedCount: 0 }),
            );
          if (lock !== null) {
            group.lockedSum = group.lockedSum.plus(amountValue(value.amount));
            group.lockedCount++;
            if (!withLocked) return;
          }
          (lock === null ? group.unlocked : group.locked).push({
            contractId: event.contractId,
            templateId: event.templateId,
            owner: value.owner,
            instrumentId: { admin: value.instrumentId.admin, id: value.instrumentId.id },
            amount: value.amount,
            lock:
              lock === null
                ? null
                : {
                    holders: lock.holders ?? [],
                    expiresAt: lock.expiresAt ?? null,
                    context: lock.context ?? null,
                  },
            meta: value.meta?.values ?? {},
            synchronizerId: contract.synchronizerId,
            createdEventBlob: event.createdEventBlob,
          });
        },
      },
    );
    const result: HoldingsRead = Object.assign(new Map<string, Holdings | undefined>(), {
      activeAtOffset,
      unreadable,
    });
    for (const [key, group] of groups) {
      result.set(key, {
        activeAtOffset,
        unlocked: group.unlocked,
        locked: group.locked,
        unlockedTotal: sumAmounts(group.unlocked.map((h) => h.amount)),
        lockedTotal: formatAmount(group.lockedSum),
        lockedCount: group.lockedCount,
        unreadable,
      });
    }
    return result;
  }

  /**
   * Pending transfer offers of the instrument to (incoming) or from (outgoing) the party, read through the
   * TransferInstruction view. Expired ones are included.
   */
  async transferOffers(instrument: InstrumentId, options: ReadOptions = {}): Promise<TransferOffer[]> {
    const offers: TransferOffer[] = [];
    await this.eachTransferOffer(instrument, (offer) => offers.push(offer), options);
    return offers;
  }

  /** `transferOffers`, one at a time as they arrive (a sender with 100,000 pending offers in constant memory). */
  async eachTransferOffer(
    instrument: InstrumentId,
    visit: (offer: TransferOffer) => void,
    options: ReadOptions = {},
  ): Promise<{ activeAtOffset: number }> {
    const { activeAtOffset } = await this.ledger.activeContracts(
      {
        parties: [this.party],
        filters: [{ interfaceId: TOKEN_INTERFACES.transferInstruction, includeInterfaceView: true }],
        ...(options.activeAtOffset === undefined ? {} : { activeAtOffset: options.activeAtOffset }),
      },
      {
        ...options,
        onContract: (contract) => {
          const offer = this.offerOf(contract.createdEvent, instrument);
          if (offer !== undefined) visit(offer);
        },
      },
    );
    return { activeAtOffset };
  }

  /** A created event as one of the party's offers of the instrument; undefined for anything else. */
  private offerOf(event: CreatedEvent, instrument: InstrumentId): TransferOffer | undefined {
    const view = (event.interfaceViews ?? []).find((v) =>
      sameEntity(v.interfaceId, TOKEN_INTERFACES.transferInstruction),
    );
    if (view === undefined) return undefined; // not a transfer instruction
    const problems = wireProblems(transferInstructionViewSchema, view.viewValue);
    if (problems.length > 0) {
      throw this.unreadable(event.contractId, 'TransferInstruction view', describeProblems(problems));
    }
    const { transfer, status, meta } = view.viewValue as TransferInstructionView;
    if (!sameInstrument(transfer.instrumentId, instrument)) return undefined;
    const direction =
      transfer.receiver === this.party ? 'incoming' : transfer.sender === this.party ? 'outgoing' : undefined;
    if (direction === undefined) return undefined;
    return {
      contractId: event.contractId,
      templateId: event.templateId,
      direction,
      sender: transfer.sender,
      receiver: transfer.receiver,
      amount: transfer.amount,
      instrumentId: { admin: transfer.instrumentId.admin, id: transfer.instrumentId.id },
      requestedAt: transfer.requestedAt,
      executeBefore: transfer.executeBefore,
      status: status?.tag,
      meta: { ...(meta?.values ?? {}), ...(transfer.meta?.values ?? {}) },
      offset: event.offset,
    };
  }

  /**
   * The registry's records of settled transfers of the instrument the party sent or received (accepted offers,
   * and transfers that settled at once), one at a time as they arrive.
   */
  async eachExecutedTransfer(
    instrument: InstrumentId,
    visit: (transfer: ExecutedTransfer) => void,
    options: ReadOptions = {},
  ): Promise<{ activeAtOffset: number }> {
    const { activeAtOffset } = await this.ledger.activeContracts(
      {
        parties: [this.party],
        filters: [{ templateId: TOKEN_TEMPLATES.executedTransfer }],
        ...(options.activeAtOffset === undefined ? {} : { activeAtOffset: options.activeAtOffset }),
      },
      {
        ...options,
        onContract: (contract) => {
          const transfer = this.executedTransferOf(contract.createdEvent, instrument);
          if (transfer !== undefined) visit(transfer);
        },
      },
    );
    return { activeAtOffset };
  }

  /** A created ExecutedTransfer the party sent or received, of the instrument; undefined for anything else. */
  private executedTransferOf(event: CreatedEvent, instrument: InstrumentId): ExecutedTransfer | undefined {
    const problems = wireProblems(executedTransferPayloadSchema, event.createArgument);
    if (problems.length > 0)
      throw this.unreadable(event.contractId, TOKEN_TEMPLATES.executedTransfer, describeProblems(problems));
    const payload = event.createArgument as ExecutedTransferPayload;
    if (!sameInstrument(payload.instrumentId, instrument)) return undefined;
    if (payload.sender !== this.party && payload.receiver !== this.party) return undefined;
    return {
      contractId: event.contractId,
      sender: payload.sender,
      receiver: payload.receiver,
      amount: payload.amount,
      instrumentId: { admin: payload.instrumentId.admin, id: payload.instrumentId.id },
      executedAt: payload.executedAt,
      meta: payload.meta?.values ?? {},
    };
  }

  /**
   * The history of the party's transfers of the instrument between two offsets, streamed: each offer it made or
   * received, each offer consumed (accepted, rejected, withdrawn) and each settlement the registry recorded, in
   * ledger order. What ended before the participant's pruning offset is not there (`prunedOffset`).
   */
  async eachTransferEvent(
    instrument: InstrumentId,
    range: { beginExclusive: number; endInclusive?: number },
    visit: (event: TransferEvent) => void,
    options: CallOptions = {},
  ): Promise<{ endInclusive: number }> {
    return this.ledger.eachTransaction(
      {
        parties: [this.party],
        beginExclusive: range.beginExclusive,
        ...(range.endInclusive === undefined ? {} : { endInclusive: range.endInclusive }),
        filters: [
          { interfaceId: TOKEN_INTERFACES.transferInstruction, includeInterfaceView: true },
          { templateId: TOKEN_TEMPLATES.executedTransfer },
        ],
        shape: 'LEDGER_EFFECTS',
      },
      (transaction) => {
        const at = { offset: transaction.offset, updateId: transaction.updateId };
        for (const event of transaction.events) {
          if (event.CreatedEvent !== undefined) {
            const created = event.CreatedEvent;
            if (sameEntity(created.templateId, TOKEN_TEMPLATES.executedTransfer)) {
              const transfer = this.executedTransferOf(created, instrument);
              if (transfer !== undefined) visit({ ...at, kind: 'settled', transfer });
              continue;
            }
            const offer = this.offerOf(created, instrument);
            if (offer !== undefined) visit({ ...at, kind: 'offer', offer });
          } else if (event.ExercisedEvent?.consuming === true) {
            const exercised = event.ExercisedEvent;
            visit({
              ...at,
              kind: 'offer-ended',
              contractId: exercised.contractId,
              end: OFFER_ENDS[exercised.choice] ?? 'other',
            });
          }
        }
      },
      options,
    );
  }

  /**
   * Allocations of the instrument the party takes part in (as sender, receiver or executor), read through the
   * Allocation view.
   */
  async allocations(instrument: InstrumentId, options: ReadOptions = {}): Promise<Allocation[]> {
    const { contracts } = await this.ledger.activeContracts(
      {
        parties: [this.party],
        filters: [{ interfaceId: TOKEN_INTERFACES.allocation, includeInterfaceView: true }],
        ...(options.activeAtOffset === undefined ? {} : { activeAtOffset: options.activeAtOffset }),
      },
      options,
    );
    const found: Allocation[] = [];
    for (const contract of contracts) {
      const event = contract.createdEvent;
      const view = (event.interfaceViews ?? []).find((v) =>
        sameEntity(v.interfaceId, TOKEN_INTERFACES.allocation),
      );
      if (view === undefined) continue;
      const problems = wireProblems(allocationViewSchema, view.viewValue);
      if (problems.length > 0)
        throw this.unreadable(event.contractId, 'Allocation view', describeProblems(problems));
      const { allocation, holdingCids } = view.viewValue as AllocationView;
      const leg = allocation.transferLeg;
      if (!sameInstrument(leg.instrumentId, instrument)) continue;
      found.push({
        contractId: event.contractId,
        templateId: event.templateId,
        executor: allocation.settlement.executor,
        settlementId: allocation.settlement.settlementRef.id,
        legId: allocation.transferLegId,
        sender: leg.sender,
        receiver: leg.receiver,
        amount: leg.amount,
        instrumentId: { admin: leg.instrumentId.admin, id: leg.instrumentId.id },
        allocateBefore: allocation.settlement.allocateBefore,
        settleBefore: allocation.settlement.settleBefore,
        holdingCids: holdingCids ?? [],
      });
    }
    return found;
  }

  /** The party's deposit accounts (owner = party). Key them by `accountId`: attestors re-create them. */
  async depositAccounts(options: ReadOptions = {}): Promise<DepositAccount[]> {
    const rows = await this.payloads<DepositAccountPayload>(
      TOKEN_TEMPLATES.depositAccount,
      depositAccountPayloadSchema,
      options,
    );
    return rows
      .filter(({ payload }) => payload.owner === this.party)
      .map(({ ref, payload }) => ({
        ...ref,
        accountId: payload.id ?? ref.contractId,
        id: payload.id ?? null,
        owner: payload.owner,
        operator: payload.operator,
        registrar: payload.registrar,
        lastProcessedBitcoinBlock: payload.lastProcessedBitcoinBlock,
        limits: limitsOf(payload.limits),
      }));
  }

  /** The party's withdraw accounts; one is consumed and re-created by each burn: read it again before the next. */
  async withdrawAccounts(options: ReadOptions = {}): Promise<WithdrawAccount[]> {
    const rows = await this.payloads<WithdrawAccountPayload>(
      TOKEN_TEMPLATES.withdrawAccount,
      withdrawAccountPayloadSchema,
      options,
    );
    return rows
      .filter(({ payload }) => payload.owner === this.party)
      .map(({ ref, payload }) => ({
        ...ref,
        accountId: payload.id ?? ref.contractId,
        id: payload.id ?? null,
        owner: payload.owner,
        operator: payload.operator,
        registrar: payload.registrar,
        destinationBtcAddress: payload.destinationBtcAddress,
        pendingBalance: payload.pendingBalance ?? '0',
        limits: limitsOf(payload.limits),
      }));
  }

  async withdrawRequests(options: ReadOptions = {}): Promise<WithdrawRequest[]> {
    const rows = await this.payloads<WithdrawRequestPayload>(
      TOKEN_TEMPLATES.withdrawRequest,
      withdrawRequestPayloadSchema,
      options,
    );
    return rows
      .filter(({ payload }) => payload.owner === this.party)
      .map(({ ref, payload }) => ({
        ...ref,
        owner: payload.owner,
        registrar: payload.registrar,
        amount: payload.amount,
        destinationBtcAddress: payload.destinationBtcAddress,
        btcTxId: payload.btcTxId ?? null,
        sourceAccountId: payload.sourceAccountId ?? null,
      }));
  }

  /** Credentials held by the party (see `isMinterCredential`). */
  credentials(options: ReadOptions = {}): Promise<Credential[]> {
    return this.credentialLike(TOKEN_TEMPLATES.credential, options);
  }

  /** Credential offers made to the party (issuer-initiated). */
  credentialOffers(options: ReadOptions = {}): Promise<Credential[]> {
    return this.credentialLike(TOKEN_TEMPLATES.credentialOffer, options);
  }

  /** The party's UserService contracts (the utility onboarding that lets it accept free credential offers). */
  async userServices(options: ReadOptions = {}): Promise<UserService[]> {
    const rows = await this.payloads<UserServicePayload>(
      TOKEN_TEMPLATES.userService,
      userServicePayloadSchema,
      options,
    );
    return rows
      .filter(({ payload }) => payload.user === this.party)
      .map(({ ref, payload }) => ({
        ...ref,
        operator: payload.operator,
        user: payload.user,
        dso: payload.dso,
      }));
  }

  /** Submits prepared commands as this party, under the caller's deterministic command id. */
  submit(
    commandId: string,
    prepared: PreparedCommands,
    options: PartySubmitOptions = {},
  ): Promise<Transaction> {
    return this.ledger.submitAndWaitForTransaction(
      {
        commandId,
        actAs: [this.party],
        commands: prepared.commands,
        disclosedContracts: prepared.disclosedContracts,
        ...(options.deduplication ? { deduplication: options.deduplication } : {}),
        ...(options.submissionId ? { submissionId: options.submissionId } : {}),
      },
      options,
    );
  }

  // -------------------------------------------------------------------------------------------------------------

  private async credentialLike(templateId: string, options: ReadOptions): Promise<Credential[]> {
    const rows = await this.payloads<CredentialPayload>(templateId, credentialPayloadSchema, options);
    return rows
      .filter(({ payload }) => payload.holder === this.party)
      .map(({ ref, payload }) => ({
        ...ref,
        issuer: payload.issuer,
        holder: payload.holder,
        id: payload.id,
        description: payload.description,
        claims: payload.claims ?? [],
      }));
  }

  /** Active contracts of a template (over HTTP, with blobs) and their payloads; a payload of another shape throws. */
  private async payloads<P>(
    templateId: string,
    schema: object,
    options: ReadOptions & CallOptions,
  ): Promise<Array<{ ref: ContractRef; payload: P }>> {
    const { contracts } = await this.ledger.activeContracts(
      {
        parties: [this.party],
        filters: [{ templateId, includeCreatedEventBlob: true }],
        ...(options.activeAtOffset === undefined ? {} : { activeAtOffset: options.activeAtOffset }),
      },
      { transport: 'http', ...options },
    );
    return contracts.map((contract) => {
      const problems = wireProblems(schema, contract.createdEvent.createArgument);
      if (problems.length > 0)
        throw this.unreadable(contract.createdEvent.contractId, templateId, describeProblems(problems));
      return { ref: refOf(contract), payload: contract.createdEvent.createArgument as P };
    });
  }

  private unreadable(contractId: string, what: string, problems: string): LedgerError {
    return new LedgerError({
      service: this.ledger.service,
      method: 'POST',
      path: '/v2/state/active-contracts',
      serviceMessage: `unexpected response: contract ${contractId} (${what}): ${problems}`,
      retryability: 'permanent',
      hint: 'the contract has a shape this ledgerbook does not know: is the package version one it supports?',
      kind: 'unexpected-response',
    });
  }
}
