/**
 * What the token step kinds share: naming a party the target acts as, the target's instrument, amounts as
 * decimal strings, durations, the schema pieces of their `with` blocks, and the static checks of them (before
 * anything is sent).
 */
import { amountValue, compareAmounts, positiveAmountProblem } from '../../clients/amount.js';
import { bitcoinAddressProblem } from '../../clients/bitcoin-address.js';
import { isLedgerError, type LedgerError } from '../../clients/ledger-errors.js';
import type { Holding } from '../../clients/party-ledger.js';
import type { AccountLimits, InstrumentId } from '../../clients/token-wire.js';
import type { StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';
import { ADDRESS_HINT } from './address.declaration.js';
import { nodeOf, partyRefFinding, resolvePartyRef } from './common.declaration.js';

/** The same check, for an address an expression computed: a StepError naming the field. */
export function requireBitcoinAddress(
  value: string,
  ctx: Pick<StepContext, 'target'>,
  field: string,
): string {
  const problem = bitcoinAddressProblem(value, ctx.target?.network);
  if (problem !== undefined)
    throw new StepError(`with.${field}: ${value}: ${problem}`, { hint: ADDRESS_HINT });
  return value;
}

/** A positive amount, or a StepError naming the field (for values computed by an expression). */
export function requireAmount(value: string, field: string): string {
  const problem = positiveAmountProblem(value);
  if (problem !== undefined) {
    throw new StepError(`with.${field}: ${problem}`, {
      hint: 'an amount is a decimal string > 0 with at most 10 fraction digits, e.g. "0.05"',
    });
  }
  return value;
}

/** The target's instrument (admin and id), which holdings are matched on. */
export function instrumentOf(ctx: Pick<StepContext, 'target'>): InstrumentId {
  const instrument = ctx.target?.instrument;
  if (instrument === undefined) {
    throw new StepError('the target names no instrument', {
      hint: 'add instrument: {admin: <the registrar party>, id: <e.g. CBTC>} to the target',
    });
  }
  return { admin: instrument.admin, id: instrument.id };
}

/** A party id from a name under the target's `parties:` or a party id; a StepError when it is neither. */
export function partyIdOf(ctx: StepContext, ref: string): string {
  const party = resolvePartyRef(ctx.target, ref);
  if (party === undefined) {
    const finding = partyRefFinding(ref, ctx.target, '');
    throw new StepError(finding.message, { hint: finding.hint });
  }
  return party;
}

/**
 * The parties among `parties` that the network does not know — the participant's party lookup, as the node of the
 * party the target acts as under `acting` sees it: a party never allocated, or on a synchronizer that node is not
 * connected to. The lookup needs ParticipantAdmin (or IdentityProviderAdmin): tried with the party's own
 * credentials, then with its node's.
 */
export async function unknownParties(
  ctx: StepContext,
  acting: string,
  parties: readonly string[],
): Promise<Set<string>> {
  if (parties.length === 0) return new Set();
  const node = nodeOf(ctx.target, acting);
  const own = ctx.clients.party(acting).ledger;
  let known: Set<string>;
  try {
    known = await own.knownParties(parties, { signal: ctx.signal });
  } catch (error) {
    const nodeLedger = node === undefined ? undefined : ctx.clients.ledger(node);
    if (!isLedgerError(error, 'permission-denied')) throw error;
    if (nodeLedger === undefined || nodeLedger === own) throw lookupRefused(error, node);
    try {
      known = await nodeLedger.knownParties(parties, { signal: ctx.signal });
    } catch (again) {
      throw isLedgerError(again, 'permission-denied') ? lookupRefused(again, node) : again;
    }
  }
  return new Set(parties.filter((p) => !known.has(p)));
}

function lookupRefused(error: LedgerError, node: string | undefined): StepError {
  return new StepError(
    `the receivers cannot be checked against the network: ${node ?? 'the node'}'s participant refused the party lookup (${error.message})`,
    {
      hint: `the party lookup (GET /v2/parties/{party}) needs a ledger user with ParticipantAdmin or IdentityProviderAdmin: give nodes.${node ?? '<node>'}.auth credentials with that right (an operator's usually have it); nothing was sent`,
      cause: error,
    },
  );
}

/** A duration of the `with` block (`168h`, `5m`) in ms. */
export function durationMs(text: string | undefined, fallback: string): number {
  return parseDuration(text ?? fallback);
}

/** Why an amount lies outside an account's limits (inclusive), or undefined when it lies within them. */
export function limitProblem(
  what: 'deposit' | 'withdrawal',
  amount: string,
  limits: AccountLimits | null,
): string | undefined {
  if (limits === null) return undefined;
  if (limits.minAmount !== null && compareAmounts(amount, limits.minAmount) < 0)
    return `a ${what} of ${amount} is below the account's minimum ${limits.minAmount}`;
  if (limits.maxAmount !== null && compareAmounts(amount, limits.maxAmount) > 0)
    return `a ${what} of ${amount} exceeds the account's maximum ${limits.maxAmount}`;
  return undefined;
}

export function describeLimits(limits: AccountLimits | null): string {
  if (limits === null) return 'no limits';
  return `min ${limits.minAmount ?? 'none'}, max ${limits.maxAmount ?? 'none'}`;
}

/** `abcdef12…` for ids in messages */
export function short(id: string): string {
  return id.length > 16 ? `${id.slice(0, 12)}…` : id;
}

/** The holdings to spend: the largest first, until they cover the amount (the rest comes back as change). */
export function selectTokens(unlocked: readonly Holding[], amount: string): Holding[] {
  const sorted = [...unlocked].sort((a, b) => compareAmounts(b.amount, a.amount));
  const chosen: Holding[] = [];
  let total = amountValue('0');
  for (const holding of sorted) {
    if (total.greaterThanOrEqualTo(amountValue(amount))) break;
    chosen.push(holding);
    total = total.plus(amountValue(holding.amount));
  }
  return total.greaterThanOrEqualTo(amountValue(amount)) ? chosen : [];
}
