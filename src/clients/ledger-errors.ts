/**
 * One classification of the participant's errors (canton-json-api.md §4, wrapped-api.md §4.5): a `JsCantonError`
 * body (or a WebSocket error frame) by its code, its error category and gRPC code, else by the HTTP status. Each
 * becomes a `LedgerError`: a ServiceError that also says which kind of failure it is (the one steps branch on), the
 * Canton code and parsed body, and how long the ledger asks to wait before a retry.
 *
 * Retryability: unavailable, overloaded (429) and contention → transient; a contract not found → permanent (read the
 * live state again); a duplicate command id, or one still in flight → ambiguous (the first submission landed or is
 * landing: settle it by reading the ledger, never by a new command id); the ledger's refusals (interpretation errors: funds, expiry,
 * limits, credentials) → permanent with the ledger's cause; a deadline or internal failure of a submission →
 * ambiguous, of a read → transient.
 */
import { ServiceError, type Retryability } from '../errors.js';
import { cantonErrorSchema, type CantonError } from './ledger-wire.js';
import { wireProblems } from './schema-check.js';

export type LedgerErrorKind =
  /** UNAVAILABLE: the participant or a service behind it is not ready (transient) */
  | 'unavailable'
  /** RESOURCE_EXHAUSTED (429): overloaded; wait `retryAfterMs` (transient) */
  | 'resource-exhausted'
  /** ABORTED: contention on the same contracts, or a submission with this id in flight (transient) */
  | 'contention'
  /** DEADLINE_EXCEEDED: the outcome is unknown */
  | 'deadline-exceeded'
  /** CONTRACT_NOT_FOUND: a contract the command uses is archived or unknown; read the live state again */
  | 'contract-not-found'
  /** DUPLICATE_COMMAND: this command id was already accepted; settle by reading the ledger */
  | 'duplicate-command'
  /**
   * SUBMISSION_ALREADY_IN_FLIGHT: a submission of this change (user, actAs, command id) is still being processed —
   * an earlier attempt, or another runner's: wait for its completion, never send under another id
   */
  | 'in-flight'
  /**
   * the Daml code refused the command (insufficient funds, expired offer, limits, missing credential …), or the
   * command lacks the authority of a party it needs (`DAML_AUTHORIZATION_ERROR`)
   */
  | 'interpretation'
  /** another FAILED_PRECONDITION: the ledger's state does not allow the request */
  | 'failed-precondition'
  /** another NOT_FOUND (a user, a party, the events of a contract) */
  | 'not-found'
  /** another ALREADY_EXISTS */
  | 'already-exists'
  /** INVALID_ARGUMENT / OUT_OF_RANGE, or a body the participant could not decode (400 text/plain) */
  | 'invalid-request'
  | 'unauthenticated'
  /** PERMISSION_DENIED: the user may not act or read as a party of the request */
  | 'permission-denied'
  /**
   * the answer would exceed the participant's `http-list-max-elements-limit` (413,
   * `JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED`): the same request gets the same answer, so it is permanent
   * although Canton files it under a retryable category (contention)
   */
  | 'too-many-results'
  | 'internal'
  | 'unsupported'
  /** no answer: connection refused, lost or timed out (see retryability) */
  | 'no-response'
  /** a 2xx body of another shape than expected */
  | 'unexpected-response'
  | 'other';

export interface LedgerErrorFields {
  kind: LedgerErrorKind;
  /** the parsed `JsCantonError`, when the participant sent one */
  canton?: CantonError | undefined;
  /** how long the ledger asks to wait before retrying (`retryInfo`), in ms */
  retryAfterMs?: number | undefined;
}

export class LedgerError extends ServiceError {
  readonly kind: LedgerErrorKind;
  readonly canton: CantonError | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(fields: ConstructorParameters<typeof ServiceError>[0] & LedgerErrorFields, cause?: unknown) {
    super(
      {
        ...fields,
        backpressure:
          fields.backpressure ??
          (fields.kind === 'resource-exhausted' || fields.kind === 'contention'
            ? { retryAfterMs: fields.retryAfterMs }
            : undefined),
      },
      cause,
    );
    this.kind = fields.kind;
    this.canton = fields.canton;
    this.retryAfterMs = fields.retryAfterMs;
  }

  /** the participant's error code id (`CONTRACT_NOT_FOUND`, `DUPLICATE_COMMAND` …), when it sent one */
  get cantonCode(): string | undefined {
    return this.canton?.code;
  }
}

export function isLedgerError(error: unknown, kind?: LedgerErrorKind): error is LedgerError {
  return error instanceof LedgerError && (kind === undefined || error.kind === kind);
}

/** gRPC status codes by name (the values Canton puts in `grpcCodeValue`). */
const GRPC = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** Canton's error categories and the gRPC code each is reported with (canton-json-api.md §4). */
const CATEGORY_GRPC: Record<number, number> = {
  1: GRPC.UNAVAILABLE,
  2: GRPC.ABORTED,
  3: GRPC.DEADLINE_EXCEEDED,
  4: GRPC.INTERNAL,
  5: GRPC.INVALID_ARGUMENT,
  6: GRPC.UNAUTHENTICATED,
  7: GRPC.PERMISSION_DENIED,
  8: GRPC.INVALID_ARGUMENT,
  9: GRPC.FAILED_PRECONDITION,
  10: GRPC.ALREADY_EXISTS,
  11: GRPC.NOT_FOUND,
  12: GRPC.OUT_OF_RANGE,
  14: GRPC.UNIMPLEMENTED,
};

/** The gRPC code behind an HTTP status (the inverse of the participant's mapping, where it is one-to-one). */
const STATUS_GRPC: Record<number, number> = {
  401: GRPC.UNAUTHENTICATED,
  403: GRPC.PERMISSION_DENIED,
  404: GRPC.NOT_FOUND,
  429: GRPC.RESOURCE_EXHAUSTED,
  499: GRPC.CANCELLED,
  500: GRPC.INTERNAL,
  501: GRPC.UNIMPLEMENTED,
  503: GRPC.UNAVAILABLE,
  504: GRPC.DEADLINE_EXCEEDED,
};

/**
 * Code ids of the Daml engine refusing a command: a Daml assert or a failed precondition of a choice, or a
 * missing authorization (Canton reports it with category 8, which would otherwise read as a malformed request).
 */
const INTERPRETATION_CODES =
  /^(?:DAML_INTERPRETATION_ERROR|UNHANDLED_EXCEPTION|DAML_FAILURE|INTERPRETATION_|DAML_AUTHORIZATION_ERROR$)/;

/** Canton's code of an HTTP list over the node's element limit (JsonApiErrors.MaximumNumberOfElements) */
const LIST_LIMIT_CODE = 'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED';

const AUTHORIZATION_HINT =
  "the command lacks the authority of a party it needs (a choice's controllers, a new contract's signatories): submit it acting as every one of them (actAs), e.g. an allocation's executor, sender and receiver together";

const HINTS: Partial<Record<LedgerErrorKind, string>> = {
  unavailable: 'the participant is not ready or overloaded: retried after a delay',
  'resource-exhausted': 'the participant is overloaded: retried after the delay it asks for',
  contention:
    'another transaction uses the same contracts: retried after a delay, with the inputs read again',
  'contract-not-found':
    'a contract this command uses was archived or never existed (consumed since it was read): read the live state again (holdings, offers, accounts) and build the command anew',
  'in-flight':
    'a submission with this command id is still in flight (an earlier attempt, or another run): its completion settles it; never resubmit under a new id',
  'duplicate-command':
    'a command with this command id was already accepted: an earlier attempt landed or is landing. Settle it by reading the ledger (completions for the command id); never resubmit under a new id',
  interpretation:
    "the ledger refused the command (the cause above): check amounts and balances, the offer's expiry, account limits and credentials",
  'failed-precondition': "the ledger's current state does not allow this request (the cause above)",
  'invalid-request':
    'the participant refused the request as malformed: is its version one this ledgerbook supports (Canton 3.4 or 3.5)?',
  'too-many-results':
    "the answer exceeds the participant's http-list-max-elements-limit: use the WebSocket transport or narrow the filter",
  unsupported: 'the participant does not offer this call: is its version one this ledgerbook supports?',
};

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
};

/** Milliseconds from Canton's `retryInfo` ("1 second", "500 milliseconds", "2s", "PT1S"); undefined when unknown. */
export function retryDelayMs(retryInfo: string | null | undefined): number | undefined {
  if (!retryInfo) return undefined;
  const text = retryInfo.trim().toLowerCase();
  const iso = /^pt(\d+(?:\.\d+)?)s$/.exec(text);
  if (iso) return Math.round(Number(iso[1]) * 1000);
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(text);
  const unit = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  return unit === undefined ? undefined : Math.round(Number(match?.[1]) * unit);
}

export function parseCantonError(body: unknown): CantonError | undefined {
  return wireProblems(cantonErrorSchema, body).length === 0 ? (body as CantonError) : undefined;
}

interface Classification {
  kind: LedgerErrorKind;
  retryability: Retryability;
}

function byGrpc(
  grpc: number | undefined,
  canton: CantonError | undefined,
  submission: boolean,
  fallback: Retryability,
): Classification {
  const code = canton?.code ?? '';
  if (code === LIST_LIMIT_CODE) return { kind: 'too-many-results', retryability: 'permanent' };
  if (code === 'CONTRACT_NOT_FOUND') return { kind: 'contract-not-found', retryability: 'permanent' };
  if (code === 'DUPLICATE_COMMAND') return { kind: 'duplicate-command', retryability: 'ambiguous' };
  if (code === 'SUBMISSION_ALREADY_IN_FLIGHT') return { kind: 'in-flight', retryability: 'ambiguous' };
  if (INTERPRETATION_CODES.test(code)) return { kind: 'interpretation', retryability: 'permanent' };
  const outcomeUnknown: Retryability = submission ? 'ambiguous' : 'transient';
  switch (grpc) {
    case GRPC.UNAVAILABLE:
      return { kind: 'unavailable', retryability: 'transient' };
    case GRPC.RESOURCE_EXHAUSTED:
      return { kind: 'resource-exhausted', retryability: 'transient' };
    case GRPC.ABORTED:
      return { kind: 'contention', retryability: 'transient' };
    case GRPC.DEADLINE_EXCEEDED:
      return { kind: 'deadline-exceeded', retryability: outcomeUnknown };
    case GRPC.CANCELLED:
      return { kind: 'other', retryability: outcomeUnknown };
    case GRPC.INTERNAL:
    case GRPC.UNKNOWN:
    case GRPC.DATA_LOSS:
      return {
        kind: 'internal',
        retryability: canton?.definiteAnswer === true ? 'permanent' : outcomeUnknown,
      };
    case GRPC.NOT_FOUND:
      return { kind: 'not-found', retryability: 'permanent' };
    case GRPC.ALREADY_EXISTS:
      return { kind: 'already-exists', retryability: 'permanent' };
    case GRPC.FAILED_PRECONDITION:
      return { kind: 'failed-precondition', retryability: 'permanent' };
    case GRPC.INVALID_ARGUMENT:
    case GRPC.OUT_OF_RANGE:
      return { kind: 'invalid-request', retryability: 'permanent' };
    case GRPC.UNAUTHENTICATED:
      return { kind: 'unauthenticated', retryability: 'permanent' };
    case GRPC.PERMISSION_DENIED:
      return { kind: 'permission-denied', retryability: 'permanent' };
    case GRPC.UNIMPLEMENTED:
      return { kind: 'unsupported', retryability: 'permanent' };
    default:
      return { kind: 'other', retryability: fallback };
  }
}

export interface LedgerCall {
  /** the request changes the ledger (a command submission): an unknown outcome is ambiguous, not transient */
  submission: boolean;
  /** the parties the request acts or reads as (named in the hint of a permission error) */
  parties?: readonly string[];
}

function permissionHint(parties: readonly string[] | undefined): string {
  const who = parties && parties.length > 0 ? parties.join(', ') : 'the parties of this request';
  return (
    `the ledger user of these credentials may not act or read as ${who}: grant it the right (CanActAs, or ` +
    'CanReadAs for reads; POST /v2/users/{user-id}/rights by a participant admin), or give the party its own ' +
    'credentials in the target (parties.<name>.auth)'
  );
}

function hintFor(
  kind: LedgerErrorKind,
  call: LedgerCall,
  canton: CantonError | undefined,
  fallback?: string,
) {
  if (kind === 'permission-denied') return permissionHint(call.parties);
  if (canton?.code === 'DAML_AUTHORIZATION_ERROR') return AUTHORIZATION_HINT;
  if (kind === 'invalid-request' && canton?.code === 'DEPRECATED_API_DISABLED')
    return 'the participant refuses a deprecated request field: is its version newer than this ledgerbook supports?';
  if (kind === 'deadline-exceeded' || (kind === 'internal' && call.submission))
    return call.submission
      ? 'the command may or may not have been committed: the step reads the ledger (completions by command id) before anything is repeated'
      : HINTS.unavailable;
  return HINTS[kind] ?? fallback;
}

/** A ServiceError of the ledger's HTTP API, classified (errors of other services pass through unchanged). */
export function classifyLedgerError(error: ServiceError, call: LedgerCall): ServiceError {
  if (error instanceof LedgerError) return error;
  if (!error.service.startsWith('ledger')) return error; // the identity provider's own refusal, for one
  if (error.status === undefined) {
    const unexpected = error.serviceMessage?.startsWith('unexpected response') === true;
    return rebuild(error, {
      kind: unexpected ? 'unexpected-response' : 'no-response',
      retryability: error.retryability,
      hint: error.hint,
    });
  }
  const canton = parseCantonError(error.body);
  if (error.status >= 200 && error.status < 300) {
    return rebuild(error, {
      kind: 'unexpected-response',
      retryability: error.retryability,
      hint: error.hint,
    });
  }
  if (canton === undefined && error.status === 413) {
    return rebuild(error, {
      kind: 'too-many-results',
      retryability: 'permanent',
      hint: HINTS['too-many-results'],
    });
  }
  if (canton === undefined && error.status === 400) {
    return rebuild(error, {
      kind: 'invalid-request',
      retryability: 'permanent',
      hint: HINTS['invalid-request'],
    });
  }
  const grpc =
    canton?.grpcCodeValue ??
    (canton?.errorCategory === undefined ? undefined : CATEGORY_GRPC[canton.errorCategory]) ??
    STATUS_GRPC[error.status];
  // without the participant's own error body (a proxy's 502/503, a crash), keep what the HTTP layer decided
  const { kind, retryability } = byGrpc(grpc, canton, call.submission, error.retryability);
  const classified = canton === undefined && error.status >= 500 ? error.retryability : retryability;
  return rebuild(error, {
    kind,
    retryability: classified,
    hint: hintFor(kind, call, canton, error.hint),
    canton,
    serviceMessage: canton ? `${canton.code}: ${canton.cause}` : error.serviceMessage,
    retryAfterMs: retryDelayMs(canton?.retryInfo),
  });
}

/** A `JsCantonError` received as a WebSocket frame (no HTTP status), classified like an HTTP error. */
export function ledgerErrorFromFrame(
  canton: CantonError,
  where: { service: string; method: string; path: string },
  call: LedgerCall,
): LedgerError {
  const grpc =
    canton.grpcCodeValue ??
    (canton.errorCategory === undefined ? undefined : CATEGORY_GRPC[canton.errorCategory]);
  const { kind, retryability } = byGrpc(grpc, canton, call.submission, 'permanent');
  return new LedgerError({
    ...where,
    serviceMessage: `${canton.code}: ${canton.cause}`,
    retryability,
    hint: hintFor(kind, call, canton),
    body: canton,
    kind,
    canton,
    retryAfterMs: retryDelayMs(canton.retryInfo),
  });
}

function rebuild(
  error: ServiceError,
  fields: Classification & {
    hint: string | undefined;
    canton?: CantonError | undefined;
    serviceMessage?: string | undefined;
    retryAfterMs?: number | undefined;
  },
): LedgerError {
  return new LedgerError(
    {
      service: error.service,
      method: error.method,
      path: error.path,
      status: error.status,
      serviceMessage: fields.serviceMessage ?? error.serviceMessage,
      retryability: fields.retryability,
      hint: fields.hint,
      body: error.body,
      kind: fields.kind,
      canton: fields.canton,
      retryAfterMs: fields.retryAfterMs,
    },
    error.cause,
  );
}
