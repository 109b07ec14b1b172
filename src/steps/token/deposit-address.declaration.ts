import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { accountIdSchema } from './accounts.declaration.js';
import { amountSchema, checkActingParty, checkAmount, partyNameSchema } from './common.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'The Bitcoin address of the party’s deposit account (wrapped-api.md §8.5): BTC sent to it is minted to the party once it has 6 confirmations. Reads only.',
  properties: {
    party: partyNameSchema,
    account_id: accountIdSchema,
    amount: {
      ...amountSchema,
      description:
        'The amount you mean to deposit: the step fails, before any BTC is sent, when it lies outside the account’s limits (the attestors would not mint it).',
    },
  },
  required: ['party'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.deposit-address`; its run-time code is ./deposit-address.ts. */
export const tokenDepositAddressDeclaration = declareStep<With>({
  kind: 'token.deposit-address',
  summary: 'The Bitcoin deposit address of the party’s deposit account (reads only).',
  withSchema,
  outputs: {
    address: 'the Bitcoin address to send BTC to',
    account_id: 'the deposit account it belongs to',
    attestors_requested: 'attestors asked for the address',
    attestors_responded: 'attestors that answered',
    limits:
      'the account’s deposit limits {minAmount, maxAmount}, or null: a deposit outside them is not minted',
  },
  needsTarget: true,
  check: (w, target) => [...checkActingParty(w.party, target, '/party'), ...checkAmount(w.amount, '/amount')],
});
