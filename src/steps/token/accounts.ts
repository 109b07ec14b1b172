/** Choosing the account a step works with, among the party's deposit or withdraw accounts. */
import { StepError } from '../../errors.js';

/**
 * The account with this id (or contract id), or without an id the first by account id; none is an error saying
 * which step creates one.
 */
export function selectAccount<A extends { accountId: string; contractId: string }>(
  accounts: readonly A[],
  accountId: string | undefined,
  what: { kind: 'deposit' | 'withdraw'; party: string },
): A {
  const sorted = [...accounts].sort((a, b) => a.accountId.localeCompare(b.accountId));
  const found =
    accountId === undefined
      ? sorted[0]
      : sorted.find((a) => a.accountId === accountId || a.contractId === accountId);
  if (found) return found;
  const creator = what.kind === 'deposit' ? 'token.deposit-account' : 'token.withdraw-account';
  if (accountId === undefined) {
    throw new StepError(`${what.party} has no ${what.kind} account`, {
      hint: `create it first with ${creator}`,
    });
  }
  throw new StepError(`${what.party} has no ${what.kind} account '${accountId}'`, {
    hint: `its ${what.kind} accounts: ${sorted.map((a) => a.accountId).join(', ') || 'none'} (${creator} creates one)`,
  });
}
