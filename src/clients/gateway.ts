/**
 * The wrapped-token gateway (wrapped-api.md §6): the rules contracts that create deposit and withdraw accounts,
 * each account's Bitcoin deposit address, the token-standard contracts a burn discloses, and the address
 * calculation data. Unauthenticated GETs; the rules and contracts are ephemeral: fetch them right before the
 * submission that discloses them. Answers keep the gateway's field names.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ServiceError } from '../errors.js';
import type { HttpService } from './http.js';
import type { DisclosedContract } from './ledger-wire.js';
import { pathSegment } from './path.js';
import { describeProblems, registerWireSchemas, wireProblems } from './schema-check.js';

export interface CallOptions {
  signal?: AbortSignal;
}

const str = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;

const contractInfoSchema = {
  type: 'object',
  required: ['contract_id', 'template_id', 'created_event_blob'],
  properties: { contract_id: str, template_id: str, created_event_blob: str },
} as const;
/** A contract to disclose: its id, its template in the package-id form, and its disclosure blob. */
export type ContractInfo = FromSchema<typeof contractInfoSchema>;

const accountRulesSchema = {
  type: 'object',
  required: ['da_rules', 'wa_rules'],
  properties: { da_rules: contractInfoSchema, wa_rules: contractInfoSchema },
} as const;
export type AccountContractRules = FromSchema<typeof accountRulesSchema>;

const bitcoinAddressSchema = {
  type: 'object',
  required: ['bitcoin_address', 'attestors_requested', 'attestors_responded'],
  properties: { bitcoin_address: str, attestors_requested: count, attestors_responded: count },
} as const;
/** `attestors_responded < attestors_requested`: a partial answer (shown as such, not an error). */
export type BitcoinAddress = FromSchema<typeof bitcoinAddressSchema>;

const tokenStandardContractsSchema = {
  type: 'object',
  required: ['burn_mint_factory', 'instrument_configuration', 'issuer_credential'],
  properties: {
    burn_mint_factory: contractInfoSchema,
    instrument_configuration: contractInfoSchema,
    issuer_credential: contractInfoSchema,
  },
} as const;
export type TokenStandardContracts = FromSchema<typeof tokenStandardContractsSchema>;

const addressCalculationSchema = {
  type: 'object',
  required: ['chains'],
  properties: {
    chains: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chain', 'addresses'],
        properties: {
          chain: str,
          xpub: str,
          addresses: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'address_for_verification'],
              properties: { id: str, address_for_verification: str },
            },
          },
        },
      },
    },
    bitcoin_network: str,
  },
} as const;
export type AddressCalculationData = FromSchema<typeof addressCalculationSchema>;

export const GATEWAY_PATHS = {
  accountContractRules: '/wrapped/v1/account-contract-rules',
  bitcoinAddress: '/wrapped/v1/bitcoin-address/{accountId}',
  tokenStandardContracts: '/wrapped/v1/token-standard-contracts',
  addressCalculationData: '/wrapped/v1/address-calculation-data',
} as const;

/** The gateway knows no deposit account with this id (404 on bitcoin-address): permanent, and its own kind. */
export class UnknownDepositAccountError extends ServiceError {
  constructor(
    readonly accountId: string,
    error: ServiceError,
  ) {
    super(
      {
        service: error.service,
        method: error.method,
        path: error.path,
        status: error.status,
        serviceMessage: `no deposit account '${accountId}'`,
        retryability: 'permanent',
        hint: "the account id is the deposit account's createArgument.id (its contract id when id is null): read the account from the ledger again",
        body: error.body,
      },
      error.cause,
    );
  }
}

/**
 * A gateway contract as a disclosed contract of a submission. The flows of §8 send `synchronizerId: ""` (the
 * participant then uses the contract's own); pass the synchronizer when known.
 */
export function disclosedFromGateway(info: ContractInfo, synchronizerId = ''): DisclosedContract {
  return {
    templateId: info.template_id,
    contractId: info.contract_id,
    createdEventBlob: info.created_event_blob,
    synchronizerId,
  };
}

export class GatewayClient {
  constructor(private readonly http: HttpService) {}

  get service(): string {
    return this.http.service;
  }

  accountContractRules(options?: CallOptions): Promise<AccountContractRules> {
    return this.get(GATEWAY_PATHS.accountContractRules, accountRulesSchema, options);
  }

  /** The deposit address of an account (`accountId` = the account's `id`, or its contract id when that is null). */
  async bitcoinAddress(accountId: string, options?: CallOptions): Promise<BitcoinAddress> {
    const path = GATEWAY_PATHS.bitcoinAddress.replace('{accountId}', pathSegment(accountId));
    try {
      return await this.get<BitcoinAddress>(path, bitcoinAddressSchema, options);
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404 && error.service === this.service)
        throw new UnknownDepositAccountError(accountId, error);
      throw error;
    }
  }

  tokenStandardContracts(options?: CallOptions): Promise<TokenStandardContracts> {
    return this.get(GATEWAY_PATHS.tokenStandardContracts, tokenStandardContractsSchema, options);
  }

  addressCalculationData(options?: CallOptions): Promise<AddressCalculationData> {
    return this.get(GATEWAY_PATHS.addressCalculationData, addressCalculationSchema, options);
  }

  private async get<T>(path: string, schema: object, options?: CallOptions): Promise<T> {
    const result = await this.http.get<T>(path, {
      signal: options?.signal,
      check: (body) => {
        const problems = wireProblems(schema, body);
        return problems.length === 0 ? undefined : describeProblems(problems);
      },
    });
    return result.body;
  }
}

registerWireSchemas(
  accountRulesSchema,
  bitcoinAddressSchema,
  tokenStandardContractsSchema,
  addressCalculationSchema,
);
