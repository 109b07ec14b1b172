/**
 * What the token step kinds share: naming a party the target acts as, the target's instrument, amounts as
 * decimal strings, durations, the schema pieces of their `with` blocks, and the static checks of them (before
 * anything is sent).
 */
import { amountValue, compareAmounts, positiveAmountProblem } from '../../clients/amount.js';
import { bitcoinAddressProblem } from '../../clients/bitcoin-address.js';
import type { Holding } from '../../clients/party-ledger.js';
import type { AccountLimits, InstrumentId } from '../../clients/token-wire.js';
import { isLedgerError, type LedgerError } from '../../clients/ledger-errors.js';
import { StepError } from '../../errors.js';
import type { StaticFinding, StepContext } from '../../engine/step.js';
import { parseDuration } from '../../playbook/duration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import type { Target } from '../../playbook/target.js';

export const partyNameSchema = {
  type: 'string',
  pattern: '^[a-z][a-z0-9_-]*$',
  description:
    'A party the target acts as: a name under `parties:` written `{party, node}` (its node’s ledger API, and credentials that may act as it).',
} as const;

/** A party by name (any entry of the target's `parties:`) or a party id. */
export const partyRefSchema = {
  type: 'string',
  minLength: 1,
  description: 'A party: a name under the target’s `parties:`, or a party id `<hint>::1220…`.',
} as const;

/** A positive token amount: a decimal string with at most 10 fraction digits. */
export const amountSchema = {
  type: 'string',
  pattern: '^\\d{1,28}(\\.\\d{1,10})?$',
  description: 'An amount: a decimal string > 0 with at most 28 integer and 10 fraction digits, e.g. "0.05".',
} as const;

export const btcAddressSchema = {
  type: 'string',
  pattern: '^((bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}|[123mn][1-9A-HJ-NP-Za-km-z]{25,34})$',
  description:
    'A Bitcoin address: bech32 (`bc1…`, `tb1…`, `bcrt1…`) or base58, checked with its checksum and against the Bitcoin network of the target’s `network` (mainnet, else testnet).',
} as const;

const ADDRESS_HINT =
  'copy the address again from the wallet that is to receive the BTC; a Bitcoin address carries a checksum, so a mistyped character is caught here rather than on the chain';

/** Static check: `value` is a Bitcoin address, checksum included, of the network the target's attestors pay on. */
export function checkBitcoinAddress(
  value: unknown,
  target: Target | undefined,
  pointer: string,
): StaticFinding[] {
  if (typeof value !== 'string' || hasExpression(value)) return [];
  const problem = bitcoinAddressProblem(value, target?.network);
  return problem === undefined
    ? []
    : [{ pointer, message: `${value}: ${problem}`, expected: 'a Bitcoin address', hint: ADDRESS_HINT }];
}

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

/**
 * `<hint>::<68 hex>`: the hint as Canton takes it (a Daml-LF party name without the `::` delimiter, at most 185
 * characters) narrowed to letters, digits, `-` and `_` (a space or a lone colon is legal there but is no hint
 * anyone types); the namespace a fingerprint, `1220` and 64 lowercase hex digits.
 */
const PARTY_ID = /^[A-Za-z0-9_-]{1,185}::[0-9a-f]{68}$/;
const PARTY_ID_HINT =
  'a party id is <hint>::<68 hex digits> (letters, digits, - and _ before the ::), e.g. holder-001::1220… as the ledger writes it';
/** what no one sees on a screen: controls, format characters (zero-width, bidi), spaces other than ' ', marks */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\p{Mn}\p{Me}]/u;

export function isPartyId(value: string): boolean {
  return PARTY_ID.test(value);
}

/** `U+200B`: a code point as Unicode writes it */
function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The text with every character outside printable ASCII written `\u200b`, so that nothing in it hides. */
export function visibleText(text: string): string {
  return [...text]
    .map((c) => {
      if (/[\x20-\x7e]/.test(c)) return c;
      const hex = (c.codePointAt(0) ?? 0).toString(16);
      return hex.length <= 4 ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
    })
    .join('');
}

/**
 * What makes `value` no party id, for a person: an invisible character (a zero-width space copied along with
 * it), a character a party id cannot have, or the wrong form; undefined for a party id. `at` is the character's
 * index in `value` (for the column of a finding).
 */
export function partyIdProblem(value: string): { message: string; hint: string; at: number } | undefined {
  if (PARTY_ID.test(value)) return undefined;
  const shown = value.length > 300 ? `${visibleText(value.slice(0, 297))}…` : visibleText(value);
  let index = 0;
  for (const char of value) {
    if (!/[A-Za-z0-9_:-]/.test(char)) {
      const what = INVISIBLE.test(char)
        ? `an invisible character (${codePoint(char)})`
        : `a character a party id cannot have ('${char}', ${codePoint(char)})`;
      return {
        message: `'${shown}' has ${what} at position ${index + 1}`,
        hint: `${PARTY_ID_HINT}; retype it, or copy it again from where the ledger shows it (an editor or a spreadsheet may have added the character)`,
        at: index,
      };
    }
    index += char.length;
  }
  return { message: `'${shown}' is not a party id`, hint: PARTY_ID_HINT, at: 0 };
}

/** Static check: `name` is a party the target acts as (`parties.<name>: {party, node}`). */
export function checkActingParty(
  name: unknown,
  target: Target | undefined,
  pointer: string,
): StaticFinding[] {
  if (typeof name !== 'string' || hasExpression(name) || target === undefined) return [];
  const declared = target.parties?.[name];
  const names = Object.entries(target.parties ?? {})
    .filter(([, p]) => typeof p === 'object')
    .map(([n]) => n);
  if (declared === undefined) {
    return [
      {
        pointer,
        message: `the target has no party '${name}'`,
        hint: `parties this target acts as: ${names.join(', ') || 'none'}; add parties.${name}: {party: <party id>, node: <node>} to the target`,
      },
    ];
  }
  if (typeof declared === 'string') {
    return [
      {
        pointer,
        message: `party '${name}' is only named in the target: ledgerbook cannot act as it`,
        hint: `write parties.${name}: {party: ${declared}, node: <the node hosting it>} in the target`,
      },
    ];
  }
  return [];
}

/** Static check: `ref` is a party id, or a name under the target's `parties:`. */
export function checkPartyRef(ref: unknown, target: Target | undefined, pointer: string): StaticFinding[] {
  if (typeof ref !== 'string' || hasExpression(ref) || isPartyId(ref) || target === undefined) return [];
  if (target.parties?.[ref] !== undefined) return [];
  return [partyRefFinding(ref, target, pointer)];
}

/** Why `ref` is neither a party id nor a name under the target's `parties:` (what is wrong with an id written out). */
export function partyRefFinding(ref: string, target: Target | undefined, pointer: string): StaticFinding {
  const problem = ref.includes('::') ? partyIdProblem(ref) : undefined;
  if (problem !== undefined) return { pointer, message: problem.message, hint: problem.hint };
  return {
    pointer,
    message: `'${visibleText(ref)}' is neither a party id nor a party of the target`,
    expected: 'a party id <hint>::1220<64 hex>, or a name under parties:',
    hint: `parties of this target: ${Object.keys(target?.parties ?? {}).join(', ') || 'none'}`,
  };
}

/** Static check: a positive amount (an expression is checked when it is resolved). */
export function checkAmount(value: unknown, pointer: string): StaticFinding[] {
  if (typeof value !== 'string' || hasExpression(value)) return [];
  const problem = positiveAmountProblem(value);
  return problem === undefined
    ? []
    : [{ pointer, message: problem, expected: 'a decimal string > 0 with at most 10 fraction digits' }];
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

/** A party by name under the target's `parties:`, or a party id as is; undefined when it is neither. */
export function resolvePartyRef(target: Target | undefined, ref: string): string | undefined {
  if (isPartyId(ref)) return ref;
  const declared = target?.parties?.[ref];
  if (declared === undefined) return undefined;
  return typeof declared === 'string' ? declared : declared.party;
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

/** A receiver the network does not know, for a finding. */
export function unknownPartyMessage(
  party: string,
  node: string | undefined,
): { message: string; hint: string } {
  return {
    message: `${visibleText(party)} is not known to the network: ${node === undefined ? 'the participant' : `the participant of ${node}`} has no such party (never allocated, or on a synchronizer it is not connected to)`,
    hint: 'check the party id — ask its owner for it as its own participant shows it — or remove it; nothing was sent',
  };
}

/** The node a party the target acts as is hosted on. */
export function nodeOf(target: Target | undefined, acting: string): string | undefined {
  const declared = target?.parties?.[acting];
  return typeof declared === 'object' ? declared.node : undefined;
}

/** The party id the target acts as under `name`, without building a client (for checks and plans). */
export function actingPartyId(target: Target | undefined, name: string): string | undefined {
  const declared = target?.parties?.[name];
  return typeof declared === 'object' ? declared.party : undefined;
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
