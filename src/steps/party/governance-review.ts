/**
 * dpm.governance-review — the co-operators' side of a party's governance (dpm-api.md §11): every pending
 * decision another member started is held against a declared policy; what the policy names is confirmed on the
 * member nodes this target controls, anything else is reported and never confirmed. A proposal's content is
 * read from the ledger (its created event in the chain audit), not taken from its description: an accepted
 * mint or burn request must be open and within the declared amount, holders and instruments. With
 * `propose_requests`, open mint and burn requests within the policy that no member proposed yet are proposed
 * here (once: the proposal is found again by its description). What this target's member is designated to
 * execute (or what waited for that member longer than the grace period) is executed, once.
 */
import { Decimal } from 'decimal.js';
import type { TokenRequest } from '../../clients/dpm-wire.js';
import {
  defineStep,
  type Change,
  type Intent,
  type ItemContext,
  type ItemPlan,
  type JsonValue,
  type Outputs,
  type Reconciliation,
  type StepContext,
} from '../contract.js';
import { StepError } from '../../errors.js';
import {
  EXECUTOR_GRACE_MS,
  GOVERNANCE_POLL_MS,
  NOT_SENT,
  authOf,
  chainEntries,
  designatedExecutor,
  memberNamer,
  ourMembers,
  readGovernance,
  sentIntents,
  settle,
  targetNodeNames,
  validVotes,
  writeOnce,
  type GovernanceView,
  type NodeAuth,
  type Vote,
} from './governance-common.js';
import {
  PROPOSAL_LABELS,
  type ActionRule,
  type ProposalRule,
  type ReviewedProposal,
  type With,
} from './governance-review-schema.js';
import { check, dpmGovernanceReviewDeclaration } from './governance-review.declaration.js';
import { durationMs, enforceChecks, resolveParty } from './party-common.js';
import { nodesOrControlled } from './party-common.declaration.js';

// ---------------------------------------------------------------------------------------------------------
// What is pending

/** a pending decision, as this review sees it */
export interface Pending {
  /** `action:<hash>` or `proposal:<cid>` */
  key: string;
  what: string;
  votes: Vote[];
  canExecute: boolean;
  /** the ActionType of a self action; the proposal's contract id of a domain one */
  action?: Record<string, unknown>;
  proposalCid?: string;
  /** why this target confirms it (the rule), or why not (reported) */
  verdict: { confirm: true; rule: string } | { confirm: false; why: string };
  /** an amount the policy's total counts */
  amount?: { type: ReviewedProposal; value: string };
}

interface ToPropose {
  type: 'accept_mint_request' | 'accept_burn_request';
  request: TokenRequest;
  description: string;
}

interface Observed {
  partyId: string;
  auths: NodeAuth[];
  ours: Array<{ node: string; member: string }>;
  /** our member nodes that cannot be reached now: they confirm nothing in this pass */
  down: string[];
  reader: string;
  threshold: number;
  members: string[];
  pending: Pending[];
  propose: ToPropose[];
  /** open requests of a type the policy names that it does not accept, each with why */
  outside: Array<{ decision: string; why: string }>;
  names: Record<string, string>;
}

/** the description a proposal this review makes carries, so that every member finds the same one again */
export function requestDescription(type: ToPropose['type'], request: TokenRequest): string {
  const verb = type === 'accept_mint_request' ? 'mint' : 'burn';
  return `accept ${verb} request ${request.contract_id}: ${request.amount} ${request.instrument_id} for ${request.holder}`;
}

function inRange(value: number, rule: ActionRule): boolean {
  return (rule.min === undefined || value >= rule.min) && (rule.max === undefined || value <= rule.max);
}

/** the rule that names a self action, or why none does */
function actionVerdict(action: Record<string, unknown>, rules: readonly ActionRule[]): Pending['verdict'] {
  const type = String(action['type']);
  const candidates = rules.filter((r) => r.type === type);
  if (candidates.length === 0) return { confirm: false, why: `the policy names no ${type}` };
  const party = (action['member'] ?? action['additional_proposer']) as string | undefined;
  const number = (action['new_threshold'] ?? action['new_timeout_microseconds']) as number | undefined;
  for (const [i, rule] of candidates.entries()) {
    if (party !== undefined && rule.parties !== undefined && !rule.parties.includes(party)) continue;
    if (number !== undefined && !inRange(number, rule)) continue;
    return {
      confirm: true,
      rule: `policy.actions: ${type}${candidates.length > 1 ? ` (rule ${i + 1})` : ''}`,
    };
  }
  const bounds = candidates.map((r) =>
    [
      r.parties ? `parties ${r.parties.join(', ')}` : '',
      r.min !== undefined ? `≥ ${r.min}` : '',
      r.max !== undefined ? `≤ ${r.max}` : '',
    ]
      .filter((x) => x !== '')
      .join(', '),
  );
  return { confirm: false, why: `${type} outside the policy (${bounds.join('; ') || 'no bounds'})` };
}

interface ProposalFacts {
  type: ReviewedProposal | undefined;
  label: string;
  description: string;
  proposer: string | undefined;
  /** the request a mint/burn acceptance names, when it is open */
  request?: TokenRequest;
  requestCid?: string;
}

function proposalVerdict(
  facts: ProposalFacts,
  rules: readonly ProposalRule[],
  party: string,
): Pending['verdict'] {
  if (facts.type === undefined)
    return { confirm: false, why: `the policy cannot name ${facts.label} proposals` };
  const candidates = rules.filter((r) => r.type === facts.type);
  if (candidates.length === 0) return { confirm: false, why: `the policy names no ${facts.type}` };
  const reasons: string[] = [];
  for (const [i, rule] of candidates.entries()) {
    const why = proposalMisfit(facts, rule, party);
    if (why === undefined)
      return {
        confirm: true,
        rule: `policy.proposals: ${facts.type}${candidates.length > 1 ? ` (rule ${i + 1})` : ''}`,
      };
    reasons.push(why);
  }
  return { confirm: false, why: reasons.join('; ') };
}

function proposalMisfit(facts: ProposalFacts, rule: ProposalRule, party: string): string | undefined {
  if (
    rule.proposers !== undefined &&
    (facts.proposer === undefined || !rule.proposers.includes(facts.proposer))
  )
    return `proposed by ${facts.proposer ?? 'an unknown party'}, not one of ${rule.proposers.join(', ')}`;
  if (rule.description !== undefined && !new RegExp(rule.description).test(facts.description))
    return `its description does not match ${rule.description}`;
  if (facts.type === 'generic_vote') return undefined;
  const r = facts.request;
  if (r === undefined)
    return `the request it accepts (${facts.requestCid ?? 'unknown'}) is not an open request of ${party}`;
  if (rule.max_amount !== undefined && new Decimal(r.amount).greaterThan(rule.max_amount))
    return `${r.amount} is more than ${rule.max_amount}`;
  if (rule.holders !== undefined && !rule.holders.includes(r.holder))
    return `the holder ${r.holder} is not named`;
  if (rule.instruments !== undefined && !rule.instruments.includes(r.instrument_id))
    return `the instrument ${r.instrument_id} is not named`;
  if (r.instrument_admin !== party)
    return `the instrument ${r.instrument_id} is ${r.instrument_admin}'s, not the party's`;
  return undefined;
}

/** why no rule of the policy accepts a request (for proposing it); undefined when one does */
function requestMisfit(
  type: ReviewedProposal,
  request: TokenRequest,
  rules: readonly ProposalRule[],
  party: string,
): string | undefined {
  const reasons: string[] = [];
  for (const rule of rules.filter((r) => r.type === type)) {
    const why = proposalMisfit(
      { type, label: '', description: '', proposer: undefined, request },
      { ...rule, proposers: undefined, description: undefined },
      party,
    );
    if (why === undefined) return undefined;
    reasons.push(why);
  }
  return reasons.length === 0 ? `the policy names no ${type}` : reasons.join('; ');
}

/** totals per proposal type: a pending amount that would exceed its rule's max_total is reported instead */
function applyTotals(
  pending: Pending[],
  propose: ToPropose[],
  rules: readonly ProposalRule[],
  outside: Observed['outside'],
): ToPropose[] {
  const spent = new Map<string, Decimal>();
  const room = (type: ReviewedProposal, amount: string): boolean => {
    const limit = rules.find((r) => r.type === type && r.max_total !== undefined)?.max_total;
    const total = (spent.get(type) ?? new Decimal(0)).plus(amount);
    if (limit !== undefined && total.greaterThan(limit)) return false;
    spent.set(type, total);
    return true;
  };
  for (const p of pending) {
    if (!p.verdict.confirm || p.amount === undefined) continue;
    if (!room(p.amount.type, p.amount.value))
      p.verdict = { confirm: false, why: `confirming it would exceed max_total of ${p.amount.type}` };
  }
  return propose.filter((p) => {
    if (room(p.type, p.request.amount)) return true;
    outside.push({ decision: p.description, why: `proposing it would exceed max_total of ${p.type}` });
    return false;
  });
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const mine = nodesOrControlled(w.nodes, ctx.target);
  const partyId = await resolveParty(ctx, mine[0]!, w.party);
  const all = [...new Set([...mine, ...targetNodeNames(ctx)])];
  const auths = await authOf(ctx, all, partyId);
  const { ours, down } = ourMembers(mine, auths, partyId);
  const reader = ours[0]!.node;
  const dpm = ctx.clients.dpm(reader);
  const view = await readGovernance(ctx, reader, partyId);
  if (view.rulesId === undefined) {
    throw new StepError(`${partyId} has no governance rules contract (${reader} reads none)`, {
      hint: 'deploy GovernanceRules for the party first (dpm.deploy-contracts)',
    });
  }
  const [mints, burns, chain] = await Promise.all([
    dpm.governanceMintRequests(partyId, { signal: ctx.signal }),
    dpm.governanceBurnRequests(partyId, { signal: ctx.signal }),
    chainEntries(dpm, partyId, ctx.signal),
  ]);
  const requests = new Map<string, TokenRequest>(
    [...mints.mint_requests, ...burns.burn_requests].map((r) => [r.contract_id, r]),
  );
  const pending = pendingOf(ctx, w, view, partyId, chain, requests, ours);
  const proposed = new Set(
    pending.map(
      (p) =>
        chainArgs(chain, p.proposalCid)?.['mintRequestCid'] ??
        chainArgs(chain, p.proposalCid)?.['burnRequestCid'],
    ),
  );
  const rules = w.policy.proposals ?? [];
  const outside: Observed['outside'] = [];
  const candidates: ToPropose[] = [];
  if (w.propose_requests) {
    const open = [
      ...mints.mint_requests.map((request) => ({ type: 'accept_mint_request' as const, request })),
      ...burns.burn_requests.map((request) => ({ type: 'accept_burn_request' as const, request })),
    ];
    for (const c of open) {
      if (proposed.has(c.request.contract_id) || !rules.some((r) => r.type === c.type)) continue;
      const description = requestDescription(c.type, c.request);
      const why = requestMisfit(c.type, c.request, rules, partyId);
      if (why === undefined) candidates.push({ ...c, description });
      else outside.push({ decision: description, why });
    }
  }
  const propose = applyTotals(pending, candidates, rules, outside);
  const namer = memberNamer(ctx, auths);
  const names = Object.fromEntries([...view.members, ...ours.map((o) => o.member)].map((p) => [p, namer(p)]));
  return {
    partyId,
    auths,
    ours,
    down,
    reader,
    threshold: view.threshold,
    members: view.members,
    pending,
    propose,
    outside,
    names,
  };
}

/** the create arguments of a proposal, from its created event on the ledger (the chain audit) */
function chainArgs(
  chain: Awaited<ReturnType<typeof chainEntries>>,
  cid: string | undefined,
): Record<string, string> | undefined {
  if (cid === undefined) return undefined;
  const created = chain.find((e) => e.contract_id === cid && e.event_type === 'propose');
  return (created?.details ?? undefined) as Record<string, string> | undefined;
}

function pendingOf(
  ctx: StepContext,
  w: With,
  view: GovernanceView,
  partyId: string,
  chain: Awaited<ReturnType<typeof chainEntries>>,
  requests: Map<string, TokenRequest>,
  ours: Observed['ours'],
): Pending[] {
  const now = Math.floor(ctx.clock.now() / 1000);
  const counted = (votes: Vote[]) =>
    votes.filter((v) => view.members.length === 0 || view.members.includes(v.party));
  const out: Pending[] = [];
  for (const a of view.confirmations.actions) {
    const votes = counted(validVotes(a.confirmations, now));
    if (votes.length === 0) continue;
    const action = a.action as Record<string, unknown>;
    out.push({
      key: `action:${a.action_hash}`,
      what: `${String(action['type'])} ${JSON.stringify(Object.fromEntries(Object.entries(action).filter(([k]) => k !== 'type')))}`,
      votes,
      canExecute: votes.length >= view.threshold,
      action,
      verdict: actionVerdict(action, w.policy.actions ?? []),
    });
  }
  for (const d of view.confirmations.domain_actions ?? []) {
    if (d.orphaned) continue;
    const args = chainArgs(chain, d.proposal_cid);
    const type = (Object.entries(PROPOSAL_LABELS).find(([, label]) => label === d.action_label)?.[0] ??
      undefined) as ReviewedProposal | undefined;
    const requestCid = args?.['mintRequestCid'] ?? args?.['burnRequestCid'];
    const facts: ProposalFacts = {
      type,
      label: d.action_label,
      description: args?.['description'] ?? d.description ?? '',
      proposer: args?.['proposer'] ?? d.proposer ?? undefined,
      ...(requestCid === undefined ? {} : { requestCid }),
      ...(requestCid !== undefined && requests.has(requestCid) ? { request: requests.get(requestCid)! } : {}),
    };
    const votes = counted(validVotes(d.confirmations, now));
    out.push({
      key: `proposal:${d.proposal_cid}`,
      what: `${d.action_label} "${facts.description}"`,
      votes,
      canExecute: votes.length >= view.threshold,
      proposalCid: d.proposal_cid,
      verdict:
        args === undefined && type !== 'generic_vote'
          ? {
              confirm: false,
              why: 'its content cannot be read from the ledger (no created event in the chain audit)',
            }
          : proposalVerdict(facts, w.policy.proposals ?? [], partyId),
      ...(facts.request !== undefined && type !== undefined
        ? { amount: { type, value: facts.request.amount } }
        : {}),
    });
  }
  // a decision every one of our members confirmed already needs nothing from this review but its execution
  return out.filter((p) => p.canExecute || !ours.every((o) => p.votes.some((v) => v.party === o.member)));
}

// ---------------------------------------------------------------------------------------------------------
// Plan

function plan(_w: With, s: Observed): ItemPlan {
  const changes: Change[] = [];
  const name = (p: string): string => s.names[p] ?? p;
  for (const p of s.propose) {
    changes.push({
      action: 'create',
      summary: `propose to ${p.description} (within the policy) on ${s.ours[0]!.node}`,
      details: { party: s.partyId, request: p.request.contract_id },
    });
  }
  for (const p of s.pending) {
    const voted = new Set(p.votes.map((v) => v.party));
    const mine = s.ours.filter((o) => !voted.has(o.member));
    if (p.verdict.confirm && mine.length > 0 && !p.canExecute) {
      for (const o of mine.slice(0, Math.max(0, s.threshold - p.votes.length)))
        changes.push({
          action: 'create',
          summary: `confirm ${p.what} on ${o.node} as ${name(o.member)} (${p.verdict.rule}; confirmed by ${p.votes.map((v) => name(v.party)).join(', ')})`,
          details: { party: s.partyId, decision: p.key },
        });
    }
    if (p.canExecute && s.ours.some((o) => o.member === designatedExecutor(p.votes, s.members)))
      changes.push({
        action: 'run',
        summary: `execute ${p.what} (${p.votes.length} of ${s.threshold} confirmed)`,
        details: { party: s.partyId, decision: p.key },
      });
  }
  const outputs = outputsOf(s, [], [], [], '');
  return changes.length === 0 ? { changes, outputs } : { changes };
}

function outputsOf(
  s: Observed,
  confirmed: string[],
  proposed: string[],
  executed: string[],
  _note: string,
): Outputs {
  const reported: JsonValue[] = [
    ...s.pending
      .filter((p) => !p.verdict.confirm && !s.ours.every((o) => p.votes.some((v) => v.party === o.member)))
      .map((p) => ({ decision: p.what, why: p.verdict.confirm ? '' : p.verdict.why })),
    ...s.outside.map((o) => ({ decision: o.decision, why: o.why })),
  ];
  return { party_id: s.partyId, confirmed, proposed, executed, reported };
}

// ---------------------------------------------------------------------------------------------------------
// Apply

async function apply(ctx: ItemContext, w: With, first: Observed): Promise<Outputs> {
  const until = ctx.clock.now() + durationMs(w.wait, '0s');
  const confirmed: string[] = [];
  const proposed: string[] = [];
  const executed: string[] = [];
  const ready = new Map<string, number>();
  let s = first;
  for (;;) {
    for (const p of s.pending)
      if (!p.verdict.confirm) ctx.log('warn', `not confirmed: ${p.what}: ${p.verdict.why}`);
    for (const o of s.outside) ctx.log('warn', `not proposed: ${o.decision}: ${o.why}`);
    for (const node of s.down) ctx.log('warn', `${node} cannot be reached: its member confirms nothing now`);
    const proposer = s.ours[0]!;
    for (const p of s.propose) {
      const sent = await writeOnce(ctx, {
        node: proposer.node,
        partyId: s.partyId,
        member: proposer.member,
        event: 'propose',
        summary: p.type,
        intent: { description: p.description },
        what: `propose to ${p.description}`,
        send: async (rulesId) => {
          const configuration = await instrumentConfiguration(
            ctx,
            proposer.node,
            s.partyId,
            p.request.instrument_id,
          );
          return ctx.clients.dpm(proposer.node).proposeGovernance(
            {
              party_id: s.partyId,
              rules_contract_id: rulesId,
              proposal: {
                type: p.type,
                ...(p.type === 'accept_mint_request'
                  ? { mint_request_cid: p.request.contract_id }
                  : { burn_request_cid: p.request.contract_id }),
                instrument_configuration_cid: configuration,
                description: p.description,
              },
            },
            { signal: ctx.signal },
          );
        },
        done: async () => {
          const view = await readGovernance(ctx, proposer.node, s.partyId);
          return (view.confirmations.domain_actions ?? []).some((d) => d.description === p.description);
        },
      });
      if (sent === 'sent') proposed.push(p.description);
      if (sent === 'unreachable') ctx.log('warn', `${proposer.node} cannot be reached: not proposed now`);
    }
    for (const p of s.pending) {
      if (!p.verdict.confirm || p.canExecute) continue;
      let votes = p.votes.length;
      for (const o of s.ours) {
        if (p.votes.some((v) => v.party === o.member)) continue;
        if (votes >= s.threshold) break;
        votes += 1;
        const sent = await writeOnce(ctx, {
          node: o.node,
          partyId: s.partyId,
          member: o.member,
          event: 'confirm',
          summary: p.action !== undefined ? String(p.action['type']) : 'governance_set_threshold',
          intent: { decision: p.key },
          what: `confirm ${p.what} as ${s.names[o.member] ?? o.member}`,
          send: (rulesId) =>
            ctx.clients.dpm(o.node).confirmGovernance(
              {
                party_id: s.partyId,
                rules_contract_id: rulesId,
                ...(p.action !== undefined
                  ? { action: p.action as never, governance_type: 'core_self' as const }
                  : {
                      action: { type: 'governance_set_threshold' as const, new_threshold: 0 },
                      governance_type: 'core_domain' as const,
                      proposal_cid: p.proposalCid!,
                    }),
              },
              { signal: ctx.signal },
            ),
          // gone, confirmed by this member, or enough others confirmed meanwhile
          done: async () => {
            const fresh = await stillPending(ctx, s, o.node, p.key);
            return (
              fresh === undefined ||
              fresh.votes.some((v) => v.party === o.member) ||
              fresh.votes.length >= s.threshold
            );
          },
        });
        if (sent === 'sent') confirmed.push(p.what);
        if (sent === 'unreachable')
          ctx.log('warn', `${o.node} cannot be reached: ${p.what} not confirmed now`);
      }
    }
    s = await observe(ctx, w);
    for (const p of s.pending) {
      if (!p.canExecute) continue;
      ready.set(p.key, ready.get(p.key) ?? ctx.clock.now());
      const designated = designatedExecutor(p.votes, s.members);
      const graceOver = ctx.clock.now() - ready.get(p.key)! >= EXECUTOR_GRACE_MS;
      const executor =
        s.ours.find((o) => o.member === designated) ??
        (graceOver ? s.ours.find((o) => s.members.includes(o.member)) : undefined);
      if (executor === undefined || !p.verdict.confirm) continue;
      const sent = await writeOnce(ctx, {
        node: executor.node,
        partyId: s.partyId,
        member: executor.member,
        event: 'execute',
        summary: p.action !== undefined ? String(p.action['type']) : 'governance_set_threshold',
        intent: { decision: p.key },
        what: `execute ${p.what}`,
        send: async (rulesId) => {
          const fresh = await stillPending(ctx, s, executor.node, p.key);
          if (fresh === undefined) return NOT_SENT;
          // a confirmation that arrived meanwhile may designate another member: it executes, not this one
          if (!graceOver && designatedExecutor(fresh.votes, s.members) !== executor.member) return NOT_SENT;
          return ctx.clients.dpm(executor.node).executeGovernance(
            {
              party_id: s.partyId,
              rules_contract_id: rulesId,
              confirmation_cids: fresh.votes.map((v) => v.contractId),
              ...(p.action !== undefined
                ? { action: p.action as never, governance_type: 'core_self' as const }
                : {
                    action: { type: 'governance_set_threshold' as const, new_threshold: 0 },
                    governance_type: 'core_domain' as const,
                    proposal_cid: p.proposalCid!,
                  }),
            },
            { signal: ctx.signal },
          );
        },
        done: async () => (await stillPending(ctx, s, executor.node, p.key)) === undefined,
      });
      if (sent === 'unreachable')
        ctx.log('warn', `${executor.node} cannot be reached: ${p.what} not executed now`);
      else executed.push(p.what);
    }
    s = await observe(ctx, w);
    const open = s.pending.filter((p) => p.verdict.confirm);
    if (open.length === 0 || ctx.clock.now() >= until) break;
    ctx.progress(`${open.length} decision(s) the policy names wait for other members or their execution`);
    await ctx.clock.sleep(GOVERNANCE_POLL_MS, ctx.signal);
  }
  return outputsOf(s, confirmed, proposed, executed, '');
}

/** the pending decision of that key as a node reads it now; undefined once it is gone (executed, cancelled) */
async function stillPending(
  ctx: StepContext,
  s: Observed,
  node: string,
  key: string,
): Promise<Pending | undefined> {
  const view = await readGovernance(ctx, node, s.partyId);
  const now = Math.floor(ctx.clock.now() / 1000);
  if (key.startsWith('action:')) {
    const a = view.confirmations.actions.find((x) => `action:${x.action_hash}` === key);
    return a === undefined ? undefined : ({ key, votes: validVotes(a.confirmations, now) } as Pending);
  }
  const d = (view.confirmations.domain_actions ?? []).find((x) => `proposal:${x.proposal_cid}` === key);
  return d === undefined ? undefined : ({ key, votes: validVotes(d.confirmations, now) } as Pending);
}

/** the party's InstrumentConfiguration of an instrument id (GET /instruments) */
async function instrumentConfiguration(
  ctx: StepContext,
  node: string,
  partyId: string,
  id: string,
): Promise<string> {
  const found = await ctx.clients.dpm(node).instruments(partyId, { signal: ctx.signal });
  const config = found.instruments.find((i) => i.instrument_admin === partyId && i.instrument_id === id);
  if (config === undefined) {
    throw new StepError(`${partyId} has no InstrumentConfiguration of ${id} that ${node} can read`, {
      hint: 'the party registers the instrument with the registry’s InstrumentConfiguration (dpm.deploy-contracts)',
    });
  }
  return config.contract_id;
}

// ---------------------------------------------------------------------------------------------------------
// Reconcile

async function reconcile(ctx: ItemContext, w: With, intents: readonly Intent[]): Promise<Reconciliation> {
  const s = await observe(ctx, w);
  for (const intent of sentIntents(intents)) {
    const node = typeof intent['node'] === 'string' ? intent['node'] : '';
    const member = typeof intent['member'] === 'string' ? intent['member'] : '';
    const mark = typeof intent['mark'] === 'number' ? intent['mark'] : 0;
    const key = typeof intent['decision'] === 'string' ? intent['decision'] : '';
    const description = typeof intent['description'] === 'string' ? intent['description'] : '';
    const outcome = await settle(
      ctx,
      ctx.clients.dpm(node),
      s.partyId,
      {
        mark,
        event: intent.action,
        summary: '',
        member,
        sentAt: typeof intent['at'] === 'number' ? intent['at'] : 0,
      },
      async () => {
        if (intent.action === 'propose') {
          const view = await readGovernance(ctx, node, s.partyId);
          return (view.confirmations.domain_actions ?? []).some((d) => d.description === description);
        }
        const p = await stillPending(ctx, s, node, key);
        return p === undefined || (intent.action === 'confirm' && p.votes.some((v) => v.party === member));
      },
    );
    if (outcome.outcome === 'unknown') {
      return {
        status: 'ambiguous',
        seen: `${intent.action} on ${node} (member ${member}) was sent before the run stopped; neither the confirmations nor ${node}'s audit log show it`,
        hint: `look at GET /governance/confirmations and /governance/audit?party_id=${s.partyId} on ${node}, then ledgerbook state resolve`,
      };
    }
  }
  return {
    status: 'not-done',
    note: 'what was sent before is settled; the pending decisions are read again',
  };
}

export const dpmGovernanceReview = defineStep<With, Observed>({
  ...dpmGovernanceReviewDeclaration,
  observe,
  plan,
  apply: (ctx, w, _item, _plan, state) => apply(ctx, w, state),
  reconcile: (ctx, w, _item, intents) => reconcile(ctx, w, intents),
});
