import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { amountSchema, checkActingParty, checkAmount, partyNameSchema } from './common.declaration.js';
import { intervalSchema, waitSchema } from './wait.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'Devnet only: ask the faucet (`services.faucet`, wrapped-api.md §6) for test tokens for a party. The faucet sends them as a transfer offer (accept it with token.accept-offers), or at once to a preapproved receiver.',
  properties: {
    party: {
      ...partyNameSchema,
      description: 'The recipient: a party the target acts as (so its offers can be read).',
    },
    amount: amountSchema,
    network: {
      enum: ['devnet', 'testnet', 'mainnet'],
      description:
        'The network the faucet is asked for (default: the target’s network; faucets serve devnet only).',
    },
    interval: intervalSchema,
    wait: {
      ...waitSchema,
      description: 'How long to wait for the faucet’s transfer to appear on the ledger (default 10m).',
    },
  },
  required: ['party', 'amount'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.faucet`; its run-time code is ./faucet.ts. */
export const tokenFaucetDeclaration = declareStep<With>({
  kind: 'token.faucet',
  summary: 'Devnet: ask the faucet for test tokens for a party and wait for its transfer.',
  withSchema,
  outputs: {
    contract_id: 'the transfer offer the faucet made (or the holding, for a preapproved receiver)',
    kind: '`offer` (accept it) or `holding`',
    update_id: 'the ledger transaction of the transfer',
    message: 'what the faucet said',
  },
  needsTarget: true,
  check: (w, target) => [...checkActingParty(w.party, target, '/party'), ...checkAmount(w.amount, '/amount')],
});
