/**
 * Reading the request formats of the JSON Ledger API: `EventFormat` / the deprecated `TransactionFilter` +
 * `verbose`, `TransactionFormat`, `UpdateFormat`, by Canton's rules (its JSON layer chooses between a format and
 * the deprecated pair; its request validators then name a missing format MISSING_FIELD). Shapes are checked first
 * (400 text/plain), then identifiers are resolved (JsCantonError) and the caller's right to read each party is
 * checked (403).
 */
import { errors } from '../errors.js';
import { type EventFormat, parseEventFormat, resolverFor } from '../filters.js';
import type { TransactionShape } from '../encode.js';
import { BodyError, Reader } from './body.js';
import type { Caller, LedgerNodeEnv } from './context.js';

const IDENTIFIER_FILTERS = ['WildcardFilter', 'TemplateFilter', 'InterfaceFilter', 'Empty'] as const;

function checkFilters(filters: Reader): void {
  filters.object(['cumulative']);
  for (const cumulative of filters.at('cumulative').optArray()) {
    cumulative.object(['identifierFilter']);
    const identifier = cumulative.at('identifierFilter');
    if (!identifier.present()) continue;
    const { tag, body } = identifier.oneOf(IDENTIFIER_FILTERS);
    if (tag === 'Empty') continue;
    body.object(['value']);
    const value = body.at('value');
    if (tag === 'WildcardFilter') {
      value.object(['includeCreatedEventBlob']);
      value.at('includeCreatedEventBlob').optBoolean();
    } else if (tag === 'TemplateFilter') {
      value.object(['templateId', 'includeCreatedEventBlob']);
      value.at('templateId').string();
      value.at('includeCreatedEventBlob').optBoolean();
    } else {
      value.object(['interfaceId', 'includeInterfaceView', 'includeCreatedEventBlob']);
      value.at('interfaceId').string();
      value.at('includeInterfaceView').optBoolean();
      value.at('includeCreatedEventBlob').optBoolean();
    }
  }
}

/** shape of an EventFormat (with `verbose`) or a TransactionFilter (without) */
function checkEventFormatShape(format: Reader, withVerbose: boolean): void {
  format.object(
    withVerbose
      ? ['filtersByParty', 'filtersForAnyParty', 'verbose']
      : ['filtersByParty', 'filtersForAnyParty'],
  );
  const byParty = format.at('filtersByParty');
  if (byParty.present()) {
    for (const key of byParty.keys()) checkFilters(byParty.at(key));
  }
  if (format.at('filtersForAnyParty').present()) checkFilters(format.at('filtersForAnyParty'));
  if (withVerbose) format.at('verbose').optBoolean();
}

/** Resolves a checked format and checks the caller may read what it asks for. */
export function eventFormat(
  env: LedgerNodeEnv,
  caller: Caller,
  reader: Reader,
  verbose?: boolean,
): EventFormat {
  const value = reader.raw() as {
    filtersByParty?: Record<string, unknown>;
    filtersForAnyParty?: unknown;
    verbose?: boolean;
  };
  const resolve = resolverFor(
    env.ledger.catalog,
    () => new Set(env.canton.uploadedPackages(env.participantId).map((p) => p.name)),
    () => new Set(env.canton.uploadedPackages(env.participantId).map((p) => p.packageId)),
  );
  const format = parseEventFormat({ ...value, ...(verbose !== undefined ? { verbose } : {}) }, resolve);
  caller.requireReadAs([...format.byParty.keys()]);
  if (format.anyParty !== undefined) caller.requireReadAny();
  return format;
}

/** an `eventFormat` field: absent is Canton's MISSING_FIELD (the JSON layer decodes it as an empty option) */
export function readEventFormat(env: LedgerNodeEnv, caller: Caller, reader: Reader): EventFormat {
  if (!reader.present()) throw errors.missingField('event_format');
  checkEventFormatShape(reader, true);
  return eventFormat(env, caller, reader);
}

/**
 * Which form of a request Canton reads (its JSON layer, JsStateService and JsUpdateService, 3.4 and 3.5 alike): the
 * format field (`eventFormat` / `updateFormat`), or the deprecated `filter` + `verbose` pair. `verbose: false` is
 * the pair's default, which the JSON layer cannot tell from an absent one, so it goes with either form; `filter` or
 * `verbose: true` beside the format field is refused, and so is a request with neither. The strict profile refuses
 * the deprecated pair whenever it is set.
 */
function requestForm(
  env: LedgerNodeEnv,
  body: Reader,
  field: 'event_format' | 'update_format',
  what: string,
): 'format' | 'legacy' {
  const filter = body.at('filter').present();
  const verbose = body.at('verbose').optBoolean() ?? false;
  if ((filter || verbose) && env.encoder.profile === 'strict') {
    throw errors.deprecatedDisabled(`The fields filter/verbose of the ${what} requests`);
  }
  const both = (other: string) =>
    errors.invalidArgument(
      `Both ${field} and ${other} are set. Please use either backwards compatible arguments (filter and verbose) or ${field}, but not both.`,
    );
  if (body.at(field === 'event_format' ? 'eventFormat' : 'updateFormat').present()) {
    if (filter) throw both('filter');
    if (verbose) throw both('verbose');
    return 'format';
  }
  if (!filter) {
    throw errors.invalidArgument(
      `Either filter/verbose or ${field} is required. Please use either backwards compatible arguments (filter and verbose) or ${field}.`,
    );
  }
  return 'legacy';
}

/** The event format of an active-contracts request: its `eventFormat`, or the deprecated `filter` + `verbose`. */
export function eventFormatOrLegacy(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  what: string,
): EventFormat {
  if (requestForm(env, body, 'event_format', what) === 'format')
    return readEventFormat(env, caller, body.at('eventFormat'));
  checkEventFormatShape(body.at('filter'), false);
  return eventFormat(env, caller, body.at('filter'), body.at('verbose').optBoolean() ?? false);
}

/**
 * The update format of an updates request (`/v2/updates`, `/flats`, `/trees`): its `updateFormat`, or the one
 * Canton builds from the deprecated `filter` + `verbose` — transactions in the ACS_DELTA shape, or for trees in the
 * LEDGER_EFFECTS shape with a wildcard added to every filter that has none (trees show every event).
 */
export function updatesFormat(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  trees: boolean,
  what: string,
): UpdateFormatRead {
  if (requestForm(env, body, 'update_format', what) === 'format')
    return readUpdateFormat(env, caller, body.at('updateFormat'));
  const filter = body.at('filter');
  checkEventFormatShape(filter, false);
  const verbose = body.at('verbose').optBoolean() ?? false;
  const format = eventFormat(
    env,
    caller,
    trees ? Reader.of(withWildcards(filter.raw()), filter.path) : filter,
    verbose,
  );
  return {
    transactions: {
      format,
      shape: trees ? 'TRANSACTION_SHAPE_LEDGER_EFFECTS' : 'TRANSACTION_SHAPE_ACS_DELTA',
    },
    topology: undefined,
  };
}

const WILDCARD = { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } };

/** a (shape-checked) TransactionFilter whose every Filters has a wildcard */
function withWildcards(raw: unknown): unknown {
  const value = raw as { filtersByParty?: Record<string, unknown>; filtersForAnyParty?: unknown };
  const add = (filters: unknown): unknown => {
    const cumulative =
      (filters as { cumulative?: Array<{ identifierFilter?: object }> } | null)?.cumulative ?? [];
    return cumulative.some((c) => c.identifierFilter !== undefined && 'WildcardFilter' in c.identifierFilter)
      ? filters
      : { cumulative: [...cumulative, WILDCARD] };
  };
  return {
    ...(value.filtersByParty === undefined
      ? {}
      : {
          filtersByParty: Object.fromEntries(
            Object.entries(value.filtersByParty).map(([p, f]) => [p, add(f)]),
          ),
        }),
    ...(value.filtersForAnyParty === undefined ? {} : { filtersForAnyParty: add(value.filtersForAnyParty) }),
  };
}

const SHAPES = [
  'TRANSACTION_SHAPE_ACS_DELTA',
  'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  'TRANSACTION_SHAPE_UNSPECIFIED',
];

export function readTransactionFormat(
  env: LedgerNodeEnv,
  caller: Caller,
  reader: Reader,
): { format: EventFormat; shape: TransactionShape } {
  reader.object(['eventFormat', 'transactionShape']);
  const shape = reader.at('transactionShape').string();
  if (!SHAPES.includes(shape))
    throw new BodyError(
      `DecodingFailure at ${reader.path}.transactionShape: unknown transaction shape ${shape}`,
    );
  if (shape === 'TRANSACTION_SHAPE_UNSPECIFIED') throw errors.missingField('transaction_shape');
  return { format: readEventFormat(env, caller, reader.at('eventFormat')), shape: shape as TransactionShape };
}

/** the default transaction format of a submission: a wildcard for every actAs and readAs party */
export function defaultFormat(env: LedgerNodeEnv, caller: Caller, parties: string[]): EventFormat {
  return eventFormat(
    env,
    caller,
    Reader.of({ filtersByParty: Object.fromEntries(parties.map((p) => [p, {}])) }),
    true,
  );
}

export interface UpdateFormatRead {
  transactions: { format: EventFormat; shape: TransactionShape } | undefined;
  /** parties whose topology events were asked for; undefined = none; [] = every party */
  topology: string[] | undefined;
}

/**
 * An `updateFormat` field (absent: MISSING_FIELD). Canton accepts one that asks for nothing (no transactions,
 * reassignments or topology events): it matches no update. The sandbox has no reassignments; their format is
 * checked and resolved as Canton does, and selects nothing.
 */
export function readUpdateFormat(env: LedgerNodeEnv, caller: Caller, reader: Reader): UpdateFormatRead {
  if (!reader.present()) throw errors.missingField('update_format');
  reader.object(['includeTransactions', 'includeReassignments', 'includeTopologyEvents']);
  const transactions = reader.at('includeTransactions').present()
    ? readTransactionFormat(env, caller, reader.at('includeTransactions'))
    : undefined;
  if (reader.at('includeReassignments').present())
    readEventFormat(env, caller, reader.at('includeReassignments'));
  let topology: string[] | undefined;
  const topo = reader.at('includeTopologyEvents');
  if (topo.present()) {
    topo.object(['includeParticipantAuthorizationEvents']);
    const auth = topo.at('includeParticipantAuthorizationEvents');
    if (auth.present()) {
      auth.object(['parties']);
      topology = auth.at('parties').optStrings();
      if (topology.length === 0) caller.requireReadAny();
      else caller.requireReadAs(topology);
    }
  }
  return { transactions, topology };
}
