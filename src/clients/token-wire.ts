/**
 * The token standard's on-ledger shapes (canton-json-api.md §6, wrapped-api.md §2, §5, §8) and the ids the token
 * flows use, exactly as the ledger takes them. Requests name templates and interfaces in the package-name form
 * (`#<package-name>:<Module>:<Entity>`); answers carry the package-id form, so answers are matched by the
 * `:<Module>:<Entity>` suffix (`sameEntity`).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { registerWireSchemas } from './schema-check.js';

/** Interfaces of the token standard (exercise their choices with the interface id in `templateId`). */
export const TOKEN_INTERFACES = {
  holding: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
  transferFactory:
    '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
  transferInstruction:
    '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
  allocationFactory:
    '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
  allocation: '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
} as const;

/** Templates of the registry and the wrapped token. */
export const TOKEN_TEMPLATES = {
  registryHolding: '#utility-registry-holding-v0:Utility.Registry.Holding.V0.Holding:Holding',
  transferOffer: '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Transfer:TransferOffer',
  executedTransfer: '#utility-registry-v0:Utility.Registry.V0.Holding.Transfer:ExecutedTransfer',
  depositAccount: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount',
  depositAccountRules: '#cbtc:CBTC.DepositAccount:CBTCDepositAccountRules',
  withdrawAccount: '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccount',
  withdrawAccountRules: '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccountRules',
  withdrawRequest: '#cbtc:CBTC.WithdrawRequest:CBTCWithdrawRequest',
  credentialOffer: '#utility-credential-app-v0:Utility.Credential.App.V0.Model.Offer:CredentialOffer',
  credential: '#utility-credential-v0:Utility.Credential.V0.Credential:Credential',
  userService: '#utility-credential-app-v0:Utility.Credential.App.V0.Service.User:UserService',
} as const;

export const TOKEN_CHOICES = {
  transfer: 'TransferFactory_Transfer',
  accept: 'TransferInstruction_Accept',
  reject: 'TransferInstruction_Reject',
  withdraw: 'TransferInstruction_Withdraw',
  allocate: 'AllocationFactory_Allocate',
  allocationExecuteTransfer: 'Allocation_ExecuteTransfer',
  allocationWithdraw: 'Allocation_Withdraw',
  allocationCancel: 'Allocation_Cancel',
  createDepositAccount: 'CBTCDepositAccountRules_CreateDepositAccount',
  createWithdrawAccount: 'CBTCWithdrawAccountRules_CreateWithdrawAccount',
  burn: 'CBTCWithdrawAccount_Withdraw',
  acceptCredentialOffer: 'UserService_AcceptFreeCredentialOffer',
} as const;

/** Metadata keys the flows set (`transfer.meta.values`, `extraArgs.meta.values`). */
export const META_KEYS = {
  reason: 'splice.lfdecentralizedtrust.org/reason',
  reference: 'splice.lfdecentralizedtrust.org/reference',
  txKind: 'splice.lfdecentralizedtrust.org/tx-kind',
} as const;

/** Choice-context keys of the burn (`CBTCWithdrawAccount_Withdraw.extraArgs.context`). */
export const CONTEXT_KEYS = {
  instrumentConfiguration: 'utility.digitalasset.com/instrument-configuration',
  issuerCredentials: 'utility.digitalasset.com/issuer-credentials',
} as const;

/** `:<Module>:<Entity>` of an id in either form. */
export function entityOf(id: string): string {
  const parts = id.split(':');
  return parts.length < 3 ? id : `:${parts.slice(-2).join(':')}`;
}

/** Whether two template or interface ids name the same entity (the package-name and package-id forms compare equal). */
export function sameEntity(a: string, b: string): boolean {
  return entityOf(a) === entityOf(b);
}

// --- Daml values of the token standard ---------------------------------------------------------------------------

export interface InstrumentId {
  admin: string;
  id: string;
}

export interface Metadata {
  values: Record<string, string>;
}

/** A choice context as the registry hands it out: `{values: {<key>: {tag: "AV_…", value: …}}}`, passed on as is. */
export interface ChoiceContextData {
  values?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ExtraArgs {
  context: ChoiceContextData;
  meta: Metadata;
}

export interface Transfer {
  sender: string;
  receiver: string;
  /** a decimal string, ≤ 10 fraction digits */
  amount: string;
  instrumentId: InstrumentId;
  /** RFC 3339; must be in the past when the ledger checks it */
  requestedAt: string;
  /** RFC 3339; must be in the future */
  executeBefore: string;
  inputHoldingCids: string[];
  meta: Metadata;
}

/** The argument of `TransferFactory_Transfer` (and, with an empty context, the registry's `choiceArguments`). */
export interface TransferFactoryArguments {
  expectedAdmin: string;
  transfer: Transfer;
  extraArgs: ExtraArgs;
}

export interface AllocationSpecification {
  settlement: {
    executor: string;
    settlementRef: { id: string; cid?: string | null };
    requestedAt: string;
    allocateBefore: string;
    settleBefore: string;
    meta: Metadata;
  };
  transferLegId: string;
  transferLeg: {
    sender: string;
    receiver: string;
    amount: string;
    instrumentId: InstrumentId;
    meta: Metadata;
  };
}

/** The argument of `AllocationFactory_Allocate` (and, with an empty context, the registry's `choiceArguments`). */
export interface AllocationFactoryArguments {
  expectedAdmin: string;
  allocation: AllocationSpecification;
  requestedAt: string;
  inputHoldingCids: string[];
  extraArgs: ExtraArgs;
}

export const EMPTY_EXTRA_ARGS: ExtraArgs = { context: { values: {} }, meta: { values: {} } };

// --- interface views and results, as read from the ledger --------------------------------------------------------

const str = { type: 'string' } as const;
const strings = { type: 'array', items: str } as const;
const instrumentIdSchema = {
  type: 'object',
  required: ['admin', 'id'],
  properties: { admin: str, id: str },
} as const;
const metadataSchema = {
  type: 'object',
  properties: { values: { type: 'object', additionalProperties: str } },
} as const;

/** `HoldingView`: the Holding interface's view of any holding. */
export const holdingViewSchema = {
  type: 'object',
  required: ['owner', 'instrumentId', 'amount'],
  properties: {
    owner: str,
    instrumentId: instrumentIdSchema,
    amount: str,
    lock: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          properties: {
            holders: strings,
            expiresAt: { type: ['string', 'null'] },
            expiresAfter: {},
            context: { type: ['string', 'null'] },
          },
        },
      ],
    },
    meta: metadataSchema,
  },
} as const;
export type HoldingView = FromSchema<typeof holdingViewSchema>;

/** What moves in a transfer or an allocation's leg: who to whom, how much of which instrument. */
const transferLegProperties = {
  sender: str,
  receiver: str,
  amount: str,
  instrumentId: instrumentIdSchema,
  meta: metadataSchema,
} as const;

export const transferSchema = {
  type: 'object',
  required: ['sender', 'receiver', 'amount', 'instrumentId'],
  properties: {
    ...transferLegProperties,
    requestedAt: str,
    executeBefore: str,
    inputHoldingCids: strings,
  },
} as const;

/** `TransferInstructionView`: the TransferInstruction interface's view of an offer. */
export const transferInstructionViewSchema = {
  type: 'object',
  required: ['transfer'],
  properties: {
    originalInstructionCid: { type: ['string', 'null'] },
    transfer: transferSchema,
    status: { type: 'object', properties: { tag: str } },
    meta: metadataSchema,
  },
} as const;
export type TransferInstructionView = FromSchema<typeof transferInstructionViewSchema>;

/** `AllocationView`: the Allocation interface's view of one settlement leg's locked funds. */
export const allocationViewSchema = {
  type: 'object',
  required: ['allocation'],
  properties: {
    allocation: {
      type: 'object',
      required: ['settlement', 'transferLegId', 'transferLeg'],
      properties: {
        settlement: {
          type: 'object',
          required: ['executor', 'settlementRef'],
          properties: {
            executor: str,
            settlementRef: {
              type: 'object',
              required: ['id'],
              properties: { id: str, cid: { type: ['string', 'null'] } },
            },
            requestedAt: str,
            allocateBefore: str,
            settleBefore: str,
            meta: metadataSchema,
          },
        },
        transferLegId: str,
        transferLeg: {
          type: 'object',
          required: ['sender', 'receiver', 'amount', 'instrumentId'],
          properties: transferLegProperties,
        },
      },
    },
    holdingCids: strings,
    meta: metadataSchema,
  },
} as const;
export type AllocationView = FromSchema<typeof allocationViewSchema>;

/** `TransferInstructionResult`: what the transfer factory and the instruction choices return. */
export const transferInstructionResultSchema = {
  type: 'object',
  required: ['output'],
  properties: {
    output: {
      type: 'object',
      required: ['tag'],
      properties: {
        tag: {
          enum: [
            'TransferInstructionResult_Pending',
            'TransferInstructionResult_Completed',
            'TransferInstructionResult_Failed',
          ],
        },
        value: {
          type: ['object', 'null'],
          properties: { transferInstructionCid: str, receiverHoldingCids: strings },
        },
      },
    },
    senderChangeCids: strings,
    meta: metadataSchema,
  },
} as const;

/** The registry's record of a settled transfer (accepted, or direct to a preapproved receiver), seen by both sides. */
export const executedTransferPayloadSchema = {
  type: 'object',
  required: ['sender', 'receiver', 'amount', 'instrumentId'],
  properties: {
    sender: str,
    receiver: str,
    amount: str,
    instrumentId: instrumentIdSchema,
    executedAt: str,
    meta: metadataSchema,
  },
} as const;
export type ExecutedTransferPayload = FromSchema<typeof executedTransferPayloadSchema>;

export const depositAccountPayloadSchema = {
  type: 'object',
  required: ['owner', 'operator', 'registrar', 'lastProcessedBitcoinBlock'],
  properties: {
    id: { type: ['string', 'null'] },
    owner: str,
    operator: str,
    registrar: str,
    lastProcessedBitcoinBlock: str,
    limits: {},
    instrument: {},
  },
} as const;
export type DepositAccountPayload = FromSchema<typeof depositAccountPayloadSchema>;

export const withdrawAccountPayloadSchema = {
  type: 'object',
  required: ['owner', 'operator', 'registrar', 'destinationBtcAddress'],
  properties: {
    id: { type: ['string', 'null'] },
    owner: str,
    operator: str,
    registrar: str,
    destinationBtcAddress: str,
    pendingBalance: { type: ['string', 'null'] },
    limits: {},
  },
} as const;
export type WithdrawAccountPayload = FromSchema<typeof withdrawAccountPayloadSchema>;

/** `btcTxId` is null in the legacy model (the request made by the burn itself): tolerated, not a failure. */
export const withdrawRequestPayloadSchema = {
  type: 'object',
  required: ['owner', 'registrar', 'amount', 'destinationBtcAddress'],
  properties: {
    owner: str,
    registrar: str,
    amount: str,
    destinationBtcAddress: str,
    btcTxId: { type: ['string', 'null'] },
    sourceAccountId: { type: ['string', 'null'] },
  },
} as const;
export type WithdrawRequestPayload = FromSchema<typeof withdrawRequestPayloadSchema>;

const claimsSchema = {
  type: 'array',
  items: { type: 'object', properties: { subject: str, property: str, value: str } },
} as const;

export const credentialPayloadSchema = {
  type: 'object',
  required: ['issuer', 'holder'],
  properties: { issuer: str, holder: str, id: str, description: str, claims: claimsSchema },
} as const;
export type CredentialPayload = FromSchema<typeof credentialPayloadSchema>;

export const userServicePayloadSchema = {
  type: 'object',
  required: ['user'],
  properties: { operator: str, user: str, dso: str },
} as const;
export type UserServicePayload = FromSchema<typeof userServicePayloadSchema>;

/** `Limits {minAmount?, maxAmount?}` of an account (null: none). */
export interface AccountLimits {
  minAmount: string | null;
  maxAmount: string | null;
}

registerWireSchemas(
  holdingViewSchema,
  transferInstructionViewSchema,
  allocationViewSchema,
  transferInstructionResultSchema,
  depositAccountPayloadSchema,
  withdrawAccountPayloadSchema,
  withdrawRequestPayloadSchema,
  credentialPayloadSchema,
  userServicePayloadSchema,
  executedTransferPayloadSchema,
);
