import { describe, expect, it } from 'vitest';
import { commandIdOf, type CommandIdParts } from './command-id.js';

const base: CommandIdParts = {
  playbook: 'redeem',
  target: 'sandbox',
  step: 'burn',
  item: '',
  purpose: 'burn',
  inputs: { party: 'minter::1220aa', amount: '0.01', reference: null },
};

describe('commandIdOf', () => {
  it('gives the same effect the same id, whatever the key order of its inputs', () => {
    const again = commandIdOf({
      ...base,
      inputs: { reference: null, amount: '0.01', party: 'minter::1220aa' },
    });
    expect(commandIdOf(base)).toBe(again);
  });

  it.each([
    ['playbook', { playbook: 'redeem-2' }],
    ['target', { target: 'testnet' }],
    ['step', { step: 'burn-2' }],
    ['item', { item: 'line-3' }],
    ['purpose', { purpose: 'create-withdraw-account' }],
    ['inputs', { inputs: { party: 'minter::1220aa', amount: '0.02', reference: null } }],
  ])('changes with the %s', (_name, change) => {
    expect(commandIdOf({ ...base, ...change })).not.toBe(commandIdOf(base));
  });

  it('stays within the ledger’s alphabet and length, readable by step and purpose', () => {
    const id = commandIdOf({ ...base, step: 'send BTC; now', purpose: 'a'.repeat(300) });
    expect(id).toMatch(/^[A-Za-z0-9_:#/-]{1,255}$/);
    expect(commandIdOf(base)).toMatch(/^lb-burn-burn-[0-9a-f]{32}$/);
  });
});
