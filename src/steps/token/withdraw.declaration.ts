import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { accountIdSchema } from './accounts.declaration.js';
import {
  amountSchema,
  btcAddressSchema,
  checkActingParty,
  checkAmount,
  partyNameSchema,
} from './common.declaration.js';
import { credentialCidsSchema } from './minter.declaration.js';
import { intervalSchema, waitSchema } from './wait.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'Redeem: burn tokens through the party’s withdraw account (`CBTCWithdrawAccount_Withdraw`, wrapped-api.md §8.8), then follow the withdraw request the attestors create until it carries the Bitcoin transaction of the payout. A wait longer than this run’s budget pauses the run (exit 3); the next run carries on, and never burns twice.',
  properties: {
    party: partyNameSchema,
    amount: { ...amountSchema, description: 'The amount to burn (and be paid out in BTC).' },
    account_id: accountIdSchema,
    destination: {
      ...btcAddressSchema,
      description:
        'Instead of `account_id`: the withdraw account paying out to this address (token.withdraw-account creates it).',
    },
    reference: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description:
        'Names this redemption. A playbook run again burns nothing; to redeem the same amount again on purpose, give the new redemption another reference.',
    },
    credential_cids: {
      ...credentialCidsSchema,
      description:
        'Minter credentials to present with the burn (default: the party’s own Minter credentials, or none when it holds none).',
    },
    interval: intervalSchema,
    wait: waitSchema,
  },
  required: ['party', 'amount'],
  not: { required: ['account_id', 'destination'] },
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.withdraw`; its run-time code is ./withdraw.ts. */
export const tokenWithdrawDeclaration = declareStep<With>({
  kind: 'token.withdraw',
  summary: 'Redeem: burn tokens through a withdraw account and follow the payout to its Bitcoin txid.',
  withSchema,
  outputs: {
    burned: 'the amount burned',
    btc_txid: 'the Bitcoin transaction of the payout',
    withdraw_request_cid: 'the withdraw request the attestors created',
    request_amount: 'the amount of that request (it covers every burn pending on the account)',
    destination: 'the Bitcoin address paid',
    account_id: 'the withdraw account',
    burn_update_id: 'the ledger transaction of the burn (null when it was settled after a crash)',
  },
  needsTarget: true,
  check: (w, target) => [...checkActingParty(w.party, target, '/party'), ...checkAmount(w.amount, '/amount')],
});
