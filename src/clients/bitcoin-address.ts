/**
 * Bitcoin addresses, read as a wallet reads them: bech32 / bech32m segwit addresses (BIP 173, BIP 350) and base58check
 * legacy ones, checksum included — a mistyped character in a withdraw account's destination would send the payout
 * to nobody, and that account's destination can never change. The codecs are @scure/base's.
 */
import { createHash } from 'node:crypto';
import { bech32, bech32m, createBase58check } from '@scure/base';

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

export interface BitcoinAddress {
  network: BitcoinNetwork;
  /** p2pkh, p2sh (base58), p2wpkh, p2wsh (segwit v0), p2tr (v1), or `segwit v<n>` */
  type: string;
}

/** the human-readable part of each network's segwit addresses */
const PREFIX: Record<BitcoinNetwork, string> = { mainnet: 'bc', testnet: 'tb', regtest: 'bcrt' };
const NETWORK_OF_PREFIX = new Map(
  Object.entries(PREFIX).map(([network, hrp]) => [hrp, network as BitcoinNetwork]),
);
/** base58check version bytes; regtest shares testnet's */
const VERSION: Record<number, { network: BitcoinNetwork; type: string }> = {
  0x00: { network: 'mainnet', type: 'p2pkh' },
  0x05: { network: 'mainnet', type: 'p2sh' },
  0x6f: { network: 'testnet', type: 'p2pkh' },
  0xc4: { network: 'testnet', type: 'p2sh' },
};

const CHECKSUM_MISMATCH =
  'it is no Bitcoin address: its checksum does not match (a mistyped or missing character?)';

const base58check = createBase58check(
  (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest()),
);

/** The address's network and type, or what is wrong with it (one sentence). */
export function parseBitcoinAddress(text: string): BitcoinAddress | { problem: string } {
  const separator = text.lastIndexOf('1');
  const hrp = separator > 0 ? text.slice(0, separator).toLowerCase() : '';
  const network = NETWORK_OF_PREFIX.get(hrp);
  if (network !== undefined) return parseSegwit(text, network);
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(text);
  } catch {
    return {
      problem: CHECKSUM_MISMATCH,
    };
  }
  const version = VERSION[bytes[0] ?? -1];
  if (bytes.length !== 21 || version === undefined)
    return { problem: 'it is no Bitcoin address: a base58 string of another kind' };
  return version;
}

function parseSegwit(text: string, network: BitcoinNetwork): BitcoinAddress | { problem: string } {
  if (text !== text.toLowerCase() && text !== text.toUpperCase())
    return { problem: 'a bech32 address is all lower case or all upper case, not both' };
  const v0 = bech32.decodeUnsafe(text.toLowerCase(), 90);
  const v1 = v0 === undefined ? bech32m.decodeUnsafe(text.toLowerCase(), 90) : undefined;
  const decoded = v0 ?? v1;
  if (decoded === undefined)
    return {
      problem: CHECKSUM_MISMATCH,
    };
  const [version, ...words] = decoded.words;
  if (version === undefined || version > 16)
    return { problem: 'it is no Bitcoin address: no witness version' };
  // BIP 350: version 0 keeps bech32's checksum, every later version uses bech32m's
  if ((version === 0) !== (v0 !== undefined))
    return { problem: `it is no Bitcoin address: a segwit v${version} address with the wrong checksum kind` };
  const program = bech32.fromWordsUnsafe(words);
  if (program === undefined || program.length < 2 || program.length > 40)
    return { problem: 'it is no Bitcoin address: its witness program has the wrong length' };
  if (version === 0 && program.length !== 20 && program.length !== 32)
    return { problem: 'it is no Bitcoin address: a segwit v0 program is 20 or 32 bytes' };
  const type =
    version === 0
      ? program.length === 20
        ? 'p2wpkh'
        : 'p2wsh'
      : version === 1
        ? 'p2tr'
        : `segwit v${version}`;
  return { network, type };
}

/** The Bitcoin network a Canton network's attestors pay out on (devnet and testnet use Bitcoin testnet). */
export function bitcoinNetworkOf(canton: string): BitcoinNetwork {
  return canton === 'mainnet' ? 'mainnet' : 'testnet';
}

/**
 * What is wrong with `text` as an address to pay on `canton`'s Bitcoin network, or undefined. Testnet addresses
 * and regtest's share base58 prefixes: a base58 testnet address passes on either.
 */
export function bitcoinAddressProblem(text: string, canton: string | undefined): string | undefined {
  const parsed = parseBitcoinAddress(text);
  if ('problem' in parsed) return parsed.problem;
  if (canton === undefined) return undefined;
  const expected = bitcoinNetworkOf(canton);
  if (parsed.network === expected) return undefined;
  return `a Bitcoin ${parsed.network} address, but the attestors of ${canton} pay out on Bitcoin ${expected}`;
}
