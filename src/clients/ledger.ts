/**
 * Typed client of one participant's JSON Ledger API v2 (canton-json-api.md §3, wrapped-api.md §4), as one ledger
 * user (the node's credentials, or a party's own). It sends only what both supported releases (3.4.12, 3.5.1)
 * accept: `eventFormat`, never the deprecated `filter`/`verbose`; the flat submit endpoint, never `-tree`.
 *
 * Submissions carry the caller's deterministic command id; nothing here invents one or retries. A submission whose
 * answer is lost is ambiguous (settle it with `findCompletion`, `transactions` or `eventsByContractId`); every error
 * is classified by ledger-errors.ts.
 */
import type { Dispatcher } from 'undici';
import { ServiceError } from '../errors.js';
import type { HttpService, RequestOptions, TokenSource } from './http.js';
import {
  LedgerError,
  classifyLedgerError,
  ledgerErrorFromFrame,
  parseCantonError,
  type LedgerCall,
} from './ledger-errors.js';
import {
  LEDGER_PATHS,
  eventFormat,
  jsCommands,
  nonNegativeInteger,
  submissionProblems,
  updatesProblems,
  updatesRequest,
  type ActiveContractsQuery,
  type CompletionsQuery,
  type Submission,
  type UpdatesQuery,
} from './ledger-request.js';
import {
  activeContractSchema,
  activeContractsResponseSchema,
  completionsResponseSchema,
  eventsByContractIdResponseSchema,
  ledgerEndResponseSchema,
  packagesResponseSchema,
  partiesResponseSchema,
  prunedOffsetsResponseSchema,
  rightsResponseSchema,
  submitAndWaitForTransactionResponseSchema,
  transactionSchema,
  updatesResponseSchema,
  userResponseSchema,
  versionResponseSchema,
  type ActiveContract,
  type ActiveContractsRequest,
  type CompletionsRequest,
  type Completion,
  type CompletionsResponse,
  type ContractEvents,
  type EventsByContractIdRequest,
  type LedgerUser,
  type LedgerVersion,
  type PartiesPage,
  type PartyDetails,
  type SubmitAndWaitForTransactionRequest,
  type Transaction,
  type UpdatesResponse,
} from './ledger-wire.js';
import { runStream } from './ledger-ws.js';
import { idSegment, pathSegment } from './path.js';
import type { ReadCache } from './read-cache.js';
import { queryKey } from './read-cache.js';
import { describeProblems, wireProblems } from './schema-check.js';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ActiveContractsOptions extends CallOptions {
  /** `websocket` (default: one frame per contract, no size limit) or `http` (one array, bounded by the node) */
  transport?: 'websocket' | 'http';
  /**
   * Receives each active contract as it arrives instead of the result's `contracts` (which stays empty): a big
   * snapshot read in constant memory.
   */
  onContract?: (contract: ActiveContract) => void;
}

export interface ActiveContractsResult {
  activeAtOffset: number;
  contracts: ActiveContract[];
  /** entries that are not active contracts (`JsEmpty`, incomplete (un)assignments), counted by variant */
  skipped: Record<string, number>;
}

export interface SubmitOptions extends CallOptions {
  /** how long to wait for the transaction; default the client's `submitTimeoutMs` */
  timeoutMs?: number;
}

/** A user right, flattened: `{kind: 'CanActAs', party}`, `{kind: 'ParticipantAdmin'}` … */
export interface UserRight {
  kind: string;
  party?: string;
}

export interface ListOptions extends CallOptions {
  /** the server stops an open-ended list after this much quiet; default 2 s */
  streamIdleTimeoutMs?: number;
  limit?: number;
}

export interface TransactionsOptions extends ListOptions {
  /** `websocket` (default for `eachTransaction`: no list limit, constant memory) or `http` (one bounded list) */
  transport?: 'websocket' | 'http';
}

export interface LedgerClientOptions {
  /** the token source of the HttpService underneath, for the WebSocket transport */
  auth?: TokenSource | undefined;
  dispatcher?: Dispatcher | undefined;
  /** default 60 s */
  submitTimeoutMs?: number;
  /** a whole active-contracts stream or list; default 120 s */
  streamTimeoutMs?: number;
  /** the run's shared reads (read-cache.ts); none: every read goes to the participant */
  reads?: ReadCache | undefined;
}

const DEFAULT_SUBMIT_TIMEOUT_MS = 60_000;
const DEFAULT_STREAM_TIMEOUT_MS = 120_000;
const DEFAULT_IDLE_MS = 2_000;
const SECURITY_SENSITIVE = 'A security-sensitive error has been received';
/** a party lookup's query at most this long (a proxy in front of the participant may refuse longer URLs) */
const PARTY_LOOKUP_URL_CHARS = 1500;
const PARTY_LOOKUPS_AT_ONCE = 4;

function checker(schema: object): RequestOptions['check'] {
  return (body) => {
    const problems = wireProblems(schema, body);
    return problems.length === 0 ? undefined : describeProblems(problems);
  };
}

export class LedgerClient {
  private readonly auth: TokenSource | undefined;
  private readonly dispatcher: Dispatcher | undefined;
  private readonly submitTimeoutMs: number;
  private readonly streamTimeoutMs: number;
  private readonly reads: ReadCache | undefined;

  constructor(
    private readonly http: HttpService,
    options: LedgerClientOptions = {},
  ) {
    this.auth = options.auth;
    this.dispatcher = options.dispatcher;
    this.submitTimeoutMs = options.submitTimeoutMs ?? DEFAULT_SUBMIT_TIMEOUT_MS;
    this.streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
    this.reads = options.reads;
  }

  /** who reads, for the run's shared reads: the service (node, and party with credentials of its own) and URL */
  private get reader(): string {
    return `${this.http.service} ${this.http.baseUrl}`;
  }

  /** `ledger:<node>` (or `ledger:<node>/<party name>`), as it appears in errors */
  get service(): string {
    return this.http.service;
  }

  version(options?: CallOptions): Promise<LedgerVersion> {
    return this.get(LEDGER_PATHS.version, versionResponseSchema, options);
  }

  /**
   * The current ledger end offset (0: the participant has seen nothing yet), always read from the participant (it
   * becomes the run's snapshot of it, read-cache.ts).
   */
  async ledgerEnd(options?: CallOptions): Promise<number> {
    const generation = this.reads?.currentGeneration();
    const body = await this.get<{ offset?: number }>(
      LEDGER_PATHS.ledgerEnd,
      ledgerEndResponseSchema,
      options,
    );
    const offset = body.offset ?? 0;
    if (generation !== undefined) this.reads?.sawLedgerEnd(this.http.baseUrl, offset, generation);
    return offset;
  }

  /** The offset up to which the participant pruned its history (0: nothing pruned): reads start after it. */
  async prunedOffset(options?: CallOptions): Promise<number> {
    const body = await this.get<{ participantPrunedUpToInclusive?: number }>(
      LEDGER_PATHS.prunedOffsets,
      prunedOffsetsResponseSchema,
      options,
    );
    return body.participantPrunedUpToInclusive ?? 0;
  }

  async packages(options?: CallOptions): Promise<string[]> {
    const body = await this.get<{ packageIds: string[] }>(
      LEDGER_PATHS.packages,
      packagesResponseSchema,
      options,
    );
    return body.packageIds;
  }

  /** The user of this client's token. */
  async authenticatedUser(options?: CallOptions): Promise<LedgerUser> {
    const body = await this.get<{ user: LedgerUser }>(
      LEDGER_PATHS.authenticatedUser,
      userResponseSchema,
      options,
    );
    return body.user;
  }

  async user(userId: string, options?: CallOptions): Promise<LedgerUser> {
    const body = await this.get<{ user: LedgerUser }>(
      LEDGER_PATHS.user.replace('{user-id}', pathSegment(userId)),
      userResponseSchema,
      options,
    );
    return body.user;
  }

  async userRights(userId: string, options?: CallOptions): Promise<UserRight[]> {
    const body = await this.get<{ rights?: Array<{ kind?: Record<string, unknown> }> }>(
      LEDGER_PATHS.userRights.replace('{user-id}', pathSegment(userId)),
      rightsResponseSchema,
      options,
    );
    return (body.rights ?? []).flatMap(({ kind }) =>
      Object.entries(kind ?? {}).map(([name, value]) => {
        const party = (value as { value?: { party?: unknown } } | null)?.value?.party;
        return typeof party === 'string' ? { kind: name, party } : { kind: name };
      }),
    );
  }

  parties(
    query: { filterParty?: string; pageSize?: number; pageToken?: string } = {},
    options?: CallOptions,
  ): Promise<PartiesPage> {
    return this.get(LEDGER_PATHS.parties, partiesResponseSchema, options, {
      'filter-party': query.filterParty,
      pageSize: query.pageSize,
      pageToken: query.pageToken,
    });
  }

  /** The party's details, or undefined when the participant does not know it. */
  async party(partyId: string, options?: CallOptions): Promise<PartyDetails | undefined> {
    const body = await this.get<PartiesPage>(
      LEDGER_PATHS.party.replace('{party}', idSegment(partyId)),
      partiesResponseSchema,
      options,
    );
    return body.partyDetails.find((details) => details.party === partyId);
  }

  /**
   * Which of `parties` the participant knows — hosted on it or on another participant of its synchronizers — by
   * the party lookup (`GET /v2/parties/{party}?parties=…`, which answers only the known ones), a few batches at
   * once, each URL short enough for any proxy. The lookup needs ParticipantAdmin or IdentityProviderAdmin.
   */
  async knownParties(parties: readonly string[], options?: CallOptions): Promise<Set<string>> {
    const batches: string[][] = [];
    let batch: string[] = [];
    let length = 0;
    for (const party of new Set(parties)) {
      const size = encodeURIComponent(party).length + '&parties='.length;
      if (batch.length > 0 && length + size > PARTY_LOOKUP_URL_CHARS) {
        batches.push(batch);
        batch = [];
        length = 0;
      }
      batch.push(party);
      length += size;
    }
    if (batch.length > 0) batches.push(batch);
    const known = new Set<string>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const [first = '', ...rest] = batches[next++] as string[];
        const body = await this.get<PartiesPage>(
          LEDGER_PATHS.party.replace('{party}', idSegment(first)),
          partiesResponseSchema,
          options,
          { parties: rest },
        );
        for (const details of body.partyDetails) known.add(details.party);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARTY_LOOKUPS_AT_ONCE, batches.length) }, worker));
    return known;
  }

  /**
   * The contracts active at an offset, over the WebSocket (default) or HTTP. An error frame, a security-sensitive
   * error or a broken stream is an error, never an empty result; entries other than active contracts are counted
   * in `skipped`. Without an offset of its own the query is made at the run's snapshot of the ledger end, and a
   * query answered at that offset before is answered again from the run's reads (read-cache.ts).
   */
  async activeContracts(
    query: ActiveContractsQuery,
    options: ActiveContractsOptions = {},
  ): Promise<ActiveContractsResult> {
    const path = LEDGER_PATHS.activeContracts;
    const problems = [
      ...(query.parties.length === 0 ? ['no party to read as'] : []),
      ...nonNegativeInteger(query.activeAtOffset, 'activeAtOffset'),
    ];
    if (problems.length > 0) throw this.refused('POST', path, problems);
    const reads = this.reads;
    const activeAtOffset =
      query.activeAtOffset ??
      (reads === undefined
        ? await this.ledgerEnd(options)
        : await reads.snapshotOffset(this.http.baseUrl, () => this.ledgerEnd(options)));
    const result: ActiveContractsResult = { activeAtOffset, contracts: [], skipped: {} };
    const deliver = (contract: ActiveContract): void => {
      if (options.onContract) options.onContract(contract);
      else result.contracts.push(contract);
    };
    const key = reads && queryKey(this.reader, query.parties, query.filters ?? [], activeAtOffset);
    const kept = key === undefined ? undefined : reads?.answer(key);
    if (kept !== undefined) {
      kept.contracts.forEach(deliver);
      Object.assign(result.skipped, kept.skipped);
      return result;
    }
    // kept when small: a big snapshot (a sender's 100,000 locked holdings) stays read in constant memory
    let seen: ActiveContract[] | undefined = reads && [];
    const onContract = (contract: ActiveContract): void => {
      if (seen !== undefined && reads !== undefined) {
        if (seen.length < reads.maxContracts) seen.push(contract);
        else seen = undefined;
      }
      deliver(contract);
    };
    await this.readActiveContracts(
      { activeAtOffset, eventFormat: eventFormat(query.parties, query.filters) },
      query.parties,
      result,
      onContract,
      options,
    );
    if (key !== undefined && seen !== undefined)
      reads?.keep(key, { contracts: seen, skipped: { ...result.skipped } });
    return result;
  }

  /**
   * Submits commands and waits for their transaction, in the LEDGER_EFFECTS shape (exercises with their results,
   * in pre-order). A lost answer is ambiguous: the caller settles it by reading the ledger.
   */
  async submitAndWaitForTransaction(
    submission: Submission,
    options: SubmitOptions = {},
  ): Promise<Transaction> {
    const path = LEDGER_PATHS.submitAndWaitForTransaction;
    const problems = submissionProblems(submission);
    if (problems.length > 0) throw this.refused('POST', path, problems);
    const parties = [...submission.actAs, ...(submission.readAs ?? [])];
    // the run's snapshots are dropped before the command goes out and again once it is answered (or not)
    this.reads?.wrote();
    try {
      const body = await this.send<{ transaction: Transaction }>(
        'POST',
        path,
        { submission: true, parties: submission.actAs },
        {
          body: {
            commands: jsCommands(submission),
            transactionFormat: {
              eventFormat: eventFormat(parties, [], true),
              transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
            },
          } satisfies SubmitAndWaitForTransactionRequest,
          idempotent: false,
          signal: options.signal,
          timeoutMs: options.timeoutMs ?? this.submitTimeoutMs,
          check: checker(submitAndWaitForTransactionResponseSchema),
        },
      );
      return body.transaction;
    } finally {
      this.reads?.wrote();
    }
  }

  /** Command completions after an offset, for the parties (and the token's user unless `userId` is given). */
  async completions(query: CompletionsQuery, options: ListOptions = {}): Promise<Completion[]> {
    const path = LEDGER_PATHS.completions;
    const problems = [
      ...(query.parties.length === 0 ? ['no party to read completions of'] : []),
      ...nonNegativeInteger(query.beginExclusive, 'beginExclusive'),
    ];
    if (problems.length > 0) throw this.refused('POST', path, problems);
    const body = await this.send<CompletionsResponse>(
      'POST',
      path,
      { submission: false, parties: query.parties },
      {
        body: {
          parties: query.parties,
          beginExclusive: query.beginExclusive,
          ...(query.userId ? { userId: query.userId } : {}),
        } satisfies CompletionsRequest,
        query: listQuery(options),
        idempotent: true,
        signal: options.signal,
        timeoutMs: this.streamTimeoutMs,
        check: checker(completionsResponseSchema),
      },
    );
    return body.flatMap((element) => {
      const completion = element.completionResponse?.Completion?.value;
      return completion === undefined ? [] : [completion];
    });
  }

  /**
   * The completion of a command id after an offset, or undefined when there is none yet. Its `status.code` is 0
   * when the command was committed (`updateId` names the transaction), another gRPC code when it was rejected.
   */
  async findCompletion(
    commandId: string,
    query: CompletionsQuery,
    options?: ListOptions,
  ): Promise<Completion | undefined> {
    const all = await this.completions(query, options);
    return all.find((completion) => completion.commandId === commandId);
  }

  /** The transactions between two offsets that the parties see (the HTTP `/v2/updates` list). */
  async transactions(query: UpdatesQuery, options: ListOptions = {}): Promise<Transaction[]> {
    const found: Transaction[] = [];
    await this.eachTransaction(query, (transaction) => found.push(transaction), {
      ...options,
      transport: 'http',
    });
    return found;
  }

  /**
   * Each transaction the parties see between the offsets, in order: streamed over the WebSocket (default: no list
   * limit, constant memory) or one HTTP list. Other updates (checkpoints, reassignments, topology) are passed over.
   * Without `endInclusive` the list ends at the ledger end, read just before.
   */
  async eachTransaction(
    query: UpdatesQuery,
    visit: (transaction: Transaction) => void,
    options: TransactionsOptions = {},
  ): Promise<{ endInclusive: number }> {
    const path = LEDGER_PATHS.updates;
    const method = options.transport === 'http' ? 'POST' : 'WS';
    const problems = updatesProblems(query);
    if (problems.length > 0) throw this.refused(method, path, problems);
    const reads = this.reads;
    const poll = queryKey(this.reader, query.parties, query.filters ?? [], [
      query.beginExclusive,
      query.shape,
    ]);
    const endInclusive =
      query.endInclusive ??
      (reads === undefined
        ? await this.ledgerEnd(options)
        : await reads.snapshotOffset(this.http.baseUrl, () => this.ledgerEnd(options), poll));
    if (endInclusive <= query.beginExclusive) return { endInclusive };
    const request = updatesRequest(query, endInclusive);
    const call: LedgerCall = { submission: false, parties: query.parties };
    if (method === 'POST') {
      const body = await this.send<UpdatesResponse>('POST', path, call, {
        body: request,
        query: listQuery(options),
        idempotent: true,
        signal: options.signal,
        timeoutMs: this.streamTimeoutMs,
        check: checker(updatesResponseSchema),
      });
      for (const element of body) {
        const transaction = element.update?.Transaction?.value;
        if (transaction !== undefined) visit(transaction);
      }
      return { endInclusive };
    }
    await this.stream(path, request, query.parties, options.signal, (element) => {
      const canton = parseCantonError(element);
      if (canton !== undefined)
        throw ledgerErrorFromFrame(canton, { service: this.service, method, path }, call);
      const value = (element as { update?: { Transaction?: { value?: unknown } } } | null)?.update
        ?.Transaction?.value;
      if (value === undefined) return;
      const problems = wireProblems(transactionSchema, value);
      if (problems.length > 0)
        throw this.unexpected(method, path, `a transaction: ${describeProblems(problems)}`);
      visit(value as Transaction);
    });
    return { endInclusive };
  }

  /** The create and (if any) archive of a contract, as the parties see them; undefined when none is visible. */
  async eventsByContractId(
    contractId: string,
    parties: readonly string[],
    options?: CallOptions,
  ): Promise<ContractEvents | undefined> {
    const path = LEDGER_PATHS.eventsByContractId;
    if (parties.length === 0 || contractId === '')
      throw this.refused('POST', path, ['a contract id and at least one party are needed']);
    try {
      return await this.send<ContractEvents>(
        'POST',
        path,
        { submission: false, parties },
        {
          body: { contractId, eventFormat: eventFormat(parties) } satisfies EventsByContractIdRequest,
          idempotent: true,
          signal: options?.signal,
          check: checker(eventsByContractIdResponseSchema),
        },
      );
    } catch (error) {
      if (error instanceof LedgerError && error.cantonCode === 'CONTRACT_EVENTS_NOT_FOUND') return undefined;
      throw error;
    }
  }

  // -------------------------------------------------------------------------------------------------------------

  /** One active-contracts read from the participant, each contract to `onContract`, the rest counted in `result`. */
  private async readActiveContracts(
    request: ActiveContractsRequest,
    parties: readonly string[],
    result: ActiveContractsResult,
    onContract: (contract: ActiveContract) => void,
    options: ActiveContractsOptions,
  ): Promise<void> {
    const path = LEDGER_PATHS.activeContracts;
    const call: LedgerCall = { submission: false, parties };
    if (options.transport === 'http') {
      const elements = await this.send<unknown[]>('POST', path, call, {
        body: request,
        idempotent: true,
        signal: options.signal,
        timeoutMs: this.streamTimeoutMs,
        check: checker(activeContractsResponseSchema),
      });
      for (const element of elements) this.collect(result, element, 'POST', call, onContract);
      return;
    }
    await this.stream(path, request, parties, options.signal, (element) =>
      this.collect(result, element, 'WS', call, onContract),
    );
  }

  private get<T>(
    path: string,
    schema: object,
    options: CallOptions | undefined,
    query?: RequestOptions['query'],
  ): Promise<T> {
    return this.send<T>(
      'GET',
      path,
      { submission: false },
      {
        query,
        signal: options?.signal,
        check: checker(schema),
      },
    );
  }

  /**
   * One WebSocket stream to its end; a frame the participant withheld the cause of is an error of its own. A
   * stream refused as unauthenticated before it delivered anything (the token expired between its fetch and the
   * stream's first frame) is opened once more with a new token, as the HTTP layer does on a 401.
   */
  private async stream(
    path: string,
    request: unknown,
    parties: readonly string[],
    signal: AbortSignal | undefined,
    onElement: (element: unknown) => void,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.streamToken(signal);
      let delivered = false;
      try {
        await runStream({
          service: this.service,
          baseUrl: this.http.baseUrl,
          path,
          token,
          request,
          timeoutMs: this.streamTimeoutMs,
          dispatcher: this.dispatcher,
          signal,
          onElement: (element, text) => {
            if (text.includes(SECURITY_SENSITIVE)) {
              throw new LedgerError({
                service: this.service,
                method: 'WS',
                path,
                serviceMessage: 'the participant withheld the cause of an error (security-sensitive)',
                retryability: 'permanent',
                hint: `check that the token's user may read as ${parties.join(', ')}; the participant's log has the cause under the correlation id`,
                kind: 'other',
                canton: parseCantonError(element),
                body: element,
              });
            }
            onElement(element);
            delivered = true;
          },
        });
        return;
      } catch (error) {
        const expired = error instanceof LedgerError && error.kind === 'unauthenticated';
        if (!expired || delivered || attempt > 1 || token === undefined || this.auth === undefined)
          throw error;
        this.auth.invalidate(token);
      }
    }
  }

  /** The bearer token for a WebSocket; a failure to get one is classed like the HTTP layer classes it. */
  private async streamToken(signal: AbortSignal | undefined): Promise<string | undefined> {
    if (this.auth === undefined) return undefined;
    try {
      return await this.auth.token(signal);
    } catch (error) {
      if (error instanceof ServiceError) throw error; // the identity provider's own error
      throw new LedgerError(
        {
          service: this.service,
          method: 'WS',
          path: LEDGER_PATHS.activeContracts,
          serviceMessage: signal?.aborted ? 'request aborted' : 'could not obtain an access token',
          retryability: 'transient',
          kind: 'no-response',
        },
        error,
      );
    }
  }

  private async send<T>(method: string, path: string, call: LedgerCall, options: RequestOptions): Promise<T> {
    try {
      return (await this.http.request<T>(method, path, options)).body;
    } catch (error) {
      if (error instanceof ServiceError) throw classifyLedgerError(error, call);
      throw error;
    }
  }

  /** One element of an active-contracts answer, added to `result`; an error element throws. */
  private collect(
    result: ActiveContractsResult,
    element: unknown,
    method: string,
    call: LedgerCall,
    onContract: (contract: ActiveContract) => void,
  ): void {
    const path = LEDGER_PATHS.activeContracts;
    const canton = parseCantonError(element);
    if (canton !== undefined)
      throw ledgerErrorFromFrame(canton, { service: this.service, method, path }, call);
    const entry = (element as { contractEntry?: Record<string, unknown> | null } | null)?.contractEntry;
    if (entry === undefined || entry === null) return;
    const variants = Object.keys(entry);
    const active = entry.JsActiveContract;
    if (variants.length === 1 && active !== undefined) {
      const problems = wireProblems(activeContractSchema, active);
      if (problems.length > 0)
        throw this.unexpected(method, path, `an active contract: ${describeProblems(problems)}`);
      onContract(active as ActiveContract);
      return;
    }
    const variant = variants.length === 1 ? variants[0] : undefined;
    if (variant === 'JsEmpty' || variant === 'JsIncompleteAssigned' || variant === 'JsIncompleteUnassigned') {
      result.skipped[variant] = (result.skipped[variant] ?? 0) + 1;
      return;
    }
    throw this.unexpected(
      method,
      path,
      `a contract entry of unknown kind (${variants.join(', ') || 'empty'})`,
    );
  }

  private unexpected(method: string, path: string, what: string): LedgerError {
    return new LedgerError({
      service: this.service,
      method,
      path,
      serviceMessage: `unexpected response: ${what}`,
      retryability: 'permanent',
      hint: 'the participant answered with a shape this ledgerbook does not know: is its version one it supports?',
      kind: 'unexpected-response',
    });
  }

  private refused(method: string, path: string, problems: readonly string[]): LedgerError {
    return new LedgerError({
      service: this.service,
      method,
      path,
      serviceMessage: `request not sent: ${problems.join('; ')}`,
      retryability: 'permanent',
      hint: 'the values given for this call cannot make a valid ledger request; nothing was sent',
      kind: 'invalid-request',
    });
  }
}

function listQuery(options: ListOptions): RequestOptions['query'] {
  return {
    limit: options.limit,
    stream_idle_timeout_ms: options.streamIdleTimeoutMs ?? DEFAULT_IDLE_MS,
  };
}
