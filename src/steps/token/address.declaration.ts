/**
 * A Bitcoin address in a token kind's `with` block, checked with its checksum against the target's network (for
 * the declarations of the kinds that pay out or send BTC): apart from ./common.declaration.ts, so that the other
 * kinds' declarations do not load the address decoder.
 */
import { bitcoinAddressProblem } from '../../clients/bitcoin-address.js';
import type { StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import type { Target } from '../../playbook/target.js';

export const ADDRESS_HINT =
  'copy the address again from the wallet that is to receive the BTC; a Bitcoin address carries a checksum, so a mistyped character is caught here rather than on the chain';

/** Static check: `value` is a Bitcoin address, checksum included, of the network the target's attestors pay on. */
export function checkBitcoinAddress(
  value: unknown,
  target: Target | undefined,
  pointer: string,
): StaticFinding[] {
  if (typeof value !== 'string' || hasExpression(value)) return [];
  const problem = bitcoinAddressProblem(value, target?.network);
  return problem === undefined
    ? []
    : [{ pointer, message: `${value}: ${problem}`, expected: 'a Bitcoin address', hint: ADDRESS_HINT }];
}
