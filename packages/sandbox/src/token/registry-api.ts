/**
 * The token-standard registry (wrapped-api.md §7, the token-standard OpenAPI documents), unauthenticated, under
 * `/api/token-standard/v0/registrars/{admin}/registry/…`: instrument metadata, the transfer factory with its
 * choice context (`transferKind` self, direct when the receiver has a preapproval, else offer), the choice
 * contexts of a pending transfer (accept / reject / withdraw) and of an allocation, and the allocation factory.
 * Unknown admins, and instructions or allocations that are not active, answer 404 `{"error": …}`.
 */
import { Decimal } from 'decimal.js';
import { json } from '../http/reply.js';
import { blobOf } from '../ledger/blob.js';
import type { Ledger } from '../ledger/ledger.js';
import { formatTime } from '../ledger/lf.js';
import { type Contract, type TemplateDef, isOf, packageIdForm } from '../ledger/model.js';
import { type ServiceRequest, type ServiceRoute, ServiceFailure, jsonBody } from '../service/route.js';
import { Allocation } from './allocation.js';
import { Factory } from './factory.js';
import { Holding } from './holding.js';
import { PKG } from './packages.js';
import {
  AppRewardConfiguration,
  InstrumentConfiguration,
  TransferOffer,
  TransferPreapproval,
  TransferRule,
} from './transfer.js';
import { CONTEXT, type AnyValue } from './types.js';
import type { World } from './world.js';

export const REGISTRY_BASE = '/api/token-standard/v0/registrars/{admin}/registry';

const SUPPORTED_APIS = {
  [PKG.metadataV1.name]: 1,
  [PKG.holdingV1.name]: 1,
  [PKG.transferInstructionV1.name]: 1,
  [PKG.allocationV1.name]: 1,
  [PKG.allocationInstructionV1.name]: 1,
};

const badRequest = (error: string): ServiceFailure => new ServiceFailure(400, { error });
const notFound = (error: string): ServiceFailure => new ServiceFailure(404, { error });

interface Env {
  ledger: Ledger;
  world: World;
  catchUp(): Promise<void>;
}

function only<A>(
  ledger: Ledger,
  template: TemplateDef<A>,
  match: (c: Contract<A>) => boolean,
  what: string,
): Contract<A> {
  for (const c of ledger.contractsOfTemplate(template)) if (match(c)) return c;
  throw new ServiceFailure(500, { error: `the registry has no active ${what}` });
}

function disclosed(ledger: Ledger, contract: Contract, debug: boolean): Record<string, unknown> {
  const t = contract.template;
  return {
    templateId: packageIdForm(t.pkg, t.name),
    contractId: contract.cid,
    createdEventBlob: blobOf(contract),
    synchronizerId: ledger.synchronizerId,
    ...(debug
      ? {
          debugPackageName: t.pkg.name,
          debugPayload: contract.arg,
          debugCreatedAt: new Date(contract.createdAt / 1000).toISOString(),
        }
      : {}),
  };
}

const cidValue = (cid: string): AnyValue => ({ tag: 'AV_ContractId', value: cid });

/** each key both with and without the `utility.digitalasset.com/` prefix, as the DA registry sends them */
function contextValues(entries: Array<[string, AnyValue]>): Record<string, AnyValue> {
  const out: Record<string, AnyValue> = {};
  for (const [key, value] of entries) {
    out[key] = value;
    out[key.slice(key.indexOf('/') + 1)] = value;
  }
  return out;
}

function registryContracts(env: Env): {
  config: Contract;
  rule: Contract;
  reward: Contract;
  factory: Contract;
} {
  const { ledger, world } = env;
  return {
    factory: only(ledger, Factory, (c) => c.arg.provider === world.admin, 'factory'),
    config: only(
      ledger,
      InstrumentConfiguration,
      (c) => c.arg.registrar === world.admin,
      'instrument configuration',
    ),
    rule: only(ledger, TransferRule, (c) => c.arg.registrar === world.admin, 'transfer rule'),
    reward: only(
      ledger,
      AppRewardConfiguration,
      (c) => c.arg.provider === world.admin,
      'app reward configuration',
    ),
  };
}

function checkAdmin(env: Env, request: ServiceRequest): void {
  const admin = request.params.admin ?? '';
  if (admin !== env.world.admin) throw notFound(`Registrar ${admin} not found`);
}

function factoryRequest(request: ServiceRequest): {
  choiceArguments: Record<string, unknown>;
  debug: boolean;
} {
  const body = jsonBody(request.body, badRequest) as {
    choiceArguments?: unknown;
    excludeDebugFields?: unknown;
  };
  if (typeof body !== 'object' || body === null)
    throw badRequest('the body must be a GetFactoryRequest object');
  if (typeof body.choiceArguments !== 'object' || body.choiceArguments === null)
    throw badRequest('choiceArguments is required (an object)');
  if (body.excludeDebugFields !== undefined && typeof body.excludeDebugFields !== 'boolean')
    throw badRequest('excludeDebugFields must be a boolean');
  return {
    choiceArguments: body.choiceArguments as Record<string, unknown>,
    debug: body.excludeDebugFields !== true,
  };
}

/** `choiceArguments.expectedAdmin` names this registry's admin (a factory of another admin is not handed out) */
function checkExpectedAdmin(env: Env, choiceArguments: Record<string, unknown>): void {
  const expected = choiceArguments.expectedAdmin;
  if (typeof expected !== 'string' || expected === '')
    throw badRequest(`choiceArguments.expectedAdmin is required (the instrument admin, ${env.world.admin})`);
  if (expected !== env.world.admin)
    throw badRequest(`expectedAdmin ${expected} is not the admin of this registry (${env.world.admin})`);
}

/** GetChoiceContextRequest: `meta` a map of strings (the SDK's `{"meta":{"values":""}}` fits), `excludeDebugFields` */
function contextRequest(request: ServiceRequest): boolean {
  if (request.body.toString('utf8').trim() === '') return true;
  const body = jsonBody(request.body, badRequest) as { meta?: unknown; excludeDebugFields?: unknown };
  if (typeof body !== 'object' || body === null)
    throw badRequest('the body must be a GetChoiceContextRequest object');
  if (
    body.meta !== undefined &&
    (typeof body.meta !== 'object' || body.meta === null || Array.isArray(body.meta))
  ) {
    throw badRequest('meta must be an object of strings');
  }
  if (body.excludeDebugFields !== undefined && typeof body.excludeDebugFields !== 'boolean')
    throw badRequest('excludeDebugFields must be a boolean');
  return body.excludeDebugFields !== true;
}

function instrument(env: Env): Record<string, unknown> {
  let supply = new Decimal(0);
  for (const h of env.ledger.contractsOfTemplate(Holding)) {
    if (h.arg.instrument.source === env.world.admin && h.arg.instrument.id === env.world.instrument.id)
      supply = supply.plus(h.arg.amount);
  }
  return {
    id: env.world.instrument.id,
    name: 'CBTC',
    symbol: 'CBTC',
    totalSupply: supply.toFixed(10),
    totalSupplyAsOf: formatTime(Date.now() * 1000),
    decimals: 10,
    supportedApis: SUPPORTED_APIS,
  };
}

export function registryRoutes(env: Env): ServiceRoute[] {
  const route = (
    method: 'GET' | 'POST',
    path: string,
    handle: (r: ServiceRequest) => unknown,
  ): ServiceRoute => ({
    method,
    template: `${REGISTRY_BASE}${path}`,
    handle: async (request) => {
      checkAdmin(env, request);
      await env.catchUp();
      return json(200, handle(request));
    },
  });

  const instructionContext = (request: ServiceRequest): Record<string, unknown> => {
    const debug = contextRequest(request);
    const offer = env.ledger.active(request.params.transferInstructionId ?? '');
    if (
      offer === undefined ||
      !isOf(offer, TransferOffer) ||
      offer.arg.transfer.instrumentId.admin !== env.world.admin
    ) {
      throw notFound(`Transfer instruction ${request.params.transferInstructionId} not found`);
    }
    const { config, rule, reward } = registryContracts(env);
    const locked = env.ledger.active(offer.arg.transfer.inputHoldingCids[0] ?? '');
    if (locked === undefined)
      throw notFound(`the holding locked by transfer instruction ${offer.cid} is no longer active`);
    return {
      choiceContextData: {
        values: contextValues([
          [CONTEXT.instrumentConfiguration, cidValue(config.cid)],
          [CONTEXT.senderCredentials, { tag: 'AV_List', value: [] }],
          [CONTEXT.receiverCredentials, { tag: 'AV_List', value: [] }],
          [CONTEXT.transferRule, cidValue(rule.cid)],
          [CONTEXT.appRewardConfiguration, cidValue(reward.cid)],
        ]),
      },
      disclosedContracts: [config, rule, locked, reward].map((c) => disclosed(env.ledger, c, debug)),
    };
  };

  const allocationContext = (request: ServiceRequest): Record<string, unknown> => {
    const debug = contextRequest(request);
    const allocation = env.ledger.active(request.params.allocationId ?? '');
    if (
      allocation === undefined ||
      !isOf(allocation, Allocation) ||
      allocation.arg.provider !== env.world.admin
    ) {
      throw notFound(`Allocation ${request.params.allocationId} not found`);
    }
    const { config, rule } = registryContracts(env);
    const locked = env.ledger.active(allocation.arg.holdingCids[0] ?? '');
    if (locked === undefined)
      throw notFound(`the holding of allocation ${allocation.cid} is no longer active`);
    return {
      choiceContextData: {
        values: contextValues([
          [CONTEXT.instrumentConfiguration, cidValue(config.cid)],
          [CONTEXT.transferRule, cidValue(rule.cid)],
        ]),
      },
      disclosedContracts: [config, rule, locked].map((c) => disclosed(env.ledger, c, debug)),
    };
  };

  return [
    route('GET', '/metadata/v1/info', () => ({ adminId: env.world.admin, supportedApis: SUPPORTED_APIS })),
    route('GET', '/metadata/v1/instruments', (request) => {
      const pageSize = Number(request.query.get('pageSize') ?? 25);
      if (!Number.isInteger(pageSize) || pageSize < 1)
        throw badRequest('pageSize must be a positive whole number');
      return { instruments: request.query.get('pageToken') ? [] : [instrument(env)] };
    }),
    route('GET', '/metadata/v1/instruments/{instrumentId}', (request) => {
      if (request.params.instrumentId !== env.world.instrument.id)
        throw notFound(`Instrument ${request.params.instrumentId} not found`);
      return instrument(env);
    }),
    route('POST', '/transfer-instruction/v1/transfer-factory', (request) => {
      const { choiceArguments, debug } = factoryRequest(request);
      const transfer = choiceArguments.transfer as
        | { sender?: unknown; receiver?: unknown; instrumentId?: { admin?: unknown; id?: unknown } }
        | undefined;
      checkExpectedAdmin(env, choiceArguments);
      if (
        typeof transfer !== 'object' ||
        transfer === null ||
        typeof transfer.sender !== 'string' ||
        typeof transfer.receiver !== 'string'
      ) {
        throw badRequest('choiceArguments.transfer with sender and receiver is required');
      }
      if (
        transfer.instrumentId?.admin !== env.world.admin ||
        transfer.instrumentId.id !== env.world.instrument.id
      ) {
        throw badRequest(
          `unknown instrument ${JSON.stringify(transfer.instrumentId)}; this registry issues ${env.world.instrument.id}`,
        );
      }
      const { factory, config } = registryContracts(env);
      const entries: Array<[string, AnyValue]> = [
        [CONTEXT.instrumentConfiguration, cidValue(config.cid)],
        [CONTEXT.senderCredentials, { tag: 'AV_List', value: [] }],
      ];
      const contracts: Contract[] = [factory, config];
      let transferKind = 'offer';
      if (transfer.sender === transfer.receiver) transferKind = 'self';
      else {
        const receiver = transfer.receiver;
        const preapproval = [...env.ledger.contractsOfTemplate(TransferPreapproval)].find(
          (c) => c.arg.receiver === receiver && c.arg.provider === env.world.admin,
        );
        if (preapproval !== undefined) {
          transferKind = 'direct';
          entries.push([CONTEXT.transferPreapproval, cidValue(preapproval.cid)]);
          contracts.push(preapproval);
        }
      }
      return {
        factoryId: factory.cid,
        transferKind,
        choiceContext: {
          choiceContextData: { values: contextValues(entries) },
          disclosedContracts: contracts.map((c) => disclosed(env.ledger, c, debug)),
        },
      };
    }),
    ...(['accept', 'reject', 'withdraw'] as const).map((choice) =>
      route(
        'POST',
        `/transfer-instruction/v1/{transferInstructionId}/choice-contexts/${choice}`,
        instructionContext,
      ),
    ),
    route('POST', '/allocation-instruction/v1/allocation-factory', (request) => {
      const { choiceArguments, debug } = factoryRequest(request);
      checkExpectedAdmin(env, choiceArguments);
      const { factory, config } = registryContracts(env);
      return {
        factoryId: factory.cid,
        choiceContext: {
          choiceContextData: {
            values: contextValues([[CONTEXT.instrumentConfiguration, cidValue(config.cid)]]),
          },
          disclosedContracts: [factory, config].map((c) => disclosed(env.ledger, c, debug)),
        },
      };
    }),
    ...(['execute-transfer', 'withdraw', 'cancel'] as const).map((choice) =>
      route('POST', `/allocations/v1/{allocationId}/choice-contexts/${choice}`, allocationContext),
    ),
  ];
}
