/**
 * Deposit addresses: a Taproot (P2TR, witness v1) address per deposit account, encoded in bech32m (BIP 350) with
 * the network's prefix, its 32-byte program derived from the account id. The real attestors derive it from their
 * group key (wrapped-api.md §6); the sandbox only needs it deterministic, well-formed and one per account.
 */
import { createHash } from 'node:crypto';
import { bech32m } from '@scure/base';

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

/** the human-readable part of each network's segwit addresses (BIP 173) */
const SEGWIT_PREFIX: Record<BitcoinNetwork, string> = { mainnet: 'bc', testnet: 'tb', regtest: 'bcrt' };
const TAPROOT_WITNESS_VERSION = 1;
/** BIP 173's limit, which a 32-byte program's address stays under */
const MAX_ADDRESS_LENGTH = 90;

/** A Taproot (segwit v1) address of a 32-byte program. */
export function taprootAddress(network: BitcoinNetwork, program: Uint8Array): string {
  const words = [TAPROOT_WITNESS_VERSION, ...bech32m.toWords(program)];
  return bech32m.encode(SEGWIT_PREFIX[network], words, MAX_ADDRESS_LENGTH);
}

/** The Bitcoin network a Canton network's attestors pay out on (devnet and testnet use Bitcoin testnet). */
export function bitcoinNetworkOf(canton: string): BitcoinNetwork {
  return canton === 'mainnet' ? 'mainnet' : 'testnet';
}

/** the deposit address of an account id (its `id`, or its contract id for an account without one) */
export function depositAddress(network: BitcoinNetwork, accountId: string): string {
  return taprootAddress(
    network,
    createHash('sha256').update(`ledgerbook-sandbox/deposit-address/${accountId}`).digest(),
  );
}
