/** The Minter credentials an account creation or a burn presents (wrapped-api.md §8.3, cbtc 1.2.0). */
import { isMinterCredential, type PartyLedger } from '../../clients/party-ledger.js';
import { StepError } from '../../errors.js';

/** The given credential ids, or the party's own Minter credentials; none is an error that says what to do. */
export async function minterCredentialCids(
  party: PartyLedger,
  given: readonly string[] | undefined,
  signal: AbortSignal,
): Promise<string[]> {
  if (given !== undefined && given.length > 0) return [...given];
  const held = (await party.credentials({ signal })).filter(isMinterCredential);
  if (held.length === 0) {
    throw new StepError(`${party.party} holds no Minter credential`, {
      hint: 'run token.credentials for the party first (it accepts the issuer’s Minter credential offer)',
    });
  }
  return held.map((c) => c.contractId);
}
