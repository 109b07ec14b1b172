import { describe, expect, it } from 'vitest';
import { LedgerbookError } from '../errors.js';
import { PlanKey } from './plan-signature.js';

const KEY = 'k'.repeat(40);
const plan = {
  format: 'ledgerbook-plan',
  version: 2,
  steps: [{ id: 'a', changes: 1 }],
  target: { spec: 't.yaml' },
};

describe('PlanKey', () => {
  it('signs the plan’s canonical bytes: key order does not matter, any change of a value does', () => {
    const key = PlanKey.fromEnv(KEY) as PlanKey;
    const signature = key.sign(plan);
    expect(signature).toMatchObject({ alg: 'HMAC-SHA256', key: key.id });
    expect(signature.value).toMatch(/^[0-9a-f]{64}$/);
    const reordered = {
      target: { spec: 't.yaml' },
      steps: [{ changes: 1, id: 'a' }],
      version: 2,
      format: 'ledgerbook-plan',
    };
    expect(key.verify({ ...reordered, signature }, signature)).toBe('valid');
    expect(key.verify({ ...plan, target: { spec: 'evil.yaml' } }, signature)).toBe('invalid');
    expect(key.verify(plan, { ...signature, value: signature.value.slice(2) })).toBe('invalid');
  });

  it('tells a plan signed with another key by the key’s id, which reveals nothing of the key', () => {
    const key = PlanKey.fromEnv(KEY) as PlanKey;
    const other = PlanKey.fromEnv('o'.repeat(40)) as PlanKey;
    expect(other.verify(plan, key.sign(plan))).toBe('other-key');
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(key.id).not.toBe(other.id);
    expect(KEY).not.toContain(key.id);
  });

  it('no variable: no key; set but empty (a CI secret that does not exist) or short: refused, exit 65', () => {
    expect(PlanKey.fromEnv(undefined)).toBeUndefined();
    for (const value of ['', 'short-key']) {
      let error: unknown;
      try {
        PlanKey.fromEnv(value);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(LedgerbookError);
      expect((error as LedgerbookError).exitCode).toBe(65);
      expect((error as LedgerbookError).hint).toContain('openssl rand -hex 32');
    }
  });
});
