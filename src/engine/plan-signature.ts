/**
 * Signed saved plans. With `LEDGERBOOK_PLAN_KEY` set (from the CI's secret store), `plan --out` signs the plan:
 * HMAC-SHA-256 with the key over the plan's canonical bytes (its JSON with sorted keys, the signature left out,
 * after a domain label), and `run plan.json` refuses a plan whose signature does not verify, or that has none,
 * before it reads, contacts or runs anything the plan names. One shared key rather than an Ed25519 pair:
 * docs/architecture.md "Saved plans" says why.
 *
 * The plan records which key signed it as an id derived from the key by the same HMAC (nothing of the key can
 * be learned from it), so that a job holding another key is told so.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { LedgerbookError } from '../errors.js';
import { PLAN_KEY_ENV } from '../environment.js';
import { canonicalJson } from '../digest.js';

export const SIGNATURE_ALGORITHM = 'HMAC-SHA256';
/** 32 characters: 128 bits or more from any generator a person would use (`openssl rand -hex 32` gives 64). */
export const MIN_PLAN_KEY_LENGTH = 32;

export interface PlanSignature {
  alg: typeof SIGNATURE_ALGORITHM;
  /** the key's id (see PlanKey.id) */
  key: string;
  /** hex HMAC-SHA-256 of the signed bytes */
  value: string;
}

/** The bytes a signature covers: the plan without its signature, canonical, after a label of their own. */
function signedBytes(plan: Readonly<Record<string, unknown>>): Buffer {
  const { signature: _signature, ...unsigned } = plan;
  return Buffer.from(`ledgerbook saved plan\n${canonicalJson(unsigned)}`);
}

export type Verification = 'valid' | 'other-key' | 'invalid';

export class PlanKey {
  private constructor(private readonly secret: Buffer) {}

  /**
   * The key from the environment's value: undefined when the variable is not set. Set but empty (a CI secret
   * that does not exist expands to nothing) or short is refused: a job that means to verify plans must not
   * accept unsigned ones because its key went missing.
   */
  static fromEnv(value: string | undefined): PlanKey | undefined {
    if (value === undefined) return undefined;
    if (value.length < MIN_PLAN_KEY_LENGTH) {
      throw new LedgerbookError(
        'LB_INPUT_INVALID',
        value.length === 0
          ? `${PLAN_KEY_ENV} is set but empty`
          : `${PLAN_KEY_ENV} is ${value.length} characters long: too short to sign plans with`,
        {
          hint: `give it at least ${MIN_PLAN_KEY_LENGTH} random characters (\`openssl rand -hex 32\`), from the CI's secret store; a secret that does not exist there reaches the job as an empty value`,
        },
      );
    }
    return new PlanKey(Buffer.from(value, 'utf8'));
  }

  /** An id of the key, from which nothing of the key can be learned: which key signed a plan. */
  get id(): string {
    return createHmac('sha256', this.secret).update('ledgerbook plan key id').digest('hex').slice(0, 16);
  }

  sign(plan: Readonly<Record<string, unknown>>): PlanSignature {
    return {
      alg: SIGNATURE_ALGORITHM,
      key: this.id,
      value: createHmac('sha256', this.secret).update(signedBytes(plan)).digest('hex'),
    };
  }

  /** Whether `signature` is this key's signature of `plan` (compared in constant time). */
  verify(plan: Readonly<Record<string, unknown>>, signature: PlanSignature): Verification {
    const expected = Buffer.from(this.sign(plan).value, 'hex');
    const given = Buffer.from(signature.value, 'hex');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return 'valid';
    return signature.key === this.id ? 'invalid' : 'other-key';
  }
}
