import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { checkActingParty, partyNameSchema } from './common.declaration.js';

const withSchema = {
  type: 'object',
  description: 'Merge a party’s spendable holdings into one when it has `threshold` or more.',
  properties: {
    party: { ...partyNameSchema, description: 'Whose holdings: a party the target acts as.' },
    threshold: {
      type: 'integer',
      minimum: 2,
      description:
        'Merge when the party has at least this many spendable holdings (default 10, the soft limit).',
    },
  },
  required: ['party'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.consolidate`; its run-time code is ./consolidate.ts. */
export const tokenConsolidateDeclaration = declareStep<With>({
  kind: 'token.consolidate',
  summary: 'Merge a party’s spendable holdings into one when it has `threshold` (default 10) or more.',
  withSchema,
  outputs: {
    holdings: 'spendable holdings afterwards',
    merged: 'how many holdings this run merged (0: none)',
    total: 'their total amount',
    holding: 'the merged holding’s contract id (null when nothing was merged)',
  },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
});
