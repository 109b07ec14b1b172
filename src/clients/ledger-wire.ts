/**
 * The JSON Ledger API v2 shapes the ledger client reads and sends (docs/reference/canton-json-api.md §3, the
 * 3.5.1 and 3.4.12 OpenAPI documents). Response schemas check only what callers read, and tolerate what the
 * documents leave out or a newer release adds (both documents warn that fields marked required may be missing):
 * additional properties are allowed everywhere. Types derive from the schemas.
 *
 * Requests are built by the client from typed arguments; the contract tests (test/contract/ledger-requests.test.ts)
 * validate every request shape against both documents.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { registerWireSchemas } from './schema-check.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: str } as const;
/** Any JSON value (a Daml value: record, variant, text …). */
const anyValue = {} as const;

// --- errors ------------------------------------------------------------------------------------------------------

/** `JsCantonError`: the body of every error the participant answers with JSON. */
export const cantonErrorSchema = {
  type: 'object',
  required: ['code', 'cause'],
  properties: {
    code: str,
    cause: str,
    correlationId: { type: ['string', 'null'] },
    traceId: { type: ['string', 'null'] },
    context: { type: ['object', 'null'], additionalProperties: anyValue },
    resources: { type: ['array', 'null'] },
    errorCategory: int,
    grpcCodeValue: { type: ['integer', 'null'] },
    retryInfo: { type: ['string', 'null'] },
    definiteAnswer: { type: ['boolean', 'null'] },
  },
} as const;
export type CantonError = FromSchema<typeof cantonErrorSchema>;

// --- events ------------------------------------------------------------------------------------------------------

const statusSchema = {
  type: 'object',
  required: ['code'],
  properties: { code: int, message: str },
} as const;

export const interfaceViewSchema = {
  type: 'object',
  required: ['interfaceId'],
  properties: {
    interfaceId: str,
    /** code 0: the view was computed; otherwise `viewValue` is absent */
    viewStatus: statusSchema,
    viewValue: anyValue,
    implementationPackageId: str,
  },
} as const;
export type InterfaceView = FromSchema<typeof interfaceViewSchema>;

export const createdEventSchema = {
  type: 'object',
  required: ['contractId', 'templateId'],
  properties: {
    offset: int,
    nodeId: int,
    contractId: str,
    /** package-id form in answers: `<packageId>:<Module>:<Entity>` */
    templateId: str,
    contractKey: anyValue,
    /** `null` when only interfaces were asked for: read the views */
    createArgument: anyValue,
    createdEventBlob: str,
    interfaceViews: { type: 'array', items: interfaceViewSchema },
    witnessParties: strings,
    signatories: strings,
    observers: strings,
    createdAt: str,
    packageName: str,
    representativePackageId: str,
    acsDelta: bool,
  },
} as const;
export type CreatedEvent = FromSchema<typeof createdEventSchema>;

export const exercisedEventSchema = {
  type: 'object',
  required: ['contractId', 'templateId', 'choice'],
  properties: {
    offset: int,
    nodeId: int,
    contractId: str,
    templateId: str,
    interfaceId: str,
    choice: str,
    choiceArgument: anyValue,
    actingParties: strings,
    consuming: bool,
    witnessParties: strings,
    /** the last node of this exercise's subtree: events (nodeId, lastDescendantNodeId] are its consequences */
    lastDescendantNodeId: int,
    exerciseResult: anyValue,
    packageName: str,
    implementedInterfaces: strings,
    acsDelta: bool,
  },
} as const;
export type ExercisedEvent = FromSchema<typeof exercisedEventSchema>;

export const archivedEventSchema = {
  type: 'object',
  required: ['contractId', 'templateId'],
  properties: {
    offset: int,
    nodeId: int,
    contractId: str,
    templateId: str,
    witnessParties: strings,
    packageName: str,
    implementedInterfaces: strings,
  },
} as const;
export type ArchivedEvent = FromSchema<typeof archivedEventSchema>;

/** One event of a transaction: a one-key wrapper (`CreatedEvent`, `ExercisedEvent` or `ArchivedEvent`). */
export const eventSchema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  properties: {
    CreatedEvent: createdEventSchema,
    ExercisedEvent: exercisedEventSchema,
    ArchivedEvent: archivedEventSchema,
  },
} as const;
export type LedgerEvent = FromSchema<typeof eventSchema>;

export const transactionSchema = {
  type: 'object',
  required: ['updateId', 'offset', 'events'],
  properties: {
    updateId: str,
    commandId: str,
    workflowId: str,
    effectiveAt: str,
    /** LEDGER_EFFECTS: in pre-order, each exercise before its consequences */
    events: { type: 'array', items: eventSchema },
    offset: int,
    synchronizerId: str,
    recordTime: str,
  },
} as const;
export type Transaction = FromSchema<typeof transactionSchema>;

export const submitAndWaitForTransactionResponseSchema = {
  type: 'object',
  required: ['transaction'],
  properties: { transaction: transactionSchema },
} as const;

// --- state -------------------------------------------------------------------------------------------------------

export const versionResponseSchema = {
  type: 'object',
  required: ['version'],
  properties: { version: str, features: { type: 'object' } },
} as const;
export type LedgerVersion = FromSchema<typeof versionResponseSchema>;

/** `offset` is optional on the wire (absent on an empty ledger in newer releases). */
export const ledgerEndResponseSchema = {
  type: 'object',
  properties: { offset: int },
} as const;

/** `/v2/state/latest-pruned-offsets`: the history before this offset is gone (0: nothing pruned) */
export const prunedOffsetsResponseSchema = {
  type: 'object',
  properties: { participantPrunedUpToInclusive: int, allDivulgedContractsPrunedUpToInclusive: int },
} as const;

export const activeContractSchema = {
  type: 'object',
  required: ['createdEvent'],
  properties: {
    createdEvent: createdEventSchema,
    synchronizerId: str,
    reassignmentCounter: int,
  },
} as const;
/** `JsActiveContract`: a contract active at the requested offset, on its synchronizer. */
export type ActiveContract = FromSchema<typeof activeContractSchema>;

/**
 * One element of the active-contracts answer (an HTTP array element, or one WebSocket frame). `contractEntry` is a
 * one-key wrapper: `JsActiveContract`, or `JsEmpty` / `JsIncompleteAssigned` / `JsIncompleteUnassigned`.
 */
export const activeContractsElementSchema = {
  type: 'object',
  properties: {
    workflowId: { type: ['string', 'null'] },
    contractEntry: { type: ['object', 'null'] },
    streamContinuationToken: { type: ['string', 'null'] },
  },
} as const;

export const activeContractsResponseSchema = {
  type: 'array',
  items: activeContractsElementSchema,
} as const;

export const packagesResponseSchema = {
  type: 'object',
  required: ['packageIds'],
  properties: { packageIds: strings },
} as const;

// --- users and parties -------------------------------------------------------------------------------------------

export const userSchema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: str,
    primaryParty: str,
    isDeactivated: bool,
    identityProviderId: str,
  },
} as const;
export type LedgerUser = FromSchema<typeof userSchema>;

export const userResponseSchema = {
  type: 'object',
  required: ['user'],
  properties: { user: userSchema },
} as const;

/** `Right.kind` is a one-key wrapper: `{"CanActAs": {"value": {"party": …}}}`, `{"ParticipantAdmin": {"value": {}}}` … */
export const rightsResponseSchema = {
  type: 'object',
  properties: {
    rights: {
      type: 'array',
      items: { type: 'object', properties: { kind: { type: 'object' } } },
    },
  },
} as const;

export const partyDetailsSchema = {
  type: 'object',
  required: ['party'],
  properties: { party: str, isLocal: bool, identityProviderId: str },
} as const;
export type PartyDetails = FromSchema<typeof partyDetailsSchema>;

export const partiesResponseSchema = {
  type: 'object',
  required: ['partyDetails'],
  properties: {
    partyDetails: { type: 'array', items: partyDetailsSchema },
    nextPageToken: str,
  },
} as const;
export type PartiesPage = FromSchema<typeof partiesResponseSchema>;

// --- reads that settle a submission ------------------------------------------------------------------------------

export const completionSchema = {
  type: 'object',
  required: ['commandId'],
  properties: {
    commandId: str,
    /** code 0 = the command succeeded; any other gRPC code = it was rejected (`message` says why) */
    status: statusSchema,
    updateId: str,
    userId: str,
    actAs: strings,
    submissionId: str,
    offset: int,
  },
} as const;
export type Completion = FromSchema<typeof completionSchema>;

/** One element of `/v2/commands/completions`: `{"completionResponse": {"Completion": {"value": …}}}` or a checkpoint. */
export const completionsResponseSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      completionResponse: {
        type: 'object',
        properties: {
          Completion: { type: 'object', required: ['value'], properties: { value: completionSchema } },
        },
      },
    },
  },
} as const;
export type CompletionsResponse = FromSchema<typeof completionsResponseSchema>;

/** One element of `/v2/updates`: `{"update": {"Transaction": {"value": JsTransaction}}}`, or another update kind. */
export const updatesResponseSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      update: {
        type: 'object',
        properties: {
          Transaction: { type: 'object', required: ['value'], properties: { value: transactionSchema } },
        },
      },
    },
  },
} as const;
export type UpdatesResponse = FromSchema<typeof updatesResponseSchema>;

export const eventsByContractIdResponseSchema = {
  type: 'object',
  properties: {
    created: {
      type: 'object',
      required: ['createdEvent'],
      properties: { createdEvent: createdEventSchema, synchronizerId: str },
    },
    archived: {
      type: 'object',
      required: ['archivedEvent'],
      properties: { archivedEvent: archivedEventSchema, synchronizerId: str },
    },
  },
} as const;
export type ContractEvents = FromSchema<typeof eventsByContractIdResponseSchema>;

// --- requests ----------------------------------------------------------------------------------------------------

export interface ExerciseCommand {
  ExerciseCommand: {
    /** a template id, or an interface id to exercise an interface choice; `#<package-name>:<Module>:<Entity>` */
    templateId: string;
    contractId: string;
    choice: string;
    choiceArgument: unknown;
  };
}

export interface CreateCommand {
  CreateCommand: { templateId: string; createArguments: unknown };
}

export type Command = ExerciseCommand | CreateCommand;

/** A contract the submitter cannot see, passed along with the command (from the registry or the gateway). */
export interface DisclosedContract {
  templateId?: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId?: string;
}

export type IdentifierFilter =
  | { WildcardFilter: { value: { includeCreatedEventBlob: boolean } } }
  | { TemplateFilter: { value: { templateId: string; includeCreatedEventBlob: boolean } } }
  | {
      InterfaceFilter: {
        value: { interfaceId: string; includeInterfaceView: boolean; includeCreatedEventBlob: boolean };
      };
    };

export interface EventFormat {
  filtersByParty: Record<string, { cumulative: Array<{ identifierFilter: IdentifierFilter }> }>;
  verbose: boolean;
}

export interface TransactionFormat {
  eventFormat: EventFormat;
  transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS';
}

/** `deduplicationPeriod` of JsCommands: an offset, or a duration in whole seconds */
export type WireDeduplicationPeriod =
  | { DeduplicationOffset: { value: number } }
  | { DeduplicationDuration: { value: { seconds: number; nanos: number } } };

export interface JsCommands {
  commands: readonly Command[];
  commandId: string;
  actAs: readonly string[];
  readAs?: readonly string[];
  disclosedContracts?: readonly DisclosedContract[];
  deduplicationPeriod?: WireDeduplicationPeriod;
  synchronizerId?: string;
  workflowId?: string;
}

// The bodies the client sends (test/contract/ledger-vendor-types.ts holds them to the published client types).

/** `POST /v2/state/active-contracts`, HTTP body or WebSocket request frame */
export interface ActiveContractsRequest {
  activeAtOffset: number;
  eventFormat: EventFormat;
}

/** `POST /v2/commands/submit-and-wait-for-transaction` */
export interface SubmitAndWaitForTransactionRequest {
  commands: JsCommands;
  transactionFormat: TransactionFormat;
}

/** `POST /v2/commands/completions` */
export interface CompletionsRequest {
  parties: readonly string[];
  beginExclusive: number;
  userId?: string;
}

/** `POST /v2/updates` */
export interface UpdatesRequest {
  beginExclusive: number;
  endInclusive: number;
  updateFormat: { includeTransactions: TransactionFormat };
}

/** `POST /v2/events/events-by-contract-id` */
export interface EventsByContractIdRequest {
  contractId: string;
  eventFormat: EventFormat;
}

registerWireSchemas(
  cantonErrorSchema,
  versionResponseSchema,
  ledgerEndResponseSchema,
  prunedOffsetsResponseSchema,
  activeContractSchema,
  activeContractsResponseSchema,
  packagesResponseSchema,
  userResponseSchema,
  rightsResponseSchema,
  partiesResponseSchema,
  completionsResponseSchema,
  updatesResponseSchema,
  eventsByContractIdResponseSchema,
  submitAndWaitForTransactionResponseSchema,
  transactionSchema,
);
