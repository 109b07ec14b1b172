/**
 * The DPM (dec-party-manager) wire contract as the client uses it: the route table and the body types, all from
 * the one description of the API, contracts/dpm.openapi.yaml, through its generated client view
 * (dpm-wire.generated.ts, `npm run contracts`). What is written here by hand is behaviour the document has no
 * place for: the steps of each workflow kind and the labels of the legacy routes (docs/reference/dpm-api.md §6.1,
 * §7.1).
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { dpmOperations, onboardingMeshErrorResponseSchema } from './dpm-wire.generated.js';
import { WORKFLOW_KINDS, type WorkflowKind } from './dpm-wire-names.js';
import type {
  AuditResponse,
  AuthStatusResponse,
  ParticipantsStatusResponse,
  VettedPackagesResponse,
} from './dpm-wire.generated.js';
import { registerWireSchemas } from './schema-check.js';

export type * from './dpm-wire.generated.js';
export { onboardingMeshErrorResponseSchema };

export { FIELD_DEFINITION_TYPES, WORKFLOW_KINDS, type WorkflowKind } from './dpm-wire-names.js';

export type ParticipantStatus = ParticipantsStatusResponse['statuses'][number];
export type PartyAuthStatus = AuthStatusResponse['parties'][number];
export type VettedPackage = VettedPackagesResponse[number];
export type AuditEntry = AuditResponse['entries'][number];

/**
 * `current_step` values per kind in `step_index` order (§7.1); `step_total` is the length. Peer rows start at
 * `PEER_INITIAL_STEP`. Not enforced by the `/workflows` schema, so that a newer server's extra step does not
 * break decoding; the contract tests check the sandbox against it.
 */
export const WORKFLOW_STEPS = {
  Onboarding: [
    'WaitingForPeers',
    'GenerateKeys',
    'CreateProposals',
    'SignDns',
    'SubmitDns',
    'SignP2p',
    'SubmitFinal',
    'Complete',
  ],
  Kick: ['WaitingForPeers', 'ExportState', 'CreateProposals', 'SignProposals', 'SubmitKick', 'Complete'],
  AddParty: [
    'WaitingForPeers',
    'GenerateNewMemberKeys',
    'ExportState',
    'CreateProposals',
    'SignProposals',
    'SubmitProposals',
    'SyncAcs',
    'PrepareClearOnboarding',
    'ProposeClearOnboarding',
    'PrepareClearSign',
    'SignClearOnboarding',
    'SubmitClearOnboarding',
    'Complete',
  ],
  ChangeThreshold: [
    'WaitingForPeers',
    'ExportState',
    'CreateProposals',
    'SignProposals',
    'Submit',
    'Complete',
  ],
  Contracts: ['WaitingForPeers', 'PrepareSubmissions', 'SignSubmissions', 'ExecuteSubmissions', 'Complete'],
  Dars: ['WaitingForPeers', 'UploadDars', 'Complete'],
} as const satisfies Record<WorkflowKind, readonly string[]>;
export const PEER_INITIAL_STEP = 'Active';

/** The label the server uses for each kind in the messages of its legacy per-kind routes (§6.1). */
export const LEGACY_WORKFLOW_LABELS = {
  Onboarding: 'Onboarding',
  Kick: 'Kick',
  Contracts: 'Contracts',
  Dars: 'DARs',
  AddParty: 'Add-party',
  ChangeThreshold: 'Change-threshold',
} as const satisfies Record<WorkflowKind, string>;

// --- the route table --------------------------------------------------------------------------------------------

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** One DPM route: how to call it and what it answers. `Res`/`Req` carry the decoded types for the client. */
export interface DpmRoute<Res = unknown, Req = undefined> {
  readonly method: HttpMethod;
  /** path template, parameters in braces: `/workflows/{instance_name}/cancel` */
  readonly path: string;
  /** the success status the server sends */
  readonly status: number;
  readonly response: object;
  readonly request?: object;
  /** the query parameters the server reads, by name (`optional`: it may be left out) */
  readonly query: Readonly<Record<string, { readonly optional: boolean }>>;
  /** may be repeated without a second side effect (a lost answer is then not ambiguous) */
  readonly idempotent: boolean;
  /** gated by DECPM_ADMIN_ROLE when that is set */
  readonly admin: boolean;
  /** type carrier only; never set */
  readonly types?: { response: Res; request: Req };
}

type Operations = typeof dpmOperations;
type RouteOf<Op> = Op extends {
  response: infer Res extends JSONSchema;
  request: infer Req extends JSONSchema;
}
  ? DpmRoute<FromSchema<Res>, FromSchema<Req>>
  : Op extends { response: infer Res extends JSONSchema }
    ? DpmRoute<FromSchema<Res>>
    : never;

/** Every route of the document, by its operationId. */
const ALL_ROUTES = dpmOperations as unknown as { readonly [Id in keyof Operations]: RouteOf<Operations[Id]> };
type LegacyId = `legacy${'Status' | 'Cancel'}${WorkflowKind}`;

/** The routes the document describes that no client method calls (§4, §12 reads): the contract tests use them. */
const NOT_CALLED = [
  'externalParties',
  'vaults',
  'providerServices',
  'userServices',
  'registrarServices',
  'credentialOffers',
  'credentials',
  'registrarServiceRequests',
  'providerConfigurations',
  'transferFactories',
  'transferPreapprovals',
  'holdings',
  'contractsQuery',
  'couponReassignmentDelegation',
  'networkInfo',
  'operatorInfo',
  'tokenStandardContracts',
] as const satisfies ReadonlyArray<keyof Operations>;

type ClientId = Exclude<keyof Operations, LegacyId | (typeof NOT_CALLED)[number]>;

/** The routes the client calls, by operationId (the legacy per-kind routes are LEGACY_STATUS/CANCEL_ROUTES). */
export const DPM_ROUTES = Object.fromEntries(
  Object.entries(ALL_ROUTES).filter(
    ([id]) => !id.startsWith('legacy') && !(NOT_CALLED as readonly string[]).includes(id),
  ),
) as { readonly [Id in ClientId]: RouteOf<Operations[Id]> };

export const LEGACY_STATUS_ROUTES = Object.fromEntries(
  WORKFLOW_KINDS.map((kind) => [kind, ALL_ROUTES[`legacyStatus${kind}`]]),
) as { readonly [K in WorkflowKind]: RouteOf<Operations[`legacyStatus${K}`]> };

export const LEGACY_CANCEL_ROUTES = Object.fromEntries(
  WORKFLOW_KINDS.map((kind) => [kind, ALL_ROUTES[`legacyCancel${kind}`]]),
) as { readonly [K in WorkflowKind]: RouteOf<Operations[`legacyCancel${K}`]> };

/** `"GET /node-config"`, `"POST /workflows/{instance_name}/cancel"` … */
export type RouteKey = `${HttpMethod} ${string}`;

const allRoutes: ReadonlyArray<DpmRoute<unknown, unknown>> = Object.values(ALL_ROUTES);
const keyOf = (r: DpmRoute<unknown, unknown>): RouteKey => `${r.method} ${r.path}`;

/** Method + route template → the schema of the success body, for every route of the document. */
export const routeResponseSchemas: Readonly<Record<RouteKey, object>> = Object.fromEntries(
  allRoutes.map((r) => [keyOf(r), r.response]),
);

/** Method + route template → the success status, where it is not 200 (the workflow starts answer 202). */
export const routeSuccessStatus: Readonly<Record<RouteKey, number>> = Object.fromEntries(
  allRoutes.filter((r) => r.status !== 200).map((r) => [keyOf(r), r.status]),
);

/** Method + route template → the request body schema, for the routes that take one. */
export const routeRequestSchemas: Readonly<Record<RouteKey, object>> = Object.fromEntries(
  allRoutes.flatMap((r) => (r.request === undefined ? [] : [[keyOf(r), r.request]])),
);

registerWireSchemas(
  ...Object.values(routeResponseSchemas),
  ...Object.values(routeRequestSchemas),
  onboardingMeshErrorResponseSchema,
);
