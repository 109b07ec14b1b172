/**
 * What the token step kinds' declarations share: the schema pieces of their `with` blocks and the static checks of
 * them (naming a party, an amount; a Bitcoin address is checked in ./address.declaration.ts), with nothing of their
 * run-time code.
 */
import { positiveAmountProblem } from '../../clients/amount-text.js';
import type { StaticFinding } from '../../playbook/step-declaration.js';
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

/**
 * `<hint>::<68 hex>`: the hint as Canton takes it (a Daml-LF party name without the `::` delimiter, at most 185
 * characters) narrowed to letters, digits, `-` and `_` (a space or a lone colon is legal there but is no hint
 * anyone types); the namespace a fingerprint, `1220` and 64 lowercase hex digits.
 */
export const PARTY_ID = /^[A-Za-z0-9_-]{1,185}::[0-9a-f]{68}$/;

export const PARTY_ID_HINT =
  'a party id is <hint>::<68 hex digits> (letters, digits, - and _ before the ::), e.g. holder-001::1220… as the ledger writes it';

/** what no one sees on a screen: controls, format characters (zero-width, bidi), spaces other than ' ', marks */
export const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\p{Mn}\p{Me}]/u;

export function isPartyId(value: string): boolean {
  return PARTY_ID.test(value);
}

/** `U+200B`: a code point as Unicode writes it */
export function codePoint(char: string): string {
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

/** A party by name under the target's `parties:`, or a party id as is; undefined when it is neither. */
export function resolvePartyRef(target: Target | undefined, ref: string): string | undefined {
  if (isPartyId(ref)) return ref;
  const declared = target?.parties?.[ref];
  if (declared === undefined) return undefined;
  return typeof declared === 'string' ? declared : declared.party;
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
