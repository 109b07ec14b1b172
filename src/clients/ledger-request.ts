/**
 * What the ledger client sends, built and checked before anything goes out: the paths of the JSON Ledger API v2
 * (canton-json-api.md §3), the queries and submissions callers describe, and their wire form (`eventFormat`, the
 * deduplication period, the commands, the updates request). Pure: no I/O.
 */
import type {
  Command,
  DisclosedContract,
  EventFormat,
  IdentifierFilter,
  JsCommands,
  UpdatesRequest,
  WireDeduplicationPeriod,
} from './ledger-wire.js';

/** What a query asks for, per party: a template, an interface (with its view), or every contract. */
export type ContractFilter =
  | { templateId: string; includeCreatedEventBlob?: boolean }
  | { interfaceId: string; includeInterfaceView?: boolean; includeCreatedEventBlob?: boolean }
  | { wildcard: true; includeCreatedEventBlob?: boolean };

export interface ActiveContractsQuery {
  /** the parties whose contracts are read (the user needs CanReadAs or CanActAs for each) */
  parties: readonly string[];
  /** none: every contract of the parties */
  filters?: readonly ContractFilter[];
  /** the snapshot's offset; default: the ledger end, read just before */
  activeAtOffset?: number;
}

export type DeduplicationPeriod = { durationSeconds: number } | { offset: number };

export interface Submission {
  /** deterministic, from the caller (the same effect always gets the same id); `[A-Za-z0-9_:#/-]`, ≤ 255 */
  commandId: string;
  /** the parties the command acts as (the user needs CanActAs for each) */
  actAs: readonly string[];
  readAs?: readonly string[];
  commands: readonly Command[];
  /** contracts the submitter cannot see (rules, factories, configurations), fetched right before submitting */
  disclosedContracts?: readonly DisclosedContract[];
  /** default: the participant's maximum deduplication period */
  deduplication?: DeduplicationPeriod;
  synchronizerId?: string;
  workflowId?: string;
  /**
   * this submission's own id (the command id names the change, which every attempt shares): the completion and
   * a `DUPLICATE_COMMAND` (`existing_submission_id`) say which submission landed
   */
  submissionId?: string;
}

export interface CompletionsQuery {
  /** parties the commands acted as */
  parties: readonly string[];
  /** completions after this offset (an offset read before the submission) */
  beginExclusive: number;
  /** the submitting user; default: the token's user */
  userId?: string;
}

export interface UpdatesQuery {
  parties: readonly string[];
  beginExclusive: number;
  /** default: the ledger end, read just before (so the list is bounded) */
  endInclusive?: number;
  filters?: readonly ContractFilter[];
  /** default LEDGER_EFFECTS (exercises with their results) */
  shape?: 'LEDGER_EFFECTS' | 'ACS_DELTA';
}

export const LEDGER_PATHS = {
  version: '/v2/version',
  ledgerEnd: '/v2/state/ledger-end',
  prunedOffsets: '/v2/state/latest-pruned-offsets',
  activeContracts: '/v2/state/active-contracts',
  submitAndWaitForTransaction: '/v2/commands/submit-and-wait-for-transaction',
  packages: '/v2/packages',
  authenticatedUser: '/v2/authenticated-user',
  user: '/v2/users/{user-id}',
  userRights: '/v2/users/{user-id}/rights',
  parties: '/v2/parties',
  party: '/v2/parties/{party}',
  completions: '/v2/commands/completions',
  updates: '/v2/updates',
  eventsByContractId: '/v2/events/events-by-contract-id',
} as const;

const COMMAND_ID = /^[A-Za-z0-9_:#/-]{1,255}$/;

function identifierFilter(filter: ContractFilter): IdentifierFilter {
  const includeCreatedEventBlob = filter.includeCreatedEventBlob ?? false;
  if ('templateId' in filter)
    return { TemplateFilter: { value: { templateId: filter.templateId, includeCreatedEventBlob } } };
  if ('interfaceId' in filter)
    return {
      InterfaceFilter: {
        value: {
          interfaceId: filter.interfaceId,
          includeInterfaceView: filter.includeInterfaceView ?? true,
          includeCreatedEventBlob,
        },
      },
    };
  return { WildcardFilter: { value: { includeCreatedEventBlob } } };
}

/** The `eventFormat` of a read: the same filters for each party (a wildcard when none are given). */
export function eventFormat(
  parties: readonly string[],
  filters: readonly ContractFilter[] = [],
  verbose = false,
): EventFormat {
  const cumulative = (filters.length === 0 ? [{ wildcard: true } as const] : filters).map((f) => ({
    identifierFilter: identifierFilter(f),
  }));
  return {
    filtersByParty: Object.fromEntries(parties.map((party) => [party, { cumulative }])),
    verbose,
  };
}

function deduplicationPeriod(period: DeduplicationPeriod): WireDeduplicationPeriod {
  if ('offset' in period) return { DeduplicationOffset: { value: period.offset } };
  return { DeduplicationDuration: { value: { seconds: period.durationSeconds, nanos: 0 } } };
}

/** What is wrong with a submission, before anything is sent. */
export function submissionProblems(s: Submission): string[] {
  const problems: string[] = [];
  if (!COMMAND_ID.test(s.commandId))
    problems.push('commandId must be 1–255 characters of letters, digits and _ : # / -');
  if (s.actAs.length === 0) problems.push('actAs names no party');
  for (const party of [...s.actAs, ...(s.readAs ?? [])])
    if (!party.includes('::')) problems.push(`'${party}' is not a party id (<hint>::<namespace>)`);
  if (s.commands.length === 0) problems.push('there is no command');
  (s.disclosedContracts ?? []).forEach((d, i) => {
    if (!d.createdEventBlob)
      problems.push(`disclosed contract ${i} (${d.contractId}) has no createdEventBlob`);
  });
  const dedup = s.deduplication;
  if (dedup !== undefined) {
    const value = 'offset' in dedup ? dedup.offset : dedup.durationSeconds;
    if (!Number.isSafeInteger(value) || value < 0)
      problems.push('the deduplication period must be a whole, non-negative number');
  }
  return problems;
}

export function nonNegativeInteger(value: number | undefined, name: string): string[] {
  return value === undefined || (Number.isSafeInteger(value) && value >= 0)
    ? []
    : [`${name} must be a whole, non-negative offset`];
}

/** The `commands` of a submission, as the participant reads them. */
export function jsCommands(submission: Submission): JsCommands {
  return {
    commands: submission.commands,
    commandId: submission.commandId,
    actAs: submission.actAs,
    ...(submission.readAs?.length ? { readAs: submission.readAs } : {}),
    ...(submission.disclosedContracts?.length ? { disclosedContracts: submission.disclosedContracts } : {}),
    ...(submission.deduplication
      ? { deduplicationPeriod: deduplicationPeriod(submission.deduplication) }
      : {}),
    ...(submission.synchronizerId ? { synchronizerId: submission.synchronizerId } : {}),
    ...(submission.workflowId ? { workflowId: submission.workflowId } : {}),
    ...(submission.submissionId ? { submissionId: submission.submissionId } : {}),
  };
}

/** What is wrong with an updates query, before anything is sent. */
export function updatesProblems(query: UpdatesQuery): string[] {
  return [
    ...(query.parties.length === 0 ? ['no party to read updates of'] : []),
    ...nonNegativeInteger(query.beginExclusive, 'beginExclusive'),
    ...nonNegativeInteger(query.endInclusive, 'endInclusive'),
  ];
}

/** The transactions between two offsets that the parties see, with exercises' results unless ACS_DELTA. */
export function updatesRequest(query: UpdatesQuery, endInclusive: number): UpdatesRequest {
  return {
    beginExclusive: query.beginExclusive,
    endInclusive,
    updateFormat: {
      includeTransactions: {
        eventFormat: eventFormat(query.parties, query.filters, true),
        transactionShape: `TRANSACTION_SHAPE_${query.shape ?? 'LEDGER_EFFECTS'}`,
      },
    },
  };
}
