/**
 * Deposit addresses: a Taproot (P2TR, witness v1) address per deposit account, encoded in bech32m (BIP 350) with
 * the network's prefix, its 32-byte program derived from the account id. The real attestors derive it from their
 * group key (wrapped-api.md §6); the sandbox only needs it deterministic, well-formed and one per account.
 */
import { createHash } from 'node:crypto';

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32M_CONST = 0x2bc830a3;

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

const HRP: Record<BitcoinNetwork, string> = { mainnet: 'bc', testnet: 'tb', regtest: 'bcrt' };

function polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i] as number;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  return [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
}

function toWords(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

export function encodeTaproot(network: BitcoinNetwork, program: Uint8Array): string {
  const hrp = HRP[network];
  const data = [1, ...toWords(program)];
  const mod = polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ BECH32M_CONST;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((d) => CHARSET[d]).join('')}`;
}

/** the deposit address of an account id (its `id`, or its contract id for an account without one) */
export function depositAddress(network: BitcoinNetwork, accountId: string): string {
  return encodeTaproot(
    network,
    createHash('sha256').update(`ledgerbook-sandbox/deposit-address/${accountId}`).digest(),
  );
}

/** the Bitcoin network the attestors of a Canton network use (devnet deposits are testnet coins) */
export function bitcoinNetworkOf(canton: 'devnet' | 'testnet' | 'mainnet'): BitcoinNetwork {
  return canton === 'mainnet' ? 'mainnet' : 'testnet';
}
