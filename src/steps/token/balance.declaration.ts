import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { checkActingParty, partyNameSchema } from './common.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'Read a party’s balance: spendable and locked amounts and holdings, in total and per instrument.',
  properties: {
    party: {
      ...partyNameSchema,
      description:
        'Whose balance: a party the target acts as (a name under `parties:` written `{party, node}`).',
    },
  },
  required: ['party'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.balance`; its run-time code is ./balance.ts. */
export const tokenBalanceDeclaration = declareStep<With>({
  kind: 'token.balance',
  summary: 'Read a party’s balance: spendable, locked and per-instrument totals (changes nothing).',
  withSchema,
  outputs: {
    party: 'the party id',
    spendable: 'the unlocked amount of the target’s instrument (a decimal string)',
    locked: 'the amount of it locked in pending offers or allocations',
    holdings: 'how many unlocked holdings of it the party has (the soft limit is 10)',
    locked_holdings: 'how many locked ones',
    instruments: 'per instrument held: [{admin, id, spendable, locked, holdings, locked_holdings}]',
    unreadable: 'holdings whose view the participant could not compute (a warning says which)',
  },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
});
