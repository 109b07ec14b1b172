import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { checkActingParty, partyNameSchema } from './common.declaration.js';
import { credentialCidsSchema } from './minter.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'The party’s deposit account (wrapped-api.md §8.4): the account BTC deposits are minted through. In sync when the party has one; otherwise it is created with the party’s Minter credentials.',
  properties: {
    party: partyNameSchema,
    credential_cids: credentialCidsSchema,
  },
  required: ['party'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.deposit-account`; its run-time code is ./deposit-account.ts. */
export const tokenDepositAccountDeclaration = declareStep<With>({
  kind: 'token.deposit-account',
  summary: 'Make sure the party has a deposit account (create it with its Minter credentials).',
  withSchema,
  outputs: {
    account_id:
      'the account id the gateway knows it by (its `id`, or its contract id for an account without one)',
    contract_id: 'its current contract id (attestors re-create the account on every mint)',
    last_processed_block: 'the last Bitcoin block the attestors processed for it',
    limits: 'the account’s deposit limits {minAmount, maxAmount}, or null',
    accounts: 'how many deposit accounts the party owns',
  },
  needsTarget: true,
  check: (w, target) => checkActingParty(w.party, target, '/party'),
});
