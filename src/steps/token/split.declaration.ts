import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { amountSchema, checkActingParty, partyNameSchema } from './common.declaration.js';

const withSchema = {
  type: 'object',
  description: 'Make sure a party holds a holding of each amount, split off its larger holdings.',
  properties: {
    party: { ...partyNameSchema, description: 'Whose holdings: a party the target acts as.' },
    amounts: {
      type: 'array',
      items: amountSchema,
      minItems: 1,
      maxItems: 9,
      description: 'One holding of each amount (a holding of exactly that amount already there counts).',
    },
  },
  required: ['party', 'amounts'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.split`; its run-time code is ./split.ts. */
export const tokenSplitDeclaration = declareStep<With>({
  kind: 'token.split',
  summary: 'Make sure a party holds a holding of each given amount, split off its larger holdings.',
  withSchema,
  outputs: { holdings: 'the contract id of the holding of each amount, in the order of `amounts`' },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
});
