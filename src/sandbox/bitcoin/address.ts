/**
 * Deposit addresses: a Taproot (P2TR, witness v1) address per deposit account, encoded in bech32m (BIP 350) with
 * the network's prefix, its 32-byte program derived from the account id. The real attestors derive it from their
 * group key (wrapped-api.md §6); the sandbox only needs it deterministic, well-formed and one per account.
 */
import { createHash } from 'node:crypto';
import { taprootAddress, type BitcoinNetwork } from '../../clients/bitcoin-address.js';

export { bitcoinNetworkOf, type BitcoinNetwork } from '../../clients/bitcoin-address.js';

/** the deposit address of an account id (its `id`, or its contract id for an account without one) */
export function depositAddress(network: BitcoinNetwork, accountId: string): string {
  return taprootAddress(
    network,
    createHash('sha256').update(`ledgerbook-sandbox/deposit-address/${accountId}`).digest(),
  );
}
