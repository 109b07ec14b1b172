import { describe, expect, it } from 'vitest';
import type { ExecutedTransfer, TransferOffer } from '../../clients/party-ledger.js';
import { DISTRIBUTION_META, DistributionView, compare } from './distribution.js';
import type { Recipient } from './recipients.js';

const SENDER = `minter::1220${'b'.repeat(64)}`;
const INSTRUMENT = { admin: `cbtc-network::1220${'c'.repeat(64)}`, id: 'CBTC' };
const party = (n: number): string => `holder-${n}::1220${'a'.repeat(64)}`;
const NOW = Date.parse('2026-11-26T12:00:00Z');
const later = '2026-12-01T00:00:00Z';
const earlier = '2026-11-20T00:00:00Z';

function offer(
  contractId: string,
  receiver: string,
  o: {
    distribution?: string;
    reference?: string;
    executeBefore?: string;
    offset?: number;
    amount?: string;
  } = {},
): TransferOffer {
  return {
    contractId,
    templateId: 'p:M:TransferOffer',
    direction: 'outgoing',
    sender: SENDER,
    receiver,
    amount: o.amount ?? '0.5',
    instrumentId: INSTRUMENT,
    requestedAt: undefined,
    executeBefore: o.executeBefore ?? later,
    status: 'TransferPendingReceiverAcceptance',
    meta: {
      [DISTRIBUTION_META.distribution]: o.distribution ?? 'd1',
      [DISTRIBUTION_META.line]: '2',
      ...(o.reference === undefined ? {} : { 'splice.lfdecentralizedtrust.org/reference': o.reference }),
    },
    offset: o.offset,
  };
}

function settlement(contractId: string, receiver: string, distribution = 'd1'): ExecutedTransfer {
  return {
    contractId,
    sender: SENDER,
    receiver,
    amount: '0.5',
    instrumentId: INSTRUMENT,
    executedAt: undefined,
    meta: { [DISTRIBUTION_META.distribution]: distribution },
  };
}

const view = (): DistributionView => new DistributionView('d1', SENDER, () => NOW);
const at = (offset: number) => ({ offset, updateId: `u${offset}` });

describe('DistributionView', () => {
  it('says where each receiver stands from its offers and settlements: settled, offered, expired, how it ended', () => {
    const v = view();
    v.addOffer(offer('o1', party(1)), null);
    v.addOffer(offer('o2', party(2), { executeBefore: earlier }), null);
    v.addSettlement(settlement('s3', party(3)), undefined);
    // history: an offer made, then rejected; another made, then withdrawn; another made, then accepted
    v.apply({ ...at(5), kind: 'offer', offer: offer('o4', party(4), { offset: 5 }) });
    v.apply({ ...at(6), kind: 'offer-ended', contractId: 'o4', end: 'rejected' });
    v.apply({ ...at(7), kind: 'offer', offer: offer('o5', party(5), { offset: 7 }) });
    v.apply({ ...at(8), kind: 'offer-ended', contractId: 'o5', end: 'withdrawn' });
    v.apply({ ...at(9), kind: 'offer', offer: offer('o6', party(6), { offset: 9 }) });
    v.apply({ ...at(10), kind: 'offer-ended', contractId: 'o6', end: 'accepted' });
    v.apply({ ...at(10), kind: 'settled', transfer: settlement('s6', party(6)) });
    const status = (n: number) => v.payment(party(n))?.status;
    expect([1, 2, 3, 4, 5, 6, 7].map(status)).toEqual([
      'offered',
      'expired',
      'settled',
      'rejected',
      'withdrawn',
      'settled',
      undefined,
    ]);
    // an accepted offer and its settlement record are one payment, known by both
    expect(v.payment(party(6))).toMatchObject({ offer: 'o6', settlement: 's6', update: 'u9' });
    expect(v.payment(party(2))).toMatchObject({ expiresAt: earlier, offer: 'o2' });
    expect(v.superseded()).toEqual([]);
  });

  it('a re-offer supersedes the expired offer it replaces; of two live offers the first counts', () => {
    const v = view();
    v.addOffer(offer('old', party(1), { executeBefore: earlier, offset: 3 }), null);
    v.record({
      receiver: party(1),
      amount: '0.5',
      reference: null,
      line: 2,
      status: 'offered',
      offer: 'new',
      settlement: null,
      update: 'u20',
      offset: 20,
      expiresAt: later,
    });
    expect(v.payment(party(1))).toMatchObject({ status: 'offered', offer: 'new' });
    expect(v.superseded().map((p) => [p.offer, p.status])).toEqual([['old', 'expired']]);
    // two runners raced where nothing deduplicates: the second offer is the one to withdraw
    v.addOffer(offer('first', party(2), { offset: 30 }), null);
    v.addOffer(offer('second', party(2), { offset: 31 }), null);
    expect(v.payment(party(2))?.offer).toBe('first');
    expect(v.superseded().map((p) => p.offer)).toEqual(['old', 'second']);
    // once withdrawn, it is history
    v.apply({ ...at(40), kind: 'offer-ended', contractId: 'old', end: 'withdrawn' });
    v.apply({ ...at(41), kind: 'offer-ended', contractId: 'second', end: 'withdrawn' });
    expect(v.superseded()).toEqual([]);
    expect(v.payment(party(1))?.offer).toBe('new');
  });

  it('what other distributions paid to the file’s receivers, still standing, refuses the same (receiver, reference)', () => {
    const v = view();
    const receivers = new Set([party(1), party(2), party(3), party(4)]);
    v.addOffer(offer('x1', party(1), { distribution: 'old-name', reference: 'nov' }), null, receivers);
    v.addSettlement(settlement('x2', party(2), 'old-name'), undefined, receivers);
    v.addOffer(offer('x3', party(3), { distribution: 'old-name', reference: 'oct' }), null, receivers);
    // an expired offer elsewhere pays nobody; a receiver not in the file is not kept
    v.addOffer(offer('x4', party(4), { distribution: 'old-name', executeBefore: earlier }), null, receivers);
    v.addOffer(offer('x5', party(5), { distribution: 'old-name' }), null, receivers);
    v.addOffer(offer('mine', party(4)), null, receivers);
    const line = (n: number, reference: string | null): Recipient => ({
      line: n + 1,
      receiver: party(n),
      amount: '0.5',
      reference,
    });
    const { elsewhere, conflicts, removed } = compare(
      [line(1, 'nov'), line(2, null), line(3, 'nov'), line(4, null)],
      v,
    );
    expect(elsewhere.map((e) => [e.recipient.receiver, e.paid.contract, e.paid.status])).toEqual([
      [party(1), 'x1', 'offered'],
      [party(2), 'x2', 'settled'],
    ]);
    expect(conflicts).toEqual([]);
    expect(removed).toEqual([]);
    expect(v.elsewhere.has(party(5))).toBe(false);
  });
});
