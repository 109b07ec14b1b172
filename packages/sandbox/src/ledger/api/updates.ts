/**
 * The update history: `/v2/updates` (and the deprecated `/flats` and `/trees`), one update by id or offset, and
 * the events of one contract. A client that lost the response to a submission settles it here (or with the
 * completions), never by submitting again.
 */
import { json } from '../../http/reply.js';
import {
  contractOf,
  createdEvent,
  isTx,
  type JsContractEvents,
  type JsUpdate,
  jsTransaction,
  jsTransactionTree,
  topologyTransaction,
  transactionEvents,
} from '../encode.js';
import type { OffsetEntry, StoredExercise, TxEntry } from '../entries.js';
import { errors } from '../errors.js';
import { type EventFormat, select } from '../filters.js';
import type { Contract } from '../model.js';
import { Reader, listParams } from './body.js';
import type { Caller, LedgerNodeEnv, LedgerRoute } from './context.js';
import {
  readEventFormat,
  readTransactionFormat,
  readUpdateFormat,
  type UpdateFormatRead,
  updatesFormat,
} from './formats.js';
import { limitList } from './state.js';

export type UpdatesKind = 'updates' | 'flats' | 'trees';
type Kind = UpdatesKind;

const ENDPOINT: Record<Kind, string> = {
  updates: '/v2/updates',
  flats: '/v2/updates/flats',
  trees: '/v2/updates/trees',
};

/**
 * One update as `JsGetUpdatesResponse` / `JsGetUpdateTreesResponse`, or undefined when the reader sees nothing of
 * it. Trees carry no topology events (Canton turns them into an empty update).
 */
export function updateOf(
  env: LedgerNodeEnv,
  entry: OffsetEntry,
  format: UpdateFormatRead,
  kind: Kind,
): JsUpdate | undefined {
  if (!isTx(entry)) {
    if (format.topology === undefined || kind === 'trees') return undefined;
    if (format.topology.length > 0 && !format.topology.includes(entry.party)) return undefined;
    return { update: { TopologyTransaction: { value: topologyTransaction(env.encoder, entry) } } };
  }
  if (format.transactions === undefined) return undefined;
  const { format: events, shape } = format.transactions;
  const list = transactionEvents(env.encoder, entry, events, shape);
  if (list.length === 0) return undefined;
  if (kind === 'trees')
    return { update: { TransactionTree: { value: jsTransactionTree(env.encoder, entry, list) } } };
  return { update: { Transaction: { value: jsTransaction(env.encoder, entry, list) } } };
}

/**
 * An updates request (HTTP list or WebSocket): `/v2/updates`, `/flats` and `/trees` read `updateFormat` or the
 * deprecated `filter` + `verbose` alike (Canton's JsUpdateService), the strict profile refuses the deprecated
 * endpoints.
 */
export function readUpdatesRequest(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  kind: Kind,
): { begin: number; end: number | undefined; format: UpdateFormatRead; descending: boolean } {
  if (kind !== 'updates' && env.encoder.profile === 'strict')
    throw errors.deprecatedDisabled(`The endpoint ${ENDPOINT[kind]}`);
  body.object(['beginExclusive', 'endInclusive', 'filter', 'verbose', 'updateFormat', 'descendingOrder']);
  const begin = body.at('beginExclusive').optInteger() ?? 0;
  const end = body.at('endInclusive').optInteger();
  const descending = body.at('descendingOrder').optBoolean() ?? false;
  const format = updatesFormat(env, caller, body, kind === 'trees', ENDPOINT[kind]);
  // Canton's request validation, in its order: an end is a positive offset, at most the ledger end (a stream
  // into the future has no end), and a descending list needs one
  if (begin < 0) throw errors.negativeOffset('begin_exclusive', begin);
  if (descending && end === undefined) throw errors.descendingOrderMissingEnd();
  if (end !== undefined && end <= 0) throw errors.nonPositiveOffset('end_inclusive', end);
  if (begin > env.ledger.end) throw errors.offsetAfterLedgerEnd('Begin', begin, env.ledger.end);
  if (end !== undefined && end > env.ledger.end)
    throw errors.offsetAfterLedgerEnd('End', end, env.ledger.end);
  if (end !== undefined && end < begin) throw errors.offsetOutOfRange(end, begin);
  return { begin, end, format, descending };
}

function updatesRoute(kind: Kind): LedgerRoute {
  return {
    method: 'POST',
    template: ENDPOINT[kind],
    handle: async ({ env, caller, body, query }) => {
      const { limit, idleMs } = listParams(query);
      const request = readUpdatesRequest(env, caller, Reader.parse(body), kind);
      await env.catchUp();
      const collect = (): JsUpdate[] =>
        env.ledger
          .entriesAfter(request.begin, request.end)
          .map((e) => updateOf(env, e, request.format, kind))
          .filter((u): u is JsUpdate => u !== undefined);
      let items = collect();
      if (items.length === 0 && idleMs !== undefined && idleMs > 0 && request.end === undefined) {
        await env.ledger.nextOffset(idleMs);
        items = collect();
      }
      if (request.descending) items.reverse();
      return json(200, limitList(items, limit));
    },
  };
}

function findTx(env: LedgerNodeEnv, predicate: (e: OffsetEntry) => boolean, what: string): OffsetEntry {
  const entry = env.ledger.findUpdate(predicate);
  if (entry === undefined) throw errors.updateNotFound(what);
  return entry;
}

/**
 * The deprecated transaction-by-id / -by-offset: its `transactionFormat`, or the one Canton builds for its
 * `requestingParties` (a wildcard per party, verbose, ACS_DELTA) — one of the two, never both.
 */
function legacyTransaction(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  match: (e: OffsetEntry) => boolean,
  what: string,
): Record<string, unknown> {
  const parties = body.at('requestingParties').optStrings();
  const given = body.at('transactionFormat').present();
  if (given && parties.length > 0)
    throw errors.invalidArgument(
      'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.',
    );
  if (!given && parties.length === 0)
    throw errors.invalidArgument(
      'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
    );
  const format = given
    ? readTransactionFormat(env, caller, body.at('transactionFormat'))
    : {
        format: readEventFormat(
          env,
          caller,
          Reader.of({ filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])), verbose: true }),
        ),
        shape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
      };
  const entry = findTx(env, match, what);
  const update = isTx(entry)
    ? updateOf(env, entry, { transactions: format, topology: undefined }, 'updates')
    : undefined;
  if (update === undefined || !('Transaction' in update.update)) throw errors.updateNotFound(what);
  return { transaction: update.update.Transaction.value };
}

/** the created (and archived) event of a contract, from memory or the retained log */
function contractEvents(
  env: LedgerNodeEnv,
  cid: string,
): {
  created: { contract: Contract } | undefined;
  archived: { entry: TxEntry; node: StoredExercise } | undefined;
} {
  const active = env.ledger.active(cid);
  if (active !== undefined) return { created: { contract: active }, archived: undefined };
  let created: Contract | undefined = env.ledger.archivedContract(cid)?.contract;
  let archived: { entry: TxEntry; node: StoredExercise } | undefined;
  env.ledger.findUpdate((e) => {
    if (!isTx(e)) return false;
    for (const node of e.nodes) {
      if (node.cid !== cid) continue;
      if (node.k === 'c') created ??= contractOf(env.ledger.catalog, e, node);
      else if (node.cons) archived ??= { entry: e, node };
    }
    return created !== undefined && archived !== undefined;
  });
  return { created: created === undefined ? undefined : { contract: created }, archived };
}

export const updateRoutes: LedgerRoute[] = [
  updatesRoute('updates'),
  updatesRoute('flats'),
  updatesRoute('trees'),
  {
    method: 'POST',
    template: '/v2/updates/update-by-id',
    handle: async ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['updateId', 'updateFormat']);
      const updateId = reader.at('updateId').string();
      const format = readUpdateFormat(env, caller, reader.at('updateFormat'));
      await env.catchUp();
      const update = updateOf(
        env,
        findTx(env, (e) => e.u === updateId, updateId),
        format,
        'updates',
      );
      if (update === undefined) throw errors.updateNotFound(updateId);
      return json(200, update);
    },
  },
  {
    method: 'POST',
    template: '/v2/updates/update-by-offset',
    handle: async ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['offset', 'updateFormat']);
      const offset = reader.at('offset').integer();
      const format = readUpdateFormat(env, caller, reader.at('updateFormat'));
      await env.catchUp();
      const update = updateOf(
        env,
        findTx(env, (e) => e.o === offset, `offset ${offset}`),
        format,
        'updates',
      );
      if (update === undefined) throw errors.updateNotFound(`offset ${offset}`);
      return json(200, update);
    },
  },
  {
    method: 'POST',
    template: '/v2/updates/transaction-by-id',
    handle: ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['updateId', 'requestingParties', 'transactionFormat']);
      const updateId = reader.at('updateId').string();
      return json(
        200,
        legacyTransaction(env, caller, reader, (e) => e.u === updateId, updateId),
      );
    },
  },
  {
    method: 'POST',
    template: '/v2/updates/transaction-by-offset',
    handle: ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['offset', 'requestingParties', 'transactionFormat']);
      const offset = reader.at('offset').integer();
      return json(
        200,
        legacyTransaction(env, caller, reader, (e) => e.o === offset, `offset ${offset}`),
      );
    },
  },
  {
    method: 'POST',
    template: '/v2/events/events-by-contract-id',
    handle: async ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['contractId', 'eventFormat']);
      const cid = reader.at('contractId').string();
      const format: EventFormat = readEventFormat(env, caller, reader.at('eventFormat'));
      await env.catchUp();
      const { created, archived } = contractEvents(env, cid);
      if (created === undefined) throw errors.contractEventsNotFound(cid);
      const c = created.contract;
      const stakeholders = [...new Set([...c.template.signatories(c.arg), ...c.template.observers(c.arg)])];
      const selection = select(format, c.template, stakeholders);
      if (selection === undefined) throw errors.contractEventsNotFound(cid);
      const out: JsContractEvents = {
        created: {
          createdEvent: createdEvent(env.encoder, c, selection, true),
          synchronizerId: env.ledger.synchronizerId,
        },
      };
      if (archived !== undefined) {
        out.archived = {
          archivedEvent: {
            offset: archived.entry.o,
            nodeId: archived.node.n,
            contractId: cid,
            templateId: archived.node.tpl,
            witnessParties: selection.witnesses,
            packageName: c.template.pkg.name,
            implementedInterfaces: [],
          },
          synchronizerId: env.ledger.synchronizerId,
        };
      }
      return json(200, out);
    },
  },
];
