/**
 * Governance (dpm-api.md §11): the reads of a party's rules, confirmations, requests and history, and the writes a
 * member node makes for the party — propose, confirm, execute, expire, cancel, cancel-proposal — each a
 * submission on this node's participant as the member party (readAs the decentralized party), with the party's
 * credentials and the ledger user's real rights. The rules contract is consumed by every confirm and execute.
 * Writes without credentials answer 401 `No credentials configured for party`; a refusal of the ledger is a 500
 * with the participant's error; every write that got a token is written to the node's audit log.
 *
 * Reads as the real server does them: the rules and confirmations reads go out with the party's token if there is
 * one, and a read that fails (no credentials, no rights) answers as if there were nothing (`state: null`, no
 * actions), the failure only logged. Clients must check GET /auth/status before they trust such an answer.
 */
import { type Reply, json, jsonError } from '../../http/reply.js';
import type { Command } from '../../ledger/ledger.js';
import { GovernableActionI } from '../../governance/proposals.js';
import {
  GovernanceConfirmation,
  GovernanceRules,
  GovernanceSelfConfirmation,
} from '../../governance/rules.js';
import { errors } from '../../ledger/errors.js';
import { MeshError } from '../../mesh.js';
import type { DpmNode } from '../node.js';
import {
  ParticipantError,
  partyActor,
  readAsParty,
  submitAsMember,
  type PartyActor,
} from '../party-ledger.js';
import {
  SIMULATED_PROPOSALS,
  proposalContract,
  proposalProblem,
  selfActionOf,
} from '../governance/actions.js';
import { audit, auditRows, type AuditEvent } from '../governance/audit.js';
import { chainAudit, type ChainAuditEntry } from '../governance/chain-audit.js';
import {
  activeRules,
  governanceActions,
  governanceState,
  tokenRequests,
  transferInstructions,
} from '../governance/reads.js';
import {
  type CancelProposalRequest,
  type CancelRequest,
  type ConfirmRequest,
  type ExecuteRequest,
  type ExpireRequest,
  type GovernanceType,
  type ProposeRequest,
  cancelProposalShape,
  cancelShape,
  confirmShape,
  executeShape,
  expireShape,
  proposeShape,
} from '../governance/wire.js';
import { route, type DpmRoute, type DpmRequest } from './route.js';

/** the vault governance package (PackageConfig `vault_governance`): no sandbox participant has it */
const VAULT_GOVERNANCE_PACKAGE = 'bitsafe-vault-governance-v0-rc8';

/** the `party_id` of a read (the dispatcher decoded it as the document lists it) */
function partyIdOf(request: Pick<DpmRequest, 'q'>): string {
  return request.q.party_id as string;
}

/** the query of a read, as the dispatcher decoded it from what the document lists */
function queryOf<T>(request: Pick<DpmRequest, 'q'>): T {
  return request.q as T;
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && typeof value.status === 'number';
}

/** a read the server answers `null`/empty for when it fails (the failure only logged) */
async function quietly<T>(node: DpmNode, what: string, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ParticipantError)) throw error;
    node.env.log(`${node.name}: ${what}: ${error.message}`);
    return fallback;
  }
}

/** a read that answers 500 `<failure>: <error>` when the participant refuses it */
async function readOr500(
  node: DpmNode,
  partyId: string,
  failure: string,
  read: (parties: string[]) => unknown,
): Promise<Reply> {
  const outcome = await partyActor(node, partyId);
  try {
    return json(200, await readAsParty(node, outcome, read));
  } catch (error) {
    if (error instanceof ParticipantError) return jsonError(500, `${failure}: ${error.message}`);
    throw error;
  }
}

/** `get_party_credentials` for a write: the actor, or the 401 / 500 the handlers answer */
async function writer(node: DpmNode, partyId: string): Promise<PartyActor | Reply> {
  const outcome = await partyActor(node, partyId);
  if (outcome.kind === 'not-configured') return jsonError(401, 'No credentials configured for party');
  if (outcome.kind === 'token-failed')
    return jsonError(500, `Failed to fetch auth token for party: ${outcome.error}`);
  return outcome.actor;
}

/** the participant refuses a template of a package it does not have (the vault governance package) */
function vaultPackageMissing(): ParticipantError {
  return new ParticipantError(errors.packageNamesNotFound([VAULT_GOVERNANCE_PACKAGE]));
}

interface WriteOutcome {
  ok: boolean;
  error?: string;
}

/** runs a write's submissions; a refusal becomes the text the route puts after its `Failed to …:` */
async function attempt(run: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await run();
    return { ok: true };
  } catch (error) {
    if (error instanceof ParticipantError || error instanceof MissingField)
      return { ok: false, error: error.message };
    throw error;
  }
}

/** anyhow's `context` when a field a governance type needs is missing */
class MissingField extends Error {}

function required(value: string | undefined, what: string): string {
  if (value === undefined) throw new MissingField(what);
  return value;
}

function exercise(target: Command & { kind: 'exercise' }): Command {
  return target;
}

/** the rules choice a confirm exercises, by governance type */
function confirmCommand(actor: PartyActor, body: ConfirmRequest): Command {
  const type: GovernanceType = body.governance_type ?? 'vault';
  if (type === 'vault') throw vaultPackageMissing();
  if (type === 'core_self') {
    const action = selfActionOf(body.action);
    if (action === undefined)
      throw new ParticipantError(
        errors.preprocessing(
          `choice GovernanceRules_ConfirmGovernanceAction argument: ${body.action.type} is not a GovernanceSelfAction`,
        ),
      );
    return exercise({
      kind: 'exercise',
      target: GovernanceRules,
      cid: body.rules_contract_id,
      choice: 'GovernanceRules_ConfirmGovernanceAction',
      arg: { confirmer: actor.member, action },
    });
  }
  return exercise({
    kind: 'exercise',
    target: GovernanceRules,
    cid: body.rules_contract_id,
    choice: 'GovernanceRules_ConfirmAction',
    arg: {
      confirmer: actor.member,
      actionProposalCid: required(body.proposal_cid, 'proposal_cid required for core_domain confirm'),
    },
  });
}

function executeCommand(actor: PartyActor, body: ExecuteRequest): Command {
  const type: GovernanceType = body.governance_type ?? 'vault';
  if (type === 'vault') throw vaultPackageMissing();
  if (type === 'core_self') {
    const action = selfActionOf(body.action);
    if (action === undefined)
      throw new ParticipantError(
        errors.preprocessing(
          `choice GovernanceRules_ExecuteGovernanceAction argument: ${body.action.type} is not a GovernanceSelfAction`,
        ),
      );
    return exercise({
      kind: 'exercise',
      target: GovernanceRules,
      cid: body.rules_contract_id,
      choice: 'GovernanceRules_ExecuteGovernanceAction',
      arg: { executor: actor.member, action, confirmations: body.confirmation_cids },
    });
  }
  return exercise({
    kind: 'exercise',
    target: GovernanceRules,
    cid: body.rules_contract_id,
    choice: 'GovernanceRules_ExecuteConfirmedAction',
    arg: {
      executor: actor.member,
      actionProposalCid: required(body.proposal_cid, 'proposal_cid required for core_domain execute'),
      confirmations: body.confirmation_cids,
    },
  });
}

function disclosedOf(body: ExecuteRequest): Array<{ createdEventBlob: string; contractId: string }> {
  return (body.disclosed_contracts ?? []).map((d) => {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(d.blob) || d.blob.length % 4 !== 0)
      throw new MissingField(
        `Invalid base64 in disclosed contract blob: Invalid input length or symbol (${d.contract_id})`,
      );
    return { createdEventBlob: d.blob, contractId: d.contract_id };
  });
}

function record(
  node: DpmNode,
  actor: PartyActor,
  event: AuditEvent,
  governanceType: GovernanceType,
  summary: string,
  details: unknown,
  outcome: WriteOutcome,
): void {
  audit(node, {
    event_type: event,
    party_id: actor.partyId,
    member_party_id: actor.member,
    governance_type: governanceType,
    action_summary: summary,
    details,
    ...(outcome.ok ? {} : { error: outcome.error ?? 'unknown error' }),
  });
}

/** a write route: admin or auth only, its body, and what it does once it has the actor */
function write<B extends { party_id: string }>(definition: {
  template: string;
  access: 'admin' | 'auth';
  body: Parameters<typeof route>[0]['body'];
  handle(node: DpmNode, actor: PartyActor, body: B): Promise<Reply>;
}): DpmRoute {
  return route<B>({
    method: 'POST',
    template: definition.template,
    access: definition.access,
    ...(definition.body ? { body: definition.body } : {}),
    handle: async ({ node, body }) => {
      const actor = await writer(node, body.party_id);
      if (isReply(actor)) return actor;
      return definition.handle(node, actor, body);
    },
  });
}

export const governanceRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/governance/state',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      const { node } = request;
      const outcome = await partyActor(node, partyId);
      const state = await quietly(
        node,
        'governance state',
        () =>
          readAsParty(node, outcome, (parties) => {
            const rules = activeRules(node.env.participant.ledger, parties, partyId);
            return rules === undefined ? null : governanceState(rules);
          }),
        null,
      );
      return json(200, { state });
    },
  }),
  route({
    method: 'GET',
    template: '/governance/confirmations',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      const { node } = request;
      const ledger = node.env.participant.ledger;
      const outcome = await partyActor(node, partyId);
      const member = node.state.party_credentials.find((c) => c.dec_party_id === partyId)?.member_party_id;
      const rules = await quietly(
        node,
        'governance rules',
        () => readAsParty(node, outcome, (parties) => activeRules(ledger, parties, partyId)),
        undefined,
      );
      const threshold = rules
        ? Number(rules.arg.threshold)
        : (node.env.canton.party(partyId)?.threshold ?? 2);
      const { actions, domain_actions } = await quietly(
        node,
        'governance confirmations',
        () => readAsParty(node, outcome, (parties) => governanceActions(ledger, parties, partyId, threshold)),
        { actions: [], domain_actions: [] },
      );
      return json(200, {
        actions,
        ...(domain_actions.length > 0 ? { domain_actions } : {}),
        threshold,
        ...(member !== undefined ? { member_party_id: member } : {}),
        ...(rules !== undefined ? { rules_contract_id: rules.cid } : {}),
        gov_core_out_of_date: false,
        ...(rules !== undefined ? { gov_core_package_ref: `#${rules.template.pkg.name}` } : {}),
      });
    },
  }),
  route({
    method: 'GET',
    template: '/governance/known-members',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      return json(200, { members: await knownMembers(request.node, partyId) });
    },
  }),
  route({
    method: 'GET',
    template: '/governance/audit',
    access: 'auth',
    handle: (request) => {
      const q = queryOf<{ party_id: string; limit?: number; offset?: number }>(request);
      const entries = auditRows(
        request.node,
        q.party_id,
        Math.max(0, q.limit ?? 50),
        Math.max(0, q.offset ?? 0),
      );
      return json(200, { entries, total_returned: entries.length });
    },
  }),
  route({
    method: 'GET',
    template: '/governance/chain-audit',
    access: 'auth',
    handle: async (request) => {
      const q = queryOf<{ party_id: string; limit?: number; before_offset?: number; refresh?: boolean }>(
        request,
      );
      const { node } = request;
      const limit = Math.min(q.limit ?? 25, 1000);
      const page = (entries: ChainAuditEntry[], more: boolean) => ({
        entries,
        total_returned: entries.length,
        next_before_offset: more ? (entries.at(-1)?.offset ?? null) : null,
      });
      if (limit === 0) return json(200, page([], false));
      if (q.refresh !== true) {
        const cached = ((node.state.chain_audit_cache ?? {})[q.party_id] ?? []) as ChainAuditEntry[];
        const rows = cached
          .filter((e) => q.before_offset === undefined || e.offset < q.before_offset)
          .slice(0, limit);
        if (rows.length > 0) return json(200, page(rows, rows.length >= limit));
      }
      const outcome = await partyActor(node, q.party_id);
      try {
        const result = await readAsParty(node, outcome, () =>
          chainAudit(node.env.participant.ledger, q.party_id, limit, q.before_offset),
        );
        cacheChainAudit(node, q.party_id, result.entries);
        return json(200, page(result.entries, result.hasMore));
      } catch (error) {
        if (error instanceof ParticipantError)
          return jsonError(500, `Failed to query chain audit: ${error.message}`);
        throw error;
      }
    },
  }),
  route({
    method: 'GET',
    template: '/governance/transfer-instructions',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      const ledger = request.node.env.participant.ledger;
      return readOr500(request.node, partyId, 'Failed to fetch transfer instructions', (parties) => ({
        transfer_instructions: transferInstructions(ledger, parties, partyId),
      }));
    },
  }),
  route({
    method: 'GET',
    template: '/governance/mint-requests',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      const ledger = request.node.env.participant.ledger;
      return readOr500(request.node, partyId, 'Failed to fetch mint requests', (parties) => ({
        mint_requests: tokenRequests(ledger, parties, partyId, 'mint'),
      }));
    },
  }),
  route({
    method: 'GET',
    template: '/governance/burn-requests',
    access: 'auth',
    handle: async (request) => {
      const partyId = partyIdOf(request);
      const ledger = request.node.env.participant.ledger;
      return readOr500(request.node, partyId, 'Failed to fetch burn requests', (parties) => ({
        burn_requests: tokenRequests(ledger, parties, partyId, 'burn'),
      }));
    },
  }),
  route<ProposeRequest>({
    method: 'POST',
    template: '/governance/propose',
    access: 'admin',
    body: proposeShape,
    handle: async ({ node, body }) => {
      const problem = proposalProblem(body.proposal);
      if (problem !== undefined) return jsonError(400, problem);
      const actor = await writer(node, body.party_id);
      if (isReply(actor)) return actor;
      const contract = proposalContract(body.proposal, body.party_id, actor.member);
      if (contract === undefined) {
        return jsonError(
          400,
          `Failed to build proposal create arguments: ${body.proposal.type} proposals are not simulated by the ledgerbook sandbox (it runs ${SIMULATED_PROPOSALS.join(', ')})`,
        );
      }
      const summary = body.proposal.type;
      let proposalCid = '';
      const created = await attempt(async () => {
        const entry = await submitAsMember(node, actor, [
          { kind: 'create', template: contract.template, arg: contract.arg },
        ]);
        proposalCid = entry.nodes.find((n) => n.k === 'c')?.cid ?? '';
      });
      if (!created.ok) {
        const error = `Failed to create proposal: ${created.error ?? ''}`;
        record(node, actor, 'propose', 'core_domain', summary, body, { ok: false, error });
        return jsonError(500, error);
      }
      const confirmed = await attempt(() =>
        submitAsMember(node, actor, [
          {
            kind: 'exercise',
            target: GovernanceRules,
            cid: body.rules_contract_id,
            choice: 'GovernanceRules_ConfirmAction',
            arg: { confirmer: actor.member, actionProposalCid: proposalCid },
          },
        ]),
      );
      if (!confirmed.ok) {
        record(node, actor, 'propose', 'core_domain', summary, body, {
          ok: false,
          error: `Proposal created but confirmation failed: ${confirmed.error ?? ''}`,
        });
        return jsonError(
          500,
          `Proposal created (CID: ${proposalCid}) but confirmation failed: ${confirmed.error ?? ''}`,
        );
      }
      record(node, actor, 'propose', 'core_domain', summary, body, { ok: true });
      return json(200, { message: 'Proposal created and confirmed' });
    },
  }),
  write<ConfirmRequest>({
    template: '/governance/confirm',
    access: 'admin',
    body: confirmShape,
    handle: async (node, actor, body) => {
      const outcome = await attempt(() => submitAsMember(node, actor, [confirmCommand(actor, body)]));
      record(node, actor, 'confirm', body.governance_type ?? 'vault', body.action.type, body, outcome);
      return outcome.ok
        ? json(200, { message: 'Confirmation submitted successfully' })
        : jsonError(500, `Failed to submit confirmation: ${outcome.error ?? ''}`);
    },
  }),
  write<ExecuteRequest>({
    template: '/governance/execute',
    access: 'admin',
    body: executeShape,
    handle: async (node, actor, body) => {
      const outcome = await attempt(() =>
        submitAsMember(node, actor, [executeCommand(actor, body)], disclosedOf(body)),
      );
      const redacted = {
        ...body,
        disclosed_contracts: (body.disclosed_contracts ?? []).map((d) => ({
          contract_id: d.contract_id,
          blob: `<${d.blob.length} bytes>`,
        })),
      };
      record(node, actor, 'execute', body.governance_type ?? 'vault', body.action.type, redacted, outcome);
      return outcome.ok
        ? json(200, { message: 'Action executed successfully' })
        : jsonError(500, `Failed to execute action: ${outcome.error ?? ''}`);
    },
  }),
  write<ExpireRequest>({
    template: '/governance/expire',
    access: 'admin',
    body: expireShape,
    handle: async (node, actor, body) => {
      const type = body.governance_type ?? 'vault';
      const outcome = await attempt(() => {
        if (type === 'vault') throw vaultPackageMissing();
        return submitAsMember(node, actor, [
          {
            kind: 'exercise',
            target: GovernanceRules,
            cid: body.rules_contract_id,
            choice:
              type === 'core_self'
                ? 'GovernanceRules_ExpireGovernanceSelfConfirmation'
                : 'GovernanceRules_ExpireConfirmation',
            arg: { member: actor.member, staleConfirmationCid: body.confirmation_cid },
          },
        ]);
      });
      record(node, actor, 'expire', type, 'expire_confirmation', body, outcome);
      return outcome.ok
        ? json(200, { message: 'Confirmation expired successfully' })
        : jsonError(500, `Failed to expire confirmation: ${outcome.error ?? ''}`);
    },
  }),
  write<CancelRequest>({
    template: '/governance/cancel',
    access: 'auth',
    body: cancelShape,
    handle: async (node, actor, body) => {
      const type = body.governance_type ?? 'vault';
      const outcome = await attempt(() => {
        if (type === 'vault') throw vaultPackageMissing();
        const self = type === 'core_self';
        return submitAsMember(node, actor, [
          {
            kind: 'exercise',
            target: self ? GovernanceSelfConfirmation : GovernanceConfirmation,
            cid: body.confirmation_cid,
            choice: self ? 'GovernanceSelfConfirmation_Cancel' : 'GovernanceConfirmation_Cancel',
            arg: {},
          },
        ]);
      });
      record(node, actor, 'cancel', type, 'cancel_confirmation', body, outcome);
      return outcome.ok
        ? json(200, { message: 'Confirmation cancelled successfully' })
        : jsonError(500, `Failed to cancel confirmation: ${outcome.error ?? ''}`);
    },
  }),
  write<CancelProposalRequest>({
    template: '/governance/cancel-proposal',
    access: 'admin',
    body: cancelProposalShape,
    handle: async (node, actor, body) => {
      const commands: Command[] = [
        {
          kind: 'exercise',
          target: GovernableActionI,
          cid: body.proposal_cid,
          choice: 'GovernableAction_ProposerCancel',
          arg: {},
        },
      ];
      if (body.confirmation_cid !== undefined) {
        commands.push({
          kind: 'exercise',
          target: GovernanceConfirmation,
          cid: body.confirmation_cid,
          choice: 'GovernanceConfirmation_Cancel',
          arg: {},
        });
      }
      const outcome = await attempt(() => submitAsMember(node, actor, commands));
      record(node, actor, 'cancel_proposal', 'core_domain', 'cancel_proposal', body, outcome);
      return outcome.ok
        ? json(200, { message: 'Proposal cancelled successfully' })
        : jsonError(500, `Failed to cancel proposal: ${outcome.error ?? ''}`);
    },
  }),
];

/** this node first (its own member party), then every configured peer's answer over the mesh */
async function knownMembers(
  node: DpmNode,
  partyId: string,
): Promise<Array<{ participant_uid: string; member_party_id?: string }>> {
  const self = node.state.party_credentials.find((c) => c.dec_party_id === partyId)?.member_party_id;
  const out: Array<{ participant_uid: string; member_party_id?: string }> = [
    { participant_uid: node.participantId, ...(self === undefined ? {} : { member_party_id: self }) },
  ];
  for (const peer of node.state.peers) {
    if (peer.participant_id === node.participantId) continue;
    let member: string | undefined;
    if (peer.public_key !== '') {
      try {
        const reply = await node.send(peer.participant_id, { type: 'member-party', partyId });
        if (reply.type === 'member-party') member = reply.memberPartyId;
      } catch (error) {
        if (!(error instanceof MeshError)) throw error;
        node.env.log(`${node.name}: member-party query to ${peer.participant_id} failed: ${error.message}`);
      }
    }
    out.push({
      participant_uid: peer.participant_id,
      ...(member === undefined ? {} : { member_party_id: member }),
    });
  }
  return out;
}

/** the chain audit's cache: entries read live are kept, by offset, newest first */
function cacheChainAudit(node: DpmNode, partyId: string, entries: ChainAuditEntry[]): void {
  const cache = (node.state.chain_audit_cache ??= {});
  const known = (cache[partyId] ?? []) as ChainAuditEntry[];
  const key = (e: ChainAuditEntry): string =>
    `${e.offset}/${e.contract_id}/${e.event_type}/${e.choice ?? ''}`;
  const merged = new Map(known.map((e) => [key(e), e]));
  for (const e of entries) merged.set(key(e), e);
  cache[partyId] = [...merged.values()].sort((a, b) => b.offset - a.offset);
  node.save();
}
