/**
 * A distribution as the ledger shows it. Every transfer a distribution sends carries, in its metadata, the
 * distribution's id and the recipient's line; the sender's pending offers and the registry's records of settled
 * transfers (visible to the sender) carrying that id are what the distribution has paid, whoever kept the journal.
 * Comparing them with the recipients file finds what is left to send, and what changed in the file since.
 */
import { compareAmounts } from '../../clients/amount.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { META_KEYS } from '../../clients/token-wire.js';
import { sha256, canonicalJson } from '../../engine/digest.js';
import type { Recipient } from './recipients.js';
import { short } from './common.js';

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
  /** the receiver holds the amount (it accepted, or the transfer settled at once) */
  | 'settled'
  /** the offer was rejected by the receiver or withdrawn by the sender: the amount went back */
  | 'returned';

/** What the ledger shows this distribution paid one receiver. */
export interface Payment {
  receiver: string;
  amount: string;
  reference: string | null;
  /** the line the transfer was sent for, when its metadata says */
  line: number | null;
  status: ReceiptStatus;
  /** the offer (TransferInstruction) contract, while it is pending or when it is known from a receipt */
  offer: string | null;
  /** the registry's record of the settled transfer */
  settlement: string | null;
  /** the transaction that sent it, when known */
  update: string | null;
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

/**
 * What the distribution has paid, by receiver: the sender's pending offers and settled transfers that carry its id.
 * Read as streams: a distribution of 100,000 is a map of 100,000 small records, not of 100,000 contracts.
 */
export async function readPayments(
  sender: PartyLedger,
  instrument: InstrumentId,
  distribution: string,
  signal: AbortSignal,
): Promise<{ payments: Map<string, Payment>; offset: number }> {
  const payments = new Map<string, Payment>();
  const mine = (meta: Record<string, string>): boolean =>
    meta[DISTRIBUTION_META.distribution] === distribution;
  const { activeAtOffset } = await sender.eachTransferOffer(
    instrument,
    (offer) => {
      if (offer.direction !== 'outgoing' || !mine(offer.meta)) return;
      payments.set(offer.receiver, {
        receiver: offer.receiver,
        amount: offer.amount,
        reference: offer.meta[META_KEYS.reference] ?? null,
        line: lineOf(offer.meta),
        status: 'offered',
        offer: offer.contractId,
        settlement: null,
        update: null,
      });
    },
    { signal },
  );
  // the same snapshot: an offer accepted in between is in neither read or in both, never lost
  await sender.eachExecutedTransfer(
    instrument,
    (transfer) => {
      if (transfer.sender !== sender.party || !mine(transfer.meta)) return;
      payments.set(transfer.receiver, {
        receiver: transfer.receiver,
        amount: transfer.amount,
        reference: transfer.meta[META_KEYS.reference] ?? null,
        line: lineOf(transfer.meta),
        status: 'settled',
        offer: payments.get(transfer.receiver)?.offer ?? null,
        settlement: transfer.contractId,
        update: null,
      });
    },
    { signal, activeAtOffset },
  );
  return { payments, offset: activeAtOffset };
}

/** A recipient whose line changed after the distribution paid it. */
export interface Conflict {
  recipient: Recipient;
  payment: Payment;
}

export interface Comparison {
  conflicts: Conflict[];
  /** paid by the distribution, no longer in the file */
  removed: Payment[];
  /** recipients the distribution has paid (in sync) */
  paid: number;
}

/** The file against what the ledger shows paid: changed lines, removed recipients, and how many are paid. */
export function compare(
  recipients: readonly Recipient[],
  payments: ReadonlyMap<string, Payment>,
): Comparison {
  const conflicts: Conflict[] = [];
  const listed = new Set<string>();
  let paid = 0;
  for (const recipient of recipients) {
    listed.add(recipient.receiver);
    const payment = payments.get(recipient.receiver);
    if (payment === undefined) continue;
    const sameAmount = compareAmounts(payment.amount, recipient.amount) === 0;
    const sameReference = (payment.reference ?? null) === recipient.reference;
    if (sameAmount && sameReference) paid++;
    else conflicts.push({ recipient, payment });
  }
  const removed = [...payments.values()].filter((p) => !listed.has(p.receiver));
  return { conflicts, removed, paid };
}

export function describePayment(payment: Payment): string {
  const what =
    payment.status === 'offered'
      ? `offer ${short(payment.offer ?? '?')}`
      : payment.status === 'settled'
        ? `settled, ${short(payment.settlement ?? '?')}`
        : `returned, offer ${short(payment.offer ?? '?')}`;
  const ref = payment.reference === null ? '' : `, reference ${JSON.stringify(payment.reference)}`;
  const line = payment.line === null ? '' : ` for line ${payment.line}`;
  return `${payment.amount}${ref} (${what}${line})`;
}
