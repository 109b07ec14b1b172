/**
 * The wire shapes of events and updates (canton-json-api.md §3): CreatedEvent, ExercisedEvent, ArchivedEvent,
 * JsTransaction in the ACS_DELTA and LEDGER_EFFECTS shapes, JsTransactionTree, completions, topology
 * transactions. Every field the documents mark required is present; identifiers in package-id form.
 */
import { blobOf } from './blob.js';
import type {
  OffsetEntry,
  PartyEntry,
  Permission,
  StoredCreate,
  StoredExercise,
  TxEntry,
} from './entries.js';
import { type EventFormat, type Selection, select } from './filters.js';
import { formatTime } from './lf.js';
import { type Catalog, type Contract, packageIdForm } from './model.js';
import { implementationOf } from './tx.js';

/** which Canton release the participant behaves as (`--ledger-api`) */
export type ApiProfile = '3.4' | '3.5' | 'strict';

export const API_VERSION: Record<ApiProfile, string> = { '3.4': '3.4.12', '3.5': '3.5.1', strict: '3.6.1' };

export type TransactionShape = 'TRANSACTION_SHAPE_ACS_DELTA' | 'TRANSACTION_SHAPE_LEDGER_EFFECTS';

export interface Encoder {
  catalog: Catalog;
  synchronizerId: string;
  profile: ApiProfile;
}

/** `JsStatus`: a computed interface view's, a successful completion's */
interface JsStatus {
  code: number;
  message: string;
  details: [];
}

export interface JsInterfaceView {
  interfaceId: string;
  viewStatus: JsStatus;
  viewValue?: unknown;
  /** 3.5 and later */
  implementationPackageId?: string;
}

export interface JsCreatedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  contractKey: null;
  createArgument: unknown;
  createdEventBlob?: string;
  interfaceViews: JsInterfaceView[];
  witnessParties: string[];
  signatories: string[];
  observers: string[];
  createdAt: string;
  packageName: string;
  representativePackageId: string;
  acsDelta: boolean;
}

export interface JsExercisedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  interfaceId?: string;
  choice: string;
  choiceArgument: unknown;
  actingParties: string[];
  consuming: boolean;
  witnessParties: string[];
  lastDescendantNodeId: number;
  exerciseResult: unknown;
  packageName: string;
  implementedInterfaces: string[];
  acsDelta: boolean;
}

export interface JsArchivedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  witnessParties: string[];
  packageName: string;
  implementedInterfaces: string[];
}

export type JsEvent =
  | { CreatedEvent: JsCreatedEvent }
  | { ExercisedEvent: JsExercisedEvent }
  | { ArchivedEvent: JsArchivedEvent };

export interface JsTransaction {
  updateId: string;
  commandId: string;
  workflowId: string;
  effectiveAt: string;
  events: JsEvent[];
  offset: number;
  synchronizerId: string;
  recordTime: string;
}

export type JsTreeEvent =
  { CreatedTreeEvent: { value: JsCreatedEvent } } | { ExercisedTreeEvent: { value: JsExercisedEvent } };

export interface JsTransactionTree {
  updateId: string;
  commandId: string;
  workflowId: string;
  effectiveAt: string;
  offset: number;
  eventsById: Record<string, JsTreeEvent>;
  synchronizerId: string;
  recordTime: string;
}

export interface JsCompletion {
  commandId: string;
  status: JsStatus;
  updateId: string;
  userId: string;
  actAs: string[];
  submissionId: string;
  offset: number;
  synchronizerTime: { synchronizerId: string; recordTime: string };
}

type ParticipantPermission = `PARTICIPANT_PERMISSION_${Uppercase<Permission>}`;

export interface JsTopologyTransaction {
  updateId: string;
  offset: number;
  synchronizerId: string;
  recordTime: string;
  events: Array<{
    event: {
      ParticipantAuthorizationAdded: {
        value: { partyId: string; participantId: string; participantPermission: ParticipantPermission };
      };
    };
  }>;
}

/** one element of an active-contracts answer (an HTTP list element, a WebSocket frame) */
export interface JsActiveContractEntry {
  workflowId: string;
  contractEntry: {
    JsActiveContract: { createdEvent: JsCreatedEvent; synchronizerId: string; reassignmentCounter: number };
  };
}

/** the events of one contract (`/v2/events/events-by-contract-id`) */
export interface JsContractEvents {
  created: { createdEvent: JsCreatedEvent; synchronizerId: string };
  archived?: { archivedEvent: JsArchivedEvent; synchronizerId: string };
}

/** one element of an updates answer: `JsGetUpdatesResponse`, or `JsGetUpdateTreesResponse` for trees */
export type JsUpdate =
  | { update: { Transaction: { value: JsTransaction } } }
  | { update: { TransactionTree: { value: JsTransactionTree } } }
  | { update: { TopologyTransaction: { value: JsTopologyTransaction } } };

export function createdEvent(
  enc: Encoder,
  contract: Contract,
  selection: Selection,
  acsDelta: boolean,
  offset = contract.offset,
  nodeId = contract.nodeId,
): JsCreatedEvent {
  const t = contract.template;
  return {
    offset,
    nodeId,
    contractId: contract.cid,
    templateId: packageIdForm(t.pkg, t.name),
    contractKey: null,
    createArgument: selection.createArgument ? contract.arg : null,
    ...(selection.blob ? { createdEventBlob: blobOf(contract) } : {}),
    interfaceViews: selection.views.map((v) => ({
      interfaceId: packageIdForm(v.iface.pkg, v.iface.name),
      viewStatus: { code: 0, message: '', details: [] },
      ...(v.view ? { viewValue: implementationOf(contract, v.iface).view(contract.arg) } : {}),
      ...(enc.profile === '3.4' ? {} : { implementationPackageId: t.pkg.id }),
    })),
    witnessParties: selection.witnesses,
    signatories: t.signatories(contract.arg),
    observers: t.observers(contract.arg),
    createdAt: formatTime(contract.createdAt),
    packageName: t.pkg.name,
    representativePackageId: t.pkg.id,
    acsDelta,
  };
}

export function activeContractEntry(
  enc: Encoder,
  contract: Contract,
  selection: Selection,
): JsActiveContractEntry {
  return {
    workflowId: '',
    contractEntry: {
      JsActiveContract: {
        createdEvent: createdEvent(enc, contract, selection, true),
        synchronizerId: enc.synchronizerId,
        reassignmentCounter: 0,
      },
    },
  };
}

/** a stored create node as the contract it created */
export function contractOf(catalog: Catalog, entry: TxEntry, node: StoredCreate): Contract | undefined {
  const template = catalog.template(node.tpl);
  if (template === undefined) return undefined;
  return { cid: node.cid, template, arg: node.arg, createdAt: entry.rt, offset: entry.o, nodeId: node.n };
}

/** the events of a transaction a reader sees, in node order; none when no filter selects anything */
export function transactionEvents(
  enc: Encoder,
  entry: TxEntry,
  format: EventFormat,
  shape: TransactionShape,
): JsEvent[] {
  const createdHere = new Set(entry.nodes.filter((n) => n.k === 'c').map((n) => n.cid));
  const consumedHere = new Set(
    entry.nodes.filter((n): n is StoredExercise => n.k === 'e' && n.cons).map((n) => n.cid),
  );
  const events: JsEvent[] = [];
  for (const node of entry.nodes) {
    if (node.k === 'c') {
      const contract = contractOf(enc.catalog, entry, node);
      if (contract === undefined) continue;
      const transient = consumedHere.has(node.cid);
      if (shape === 'TRANSACTION_SHAPE_ACS_DELTA' && transient) continue;
      const parties = shape === 'TRANSACTION_SHAPE_ACS_DELTA' ? stakeholdersOf(contract) : node.wit;
      const selection = select(format, contract.template, parties);
      if (selection === undefined) continue;
      events.push({ CreatedEvent: createdEvent(enc, contract, selection, !transient, entry.o, node.n) });
      continue;
    }
    const template = enc.catalog.template(node.tpl);
    if (template === undefined) continue;
    if (shape === 'TRANSACTION_SHAPE_ACS_DELTA') {
      if (!node.cons || createdHere.has(node.cid)) continue;
      const selection = select(format, template, node.sh ?? node.wit);
      if (selection === undefined) continue;
      events.push({ ArchivedEvent: archivedEvent(enc, entry, node, selection.witnesses) });
      continue;
    }
    const selection = select(format, template, node.wit);
    if (selection === undefined) continue;
    events.push({
      ExercisedEvent: exercisedEvent(enc, entry, node, selection.witnesses, !createdHere.has(node.cid)),
    });
  }
  return events;
}

function stakeholdersOf(contract: Contract): string[] {
  return [
    ...new Set([
      ...contract.template.signatories(contract.arg),
      ...contract.template.observers(contract.arg),
    ]),
  ];
}

function exercisedEvent(
  enc: Encoder,
  entry: TxEntry,
  node: StoredExercise,
  witnesses: string[],
  fromLedger: boolean,
): JsExercisedEvent {
  return {
    offset: entry.o,
    nodeId: node.n,
    contractId: node.cid,
    templateId: node.tpl,
    ...(node.if ? { interfaceId: node.if } : {}),
    choice: node.ch,
    choiceArgument: node.arg,
    actingParties: node.act,
    consuming: node.cons,
    witnessParties: witnesses,
    lastDescendantNodeId: node.last,
    exerciseResult: node.res,
    packageName: enc.catalog.packageOf(node.tpl)?.name ?? '',
    implementedInterfaces: [],
    acsDelta: node.cons && fromLedger,
  };
}

function archivedEvent(
  enc: Encoder,
  entry: TxEntry,
  node: StoredExercise,
  witnesses: string[],
): JsArchivedEvent {
  return {
    offset: entry.o,
    nodeId: node.n,
    contractId: node.cid,
    templateId: node.tpl,
    witnessParties: witnesses,
    packageName: enc.catalog.packageOf(node.tpl)?.name ?? '',
    implementedInterfaces: [],
  };
}

export function jsTransaction(enc: Encoder, entry: TxEntry, events: JsEvent[]): JsTransaction {
  return {
    updateId: entry.u,
    commandId: entry.c ?? '',
    workflowId: entry.w ?? '',
    effectiveAt: formatTime(entry.rt),
    events,
    offset: entry.o,
    synchronizerId: enc.synchronizerId,
    recordTime: formatTime(entry.rt),
  };
}

/** the deprecated tree form: events keyed by node id */
export function jsTransactionTree(enc: Encoder, entry: TxEntry, events: JsEvent[]): JsTransactionTree {
  const eventsById: Record<string, JsTreeEvent> = {};
  // a tree has created and exercised events only: Canton drops the archives of an ACS_DELTA transaction
  for (const event of events) {
    if ('CreatedEvent' in event)
      eventsById[String(event.CreatedEvent.nodeId)] = { CreatedTreeEvent: { value: event.CreatedEvent } };
    else if ('ExercisedEvent' in event)
      eventsById[String(event.ExercisedEvent.nodeId)] = {
        ExercisedTreeEvent: { value: event.ExercisedEvent },
      };
  }
  return {
    updateId: entry.u,
    commandId: entry.c ?? '',
    workflowId: entry.w ?? '',
    effectiveAt: formatTime(entry.rt),
    offset: entry.o,
    eventsById,
    synchronizerId: enc.synchronizerId,
    recordTime: formatTime(entry.rt),
  };
}

export function completion(enc: Encoder, entry: TxEntry): JsCompletion {
  return {
    commandId: entry.c ?? '',
    status: { code: 0, message: '', details: [] },
    updateId: entry.u,
    userId: entry.user ?? '',
    actAs: entry.act,
    submissionId: entry.sub ?? '',
    offset: entry.o,
    synchronizerTime: { synchronizerId: enc.synchronizerId, recordTime: formatTime(entry.rt) },
  };
}

export function topologyTransaction(enc: Encoder, entry: PartyEntry): JsTopologyTransaction {
  return {
    updateId: entry.u,
    offset: entry.o,
    synchronizerId: enc.synchronizerId,
    recordTime: formatTime(entry.rt),
    events: [
      {
        event: {
          ParticipantAuthorizationAdded: {
            value: {
              partyId: entry.party,
              participantId: entry.participant,
              participantPermission: `PARTICIPANT_PERMISSION_${entry.permission.toUpperCase() as Uppercase<Permission>}`,
            },
          },
        },
      },
    ],
  };
}

export function isTx(entry: OffsetEntry): entry is TxEntry {
  return entry.t === 'tx';
}
