import type { FromSchema } from 'json-schema-to-ts';
import { isZeroAmount } from '../../clients/amount-text.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { checkBitcoinAddress } from '../token/address.declaration.js';
import { btcAddressSchema } from '../token/common.declaration.js';

export const NO_CHAIN = {
  message:
    'sandbox.btc-send needs the sandbox’s Bitcoin chain, and this target names none (services.bitcoin)',
  hint: 'run it against the sandbox; on a real network send the BTC from a wallet (guard the step with `if:`)',
};

const withSchema = {
  type: 'object',
  description:
    'Sandbox only: pay BTC to an address on the sandbox’s simulated Bitcoin chain (`services.bitcoin`), e.g. to a deposit address so the attestors mint it. A real network has no such service: send the BTC from a wallet (the playbooks put a core.approve gate there instead).',
  properties: {
    address: {
      ...btcAddressSchema,
      description: 'The address to pay, e.g. `${{ steps.address.outputs.address }}`.',
    },
    amount: {
      type: 'string',
      pattern: '^\\d+(\\.\\d{1,8})?$',
      description: 'BTC to pay: a decimal string with at most 8 fraction digits, e.g. "0.05".',
    },
  },
  required: ['address', 'amount'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `sandbox.btc-send`; its run-time code is ./btc-send.ts. */
export const sandboxBtcSendDeclaration = declareStep<With>({
  kind: 'sandbox.btc-send',
  summary: 'Sandbox only: pay BTC to an address on the simulated Bitcoin chain (once).',
  withSchema,
  outputs: {
    txid: 'the Bitcoin transaction id (follow it with token.wait-for-mint `txid`)',
    address: 'the address paid',
    amount: 'the BTC amount paid (8 fraction digits)',
    block: 'the block it was mined in, or null while unconfirmed',
    confirmations: 'its confirmations when the step looked',
    confirmations_required: 'the confirmations the attestors need before they mint (6)',
    status: 'what the attestors made of it: pending, minted or rejected',
  },
  needsTarget: true,
  check(w, target) {
    const findings: StaticFinding[] = [];
    if (target !== undefined && target.services?.bitcoin === undefined)
      findings.push({ pointer: '', ...NO_CHAIN, onlyIfRuns: true });
    if (typeof w.amount === 'string' && !hasExpression(w.amount) && isZeroAmount(w.amount))
      findings.push({ pointer: '/amount', message: 'the amount must be more than 0' });
    findings.push(...checkBitcoinAddress(w.address, target, '/address'));
    return findings;
  },
});
