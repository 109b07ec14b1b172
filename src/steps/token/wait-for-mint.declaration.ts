import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import { accountIdSchema } from './accounts.declaration.js';
import { amountSchema, checkActingParty, checkAmount, partyNameSchema } from './common.declaration.js';
import { intervalSchema, waitSchema } from './wait.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'Wait until BTC sent to the party’s deposit address has been minted (wrapped-api.md §8.6): 6 confirmations and the attestors, 60–90 minutes on a real network. A wait longer than this run’s budget pauses the run (exit 3); the next run carries on.',
  properties: {
    party: partyNameSchema,
    amount: {
      ...amountSchema,
      description:
        'The amount expected: the step is done when mints to the account since it started waiting add up to at least this much.',
    },
    account_id: accountIdSchema,
    txid: {
      // 64 hex digits, as Bitcoin writes a transaction id: it goes into a URL path, where `..` would change the request
      anyOf: [{ type: 'string', pattern: '^[0-9a-fA-F]{64}$' }, { type: 'null' }],
      description:
        'The Bitcoin transaction of the deposit, e.g. `${{ steps.send.outputs.txid }}` (null: not known). With the sandbox’s chain (services.bitcoin) the step follows its confirmations and says so when the attestors refuse it.',
    },
    interval: intervalSchema,
    wait: waitSchema,
  },
  required: ['party', 'amount'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.wait-for-mint`; its run-time code is ./wait-for-mint.ts. */
export const tokenWaitForMintDeclaration = declareStep<With>({
  kind: 'token.wait-for-mint',
  summary: 'Wait until a BTC deposit is minted to the party (pauses the run when it takes longer).',
  withSchema,
  outputs: {
    minted: 'the amount minted to the account while the step waited',
    holding_cids: 'the holdings the mints created',
    update_ids: 'the ledger transactions of the mints',
    account_id: 'the deposit account',
    txid: 'the Bitcoin transaction followed, or null',
    expected: 'the amount the step waited for',
  },
  needsTarget: true,
  check: (w, target) => [...checkActingParty(w.party, target, '/party'), ...checkAmount(w.amount, '/amount')],
});
