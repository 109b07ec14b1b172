/**
 * Reading the request formats of the JSON Ledger API: `EventFormat` / the deprecated `TransactionFilter` +
 * `verbose`, `TransactionFormat`, `UpdateFormat`. Shapes are checked first (400 text/plain), then identifiers are
 * resolved (JsCantonError) and the caller's right to read each party is checked (403).
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

export function readEventFormat(env: LedgerNodeEnv, caller: Caller, reader: Reader): EventFormat {
  checkEventFormatShape(reader, true);
  return eventFormat(env, caller, reader);
}

/**
 * The event format of a request that carries either `eventFormat` or the deprecated `filter` + `verbose` (the
 * wrapped SDK's body): both at once is refused, and the strict profile refuses the deprecated pair.
 */
export function eventFormatOrLegacy(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  what: string,
): EventFormat {
  const legacy = body.at('filter').present() || body.at('verbose').present();
  const modern = body.at('eventFormat');
  if (legacy && env.encoder.profile === 'strict') {
    throw errors.deprecatedDisabled(`The fields filter/verbose of the ${what} requests`);
  }
  if (legacy && modern.present()) {
    throw errors.invalidArgument(
      'Both eventFormat and filter/verbose are set. Please use either backwards compatible arguments (filter and verbose) or eventFormat, but not both.',
    );
  }
  if (modern.present()) return readEventFormat(env, caller, modern);
  if (!body.at('filter').present()) throw errors.missingField('event_format');
  checkEventFormatShape(body.at('filter'), false);
  return eventFormat(env, caller, body.at('filter'), body.at('verbose').optBoolean() ?? false);
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
  if (shape === 'TRANSACTION_SHAPE_UNSPECIFIED') throw errors.invalidArgument('transactionShape must be set');
  if (!reader.at('eventFormat').present())
    throw new BodyError(`DecodingFailure at ${reader.path}.eventFormat: Missing required field`);
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

export function readUpdateFormat(env: LedgerNodeEnv, caller: Caller, reader: Reader): UpdateFormatRead {
  reader.object(['includeTransactions', 'includeReassignments', 'includeTopologyEvents']);
  const transactions = reader.at('includeTransactions').present()
    ? readTransactionFormat(env, caller, reader.at('includeTransactions'))
    : undefined;
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
  if (transactions === undefined && topology === undefined && !reader.at('includeReassignments').present()) {
    throw errors.invalidArgument('updateFormat must include transactions, reassignments or topology events');
  }
  return { transactions, topology };
}
