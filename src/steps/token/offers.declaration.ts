/**
 * What validation reads of token.accept-offers, token.reject-offers and token.cancel-offers, one declaration
 * each; their run-time code is ./offers.ts.
 */
import { compareAmounts } from '../../clients/amount-text.js';
import type { TransferOffer } from '../../clients/party-ledger.js';
import type { TransferInstructionChoice } from '../../clients/registry.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { declareStep, type StaticFinding, type StepDeclaration } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  amountSchema,
  checkActingParty,
  isPartyId,
  partyNameSchema,
  partyRefFinding,
  resolvePartyRef,
} from './common.declaration.js';

export interface Action {
  kind: 'token.accept-offers' | 'token.reject-offers' | 'token.cancel-offers';
  choice: TransferInstructionChoice;
  direction: TransferOffer['direction'];
  /** the filter on the other side of the offer */
  counterparty: 'sender' | 'receiver';
  verb: string;
  past: string;
  summary: string;
  /** expired offers are left out unless `expired:` says otherwise */
  skipExpiredByDefault: boolean;
}

export const ACTIONS: Action[] = [
  {
    kind: 'token.accept-offers',
    choice: 'accept',
    direction: 'incoming',
    counterparty: 'sender',
    verb: 'accept',
    past: 'accepted',
    summary: 'Accept the transfer offers made to a party that match the filters (as the receiver).',
    skipExpiredByDefault: true,
  },
  {
    kind: 'token.reject-offers',
    choice: 'reject',
    direction: 'incoming',
    counterparty: 'sender',
    verb: 'reject',
    past: 'rejected',
    summary:
      'Reject the transfer offers made to a party that match the filters (as the receiver): the amounts go back.',
    skipExpiredByDefault: false,
  },
  {
    kind: 'token.cancel-offers',
    choice: 'withdraw',
    direction: 'outgoing',
    counterparty: 'receiver',
    verb: 'withdraw',
    past: 'withdrawn',
    summary:
      'Withdraw the transfer offers a party made that match the filters (as the sender), e.g. the expired ones: the amounts come back.',
    skipExpiredByDefault: false,
  },
];

function schemaOf(action: Action) {
  return {
    type: 'object',
    description: action.summary,
    properties: {
      party: {
        ...partyNameSchema,
        description: `Who ${action.verb}s: the ${action.direction === 'incoming' ? 'receiver' : 'sender'} of the offers, a party the target acts as.`,
      },
      [action.counterparty]: {
        type: 'string',
        minLength: 1,
        description: `Only offers ${action.counterparty === 'sender' ? 'from' : 'to'} this party (a party id or a name under \`parties:\`).`,
      },
      instrument: {
        type: 'object',
        description:
          'Only offers of this instrument (default: the target’s). Matched on admin and id exactly.',
        properties: { admin: { type: 'string', minLength: 1 }, id: { type: 'string', minLength: 1 } },
        required: ['admin', 'id'],
        additionalProperties: false,
      },
      min_amount: { ...amountSchema, description: 'Only offers of at least this amount.' },
      max_amount: { ...amountSchema, description: 'Only offers of at most this amount.' },
      expired: {
        type: 'boolean',
        description: action.skipExpiredByDefault
          ? 'true: only offers past their `executeBefore`; false (the default): only the others (an expired offer cannot be accepted).'
          : 'true: only offers past their `executeBefore`; false: only the others; default: both.',
      },
      distribution: {
        type: 'string',
        minLength: 1,
        description: 'Only offers of this token.distribute distribution (its `distribution` output).',
      },
      offers: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 1,
        description: 'Only these offers, by contract id.',
      },
    },
    required: ['party'],
    additionalProperties: false,
  } as const;
}

export /** The `with` block (its schema has the counterparty under `sender` or `receiver`, as the kind says). */
interface With {
  party: string;
  sender?: string;
  receiver?: string;
  instrument?: InstrumentId;
  min_amount?: string;
  max_amount?: string;
  expired?: boolean;
  distribution?: string;
  offers?: string[];
}

export function counterpartyOf(action: Action, w: With): string | undefined {
  return action.counterparty === 'sender' ? w.sender : w.receiver;
}

function declarationOf(action: Action): StepDeclaration<With> {
  return declareStep<With>({
    kind: action.kind,
    summary: action.summary,
    withSchema: schemaOf(action),
    outputs: {
      count: `how many offers this run ${action.past}`,
      amount: `their total amount`,
      offers: `[{offer, ${action.counterparty}, amount}] of each offer ${action.past}`,
      remaining: 'matching offers still pending afterwards (0 unless some failed)',
    },
    needsTarget: true,
    check(w, target) {
      const findings: StaticFinding[] = checkActingParty(w.party, target, '/party');
      const counterparty = counterpartyOf(action, w);
      if (counterparty !== undefined && !hasExpression(counterparty) && target !== undefined) {
        if (!isPartyId(counterparty) && resolvePartyRef(target, counterparty) === undefined)
          findings.push(partyRefFinding(counterparty, target, `/${action.counterparty}`));
      }
      if (
        typeof w.min_amount === 'string' &&
        typeof w.max_amount === 'string' &&
        !hasExpression(w.min_amount) &&
        !hasExpression(w.max_amount) &&
        compareAmounts(w.min_amount, w.max_amount) > 0
      )
        findings.push({ pointer: '/min_amount', message: 'min_amount is above max_amount' });
      return findings;
    },
  });
}

export const offerDeclarations: readonly StepDeclaration<With>[] = ACTIONS.map(declarationOf);
