/**
 * The participant's wire types held to the published client types, at build time: `tsc --noEmit` (which `npm test`
 * runs) compiles this file, so a drift between our shapes and Canton's fails the type check. The vendor's types
 * (`@canton-network/core-ledger-client-types`, a dev dependency) are generated from the same Canton 3.4.12 and 3.5.1
 * OpenAPI documents as test/fixtures/specs; they are imported as types only (nothing of the package runs, an ESLint rule
 * keeps it so) and nothing imports this file.
 *
 * Three directions, each against both releases:
 * - what the participant answers, read by our client (src/clients/ledger-wire.ts): the vendor's response types must
 *   be assignable to ours, so that every field we read exists with the type we read it as;
 * - what our client sends: our request types must be assignable to the vendor's request types;
 * - what the sandbox answers (packages/sandbox/src/ledger/encode.ts, errors.ts): its shapes must be assignable to the
 *   vendor's response types, and name no field the vendor's type does not have.
 */
import type { LedgerSchemasByVersion } from '@canton-network/core-ledger-client-types';
import type {
  ActiveContract,
  ActiveContractsRequest,
  ArchivedEvent,
  CantonError,
  Command,
  Completion,
  CompletionsRequest,
  ContractEvents,
  CreatedEvent,
  DisclosedContract,
  EventFormat,
  EventsByContractIdRequest,
  ExercisedEvent,
  IdentifierFilter,
  InterfaceView,
  JsCommands,
  LedgerEvent,
  LedgerUser,
  LedgerVersion,
  PartiesPage,
  PartyDetails,
  SubmitAndWaitForTransactionRequest,
  Transaction,
  TransactionFormat,
  UpdatesRequest,
} from '../../src/clients/ledger-wire.js';
import type {
  JsActiveContractEntry,
  JsArchivedEvent,
  JsCompletion,
  JsContractEvents,
  JsCreatedEvent,
  JsEvent,
  JsExercisedEvent,
  JsInterfaceView,
  JsTopologyTransaction,
  JsTransaction,
  JsTransactionTree,
  JsTreeEvent,
} from '../../packages/sandbox/src/ledger/encode.js';
import type { CantonErrorBody } from '../../packages/sandbox/src/ledger/errors.js';

type V34 = LedgerSchemasByVersion['3.4'];
type V35 = LedgerSchemasByVersion['3.5'];

/** `true` when `From` is assignable to `To` (not distributed over unions) */
type Assignable<From, To> = [From] extends [To] ? true : false;

/** readonly arrays are a promise of ours not to change them, not a wire difference */
type Writable<T> = T extends readonly (infer E)[]
  ? Array<Writable<E>>
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;

/** every key of any member of a union */
type KeysOf<T> = T extends unknown ? keyof T : never;
/** the type of a key in whichever members of a union have it */
type PropOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * The paths (`commands.applicationId`) of the fields `Ours` has and `Theirs` does not declare, at any depth; never
 * when there are none. Assignability alone lets an extra field through, and an extra field is a misspelt or
 * invented one: the participant refuses it in a request ("Unexpected fields") and no client reads it in an answer.
 */
type Invented<Ours, Theirs> = Ours extends readonly (infer E)[]
  ? NonNullable<Theirs> extends readonly (infer F)[]
    ? Invented<E, F>
    : never
  : Ours extends object
    ? {
        [K in keyof Ours & string]-?: K extends KeysOf<NonNullable<Theirs>>
          ? Within<K, Invented<Ours[K], PropOf<NonNullable<Theirs>, K>>>
          : K;
      }[keyof Ours & string]
    : never;
type Within<K extends string, Paths> = Paths extends string ? `${K}.${Paths}` : never;

/**
 * The checks of one release are computed by the aliases below and held at the use site (`AllHold`, `NoneUnknown`),
 * with the release's types known: a check that fails is named in the compiler's message ("Types of property
 * 'cantonError' are incompatible", with the keys the vendor's type lacks).
 */
type AllHold<Checks extends { [K in keyof Checks]: true }> = Checks;
type NoneUnknown<Keys extends { [K in keyof Keys]: never }> = Keys;

/** The vendor's response types read as ours. */
type Reads<V extends V34 | V35> = {
  cantonError: Assignable<V['JsCantonError'], CantonError>;
  createdEvent: Assignable<V['CreatedEvent'], CreatedEvent>;
  exercisedEvent: Assignable<V['ExercisedEvent'], ExercisedEvent>;
  archivedEvent: Assignable<V['ArchivedEvent'], ArchivedEvent>;
  event: Assignable<V['Event'], LedgerEvent>;
  interfaceView: Assignable<V['JsInterfaceView'], InterfaceView>;
  transaction: Assignable<V['JsTransaction'], Transaction>;
  activeContract: Assignable<V['JsActiveContract'], ActiveContract>;
  completion: Assignable<V['Completion1'], Completion>;
  partyDetails: Assignable<V['PartyDetails'], PartyDetails>;
  parties: Assignable<V['ListKnownPartiesResponse'], PartiesPage>;
  user: Assignable<V['User'], LedgerUser>;
  version: Assignable<V['GetLedgerApiVersionResponse'], LedgerVersion>;
  contractEvents: Assignable<V['JsGetEventsByContractIdResponse'], ContractEvents>;
};

/** Ours sent as the vendor's request types. */
type Sends<V extends V34 | V35> = {
  eventFormat: Assignable<Writable<EventFormat>, V['EventFormat']>;
  identifierFilter: Assignable<Writable<IdentifierFilter>, V['IdentifierFilter']>;
  transactionFormat: Assignable<Writable<TransactionFormat>, V['TransactionFormat']>;
  command: Assignable<Writable<Command>, V['Command']>;
  disclosedContract: Assignable<Writable<DisclosedContract>, V['DisclosedContract']>;
  commands: Assignable<Writable<JsCommands>, V['JsCommands']>;
  activeContracts: Assignable<Writable<ActiveContractsRequest>, V['GetActiveContractsRequest']>;
  submit: Assignable<Writable<SubmitAndWaitForTransactionRequest>, V['JsSubmitAndWaitForTransactionRequest']>;
  completions: Assignable<Writable<CompletionsRequest>, V['CompletionStreamRequest']>;
  updates: Assignable<Writable<UpdatesRequest>, V['GetUpdatesRequest']>;
  eventsByContractId: Assignable<Writable<EventsByContractIdRequest>, V['GetEventsByContractIdRequest']>;
};

/** What the sandbox answers, as the vendor's response types. */
type Answers<V extends V34 | V35> = {
  cantonError: Assignable<CantonErrorBody, V['JsCantonError']>;
  createdEvent: Assignable<JsCreatedEvent, V['CreatedEvent']>;
  exercisedEvent: Assignable<JsExercisedEvent, V['ExercisedEvent']>;
  archivedEvent: Assignable<JsArchivedEvent, V['ArchivedEvent']>;
  event: Assignable<JsEvent, V['Event']>;
  interfaceView: Assignable<JsInterfaceView, V['JsInterfaceView']>;
  transaction: Assignable<JsTransaction, V['JsTransaction']>;
  treeEvent: Assignable<JsTreeEvent, V['TreeEvent']>;
  transactionTree: Assignable<JsTransactionTree, V['JsTransactionTree']>;
  completion: Assignable<JsCompletion, V['Completion1']>;
  topologyTransaction: Assignable<JsTopologyTransaction, V['JsTopologyTransaction']>;
  activeContractEntry: Assignable<JsActiveContractEntry, V['JsGetActiveContractsResponse']>;
  contractEvents: Assignable<JsContractEvents, V['JsGetEventsByContractIdResponse']>;
};

/**
 * The 3.5-only fields the sandbox sends on its 3.5 profile and leaves out on the 3.4 one (canton-json-api.md §1):
 * not a drift when checked against 3.4.
 */
type Only35 = 'implementationPackageId';

/** the checks of `Paths` without the paths that end in an allowed field */
type Unlisted<Paths, Allowed extends string> = {
  [K in keyof Paths]: Exclude<Paths[K], Allowed | `${string}.${Allowed}`>;
};

/** Fields our client sends or the sandbox answers that the vendor's type does not declare, at any depth. */
type Extra<V extends V34 | V35, Allowed extends string = never> = Unlisted<
  {
    commands: Invented<JsCommands, V['JsCommands']>;
    activeContracts: Invented<ActiveContractsRequest, V['GetActiveContractsRequest']>;
    submit: Invented<SubmitAndWaitForTransactionRequest, V['JsSubmitAndWaitForTransactionRequest']>;
    completions: Invented<CompletionsRequest, V['CompletionStreamRequest']>;
    updates: Invented<UpdatesRequest, V['GetUpdatesRequest']>;
    eventsByContractId: Invented<EventsByContractIdRequest, V['GetEventsByContractIdRequest']>;
    cantonErrorAnswer: Invented<CantonErrorBody, V['JsCantonError']>;
    transactionAnswer: Invented<JsTransaction, V['JsTransaction']>;
    transactionTreeAnswer: Invented<JsTransactionTree, V['JsTransactionTree']>;
    completionAnswer: Invented<JsCompletion, V['Completion1']>;
    topologyAnswer: Invented<JsTopologyTransaction, V['JsTopologyTransaction']>;
    activeContractAnswer: Invented<JsActiveContractEntry, V['JsGetActiveContractsResponse']>;
    contractEventsAnswer: Invented<JsContractEvents, V['JsGetEventsByContractIdResponse']>;
  },
  Allowed
>;

/** Every check of both releases (exported so that the compiler evaluates them; nothing imports it). */
export type LedgerVendorTypeChecks = [
  AllHold<Reads<V34>>,
  AllHold<Reads<V35>>,
  AllHold<Sends<V34>>,
  AllHold<Sends<V35>>,
  AllHold<Answers<V34>>,
  AllHold<Answers<V35>>,
  NoneUnknown<Extra<V34, Only35>>,
  NoneUnknown<Extra<V35>>,
];
