/**
 * The sandbox's simulated Bitcoin chain, for `sandbox.btc-send`: pay an amount to a (deposit) address, and look the
 * payment up (its confirmations). It exists only in the sandbox; its routes and bodies live in `BITCOIN_WIRE` and
 * nowhere else, so aligning them with the sandbox is a change in one place.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ServiceError } from '../errors.js';
import { amountProblem } from './amount.js';
import type { HttpService } from './http.js';
import { pathSegment } from './path.js';
import { describeProblems, wireProblems } from './schema-check.js';

const paymentSchema = {
  type: 'object',
  required: ['txid', 'address', 'amount', 'confirmations'],
  properties: {
    txid: { type: 'string', minLength: 1 },
    address: { type: 'string' },
    amount: { type: 'string' },
    confirmations: { type: 'integer', minimum: 0 },
    blockHeight: { type: ['integer', 'null'] },
  },
} as const;
/** A payment on the simulated chain: `confirmations` 0 until mined; minting follows at 6. */
export type BitcoinPayment = FromSchema<typeof paymentSchema>;

/** The chain's wire contract: routes and the request body of a send. */
export const BITCOIN_WIRE = {
  send: {
    method: 'POST',
    path: '/bitcoin/v1/send',
    body: (address: string, amount: string) => ({ address, amount }),
    response: paymentSchema,
  },
  payment: { method: 'GET', path: '/bitcoin/v1/payments/{txid}', response: paymentSchema },
} as const;

export class BitcoinClient {
  constructor(private readonly http: HttpService) {}

  get service(): string {
    return this.http.service;
  }

  /** Pays `amount` BTC (a decimal string) to `address`. Not idempotent: a lost answer is ambiguous. */
  async send(
    address: string,
    amount: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BitcoinPayment> {
    const problem = amountProblem(amount) ?? (address === '' ? 'no address' : undefined);
    if (problem !== undefined) {
      throw new ServiceError({
        service: this.service,
        method: BITCOIN_WIRE.send.method,
        path: BITCOIN_WIRE.send.path,
        serviceMessage: `request not sent: ${problem}`,
        retryability: 'permanent',
      });
    }
    const result = await this.http.request<BitcoinPayment>(BITCOIN_WIRE.send.method, BITCOIN_WIRE.send.path, {
      body: BITCOIN_WIRE.send.body(address, amount),
      signal: options.signal,
      check: check(BITCOIN_WIRE.send.response),
    });
    return result.body;
  }

  /** A payment by its transaction id, or undefined when the chain does not know it. */
  async status(txid: string, options: { signal?: AbortSignal } = {}): Promise<BitcoinPayment | undefined> {
    const path = BITCOIN_WIRE.payment.path.replace('{txid}', pathSegment(txid));
    try {
      const result = await this.http.request<BitcoinPayment>(BITCOIN_WIRE.payment.method, path, {
        signal: options.signal,
        check: check(BITCOIN_WIRE.payment.response),
      });
      return result.body;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404 && error.service === this.service)
        return undefined;
      throw error;
    }
  }
}

function check(schema: object): (body: unknown) => string | undefined {
  return (body) => {
    const problems = wireProblems(schema, body);
    return problems.length === 0 ? undefined : describeProblems(problems);
  };
}
