/**
 * Canton errors as the JSON Ledger API reports them (canton-json-api.md §4): a `JsCantonError` body whose HTTP
 * status follows from the gRPC code of the error's category. One factory per error the sandbox produces, so the
 * codes, categories and texts live in one place.
 */
import { randomBytes } from 'node:crypto';
import { type Reply, json, text } from '../http/reply.js';

/** error category id → gRPC code (the ErrorCategory table of canton-json-api.md §4) */
const CATEGORY_GRPC: Record<number, number> = {
  1: 14, // TransientServerFailure → UNAVAILABLE
  2: 10, // ContentionOnSharedResources → ABORTED
  3: 4, // DeadlineExceededRequestStateUnknown → DEADLINE_EXCEEDED
  4: 13, // SystemInternalAssumptionViolated → INTERNAL
  5: 3, // SecurityAlert → INVALID_ARGUMENT
  6: 16, // AuthInterceptorInvalidAuthenticationCredentials → UNAUTHENTICATED
  7: 7, // InsufficientPermission → PERMISSION_DENIED
  8: 3, // InvalidIndependentOfSystemState → INVALID_ARGUMENT
  9: 9, // InvalidGivenCurrentSystemStateOther → FAILED_PRECONDITION
  10: 6, // InvalidGivenCurrentSystemStateResourceExists → ALREADY_EXISTS
  11: 5, // InvalidGivenCurrentSystemStateResourceMissing → NOT_FOUND
  12: 11, // InvalidGivenCurrentSystemStateSeekAfterEnd → OUT_OF_RANGE
  14: 12, // InternalUnsupportedOperation → UNIMPLEMENTED
};

/** gRPC code → HTTP status (Canton's GrpcHttpErrorCodes) */
const GRPC_HTTP: Record<number, number> = {
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/** categories Canton marks retryable, with their default retry delay */
const RETRYABLE = new Set([1, 2, 3]);

export interface CantonErrorBody {
  code: string;
  cause: string;
  correlationId?: string;
  traceId?: string;
  context: Record<string, string>;
  resources?: Array<[string, string]>;
  errorCategory: number;
  grpcCodeValue?: number;
  retryInfo?: string;
  definiteAnswer?: boolean;
}

export class LedgerError extends Error {
  readonly grpcCode: number;

  constructor(
    readonly code: string,
    readonly category: number,
    override readonly cause: string,
    readonly extra: {
      context?: Record<string, string>;
      resources?: Array<[string, string]>;
      definiteAnswer?: boolean;
      /** a status Canton sets outside the gRPC mapping (413 for an over-long list) */
      httpStatus?: number;
    } = {},
  ) {
    super(`${code}: ${cause}`);
    this.grpcCode = CATEGORY_GRPC[category] ?? 2;
  }

  get httpStatus(): number {
    return this.extra.httpStatus ?? GRPC_HTTP[this.grpcCode] ?? 500;
  }

  body(): CantonErrorBody {
    // Canton fills retryInfo with the category's default (1 second for each retryable one)
    const retryable = RETRYABLE.has(this.category);
    return {
      code: this.code,
      cause: this.cause,
      correlationId: randomBytes(8).toString('hex'),
      traceId: randomBytes(16).toString('hex'),
      context: this.extra.context ?? {},
      ...(this.extra.resources ? { resources: this.extra.resources } : {}),
      errorCategory: this.category,
      grpcCodeValue: this.grpcCode,
      ...(retryable ? { retryInfo: '1 second' } : {}),
      ...(this.extra.definiteAnswer !== undefined ? { definiteAnswer: this.extra.definiteAnswer } : {}),
    };
  }

  reply(): Reply {
    return json(this.httpStatus, this.body());
  }
}

export const errors = {
  unauthenticated: (why: string) =>
    new LedgerError('UNAUTHENTICATED', 6, `The command is missing a (valid) JWT token: ${why}`),
  permissionDenied: (why: string) =>
    new LedgerError('PERMISSION_DENIED', 7, `The provided authorization is not sufficient: ${why}`),
  invalidArgument: (why: string) =>
    new LedgerError('INVALID_ARGUMENT', 8, `The submitted request has invalid arguments: ${why}`),
  missingField: (field: string) =>
    new LedgerError('MISSING_FIELD', 8, `The submitted command is missing a mandatory field: ${field}`, {
      context: { field_name: field },
    }),
  deprecatedDisabled: (what: string) =>
    new LedgerError(
      'DEPRECATED_API_DISABLED',
      8,
      `${what} was deprecated in Canton 3.4, is disabled by default since Canton 3.6 and will be removed in Canton 3.7.`,
    ),
  contractNotFound: (contractId: string) =>
    new LedgerError('CONTRACT_NOT_FOUND', 11, `Contract could not be found with id ${contractId}`, {
      resources: [['CONTRACT_ID', contractId]],
      definiteAnswer: false,
    }),
  contractEventsNotFound: (contractId: string) =>
    new LedgerError(
      'CONTRACT_EVENTS_NOT_FOUND',
      11,
      `Contract events not found, or not visible: ${contractId}`,
      { resources: [['CONTRACT_ID', contractId]] },
    ),
  lockedContracts: (contractIds: string[]) =>
    new LedgerError(
      'LOCAL_VERDICT_LOCKED_CONTRACTS',
      2,
      `Rejected transaction is referring to locked contracts Set(${contractIds.map((c) => `ContractId(${c})`).join(', ')})`,
      { resources: contractIds.map((c): [string, string] => ['CONTRACT_ID', c]), definiteAnswer: false },
    ),
  duplicateCommand: (submissionId: string | undefined, completionOffset: number) =>
    new LedgerError(
      'DUPLICATE_COMMAND',
      10,
      'A command with the given command id has already been successfully processed',
      {
        context: {
          ...(submissionId ? { existing_submission_id: submissionId } : {}),
          completion_offset: String(completionOffset),
        },
        definiteAnswer: false,
      },
    ),
  alreadyInFlight: (commandId: string) =>
    new LedgerError(
      'SUBMISSION_ALREADY_IN_FLIGHT',
      2,
      `The submission with the same change id is already in flight: command id ${commandId}`,
      { definiteAnswer: false },
    ),
  interpretation: (message: string) =>
    new LedgerError(
      'DAML_INTERPRETATION_ERROR',
      9,
      `Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed (error category 9): ${message}`,
      { definiteAnswer: false },
    ),
  authorization: (message: string) =>
    new LedgerError('DAML_AUTHORIZATION_ERROR', 8, `Interpretation error: Error: ${message}`),
  preprocessing: (message: string) =>
    new LedgerError('COMMAND_PREPROCESSING_FAILED', 8, `Command preprocessing failed: ${message}`),
  wronglyTyped: (contractId: string, expected: string, actual: string) =>
    new LedgerError(
      'WRONGLY_TYPED_CONTRACT',
      9,
      `Interpretation error: Error: Contract ${contractId} was expected to be of type ${expected} but is of type ${actual}`,
    ),
  packageNamesNotFound: (names: string[]) =>
    new LedgerError(
      'PACKAGE_NAMES_NOT_FOUND',
      11,
      `The following package names do not match upgradable packages uploaded on this participant: [${names.join(', ')}].`,
    ),
  templatesNotFound: (ids: string[]) =>
    new LedgerError('TEMPLATES_OR_INTERFACES_NOT_FOUND', 11, `Templates do not exist: [${ids.join(', ')}].`),
  /** TransactionRoutingError.UnknownInformees: its fixed cause, the parties in its context (as Scala prints a Set) */
  unknownInformees: (parties: string[]) =>
    new LedgerError(
      'UNKNOWN_INFORMEES',
      11,
      'The participant is not connected to any synchronizer where the given informees are known.',
      { context: { unknownInformees: scalaSet(parties) }, definiteAnswer: false },
    ),
  /** TransactionRoutingError …SubmittersCanSubmit: NotAllowed for one submitter, NoSuitableSynchronizer for several */
  notHosted: (parties: string[]) =>
    parties.length === 1
      ? new LedgerError(
          'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
          11,
          'This participant cannot submit as the given submitter on any connected synchronizer',
          { context: { unknownSubmitter: parties[0] as string }, definiteAnswer: false },
        )
      : new LedgerError(
          'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
          11,
          'Not connected to a synchronizer on which this participant can submit for all submitters',
          { context: { unknownSubmitters: `List(${parties.join(', ')})` }, definiteAnswer: false },
        ),
  negativeOffset: (field: string, offset: number) =>
    new LedgerError(
      'NEGATIVE_OFFSET',
      8,
      `Offset ${offset} in ${field} is a negative integer: the offset in ${field} field has to be a non-negative integer (>=0)`,
    ),
  nonPositiveOffset: (field: string, offset: number) =>
    new LedgerError(
      'NON_POSITIVE_OFFSET',
      8,
      `Offset ${offset} in ${field} is not a positive integer: the offset has to be either a positive integer (>0) or not defined at all`,
    ),
  descendingOrderMissingEnd: () =>
    new LedgerError(
      'DESCENDING_ORDER_MISSING_END',
      8,
      'end_inclusive is not provided when descending_order is true',
    ),
  offsetOutOfRange: (end: number, begin: number) =>
    new LedgerError('OFFSET_OUT_OF_RANGE', 9, `End offset ${end} is before begin offset ${begin}.`, {
      definiteAnswer: false,
    }),
  offsetAfterLedgerEnd: (what: string, offset: number, end: number) =>
    new LedgerError('OFFSET_AFTER_LEDGER_END', 12, `${what} offset (${offset}) is after ledger end (${end})`),
  prunedDataAccessed: (offset: number, earliest: number) =>
    new LedgerError(
      'PARTICIPANT_PRUNED_DATA_ACCESSED',
      9,
      `Offset ${offset} precedes pruning offset ${earliest}: the data was pruned`,
      { context: { earliest_offset: String(earliest) } },
    ),
  updateNotFound: (what: string) => new LedgerError('UPDATE_NOT_FOUND', 11, `Update not found: ${what}`),
  userNotFound: (userId: string) =>
    new LedgerError('USER_NOT_FOUND', 11, `getting user failed for unknown user "${userId}"`, {
      resources: [['USER_ID', userId]],
    }),
  userExists: (userId: string) =>
    new LedgerError('USER_ALREADY_EXISTS', 10, `creating user failed for existing user "${userId}"`, {
      resources: [['USER_ID', userId]],
    }),
  /** Canton's ParticipantBackpressure: category 2 (ABORTED, 409), the category's 1-second retryInfo */
  backpressure: (why: string) =>
    new LedgerError('PARTICIPANT_BACKPRESSURE', 2, `The participant is overloaded: ${why}`, {
      context: { reason: why },
      definiteAnswer: false,
    }),
  /**
   * An HTTP list longer than the node's `http-list-max-elements-limit` (JsonApiErrors.MaximumNumberOfElements):
   * Canton reads at most limit + 1 elements and names that count; 413 outside the gRPC mapping.
   */
  tooManyElements: (count: number, limit: number) =>
    new LedgerError(
      'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      2,
      `The number of matching elements (${Math.min(count, limit + 1)}) is greater than the node limit (${limit}).`,
      { httpStatus: 413, definiteAnswer: false },
    ),
  unimplemented: (what: string) =>
    new LedgerError('UNSUPPORTED_OPERATION', 14, `The sandbox does not simulate ${what}`),
  /** what Canton's JSON layer answers for an exception it did not expect (LedgerApiErrors.InternalError) */
  internal: (what: string) =>
    new LedgerError('LEDGER_API_INTERNAL_ERROR', 4, what, { definiteAnswer: false }),
};

/** a set of parties as Scala prints it in an error's context (`Set(…)` up to four elements, `HashSet(…)` above) */
function scalaSet(items: string[]): string {
  return `${items.length > 4 ? 'HashSet' : 'Set'}(${items.join(', ')})`;
}

/**
 * The participant's own error for an HTTP status: the JsCantonError Canton answers with it (500 internal, 501
 * unsupported, 503 a service not running, 504 a request timed out), for the failures the sandbox injects; undefined
 * for a status Canton never answers itself (a 502 comes from a proxy in front of it).
 */
export function errorOfStatus(status: number, cause: string): LedgerError | undefined {
  switch (status) {
    case 500:
      return errors.internal(cause);
    case 501:
      return new LedgerError('UNSUPPORTED_OPERATION', 14, cause);
    case 503:
      return new LedgerError('SERVICE_NOT_RUNNING', 1, cause, { definiteAnswer: false });
    case 504:
      return new LedgerError('REQUEST_TIME_OUT', 3, cause, { definiteAnswer: false });
    default:
      return undefined;
  }
}

/** a failure of the participant with this status: its JsCantonError, or a proxy's plain text for another status */
export function failureReply(status: number, cause: string): Reply {
  return errorOfStatus(status, cause)?.reply() ?? text(status, cause);
}
