import { bech32 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { bech32m } from '@scure/base';
import { bitcoinAddressProblem, parseBitcoinAddress } from './bitcoin-address.js';

// the valid and invalid vectors of BIP 173 and BIP 350, and well-known base58 addresses
const valid: Array<[string, string, string]> = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet', 'p2wpkh'],
  ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'testnet', 'p2wpkh'],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet', 'p2wsh'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'mainnet', 'p2tr'],
  ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', 'testnet', 'p2tr'],
  ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'mainnet', 'p2pkh'],
  ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'mainnet', 'p2sh'],
  ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'testnet', 'p2pkh'],
  ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'testnet', 'p2sh'],
];

const invalid: Array<[string, RegExp]> = [
  // one character changed
  ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsy', /checksum does not match/],
  ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', /checksum does not match/],
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', /lower case or all upper case/],
  // segwit v1 with bech32's checksum, v0 with bech32m's
  [bech32.encode('bc', [1, ...bech32.toWords(new Uint8Array(32).fill(1))]), /wrong checksum kind/],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', /wrong checksum kind/],
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', /20 or 32 bytes/],
  ['bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', /wrong checksum kind/],
  ['', /checksum does not match/],
  ['$(touch pwned)', /checksum does not match/],
];

describe('parseBitcoinAddress', () => {
  it.each(valid)('%s is a %s %s address', (address, network, type) => {
    expect(parseBitcoinAddress(address)).toEqual({ network, type });
  });

  it.each(invalid)('%s is refused', (address, problem) => {
    const parsed = parseBitcoinAddress(address);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });

  it('reads Taproot addresses (segwit v1, bech32m) on each network', () => {
    const program = new Uint8Array(32).fill(7);
    const prefix = { mainnet: 'bc', testnet: 'tb', regtest: 'bcrt' } as const;
    for (const network of ['mainnet', 'testnet', 'regtest'] as const) {
      const address = bech32m.encode(prefix[network], [1, ...bech32m.toWords(program)], 90);
      expect(parseBitcoinAddress(address)).toEqual({ network, type: 'p2tr' });
    }
  });
});

describe('bitcoinAddressProblem', () => {
  it('holds an address to the Bitcoin network of the target’s Canton network', () => {
    expect(bitcoinAddressProblem('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'devnet')).toBeUndefined();
    expect(bitcoinAddressProblem('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'mainnet')).toBe(
      'a Bitcoin testnet address, but the attestors of mainnet pay out on Bitcoin mainnet',
    );
    expect(bitcoinAddressProblem('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'testnet')).toMatch(
      /mainnet address, but the attestors of testnet pay out on Bitcoin testnet/,
    );
    expect(bitcoinAddressProblem('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', undefined)).toBeUndefined();
  });
});
