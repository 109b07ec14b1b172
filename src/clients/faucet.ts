/**
 * The devnet faucet (wrapped-api.md §6): `POST {faucet}/api/faucet` `{network, recipient_party, amount}` →
 * `{success, message}`. A granted request creates an ordinary transfer offer to the recipient (accept it like any
 * other). Not idempotent: a lost answer is ambiguous (look for the offer before asking again).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ServiceError } from '../errors.js';
import { amountProblem } from './amount.js';
import type { HttpService } from './http.js';
import { describeProblems, registerWireSchemas, wireProblems } from './schema-check.js';

export const FAUCET_PATH = '/api/faucet';

const faucetResponseSchema = {
  type: 'object',
  required: ['success'],
  properties: { success: { type: 'boolean' }, message: { type: ['string', 'null'] } },
} as const;
type FaucetResponse = FromSchema<typeof faucetResponseSchema>;

export interface FaucetRequest {
  network: string;
  recipientParty: string;
  /** a decimal string */
  amount: string;
}

export class FaucetClient {
  constructor(private readonly http: HttpService) {}

  get service(): string {
    return this.http.service;
  }

  /** Asks for tokens; resolves with the faucet's message, throws when it answers `success: false`. */
  async request(request: FaucetRequest, options: { signal?: AbortSignal } = {}): Promise<string | undefined> {
    const problem = amountProblem(request.amount);
    if (problem !== undefined || !request.recipientParty.includes('::')) {
      throw new ServiceError({
        service: this.service,
        method: 'POST',
        path: FAUCET_PATH,
        serviceMessage: `request not sent: ${problem ?? `'${request.recipientParty}' is not a party id`}`,
        retryability: 'permanent',
      });
    }
    const { status, body } = await this.http.post<FaucetResponse>(
      FAUCET_PATH,
      { network: request.network, recipient_party: request.recipientParty, amount: request.amount },
      {
        signal: options.signal,
        check: (answer) => {
          const found = wireProblems(faucetResponseSchema, answer);
          return found.length === 0 ? undefined : describeProblems(found);
        },
      },
    );
    if (!body.success) {
      throw new ServiceError({
        service: this.service,
        method: 'POST',
        path: FAUCET_PATH,
        status,
        serviceMessage: body.message ?? 'the faucet refused without a reason',
        retryability: 'permanent',
        hint: 'the faucet serves devnet only and limits how much and how often it gives',
        body,
      });
    }
    return body.message ?? undefined;
  }
}

registerWireSchemas(faucetResponseSchema);
