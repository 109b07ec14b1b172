import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { btcAddressSchema, checkActingParty, partyNameSchema } from './common.declaration.js';
import { checkBitcoinAddress } from './address.declaration.js';
import { credentialCidsSchema } from './minter.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'The party’s withdraw account paying out to one Bitcoin address (wrapped-api.md §8.7). The destination is fixed when the account is created: another address is another account.',
  properties: {
    party: partyNameSchema,
    destination: { ...btcAddressSchema, description: 'The Bitcoin address burned tokens are paid out to.' },
    credential_cids: credentialCidsSchema,
  },
  required: ['party', 'destination'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.withdraw-account`; its run-time code is ./withdraw-account.ts. */
export const tokenWithdrawAccountDeclaration = declareStep<With>({
  kind: 'token.withdraw-account',
  summary: 'Make sure the party has a withdraw account paying out to a Bitcoin address.',
  withSchema,
  outputs: {
    account_id: 'the account id (its `id`, or its contract id for an account without one)',
    contract_id: 'its current contract id (every burn re-creates the account)',
    destination: 'the Bitcoin address it pays out to',
    pending_balance: 'burned and not yet paid out',
    limits: 'the account’s withdrawal limits {minAmount, maxAmount}, or null',
  },
  needsTarget: true,
  check: (w, target) => [
    ...checkActingParty(w.party, target, '/party'),
    ...checkBitcoinAddress(w.destination, target, '/destination'),
  ],
});
