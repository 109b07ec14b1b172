/**
 * State reads: version, ledger end, pruning, connected synchronizers, and the active contracts (HTTP list; the
 * WebSocket variant in ws.ts shares `activeContracts`).
 */
import { json } from '../../http/reply.js';
import { API_VERSION, type JsActiveContractEntry, activeContractEntry } from '../encode.js';
import { errors } from '../errors.js';
import { partiesOf, select } from '../filters.js';
import { Reader, listParams } from './body.js';
import type { Caller, LedgerNodeEnv, LedgerRoute } from './context.js';
import { eventFormatOrLegacy } from './formats.js';

/** Canton's default `http-list-max-elements-limit`: longer HTTP lists are refused (413); WebSockets have none */
export const HTTP_LIST_MAX_ELEMENTS = 200;

/**
 * Applies `limit` and the node's element limit to an HTTP list: a `limit` up to the node's answers at most that
 * many elements; without one (or a larger one) a longer list is refused.
 */
export function limitList<T>(items: T[], limit: number | undefined): T[] {
  const effective = limit !== undefined && limit <= HTTP_LIST_MAX_ELEMENTS ? limit : undefined;
  if (effective !== undefined) return items.slice(0, effective);
  if (items.length > HTTP_LIST_MAX_ELEMENTS)
    throw errors.tooManyElements(items.length, HTTP_LIST_MAX_ELEMENTS);
  return items;
}

/** The entries of a GetActiveContractsRequest, in creation order. */
export function activeContracts(env: LedgerNodeEnv, caller: Caller, body: Reader): JsActiveContractEntry[] {
  body.object(['filter', 'verbose', 'activeAtOffset', 'eventFormat', 'streamContinuationToken']);
  const offset = body.at('activeAtOffset').integer();
  body.at('streamContinuationToken').optString();
  const format = eventFormatOrLegacy(env, caller, body, '/v2/state/active-contracts');
  if (offset < 0) throw errors.negativeOffset('active_at_offset', offset);
  if (offset > env.ledger.end) throw errors.offsetAfterLedgerEnd('active_at_offset', offset, env.ledger.end);
  const entries: JsActiveContractEntry[] = [];
  const parties = partiesOf(format);
  for (const contract of env.ledger.activeAt(offset, parties)) {
    const stakeholders = [
      ...new Set([
        ...contract.template.signatories(contract.arg),
        ...contract.template.observers(contract.arg),
      ]),
    ];
    const selection = select(format, contract.template, stakeholders);
    if (selection !== undefined) entries.push(activeContractEntry(env.encoder, contract, selection));
  }
  return entries;
}

export const stateRoutes: LedgerRoute[] = [
  {
    method: 'GET',
    template: '/v2/version',
    handle: ({ env }) =>
      json(200, {
        version: API_VERSION[env.encoder.profile],
        features: {
          experimental: { staticTime: { supported: false }, commandInspectionService: { supported: true } },
          userManagement: { supported: true, maxRightsPerUser: 1000, maxUsersPageSize: 1000 },
          partyManagement: { maxPartiesPageSize: 10000 },
          offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 75, nanos: 0 } },
          packageFeature: { maxVettedPackagesPageSize: 100 },
        },
      }),
  },
  {
    method: 'GET',
    template: '/v2/state/ledger-end',
    handle: async ({ env }) => {
      await env.catchUp();
      return json(200, { offset: env.ledger.end });
    },
  },
  {
    method: 'GET',
    template: '/v2/state/latest-pruned-offsets',
    handle: ({ env }) =>
      json(200, {
        participantPrunedUpToInclusive: env.ledger.pruned,
        allDivulgedContractsPrunedUpToInclusive: env.ledger.pruned,
      }),
  },
  {
    method: 'GET',
    template: '/v2/state/connected-synchronizers',
    handle: ({ env, query }) => {
      const party = query.get('party');
      const participant = query.get('participantId');
      if (participant !== null && participant !== '' && participant !== env.participantId) {
        return json(200, { connectedSynchronizers: [] });
      }
      const permission = party ? env.ledger.hosting(party)[env.participantId] : 'submission';
      if (permission === undefined) return json(200, { connectedSynchronizers: [] });
      return json(200, {
        connectedSynchronizers: [
          {
            synchronizerAlias: 'global',
            synchronizerId: env.ledger.synchronizerId,
            permission: `PARTICIPANT_PERMISSION_${permission.toUpperCase()}`,
          },
        ],
      });
    },
  },
  {
    method: 'GET',
    template: '/v2/parties/participant-id',
    handle: ({ env }) => json(200, { participantId: env.participantId }),
  },
  {
    method: 'POST',
    template: '/v2/state/active-contracts',
    handle: async ({ env, caller, body, query }) => {
      const { limit } = listParams(query);
      const request = Reader.parse(body);
      await env.catchUp();
      return json(200, limitList(activeContracts(env, caller, request), limit));
    },
  },
  { method: 'GET', template: '/livez', public: true, handle: () => ({ status: 200 }) },
  {
    method: 'GET',
    template: '/readyz',
    public: true,
    handle: () => ({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'ready' }),
  },
];
