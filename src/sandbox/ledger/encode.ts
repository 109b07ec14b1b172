/**
 * The wire shapes of events and updates (canton-json-api.md §3): CreatedEvent, ExercisedEvent, ArchivedEvent,
 * JsTransaction in the ACS_DELTA and LEDGER_EFFECTS shapes, JsTransactionTree, completions, topology
 * transactions. Every field the documents mark required is present; identifiers in package-id form.
 */
import { blobOf } from './blob.js';
import type { OffsetEntry, PartyEntry, StoredCreate, StoredExercise, TxEntry } from './entries.js';
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

export function createdEvent(
  enc: Encoder,
  contract: Contract,
  selection: Selection,
  acsDelta: boolean,
  offset = contract.offset,
  nodeId = contract.nodeId,
): Record<string, unknown> {
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
): Record<string, unknown> {
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
): Array<Record<string, unknown>> {
  const createdHere = new Set(entry.nodes.filter((n) => n.k === 'c').map((n) => n.cid));
  const consumedHere = new Set(
    entry.nodes.filter((n): n is StoredExercise => n.k === 'e' && n.cons).map((n) => n.cid),
  );
  const events: Array<Record<string, unknown>> = [];
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
): Record<string, unknown> {
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
): Record<string, unknown> {
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

export function jsTransaction(
  enc: Encoder,
  entry: TxEntry,
  events: Array<Record<string, unknown>>,
): Record<string, unknown> {
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
export function jsTransactionTree(
  enc: Encoder,
  entry: TxEntry,
  events: Array<Record<string, unknown>>,
): Record<string, unknown> {
  const eventsById: Record<string, unknown> = {};
  for (const event of events) {
    const [kind, value] = Object.entries(event)[0] as [string, { nodeId: number }];
    // a tree has created and exercised events only: Canton drops the archives of an ACS_DELTA transaction
    if (kind === 'CreatedEvent') eventsById[String(value.nodeId)] = { CreatedTreeEvent: { value } };
    else if (kind === 'ExercisedEvent') eventsById[String(value.nodeId)] = { ExercisedTreeEvent: { value } };
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

export function completion(enc: Encoder, entry: TxEntry): Record<string, unknown> {
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

export function topologyTransaction(enc: Encoder, entry: PartyEntry): Record<string, unknown> {
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
              participantPermission: `PARTICIPANT_PERMISSION_${entry.permission.toUpperCase()}`,
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
