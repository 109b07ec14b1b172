/**
 * Typed client of one DPM node (docs/reference/dpm-api.md): one method per route, named after it. Request
 * bodies are checked before anything is sent, answers are decoded with the route's schema (dpm-wire.ts), and the
 * DPM's own errors get the hints of dpm-errors.ts. Retries belong to the engine; a 401 is re-authenticated once by
 * the HttpService underneath.
 */
import { ServiceError } from '../errors.js';
import { explainDpmError } from './dpm-errors.js';
import { DPM_ROUTES, LEGACY_CANCEL_ROUTES, LEGACY_STATUS_ROUTES } from './dpm-wire.js';
import type {
  AddPartyRequest,
  AuthConfigResponse,
  AuthStatusResponse,
  AuthTestResponse,
  ChangeThresholdRequest,
  ComparePeersResponse,
  ContractsRequest,
  DarsDistributeRequest,
  DarsUploadRequest,
  DecentralizedPartiesResponse,
  DpmRoute,
  GovernanceConfirmationsResponse,
  GovernanceStateResponse,
  HealthzResponse,
  InvitationsResponse,
  KeysStatusResponse,
  KickRequest,
  MessageResponse,
  NetworkConfigRequest,
  NetworkConfigResponse,
  NodeConfigResponse,
  OnboardingRequest,
  PackageConfig,
  ParticipantsStatusResponse,
  PartyConfigRequest,
  PartyConfigResponse,
  SuccessResponse,
  VettedPackagesResponse,
  WorkflowKind,
  WorkflowResponse,
  WorkflowStatusResponse,
  WorkflowsResponse,
} from './dpm-wire.js';
import type { InstrumentsResponse } from './dpm-wire.js';
import type {
  AuditResponse,
  BurnRequestsResponse,
  CancelProposalRequest,
  CancelRequest,
  ChainAuditResponse,
  ConfirmRequest,
  DiscoverMemberPartyRequest,
  DiscoverMemberPartyResponse,
  ExecuteRequest,
  ExpireRequest,
  GrantRightsRequest,
  GrantRightsResponse,
  KnownMembersResponse,
  MintRequestsResponse,
  ProposeRequest,
  TransferInstructionsResponse,
} from './dpm-wire.js';
import type { HttpService, RequestOptions } from './http.js';
import { idSegment } from './path.js';
import { describeProblems, wireProblems } from './schema-check.js';

export interface CallOptions {
  signal?: AbortSignal;
}

interface Call<Req> extends CallOptions {
  params?: Record<string, string>;
  query?: RequestOptions['query'];
  body?: Req;
}

/** A query the document does not describe for the route is a defect of this client: it is never sent. */
export function checkQuery(route: DpmRoute<unknown, unknown>, query: Call<unknown>['query']): void {
  const given = Object.entries(query ?? {}).filter(([, value]) => value !== undefined);
  const unknown = given.filter(([name]) => !(name in route.query)).map(([name]) => name);
  const missing = Object.entries(route.query)
    .filter(([name, p]) => !p.optional && !given.some(([g]) => g === name))
    .map(([name]) => name);
  if (unknown.length > 0 || missing.length > 0)
    throw new TypeError(
      `${route.method} ${route.path}: ${[...unknown.map((n) => `query parameter ${n} is not in the DPM document`), ...missing.map((n) => `query parameter ${n} is required`)].join('; ')}`,
    );
}

function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return idSegment(value);
  });
}

export class DpmClient {
  constructor(private readonly http: HttpService) {}

  /** `dpm:<node>`, as it appears in errors */
  get service(): string {
    return this.http.service;
  }

  // §1 node / health / keys
  healthz(options?: CallOptions): Promise<HealthzResponse> {
    return this.call(DPM_ROUTES.healthz, { ...options });
  }

  authConfig(options?: CallOptions): Promise<AuthConfigResponse> {
    return this.call(DPM_ROUTES.authConfig, { ...options });
  }

  nodeConfig(options?: CallOptions): Promise<NodeConfigResponse> {
    return this.call(DPM_ROUTES.nodeConfig, { ...options });
  }

  keysStatus(options?: CallOptions): Promise<KeysStatusResponse> {
    return this.call(DPM_ROUTES.keysStatus, { ...options });
  }

  // §2 peers
  networkConfig(options?: CallOptions): Promise<NetworkConfigResponse> {
    return this.call(DPM_ROUTES.networkConfig, { ...options });
  }

  /** Replaces the node's whole peer table (convention: the same full list, this node included, on every node). */
  setNetworkConfig(peers: NetworkConfigRequest, options?: CallOptions): Promise<SuccessResponse> {
    return this.call(DPM_ROUTES.setNetworkConfig, { ...options, body: peers });
  }

  participantsStatus(options?: CallOptions): Promise<ParticipantsStatusResponse> {
    return this.call(DPM_ROUTES.participantsStatus, { ...options });
  }

  // §3 party config
  partyConfig(decPartyId: string, options?: CallOptions): Promise<PartyConfigResponse> {
    return this.call(DPM_ROUTES.partyConfig, { ...options, params: { dec_party_id: decPartyId } });
  }

  putPartyConfig(request: PartyConfigRequest, options?: CallOptions): Promise<SuccessResponse> {
    return this.call(DPM_ROUTES.putPartyConfig, { ...options, body: request });
  }

  // §4 decentralized parties
  decentralizedParties(
    query: { prefix?: string; refresh?: boolean } = {},
    options?: CallOptions,
  ): Promise<DecentralizedPartiesResponse> {
    return this.call(DPM_ROUTES.decentralizedParties, {
      ...options,
      query: { prefix: query.prefix, refresh: query.refresh ? true : undefined },
    });
  }

  // §5 workflow starts (not idempotent: a lost answer is ambiguous; look for the run in /workflows)
  startOnboarding(request: OnboardingRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.startOnboarding, { ...options, body: request });
  }

  startKick(request: KickRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.startKick, { ...options, body: request });
  }

  startAddParty(request: AddPartyRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.startAddParty, { ...options, body: request });
  }

  startChangeThreshold(request: ChangeThresholdRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.startChangeThreshold, { ...options, body: request });
  }

  startContracts(request: ContractsRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.startContracts, { ...options, body: request });
  }

  distributeDars(request: DarsDistributeRequest, options?: CallOptions): Promise<WorkflowResponse> {
    return this.call(DPM_ROUTES.distributeDars, { ...options, body: request });
  }

  /** Uploads to this node's participant only, synchronously. */
  uploadDars(request: DarsUploadRequest, options?: CallOptions): Promise<SuccessResponse> {
    return this.call(DPM_ROUTES.uploadDars, { ...options, body: request });
  }

  // §6 workflow control
  workflows(options?: CallOptions): Promise<WorkflowsResponse> {
    return this.call(DPM_ROUTES.workflows, { ...options });
  }

  cancelWorkflow(instance: string, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.cancelWorkflow, { ...options, params: { instance_name: instance } });
  }

  dismissWorkflow(instance: string, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.dismissWorkflow, { ...options, params: { instance_name: instance } });
  }

  retryWorkflow(instance: string, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.retryWorkflow, { ...options, params: { instance_name: instance } });
  }

  /** The legacy per-kind status: ambiguous under concurrent runs; prefer `workflows()`. */
  legacyStatus(kind: WorkflowKind, options?: CallOptions): Promise<WorkflowStatusResponse> {
    return this.call(LEGACY_STATUS_ROUTES[kind], { ...options });
  }

  legacyCancel(kind: WorkflowKind, options?: CallOptions): Promise<MessageResponse> {
    return this.call(LEGACY_CANCEL_ROUTES[kind], { ...options });
  }

  // §8 invitations
  invitations(options?: CallOptions): Promise<InvitationsResponse> {
    return this.call(DPM_ROUTES.invitations, { ...options });
  }

  acceptInvitation(id: string, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.acceptInvitation, { ...options, body: { id } });
  }

  declineInvitation(id: string, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.declineInvitation, { ...options, body: { id } });
  }

  // §10 packages
  vettedPackages(options?: CallOptions): Promise<VettedPackagesResponse> {
    return this.call(DPM_ROUTES.vettedPackages, { ...options });
  }

  comparePeers(options?: CallOptions): Promise<ComparePeersResponse> {
    return this.call(DPM_ROUTES.comparePeers, { ...options });
  }

  packages(options?: CallOptions): Promise<PackageConfig> {
    return this.call(DPM_ROUTES.packages, { ...options });
  }

  // §9 auth
  authStatus(options?: CallOptions): Promise<AuthStatusResponse> {
    return this.call(DPM_ROUTES.authStatus, { ...options });
  }

  authTest(options?: CallOptions): Promise<AuthTestResponse> {
    return this.call(DPM_ROUTES.authTest, { ...options });
  }

  /** Grants the party's ledger user actAs and readAs on its member party and on the party (admin credentials). */
  grantRights(request: GrantRightsRequest, options?: CallOptions): Promise<GrantRightsResponse> {
    return this.call(DPM_ROUTES.grantRights, { ...options, body: request });
  }

  discoverMemberParty(
    request: DiscoverMemberPartyRequest,
    options?: CallOptions,
  ): Promise<DiscoverMemberPartyResponse> {
    return this.call(DPM_ROUTES.discoverMemberParty, { ...options, body: request });
  }

  // §11 governance reads
  governanceState(partyId: string, options?: CallOptions): Promise<GovernanceStateResponse> {
    return this.call(DPM_ROUTES.governanceState, { ...options, query: { party_id: partyId } });
  }

  /** The rules contract id in the answer changes after every confirm and execute: read it before each. */
  governanceConfirmations(partyId: string, options?: CallOptions): Promise<GovernanceConfirmationsResponse> {
    return this.call(DPM_ROUTES.governanceConfirmations, { ...options, query: { party_id: partyId } });
  }

  /** the party's instruments: the InstrumentConfiguration contracts it can read (§12) */
  instruments(partyId: string, options?: CallOptions): Promise<InstrumentsResponse> {
    return this.call(DPM_ROUTES.instruments, { ...options, query: { party_id: partyId } });
  }

  governanceKnownMembers(partyId: string, options?: CallOptions): Promise<KnownMembersResponse> {
    return this.call(DPM_ROUTES.governanceKnownMembers, { ...options, query: { party_id: partyId } });
  }

  /** this node's own log of the governance writes it made for the party, newest first */
  governanceAudit(
    partyId: string,
    page: { limit?: number; offset?: number } = {},
    options?: CallOptions,
  ): Promise<AuditResponse> {
    return this.call(DPM_ROUTES.governanceAudit, {
      ...options,
      query: { party_id: partyId, limit: page.limit, offset: page.offset },
    });
  }

  /** the party's governance events on the ledger, newest first; `refresh` bypasses the node's cache */
  governanceChainAudit(
    partyId: string,
    page: { limit?: number; beforeOffset?: number; refresh?: boolean } = {},
    options?: CallOptions,
  ): Promise<ChainAuditResponse> {
    return this.call(DPM_ROUTES.governanceChainAudit, {
      ...options,
      query: {
        party_id: partyId,
        limit: page.limit,
        before_offset: page.beforeOffset,
        refresh: page.refresh ? true : undefined,
      },
    });
  }

  governanceMintRequests(partyId: string, options?: CallOptions): Promise<MintRequestsResponse> {
    return this.call(DPM_ROUTES.governanceMintRequests, { ...options, query: { party_id: partyId } });
  }

  governanceBurnRequests(partyId: string, options?: CallOptions): Promise<BurnRequestsResponse> {
    return this.call(DPM_ROUTES.governanceBurnRequests, { ...options, query: { party_id: partyId } });
  }

  /** the party's pending transfer instructions as sender or receiver (§11) */
  governanceTransferInstructions(
    partyId: string,
    options?: CallOptions,
  ): Promise<TransferInstructionsResponse> {
    return this.call(DPM_ROUTES.governanceTransferInstructions, { ...options, query: { party_id: partyId } });
  }

  // §11 governance writes (no idempotency: settle a lost answer by reading confirmations and the audit log)
  proposeGovernance(request: ProposeRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.proposeGovernance, { ...options, body: request });
  }

  confirmGovernance(request: ConfirmRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.confirmGovernance, { ...options, body: request });
  }

  executeGovernance(request: ExecuteRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.executeGovernance, { ...options, body: request });
  }

  expireGovernance(request: ExpireRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.expireGovernance, { ...options, body: request });
  }

  cancelGovernance(request: CancelRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.cancelGovernance, { ...options, body: request });
  }

  cancelProposal(request: CancelProposalRequest, options?: CallOptions): Promise<MessageResponse> {
    return this.call(DPM_ROUTES.cancelProposal, { ...options, body: request });
  }

  private async call<Res, Req>(route: DpmRoute<Res, Req>, call: Call<Req>): Promise<Res> {
    const path = fillPath(route.path, call.params);
    checkQuery(route, call.query);
    if (route.request !== undefined) {
      const problems = wireProblems(route.request, call.body);
      if (problems.length > 0) {
        throw new ServiceError({
          service: this.http.service,
          method: route.method,
          path,
          serviceMessage: `request not sent: ${describeProblems(problems)}`,
          retryability: 'permanent',
          hint: 'the values given for this call do not match the DPM API (ids are `<prefix>::<68 hex digits>`); nothing was sent',
        });
      }
    }
    const response = route.response;
    try {
      const result = await this.http.request<Res>(route.method, path, {
        query: call.query,
        body: call.body,
        idempotent: route.idempotent,
        signal: call.signal,
        check: (body) => {
          const problems = wireProblems(response, body);
          return problems.length === 0 ? undefined : describeProblems(problems);
        },
      });
      return result.body;
    } catch (error) {
      if (error instanceof ServiceError) throw explainDpmError(error);
      throw error;
    }
  }
}
