/**
 * What the transfer-side token step kinds share: the party the target acts as, the target's instrument, amounts,
 * durations, and the schema pieces of their `with` blocks.
 */
import { amountProblem } from '../../clients/amount.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { StepError } from '../../errors.js';
import type { StaticFinding, StepContext } from '../../engine/step.js';
import { parseDuration } from '../../playbook/duration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import type { Target } from '../../playbook/target.js';

export const actingPartySchema = {
  type: 'string',
  pattern: '^[a-z][a-z0-9_-]*$',
  description:
    'A party the target acts as: a name under the target’s `parties:` written `{party, node}` (its node’s ledger API, and credentials that may act as it).',
} as const;

export const positiveAmountSchema = {
  type: 'string',
  pattern: '^\\d+(\\.\\d{1,10})?$',
  description: 'An amount: a decimal string > 0 with at most 10 fraction digits, e.g. "0.05".',
} as const;

/** `<hint>::<68 hex>`, as the target schema writes party ids */
const PARTY_ID = /^[^:\s]+::[0-9a-f]{68}$/;

export function isPartyId(value: string): boolean {
  return PARTY_ID.test(value);
}

export function isZeroAmount(amount: string): boolean {
  return /^0+(\.0+)?$/.test(amount);
}

/** What is wrong with `text` as a positive amount, or undefined. */
export function positiveAmountProblem(text: string): string | undefined {
  if (/^\s*[-+]/.test(text)) return `"${text}" has a sign: an amount is a plain positive decimal`;
  return amountProblem(text) ?? (isZeroAmount(text) ? 'the amount is zero' : undefined);
}

/** Static check: `name` is a party the target acts as (`parties.<name>: {party, node}`). */
export function checkActingParty(
  name: unknown,
  target: Target | undefined,
  pointer: string,
): StaticFinding[] {
  if (typeof name !== 'string' || hasExpression(name) || target === undefined) return [];
  const declared = target.parties?.[name];
  if (declared === undefined) {
    const acting = Object.entries(target.parties ?? {})
      .filter(([, p]) => typeof p === 'object')
      .map(([n]) => n);
    return [
      {
        pointer,
        message: `the target has no party '${name}'`,
        hint: `parties this target acts as: ${acting.join(', ') || 'none'}; add parties.${name}: {party: <party id>, node: <node>} to the target`,
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

/** The party id the target acts as under `name`, without building a client (for checks and plans). */
export function actingPartyId(target: Target | undefined, name: string): string | undefined {
  const declared = target?.parties?.[name];
  return typeof declared === 'object' ? declared.party : undefined;
}

/** A party by name under the target's `parties:`, or a party id as is; undefined when it is neither. */
export function resolvePartyRef(target: Target | undefined, ref: string): string | undefined {
  if (isPartyId(ref)) return ref;
  const declared = target?.parties?.[ref];
  if (declared === undefined) return undefined;
  return typeof declared === 'string' ? declared : declared.party;
}

/** The target's instrument (admin and id), on which holdings and offers are matched exactly. */
export function instrumentOf(ctx: Pick<StepContext, 'target'>): InstrumentId {
  const instrument = ctx.target?.instrument;
  if (instrument === undefined) {
    throw new StepError('the target names no instrument', {
      hint: 'add instrument: {admin: <the registrar party>, id: <e.g. CBTC>} to the target',
    });
  }
  return { admin: instrument.admin, id: instrument.id };
}

export function actingParty(ctx: StepContext, name: string): PartyLedger {
  return ctx.clients.party(name);
}

/** A duration of the `with` block (`168h`, `5m`) in ms. */
export function durationMs(text: string | undefined, fallback: string): number {
  return parseDuration(text ?? fallback);
}

/** `abcdef123456…` for ids in messages */
export function short(id: string): string {
  return id.length > 16 ? `${id.slice(0, 12)}…` : id;
}
