/**
 * A distribution as the ledger shows it. Every transfer a distribution sends carries, in its metadata, the
 * distribution's id and the recipient's line, so what the distribution did for each receiver is read from the
 * ledger, whoever kept the journal: the sender's pending offers and the registry's records of settled transfers (a
 * snapshot), and, for receivers the snapshot does not show, the history of the sender's offers — how each ended:
 * accepted, rejected, withdrawn. An offer past its `executeBefore` is expired: it can no longer be accepted.
 * Comparing the view with the recipients file finds what is left to send, what changed in the file since, and
 * which (receiver, reference) the sender already paid under another distribution.
 */
import { compareAmounts } from '../../clients/amount.js';
import type {
  ExecutedTransfer,
  OfferEnd,
  PartyLedger,
  TransferEvent,
  TransferOffer,
} from '../../clients/party-ledger.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { META_KEYS } from '../../clients/token-wire.js';
import { canonicalJson, sha256 } from '../../digest.js';
import { short } from './common.js';
import type { Recipient } from './recipients.js';

/** Metadata keys of ledgerbook's own on transfers (`<domain>/<name>`, as the token standard asks of keys). */
export const DISTRIBUTION_META = {
  /** the distribution's id */
  distribution: 'ledgerbook.dev/distribution',
  /** the line of the recipients file (or entry of the list) the transfer pays */
  line: 'ledgerbook.dev/line',
} as const;

export type ReceiptStatus =
  /** an offer waits for the receiver */
  | 'offered'
  /** the offer is past its `executeBefore`: the receiver can no longer accept it, its amount stays locked */
  | 'expired'
  /** the receiver holds the amount (it accepted, or the transfer settled at once) */
  | 'settled'
  /** the receiver rejected the offer: the amount went back */
  | 'rejected'
  /** the sender withdrew the offer: the amount went back */
  | 'withdrawn'
  /** rejected or withdrawn, as receipts written before the two were told apart say */
  | 'returned';

/** What the ledger shows this distribution did for one receiver (its latest or best transfer). */
export interface Payment {
  receiver: string;
  amount: string;
  reference: string | null;
  /** the line the transfer was sent for, when its metadata says */
  line: number | null;
  status: ReceiptStatus;
  /** the offer (TransferInstruction) contract, when the transfer made one and it is known */
  offer: string | null;
  /** the registry's record of the settled transfer */
  settlement: string | null;
  /** the transaction that sent it, when known */
  update: string | null;
  /** the offset of that transaction, when known: of two offers, which came first */
  offset: number | null;
  /** a pending offer's `executeBefore` */
  expiresAt: string | null;
}

/** A transfer of this sender to a receiver of the file under another distribution (or none), still standing. */
export interface PaidElsewhere {
  receiver: string;
  /** the other distribution's id; null for a transfer without one (not sent by ledgerbook) */
  distribution: string | null;
  amount: string;
  reference: string | null;
  status: 'offered' | 'settled';
  /** the offer or the settlement record */
  contract: string;
}

/**
 * The distribution's id: from the playbook, the step, the sender and the instrument — not the target's name or the
 * file's content, so that a renamed target or an edited file is still recognised as the same distribution — or the
 * label the playbook gives (`distribution:`), to start another one or to continue one across playbooks.
 */
export function distributionId(parts: {
  label: string | undefined;
  playbook: string;
  step: string;
  sender: string;
  instrument: InstrumentId;
}): string {
  if (parts.label !== undefined) return parts.label;
  const digest = sha256(
    canonicalJson({
      v: 1,
      playbook: parts.playbook,
      step: parts.step,
      sender: parts.sender,
      instrument: parts.instrument,
    }),
  );
  return `${parts.playbook}/${parts.step}/${digest.slice(0, 16)}`;
}

/** The metadata of one transfer of the distribution (`splice…/reference` only when the recipient has one). */
export function transferMeta(
  distribution: string,
  recipient: Recipient,
  reason: string | undefined,
): Record<string, string> {
  return {
    [META_KEYS.reason]: reason ?? '',
    ...(recipient.reference === null ? {} : { [META_KEYS.reference]: recipient.reference }),
    [DISTRIBUTION_META.distribution]: distribution,
    [DISTRIBUTION_META.line]: String(recipient.line),
  };
}

function lineOf(meta: Record<string, string>): number | null {
  const line = Number(meta[DISTRIBUTION_META.line]);
  return Number.isSafeInteger(line) && line > 0 ? line : null;
}

/** One offer or settlement of the distribution to a receiver, as read. */
interface Transfer {
  receiver: string;
  amount: string;
  reference: string | null;
  line: number | null;
  /** an offer: pending, or how it ended; a settlement: settled */
  state: 'pending' | OfferEnd | 'settled';
  offer: string | null;
  settlement: string | null;
  update: string | null;
  offset: number | null;
  executeBefore: string | null;
}

const RANK: Record<ReceiptStatus, number> = {
  settled: 5,
  offered: 4,
  expired: 3,
  rejected: 2,
  withdrawn: 2,
  returned: 2,
};

/**
 * Everything the ledger shows of one distribution, receiver by receiver, kept up to date as the run reads on. A
 * receiver's status is its best transfer's — settled, else a pending offer, else an expired one, else how its
 * latest offer ended — and of two pending offers the first one counts; the others are `superseded` (a second offer
 * of one distribution to one receiver is never meant: the step withdraws them).
 */
export class DistributionView {
  /** by receiver: its offers and settlements in this distribution (usually one) */
  private readonly transfers = new Map<string, Transfer[]>();
  /** the receiver of each offer, by contract id, to follow how it ends */
  private readonly offers = new Map<string, string>();
  /** by receiver: what the sender paid it under other distributions, still standing */
  readonly elsewhere = new Map<string, PaidElsewhere[]>();
  /** the ledger was read up to this offset */
  offset = 0;
  /** history before this offset was pruned by the participant and could not be read (0: none) */
  prunedBefore = 0;

  constructor(
    readonly distribution: string,
    readonly sender: string,
    /** now, for telling an expired offer (the run's clock) */
    private readonly now: () => number,
  ) {}

  /** The receiver's standing in the distribution, or undefined when it never sent it anything. */
  payment(receiver: string): Payment | undefined {
    const best = this.best(receiver);
    if (best === undefined) return undefined;
    const payment = this.paymentOf(best);
    if (payment.status === 'settled') {
      // an accepted offer and the registry's record of its settlement: one payment, known by both
      for (const t of this.transfers.get(receiver) ?? []) {
        if (t === best || this.statusOf(t) !== 'settled') continue;
        payment.offer ??= t.offer;
        payment.settlement ??= t.settlement;
        payment.update = t.offer !== null ? (t.update ?? payment.update) : (payment.update ?? t.update);
        payment.line ??= t.line;
      }
    }
    return payment;
  }

  /** Receivers the distribution sent something to. */
  receivers(): IterableIterator<string> {
    return this.transfers.keys();
  }

  get size(): number {
    return this.transfers.size;
  }

  /** Pending offers of the distribution that are not their receiver's best (withdraw them to return the funds). */
  superseded(): Payment[] {
    const out: Payment[] = [];
    for (const [receiver, list] of this.transfers) {
      if (list.length < 2) continue;
      const best = this.best(receiver);
      for (const t of list)
        if (t !== best && t.state === 'pending' && t.offer !== null) out.push(this.paymentOf(t));
    }
    return out;
  }

  /** Records a pending offer of the sender (of this distribution, or of another one for `elsewhere`). */
  addOffer(offer: TransferOffer, update: string | null, receivers?: ReadonlySet<string>): void {
    if (offer.direction !== 'outgoing') return;
    if (offer.meta[DISTRIBUTION_META.distribution] !== this.distribution) {
      if (receivers?.has(offer.receiver) === true && !this.expired(offer.executeBefore ?? null))
        this.addElsewhere({
          receiver: offer.receiver,
          distribution: offer.meta[DISTRIBUTION_META.distribution] ?? null,
          amount: offer.amount,
          reference: offer.meta[META_KEYS.reference] ?? null,
          status: 'offered',
          contract: offer.contractId,
        });
      return;
    }
    this.add({
      receiver: offer.receiver,
      amount: offer.amount,
      reference: offer.meta[META_KEYS.reference] ?? null,
      line: lineOf(offer.meta),
      state: 'pending',
      offer: offer.contractId,
      settlement: null,
      update,
      offset: offer.offset ?? null,
      executeBefore: offer.executeBefore ?? null,
    });
  }

  /** Records a settlement the registry recorded for the sender. */
  addSettlement(
    transfer: ExecutedTransfer,
    at: { offset: number; update: string } | undefined,
    receivers?: ReadonlySet<string>,
  ): void {
    if (transfer.sender !== this.sender) return;
    if (transfer.meta[DISTRIBUTION_META.distribution] !== this.distribution) {
      if (receivers?.has(transfer.receiver) === true)
        this.addElsewhere({
          receiver: transfer.receiver,
          distribution: transfer.meta[DISTRIBUTION_META.distribution] ?? null,
          amount: transfer.amount,
          reference: transfer.meta[META_KEYS.reference] ?? null,
          status: 'settled',
          contract: transfer.contractId,
        });
      return;
    }
    this.add({
      receiver: transfer.receiver,
      amount: transfer.amount,
      reference: transfer.meta[META_KEYS.reference] ?? null,
      line: lineOf(transfer.meta),
      state: 'settled',
      offer: null,
      settlement: transfer.contractId,
      update: at?.update ?? null,
      offset: at?.offset ?? null,
      executeBefore: null,
    });
  }

  /** An event of the sender's history (or of what happened since the last read): applied to the view. */
  apply(event: TransferEvent): void {
    if (event.kind === 'offer') this.addOffer(event.offer, event.updateId);
    else if (event.kind === 'settled')
      this.addSettlement(event.transfer, { offset: event.offset, update: event.updateId });
    else this.ended(event.contractId, event.end);
  }

  /** A transfer this run sent (or found) that the reads have not shown yet. */
  record(payment: Payment): void {
    this.add({
      receiver: payment.receiver,
      amount: payment.amount,
      reference: payment.reference,
      line: payment.line,
      state: payment.status === 'settled' ? 'settled' : 'pending',
      offer: payment.offer,
      settlement: payment.settlement,
      update: payment.update,
      offset: payment.offset,
      executeBefore: payment.expiresAt,
    });
  }

  private ended(contractId: string, end: OfferEnd): void {
    const receiver = this.offers.get(contractId);
    if (receiver === undefined) return;
    this.offers.delete(contractId);
    const transfer = this.transfers.get(receiver)?.find((t) => t.offer === contractId);
    if (transfer !== undefined && transfer.state === 'pending') transfer.state = end;
  }

  private add(transfer: Transfer): void {
    let list = this.transfers.get(transfer.receiver);
    if (list === undefined) this.transfers.set(transfer.receiver, (list = []));
    const same = list.findIndex(
      (t) =>
        (transfer.offer !== null && t.offer === transfer.offer) ||
        (transfer.settlement !== null && t.settlement === transfer.settlement) ||
        (transfer.update !== null && t.update === transfer.update && t.state === transfer.state),
    );
    if (same >= 0) {
      const known = list[same] as Transfer;
      // what a read adds to what was known of it: where it landed, the offer a settlement came from
      known.update ??= transfer.update;
      known.offset ??= transfer.offset;
      known.offer ??= transfer.offer;
      known.settlement ??= transfer.settlement;
      known.line ??= transfer.line;
      return;
    }
    list.push(transfer);
    if (transfer.offer !== null && transfer.state === 'pending')
      this.offers.set(transfer.offer, transfer.receiver);
  }

  private addElsewhere(paid: PaidElsewhere): void {
    const list = this.elsewhere.get(paid.receiver);
    if (list === undefined) this.elsewhere.set(paid.receiver, [paid]);
    else if (!list.some((p) => p.contract === paid.contract)) list.push(paid);
  }

  private expired(executeBefore: string | null): boolean {
    return executeBefore !== null && Date.parse(executeBefore) <= this.now();
  }

  private statusOf(t: Transfer): ReceiptStatus {
    switch (t.state) {
      case 'settled':
      case 'accepted':
        return 'settled';
      case 'pending':
        return this.expired(t.executeBefore) ? 'expired' : 'offered';
      case 'rejected':
        return 'rejected';
      case 'withdrawn':
        return 'withdrawn';
      default:
        return 'returned';
    }
  }

  /** settled, else the first pending offer, else the latest expired one, else how the latest offer ended */
  private best(receiver: string): Transfer | undefined {
    const list = this.transfers.get(receiver);
    if (list === undefined || list.length === 0) return undefined;
    let best = list[0] as Transfer;
    for (const t of list.slice(1)) {
      const [a, b] = [RANK[this.statusOf(t)], RANK[this.statusOf(best)]];
      const later = (t.offset ?? Number.MAX_SAFE_INTEGER) > (best.offset ?? Number.MAX_SAFE_INTEGER);
      // of two live offers the first counts; of two that ended (or expired), the latest says where it stands
      if (a > b || (a === b && (a === RANK.offered ? !later : later))) best = t;
    }
    return best;
  }

  private paymentOf(t: Transfer): Payment {
    return {
      receiver: t.receiver,
      amount: t.amount,
      reference: t.reference,
      line: t.line,
      status: this.statusOf(t),
      offer: t.offer,
      settlement: t.settlement,
      update: t.update,
      offset: t.offset,
      expiresAt: t.state === 'pending' ? t.executeBefore : null,
    };
  }
}

/**
 * Reads what the distribution did: in one snapshot the sender's pending offers and the registry's records of its
 * settled transfers (those of other distributions too, for `receivers`); then, when a receiver of `receivers` is
 * not there, the history of the sender's offers up to the snapshot, from the participant's pruning offset, for the
 * offers that ended unpaid. Read as streams: a distribution of 100,000 is 100,000 small records.
 */
export async function readDistribution(args: {
  sender: PartyLedger;
  instrument: InstrumentId;
  distribution: string;
  /** the file's receivers */
  receivers: ReadonlySet<string>;
  now: () => number;
  signal: AbortSignal;
}): Promise<DistributionView> {
  const { sender, instrument, receivers, signal } = args;
  const view = new DistributionView(args.distribution, sender.party, args.now);
  const { activeAtOffset } = await sender.eachTransferOffer(
    instrument,
    (offer) => view.addOffer(offer, null, receivers),
    { signal },
  );
  // the same snapshot: an offer accepted in between is in neither read or in both, never lost
  await sender.eachExecutedTransfer(
    instrument,
    (transfer) => view.addSettlement(transfer, undefined, receivers),
    { signal, activeAtOffset },
  );
  view.offset = activeAtOffset;
  if ([...receivers].some((r) => view.payment(r) === undefined)) {
    const pruned = await sender.ledger.prunedOffset({ signal });
    view.prunedBefore = pruned;
    if (pruned < activeAtOffset)
      await sender.eachTransferEvent(
        instrument,
        { beginExclusive: pruned, endInclusive: activeAtOffset },
        (event) => view.apply(event),
        { signal },
      );
  }
  return view;
}

/** Brings the view up to the ledger end: every offer made, ended or settled since the last read. */
export async function catchUp(
  view: DistributionView,
  sender: PartyLedger,
  instrument: InstrumentId,
  signal: AbortSignal,
): Promise<void> {
  const { endInclusive } = await sender.eachTransferEvent(
    instrument,
    { beginExclusive: view.offset },
    (event) => view.apply(event),
    { signal },
  );
  view.offset = Math.max(view.offset, endInclusive);
}

/** A recipient whose line changed after the distribution paid it. */
export interface Conflict {
  recipient: Recipient;
  payment: Payment;
}

/** A recipient the sender already paid, with the same reference, under another distribution. */
export interface PaidTwice {
  recipient: Recipient;
  paid: PaidElsewhere;
}

export interface Comparison {
  conflicts: Conflict[];
  /** sent to by the distribution, no longer in the file */
  removed: Payment[];
  /** (receiver, reference) of the file the sender paid under another distribution, and this one has not */
  elsewhere: PaidTwice[];
}

/**
 * The file against what the ledger shows: changed lines, removed recipients, and recipients another distribution
 * of this sender paid with the same reference (both without one counts as the same).
 */
export function compare(recipients: readonly Recipient[], view: DistributionView): Comparison {
  const conflicts: Conflict[] = [];
  const elsewhere: PaidTwice[] = [];
  const listed = new Set<string>();
  for (const recipient of recipients) {
    listed.add(recipient.receiver);
    const payment = view.payment(recipient.receiver);
    if (payment === undefined) {
      const paid = view.elsewhere.get(recipient.receiver)?.find((p) => p.reference === recipient.reference);
      if (paid !== undefined) elsewhere.push({ recipient, paid });
      continue;
    }
    const sameAmount = compareAmounts(payment.amount, recipient.amount) === 0;
    const sameReference = (payment.reference ?? null) === recipient.reference;
    if (!sameAmount || !sameReference) conflicts.push({ recipient, payment });
  }
  const removed: Payment[] = [];
  for (const receiver of view.receivers()) {
    if (listed.has(receiver)) continue;
    const payment = view.payment(receiver);
    if (payment !== undefined) removed.push(payment);
  }
  return { conflicts, removed, elsewhere };
}

export function describePayment(payment: Payment): string {
  const what =
    payment.status === 'settled'
      ? `settled${payment.settlement === null ? '' : `, ${short(payment.settlement)}`}`
      : `${payment.status}, offer ${short(payment.offer ?? '?')}${payment.status === 'expired' && payment.expiresAt !== null ? ` since ${payment.expiresAt}` : ''}`;
  const ref = payment.reference === null ? '' : `, reference ${JSON.stringify(payment.reference)}`;
  const line = payment.line === null ? '' : ` for line ${payment.line}`;
  return `${payment.amount}${ref} (${what}${line})`;
}

/** `0.5, reference "x" (settled, under distribution d)`: a payment of another distribution, for a person. */
export function describeElsewhere(paid: PaidElsewhere): string {
  const ref = paid.reference === null ? '' : `, reference ${JSON.stringify(paid.reference)}`;
  const under =
    paid.distribution === null
      ? 'without a distribution id'
      : `under distribution ${JSON.stringify(paid.distribution)}`;
  return `${paid.amount}${ref} (${paid.status}, ${short(paid.contract)}, ${under})`;
}
