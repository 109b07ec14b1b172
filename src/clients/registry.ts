/**
 * The token-standard registry of one instrument admin (wrapped-api.md §7, the token-standard OpenAPI documents):
 * metadata, the transfer and allocation factories and the choice contexts of existing instructions and
 * allocations. Unauthenticated; base `{registry}/api/token-standard/v0/registrars/{admin}/registry`, the admin with
 * its `::` as is, every other path value percent-encoded.
 *
 * A factory or choice context is ephemeral: fetch it right before the submission that uses it, once per exercise.
 * Retries: every registry call is a read with no side effect, so a failure to get any answer (refused, lost,
 * timed out), a 5xx (the registry or a proxy in front of it failing), a 429 and a 409 (a contract in the middle of
 * a reassignment: "retry later", the token-standard documents say) are transient; the engine retries them with the
 * step's policy. A 400 or 404 is the registry's verdict on the request: permanent. A registry that hangs is bounded
 * by the request timeout. (The vendor SDK retries only missing answers, §7.5; a read is as safe to repeat after a
 * 503 as after a refused connection.)
 */
import { ServiceError } from '../errors.js';
import type { FromSchema } from 'json-schema-to-ts';
import type { HttpService, RequestOptions } from './http.js';
import type { DisclosedContract } from './ledger-wire.js';
import { idSegment, pathSegment } from './path.js';
import { describeProblems, registerWireSchemas, wireProblems } from './schema-check.js';
import {
  EMPTY_EXTRA_ARGS,
  type AllocationFactoryArguments,
  type ChoiceContextData,
  type TransferFactoryArguments,
} from './token-wire.js';

export interface CallOptions {
  signal?: AbortSignal;
}

const str = { type: 'string' } as const;

/** A disclosed contract as the registry sends it; `synchronizerId` is tolerated missing, debug fields ignored. */
const registryDisclosedSchema = {
  type: 'object',
  required: ['contractId', 'createdEventBlob'],
  properties: { templateId: str, contractId: str, createdEventBlob: str, synchronizerId: str },
} as const;

const choiceContextSchema = {
  type: 'object',
  required: ['choiceContextData', 'disclosedContracts'],
  properties: {
    choiceContextData: { type: 'object' },
    disclosedContracts: { type: 'array', items: registryDisclosedSchema },
  },
} as const;

const transferFactorySchema = {
  type: 'object',
  required: ['factoryId', 'choiceContext'],
  properties: { factoryId: str, transferKind: str, choiceContext: choiceContextSchema },
} as const;

const allocationFactorySchema = {
  type: 'object',
  required: ['factoryId', 'choiceContext'],
  properties: { factoryId: str, choiceContext: choiceContextSchema },
} as const;

const registryInfoSchema = {
  type: 'object',
  required: ['adminId', 'supportedApis'],
  properties: { adminId: str, supportedApis: { type: 'object', additionalProperties: { type: 'integer' } } },
} as const;
export type RegistryInfo = FromSchema<typeof registryInfoSchema>;

const instrumentSchema = {
  type: 'object',
  required: ['id', 'name', 'symbol', 'decimals'],
  properties: {
    id: str,
    name: str,
    symbol: str,
    totalSupply: str,
    totalSupplyAsOf: str,
    decimals: { type: 'integer', minimum: 0, maximum: 10 },
    supportedApis: { type: 'object', additionalProperties: { type: 'integer' } },
  },
} as const;
export type Instrument = FromSchema<typeof instrumentSchema>;

const instrumentsSchema = {
  type: 'object',
  required: ['instruments'],
  properties: { instruments: { type: 'array', items: instrumentSchema }, nextPageToken: str },
} as const;
export type InstrumentsPage = FromSchema<typeof instrumentsSchema>;

/** The context a choice needs: the data for `extraArgs.context`, and the contracts to disclose with it. */
export interface ChoiceContext {
  choiceContextData: ChoiceContextData;
  disclosedContracts: DisclosedContract[];
}

export type TransferKind = 'self' | 'direct' | 'offer';

export interface TransferFactory {
  factoryId: string;
  /** `offer`: the receiver must accept; `direct`/`self`: settles at once. Undefined when the registry omits it. */
  transferKind: TransferKind | undefined;
  choiceContext: ChoiceContext;
}

export interface AllocationFactory {
  factoryId: string;
  choiceContext: ChoiceContext;
}

export type TransferInstructionChoice = 'accept' | 'reject' | 'withdraw';
export type AllocationChoice = 'execute-transfer' | 'withdraw' | 'cancel';

/** Paths below the registrar base, as the token-standard documents declare them. */
export const REGISTRY_PATHS = {
  info: '/registry/metadata/v1/info',
  instruments: '/registry/metadata/v1/instruments',
  instrument: '/registry/metadata/v1/instruments/{instrumentId}',
  transferFactory: '/registry/transfer-instruction/v1/transfer-factory',
  transferInstructionContext:
    '/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/{choice}',
  allocationFactory: '/registry/allocation-instruction/v1/allocation-factory',
  allocationContext: '/registry/allocations/v1/{allocationId}/choice-contexts/{choice}',
} as const;

const TRANSFER_KINDS: ReadonlySet<string> = new Set(['self', 'direct', 'offer']);

const STATUS_HINTS: Record<number, string> = {
  400: 'the registry refused the request (its message above): check the instrument, the parties and the amounts',
  404: 'the registry does not know this admin, instrument or contract (an offer or allocation already settled?): read the live state again',
  409: 'a contract is being reassigned between synchronizers: retried after a delay',
};

function toDisclosed(contract: FromSchema<typeof registryDisclosedSchema>): DisclosedContract {
  return {
    ...(contract.templateId === undefined ? {} : { templateId: contract.templateId }),
    contractId: contract.contractId,
    createdEventBlob: contract.createdEventBlob,
    ...(contract.synchronizerId === undefined ? {} : { synchronizerId: contract.synchronizerId }),
  };
}

function toChoiceContext(context: FromSchema<typeof choiceContextSchema>): ChoiceContext {
  return {
    choiceContextData: context.choiceContextData,
    disclosedContracts: context.disclosedContracts.map(toDisclosed),
  };
}

export class RegistryClient {
  private readonly base: string;

  /** `admin`: the instrument admin (registrar) party whose registry this is. */
  constructor(
    private readonly http: HttpService,
    readonly admin: string,
  ) {
    this.base = `/api/token-standard/v0/registrars/${idSegment(admin)}`;
  }

  get service(): string {
    return this.http.service;
  }

  info(options?: CallOptions): Promise<RegistryInfo> {
    return this.call('GET', REGISTRY_PATHS.info, registryInfoSchema, options);
  }

  instruments(
    page: { pageSize?: number; pageToken?: string } = {},
    options?: CallOptions,
  ): Promise<InstrumentsPage> {
    return this.call('GET', REGISTRY_PATHS.instruments, instrumentsSchema, {
      ...options,
      query: { pageSize: page.pageSize, pageToken: page.pageToken },
    });
  }

  instrument(instrumentId: string, options?: CallOptions): Promise<Instrument> {
    const path = REGISTRY_PATHS.instrument.replace('{instrumentId}', pathSegment(instrumentId));
    return this.call('GET', path, instrumentSchema, options);
  }

  /**
   * The transfer factory and its context for this transfer. `choiceArguments` are those of the submission to come;
   * their `extraArgs` are sent empty, as the document asks.
   */
  async transferFactory(
    choiceArguments: Omit<TransferFactoryArguments, 'extraArgs'>,
    options?: CallOptions,
  ): Promise<TransferFactory> {
    const body = await this.call<FromSchema<typeof transferFactorySchema>>(
      'POST',
      REGISTRY_PATHS.transferFactory,
      transferFactorySchema,
      {
        ...options,
        body: {
          choiceArguments: { ...choiceArguments, extraArgs: EMPTY_EXTRA_ARGS },
          excludeDebugFields: true,
        },
      },
    );
    return {
      factoryId: body.factoryId,
      transferKind:
        body.transferKind !== undefined && TRANSFER_KINDS.has(body.transferKind)
          ? (body.transferKind as TransferKind)
          : undefined,
      choiceContext: toChoiceContext(body.choiceContext),
    };
  }

  /** The context of `TransferInstruction_Accept`, `_Reject` or `_Withdraw` on an instruction (offer). */
  async transferInstructionContext(
    transferInstructionId: string,
    choice: TransferInstructionChoice,
    options?: CallOptions,
  ): Promise<ChoiceContext> {
    const path = REGISTRY_PATHS.transferInstructionContext
      .replace('{transferInstructionId}', pathSegment(transferInstructionId))
      .replace('{choice}', choice);
    const body = await this.call<FromSchema<typeof choiceContextSchema>>('POST', path, choiceContextSchema, {
      ...options,
      body: { meta: {}, excludeDebugFields: true },
    });
    return toChoiceContext(body);
  }

  async allocationFactory(
    choiceArguments: Omit<AllocationFactoryArguments, 'extraArgs'>,
    options?: CallOptions,
  ): Promise<AllocationFactory> {
    const body = await this.call<FromSchema<typeof allocationFactorySchema>>(
      'POST',
      REGISTRY_PATHS.allocationFactory,
      allocationFactorySchema,
      {
        ...options,
        body: {
          choiceArguments: { ...choiceArguments, extraArgs: EMPTY_EXTRA_ARGS },
          excludeDebugFields: true,
        },
      },
    );
    return { factoryId: body.factoryId, choiceContext: toChoiceContext(body.choiceContext) };
  }

  async allocationContext(
    allocationId: string,
    choice: AllocationChoice,
    options?: CallOptions,
  ): Promise<ChoiceContext> {
    const path = REGISTRY_PATHS.allocationContext
      .replace('{allocationId}', pathSegment(allocationId))
      .replace('{choice}', choice);
    const body = await this.call<FromSchema<typeof choiceContextSchema>>('POST', path, choiceContextSchema, {
      ...options,
      body: { meta: {}, excludeDebugFields: true },
    });
    return toChoiceContext(body);
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    schema: object,
    options: CallOptions & Pick<RequestOptions, 'body' | 'query'> = {},
  ): Promise<T> {
    try {
      const result = await this.http.request<T>(method, `${this.base}${path}`, {
        body: options.body,
        query: options.query,
        signal: options.signal,
        // every registry call is a read: a lost answer is safe to ask again
        idempotent: true,
        check: (body) => {
          const problems = wireProblems(schema, body);
          return problems.length === 0 ? undefined : describeProblems(problems);
        },
      });
      return result.body;
    } catch (error) {
      if (error instanceof ServiceError && error.status !== undefined && error.service === this.service) {
        throw new ServiceError(
          {
            service: error.service,
            method: error.method,
            path: error.path,
            status: error.status,
            serviceMessage: error.serviceMessage,
            retryability: registryRetryability(error.status),
            hint: STATUS_HINTS[error.status] ?? error.hint,
            body: error.body,
            ...(error.status === 429 ? { backpressure: {} } : {}),
          },
          error.cause,
        );
      }
      throw error;
    }
  }
}

/** A status the registry answered with: transient when asking again later can give another answer. */
function registryRetryability(status: number): 'transient' | 'permanent' {
  return status >= 500 || status === 409 || status === 429 ? 'transient' : 'permanent';
}

registerWireSchemas(
  registryInfoSchema,
  instrumentsSchema,
  instrumentSchema,
  transferFactorySchema,
  choiceContextSchema,
  allocationFactorySchema,
);
