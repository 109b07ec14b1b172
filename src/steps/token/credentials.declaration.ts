import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { checkActingParty, partyNameSchema } from './common.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'The Minter credentials of a party (wrapped-api.md §8.3): listed, and when it holds none, its free Minter credential offer accepted through its UserService.',
  properties: {
    party: partyNameSchema,
    accept: {
      type: 'boolean',
      description:
        'Accept a Minter credential offer when the party holds no Minter credential (default true). With false the step only lists them.',
    },
  },
  required: ['party'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.credentials`; its run-time code is ./credentials.ts. */
export const tokenCredentialsDeclaration = declareStep<With>({
  kind: 'token.credentials',
  summary: 'List a party’s Minter credentials; accept its free Minter credential offer when it holds none.',
  withSchema,
  outputs: {
    credential_cids: 'the contract ids of the party’s Minter credentials (what opening an account needs)',
    credentials: 'each Minter credential: {contract_id, issuer, id, description}',
  },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
});
