/**
 * The sandbox's simulated Bitcoin chain, for `sandbox.btc-send`: pay an amount to a (deposit) address, and look the
 * deposit up (its confirmations, and whether the attestors minted it). It exists only in the sandbox; its routes and bodies live in `BITCOIN_WIRE` and
 * nowhere else, so aligning them with the sandbox is a change in one place.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ServiceError } from '../errors.js';
import { amountProblem } from './amount.js';
import type { HttpService } from './http.js';
import { pathSegment } from './path.js';
import { describeProblems, registerWireSchemas, wireProblems } from './schema-check.js';

const depositSchema = {
  type: 'object',
  required: ['txid', 'address', 'amount', 'confirmations'],
  properties: {
    txid: { type: 'string', minLength: 1 },
    vout: { type: 'integer' },
    address: { type: 'string' },
    /** BTC, ≤ 8 fraction digits */
    amount: { type: 'string' },
    /** the block it was mined in; null while unconfirmed */
    block: { type: ['integer', 'null'] },
    confirmations: { type: 'integer', minimum: 0 },
    confirmationsRequired: { type: 'integer' },
    /** what the attestors made of it (`pending`, `minted`, `rejected`) */
    status: { type: 'string' },
    /** why it was not minted (`rejected`: outside the account's limits, no account for the address) */
    reason: { type: 'string' },
    /** the holding its mint created */
    holdingCid: { type: 'string' },
  },
} as const;
/** A payment to a deposit address on the simulated chain: minted once it has the confirmations required. */
export type BitcoinDeposit = FromSchema<typeof depositSchema>;

/**
 * The chain's wire contract: routes (at the root of `services.bitcoin`) and the request body of a send, as the
 * sandbox serves them (packages/sandbox/README.md; test/clients/token-clients.test.ts holds the two together).
 */
export const BITCOIN_WIRE = {
  send: {
    method: 'POST',
    path: '/send',
    body: (address: string, amount: string) => ({ address, amount }),
    response: depositSchema,
  },
  deposit: { method: 'GET', path: '/deposits/{txid}', response: depositSchema },
  /** every deposit to an address (`?address=`), oldest first */
  deposits: {
    method: 'GET',
    path: '/deposits',
    response: {
      type: 'object',
      required: ['deposits'],
      properties: { deposits: { type: 'array', items: depositSchema } },
    },
  },
} as const;

const BTC_FRACTION_DIGITS = 8;

export class BitcoinClient {
  constructor(private readonly http: HttpService) {}

  get service(): string {
    return this.http.service;
  }

  /** Pays `amount` BTC (a decimal string, ≤ 8 fraction digits) to `address`. A lost answer is ambiguous. */
  async send(
    address: string,
    amount: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<BitcoinDeposit> {
    const fraction = amount.split('.')[1] ?? '';
    const problem =
      amountProblem(amount) ??
      (fraction.length > BTC_FRACTION_DIGITS
        ? `"${amount}" has more than ${BTC_FRACTION_DIGITS} fraction digits`
        : undefined) ??
      (address === '' ? 'no address' : undefined);
    if (problem !== undefined) {
      throw new ServiceError({
        service: this.service,
        method: BITCOIN_WIRE.send.method,
        path: BITCOIN_WIRE.send.path,
        serviceMessage: `request not sent: ${problem}`,
        retryability: 'permanent',
      });
    }
    const result = await this.http.request<BitcoinDeposit>(BITCOIN_WIRE.send.method, BITCOIN_WIRE.send.path, {
      body: BITCOIN_WIRE.send.body(address, amount),
      signal: options.signal,
      check: check(BITCOIN_WIRE.send.response),
    });
    return result.body;
  }

  /** A deposit by its transaction id, or undefined when the chain does not know it. */
  async status(txid: string, options: { signal?: AbortSignal } = {}): Promise<BitcoinDeposit | undefined> {
    const path = BITCOIN_WIRE.deposit.path.replace('{txid}', pathSegment(txid));
    try {
      const result = await this.http.request<BitcoinDeposit>(BITCOIN_WIRE.deposit.method, path, {
        signal: options.signal,
        check: check(BITCOIN_WIRE.deposit.response),
      });
      return result.body;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404 && error.service === this.service)
        return undefined;
      throw error;
    }
  }

  /** Every payment the chain holds to `address`, oldest first: how a send is found again after a lost answer. */
  async depositsTo(address: string, options: { signal?: AbortSignal } = {}): Promise<BitcoinDeposit[]> {
    const result = await this.http.request<{ deposits: BitcoinDeposit[] }>(
      BITCOIN_WIRE.deposits.method,
      BITCOIN_WIRE.deposits.path,
      { query: { address }, signal: options.signal, check: check(BITCOIN_WIRE.deposits.response) },
    );
    return result.body.deposits;
  }
}

function check(schema: object): (body: unknown) => string | undefined {
  return (body) => {
    const problems = wireProblems(schema, body);
    return problems.length === 0 ? undefined : describeProblems(problems);
  };
}

registerWireSchemas(depositSchema, BITCOIN_WIRE.deposits.response);
