/**
 * dpm.governance — one governance decision of a decentralized party (dpm-api.md §11, §12a): a self-management
 * action (`ActionType`: threshold, timeout, members, additional proposers) or a domain proposal (`ProposalType`).
 * Each operator runs it against the member nodes it controls: the proposal is made once (its proposer confirms
 * it), each of our members confirms unless it already has a valid confirmation, and once the threshold of
 * members confirmed it is executed — by the designated member (the confirming member with the smallest party id),
 * or by any of ours after a grace period. In sync when the decision is in effect: the rules show the declared
 * threshold, timeout or members, an additional proposer's latest change is the declared one, or the proposal
 * (same label and description) was executed.
 *
 * Exactly once: the rules contract id is read again before every confirm and execute; a write whose answer was
 * lost, or that a crash interrupted, is settled by reading the confirmations and the node's audit log.
 */
import type { GovernanceConfirmationsResponse } from '../../clients/dpm-wire.js';
import {
  defineStep,
  type Change,
  type Intent,
  type ItemContext,
  type ItemPlan,
  type Outputs,
  type Reconciliation,
  type StepContext,
} from '../contract.js';
import { PausedError, StepError } from '../../errors.js';
import {
  EXECUTOR_GRACE_MS,
  GOVERNANCE_POLL_MS,
  NOT_SENT,
  authOf,
  chainEntries,
  designatedExecutor,
  expiredVotes,
  memberNamer,
  ourMembers,
  reachableAgain,
  readGovernance,
  sentIntents,
  settle,
  targetNodeNames,
  unreachable,
  validVotes,
  writeOnce,
  type GovernanceView,
  type NodeAuth,
  type Vote,
} from './governance-common.js';
import { DESCRIBED_PROPOSALS, type Action, type Proposal, type With } from './governance-schema.js';
import { check, dpmGovernanceDeclaration } from './governance.declaration.js';
import { durationMs, enforceChecks, resolveParty } from './party-common.js';
import { nodesOrControlled } from './party-common.declaration.js';

/** what is declared: an action with its hash, or a proposal with its label */
export type Subject =
  | { kind: 'action'; action: Action; text: string }
  | { kind: 'proposal'; proposal: Proposal; label: string; description: string; text: string };

function subjectOf(w: With): Subject {
  if (w.action !== undefined) return { kind: 'action', action: w.action, text: describeAction(w.action) };
  const proposal = w.proposal as Proposal;
  const label = DESCRIBED_PROPOSALS[proposal.type];
  return {
    kind: 'proposal',
    proposal,
    label,
    description: proposal.description,
    text: `${label} "${proposal.description}"`,
  };
}

function describeAction(a: Action): string {
  switch (a.type) {
    case 'governance_set_threshold':
      return `threshold → ${a.new_threshold}`;
    case 'governance_set_timeout':
      return `confirmation timeout → ${a.new_timeout_microseconds / 1_000_000} s`;
    case 'governance_add_member':
      return `add member ${a.member} (threshold → ${a.new_threshold})`;
    case 'governance_remove_member':
      return `remove member ${a.member} (threshold → ${a.new_threshold})`;
    case 'governance_add_additional_proposer':
      return `add additional proposer ${a.additional_proposer}`;
    case 'governance_remove_additional_proposer':
      return `remove additional proposer ${a.additional_proposer}`;
  }
}

/** the same action as the DPM lists it (field order of the server's ActionType) */
function sameAction(listed: Record<string, unknown>, declared: Action): boolean {
  return Object.entries(declared).every(([k, v]) => listed[k] === v) && listed['type'] === declared.type;
}

// ---------------------------------------------------------------------------------------------------------
// Observation

export interface Pending {
  kind: 'pending';
  votes: Vote[];
  /** expired confirmations of the decision still on the ledger (they count for nothing) */
  stale: Vote[];
  threshold: number;
  members: string[];
  /** the proposal's contract id (a proposal made already) */
  proposalCid?: string;
  /** when the earliest counted confirmation expires (unix seconds); undefined without one */
  deadline?: number;
}

export type Status = { kind: 'done'; how: string; stale: Vote[] } | Pending;

interface Observed {
  partyId: string;
  subject: Subject;
  auths: NodeAuth[];
  /** our member nodes: controlled, trusted, with their member party */
  ours: Array<{ node: string; member: string }>;
  /** our member nodes that cannot be reached now: left out until they answer again */
  down: string[];
  /** the trusted node the view was read from */
  reader: string;
  status: Status;
  /** the member party → a name for messages */
  names: Record<string, string>;
}

/** is the declared decision in effect? */
async function inEffect(
  ctx: StepContext,
  subject: Subject,
  view: GovernanceView,
  partyId: string,
): Promise<string | undefined> {
  if (subject.kind === 'proposal') {
    const entries = await chainEntries(ctx.clients.dpm(view.node), partyId, ctx.signal);
    const executed = entries.find((e) => {
      const d = e.details as Record<string, unknown> | null;
      return (
        e.event_type === 'execute_result' &&
        d?.['actionLabel'] === subject.label &&
        d['description'] === subject.description
      );
    });
    return executed === undefined
      ? undefined
      : `executed at offset ${executed.offset} (update ${executed.update_id})`;
  }
  const a = subject.action;
  const state = view.state;
  if (!state) return undefined;
  switch (a.type) {
    case 'governance_set_threshold':
      return state.threshold === a.new_threshold ? `the threshold is ${a.new_threshold}` : undefined;
    case 'governance_set_timeout':
      return state.action_confirmation_timeout_microseconds === a.new_timeout_microseconds
        ? `the confirmation timeout is ${a.new_timeout_microseconds} µs`
        : undefined;
    case 'governance_add_member':
      return state.members.includes(a.member) && state.threshold === a.new_threshold
        ? `${a.member} is a member, threshold ${a.new_threshold}`
        : undefined;
    case 'governance_remove_member':
      return !state.members.includes(a.member) && state.threshold === a.new_threshold
        ? `${a.member} is not a member, threshold ${a.new_threshold}`
        : undefined;
    case 'governance_add_additional_proposer':
    case 'governance_remove_additional_proposer': {
      // the rules' additional proposers are not in GET /governance/state: the latest executed change of this
      // party's proposer status on the ledger tells
      const proposer = a.additional_proposer;
      const entries = await chainEntries(ctx.clients.dpm(view.node), partyId, ctx.signal);
      const latest = entries.find((e) => {
        const action = (
          e.details as { action?: { _variant?: string; value?: { additionalProposer?: string } } } | null
        )?.action;
        return (
          e.choice === 'GovernanceRules_ExecuteGovernanceAction' &&
          /AdditionalProposer$/.test(action?._variant ?? '') &&
          action?.value?.additionalProposer === proposer
        );
      });
      const variant = (latest?.details as { action?: { _variant?: string } } | undefined)?.action?._variant;
      const wanted =
        a.type === 'governance_add_additional_proposer'
          ? 'SelfAction_AddAdditionalProposer'
          : 'SelfAction_RemoveAdditionalProposer';
      if (variant === wanted)
        return `${proposer} was ${a.type === 'governance_add_additional_proposer' ? 'added' : 'removed'} as additional proposer`;
      // never added: removing it is in effect already
      return variant === undefined && a.type === 'governance_remove_additional_proposer'
        ? `${proposer} is no additional proposer`
        : undefined;
    }
  }
}

/** the votes on the declared decision and the proposal it concerns */
function votesOf(
  subject: Subject,
  view: GovernanceView,
  nowSeconds: number,
): { votes: Vote[]; stale: Vote[]; proposalCid?: string } {
  const c: GovernanceConfirmationsResponse = view.confirmations;
  if (subject.kind === 'action') {
    const entry = c.actions.find((a) => sameAction(a.action as Record<string, unknown>, subject.action));
    return entry === undefined
      ? { votes: [], stale: [] }
      : {
          votes: validVotes(entry.confirmations, nowSeconds),
          stale: expiredVotes(entry.confirmations, nowSeconds),
        };
  }
  const entry = (c.domain_actions ?? []).find(
    (d) => !d.orphaned && d.action_label === subject.label && (d.description ?? '') === subject.description,
  );
  return entry === undefined
    ? { votes: [], stale: [] }
    : {
        votes: validVotes(entry.confirmations, nowSeconds),
        stale: expiredVotes(entry.confirmations, nowSeconds),
        proposalCid: entry.proposal_cid,
      };
}

export async function statusOf(
  ctx: StepContext,
  subject: Subject,
  view: GovernanceView,
  partyId: string,
): Promise<Status> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const { votes, stale, proposalCid } = votesOf(subject, view, now);
  const how = await inEffect(ctx, subject, view, partyId);
  if (how !== undefined) return { kind: 'done', how, stale };
  const counted = votes.filter((v) => view.members.length === 0 || view.members.includes(v.party));
  const expiries = counted.map((v) => v.expiresAt).filter((t) => t > 0);
  return {
    kind: 'pending',
    votes: counted,
    stale,
    threshold: view.threshold,
    members: view.members,
    ...(proposalCid === undefined ? {} : { proposalCid }),
    ...(expiries.length > 0 ? { deadline: Math.min(...expiries) } : {}),
  };
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const mine = nodesOrControlled(w.nodes, ctx.target);
  const partyId = await resolveParty(ctx, mine[0]!, w.party);
  const all = [...new Set([...mine, ...targetNodeNames(ctx)])];
  const auths = await authOf(ctx, all, partyId);
  const { ours, down } = ourMembers(mine, auths, partyId);
  for (const node of down)
    ctx.log('warn', `${node} cannot be reached: its member confirms nothing until it answers again`);
  const reader = ours[0]!.node;
  const subject = subjectOf(w);
  const view = await readGovernance(ctx, reader, partyId);
  if (view.rulesId === undefined) {
    throw new StepError(`${partyId} has no governance rules contract (${reader} reads none)`, {
      hint: 'deploy GovernanceRules for the party first (dpm.deploy-contracts, playbooks/deploy-contracts.yaml)',
    });
  }
  const namer = memberNamer(ctx, auths);
  const status = await statusOf(ctx, subject, view, partyId);
  const names = Object.fromEntries([...view.members, ...ours.map((o) => o.member)].map((p) => [p, namer(p)]));
  return { partyId, subject, auths, ours, down, reader, status, names };
}

/** the parts of a saved plan's state that decide: not the deadline, which moves as confirmations expire */
function planState(s: Observed): unknown {
  return { ...s, status: s.status.kind === 'done' ? s.status : { ...s.status, deadline: undefined } };
}

// ---------------------------------------------------------------------------------------------------------
// Plan

function outputsOf(s: Observed, how: string, executedBy: string): Outputs {
  return {
    party_id: s.partyId,
    decision: s.subject.text,
    status: how,
    executed_by: executedBy,
  };
}

/** our members' expired confirmations of the decision, each with the node that expires it */
function leftovers(s: Observed, stale: readonly Vote[]): Array<{ node: string; member: string; vote: Vote }> {
  return stale.flatMap((vote) => {
    const o = s.ours.find((m) => m.member === vote.party);
    return o === undefined ? [] : [{ ...o, vote }];
  });
}

function plan(_w: With, s: Observed): ItemPlan {
  const st = s.status;
  const name = (p: string): string => s.names[p] ?? p;
  if (st.kind === 'done') {
    const left = leftovers(s, st.stale);
    if (left.length === 0) return { changes: [], outputs: outputsOf(s, st.how, '') };
    // in effect; what is left of it here are our members' expired confirmations, listed as pending: expire them
    return {
      changes: left.map((l) => ({
        action: 'delete' as const,
        summary: `expire the leftover confirmation ${l.vote.contractId} of ${s.subject.text} by ${name(l.member)} on ${l.node} (it expired; the decision is in effect)`,
        details: { party: s.partyId, decision: s.subject.text, confirmation: l.vote.contractId },
      })),
    };
  }
  const voted = new Set(st.votes.map((v) => v.party));
  const changes: Change[] = [];
  const details = { party: s.partyId, decision: s.subject.text };
  let count = st.votes.length;
  if (s.subject.kind === 'proposal' && st.proposalCid === undefined) {
    const first = s.ours[0]!;
    changes.push({
      action: 'create',
      summary: `propose ${s.subject.text} on ${first.node} (its member ${name(first.member)} confirms it at once)`,
      details,
    });
    voted.add(first.member);
    count++;
  }
  for (const o of s.ours) {
    if (voted.has(o.member) || count >= st.threshold) continue;
    changes.push({
      action: 'create',
      summary: `confirm ${s.subject.text} on ${o.node} as ${name(o.member)}`,
      details,
    });
    count++;
  }
  const missing = st.members.filter((m) => !voted.has(m)).map(name);
  const deadline = st.deadline === undefined ? 'none yet' : new Date(st.deadline * 1000).toISOString();
  const away = s.down.length > 0 ? `; cannot be reached now: ${s.down.join(', ')}` : '';
  changes.push({
    action: count >= st.threshold ? 'run' : 'wait',
    summary:
      `${count >= st.threshold ? 'execute' : 'wait for the other members, then execute'} ${s.subject.text}: ` +
      `${st.votes.length} of ${st.threshold} confirmed (${st.votes.map((v) => name(v.party)).join(', ') || 'nobody'}); ` +
      `still missing: ${missing.join(', ') || 'nobody'}; earliest confirmation expires: ${deadline}${away}`,
    details: {
      ...details,
      confirmed: st.votes.map((v) => v.party),
      missing: st.members.filter((m) => !voted.has(m)),
      threshold: st.threshold,
      deadline,
    },
  });
  return { changes };
}

// ---------------------------------------------------------------------------------------------------------
// Apply

interface Round {
  view: GovernanceView;
  status: Status;
}

async function round(ctx: StepContext, s: Observed, node = s.reader): Promise<Round> {
  const view = await readGovernance(ctx, node, s.partyId);
  return { view, status: await statusOf(ctx, s.subject, view, s.partyId) };
}

function proposalRequest(s: Observed): Record<string, unknown> {
  return (s.subject as Extract<Subject, { kind: 'proposal' }>).proposal;
}

/** the request fields of a confirm or execute of the declared decision */
function decisionFields(s: Observed, proposalCid: string | undefined) {
  return s.subject.kind === 'action'
    ? { action: s.subject.action, governance_type: 'core_self' as const }
    : {
        // the proposal encodes the action: the server's UI sends this placeholder
        action: { type: 'governance_set_threshold' as const, new_threshold: 0 },
        governance_type: 'core_domain' as const,
        proposal_cid: proposalCid!,
      };
}

/** how often a member node left out as unreachable is asked again whether it is back */
const PROBE_DOWN_MS = 2_000;

/** our member nodes during one apply: a node that stops answering is left out, and taken back when it answers */
class Members {
  readonly ours: Array<{ node: string; member: string }>;
  down: string[];
  private probed = 0;

  constructor(
    private readonly ctx: StepContext,
    private readonly s: Observed,
  ) {
    this.ours = [...s.ours];
    this.down = [...s.down];
  }

  get reader(): string {
    return this.ours[0]?.node ?? this.s.reader;
  }

  lost(node: string): void {
    const i = this.ours.findIndex((o) => o.node === node);
    if (i < 0) return;
    const [gone] = this.ours.splice(i, 1);
    this.down.push(node);
    this.ctx.log(
      'warn',
      `${node} cannot be reached: its member ${this.s.names[gone!.member] ?? gone!.member} is left out until it answers again`,
    );
    if (this.ours.length === 0) {
      throw new StepError(
        `none of the member nodes this target acts on can be reached (${this.down.join(', ')})`,
        {
          retryability: 'transient',
          hint: 'bring them up (or check the target’s URLs) and run again',
        },
      );
    }
  }

  /** takes back the nodes that answer again (at most every PROBE_DOWN_MS) */
  async probe(): Promise<void> {
    if (this.down.length === 0 || this.ctx.clock.now() - this.probed < PROBE_DOWN_MS) return;
    this.probed = this.ctx.clock.now();
    for (const back of await reachableAgain(this.ctx, this.down, this.s.partyId)) {
      this.down = this.down.filter((n) => n !== back.node);
      this.ours.push(back);
      this.ctx.log('info', `${back.node} answers again: its member takes part`);
    }
  }
}

async function apply(ctx: ItemContext, w: With, s: Observed): Promise<Outputs> {
  const waitMs = durationMs(w.wait, '10m');
  const until = ctx.clock.now() + waitMs;
  const summary = s.subject.kind === 'action' ? s.subject.action.type : s.subject.proposal.type;
  const members = new Members(ctx, s);
  let executable: number | undefined;
  let executedBy = '';
  /** confirmations each of our members sent in this attempt: once per decision, unless one more completes it */
  const confirmedHere = new Map<string, number>();
  for (;;) {
    await members.probe();
    let read: Round;
    try {
      read = await round(ctx, s, members.reader);
    } catch (error) {
      if (!unreachable(error) || ctx.signal.aborted) throw error;
      members.lost(members.reader);
      continue;
    }
    const { view, status } = read;
    if (status.kind === 'done') {
      await expireLeftovers(ctx, s, status.stale);
      await verifyEverywhere(ctx, s, members.down);
      return outputsOf(s, status.how, executedBy);
    }
    const voted = new Set(status.votes.map((v) => v.party));
    // the proposal, made once: the first of our members proposes (and so confirms)
    if (s.subject.kind === 'proposal' && status.proposalCid === undefined) {
      const first = members.ours[0]!;
      const proposed = await writeOnce(ctx, {
        node: first.node,
        partyId: s.partyId,
        member: first.member,
        event: 'propose',
        summary,
        intent: { label: s.subject.label, description: s.subject.description },
        what: `propose ${s.subject.text}`,
        send: (rulesId) =>
          ctx.clients
            .dpm(first.node)
            .proposeGovernance(
              { party_id: s.partyId, rules_contract_id: rulesId, proposal: proposalRequest(s) as never },
              { signal: ctx.signal },
            ),
        done: async () =>
          (await round(ctx, s, first.node)).status.kind === 'done' ||
          (await proposalExists(ctx, s, first.node)),
      });
      if (proposed === 'unreachable') members.lost(first.node);
      continue;
    }
    // our members' confirmations, while the threshold is not met: each member once; a member whose confirmation
    // expired while the others had not confirmed yet confirms once more only when that meets the threshold (it
    // would expire again otherwise: a confirmation per timeout, for nothing)
    const next = members.ours.find((o) => {
      if (voted.has(o.member)) return false;
      const sent = confirmedHere.get(o.member) ?? 0;
      return sent === 0 || (sent === 1 && status.votes.length + 1 >= status.threshold);
    });
    if (next !== undefined && status.votes.length < status.threshold) {
      confirmedHere.set(next.member, (confirmedHere.get(next.member) ?? 0) + 1);
      const confirmed = await writeOnce(ctx, {
        node: next.node,
        partyId: s.partyId,
        member: next.member,
        event: 'confirm',
        summary: s.subject.kind === 'action' ? summary : 'governance_set_threshold',
        intent: { decision: s.subject.text },
        what: `confirm ${s.subject.text} as ${s.names[next.member] ?? next.member}`,
        send: async (rulesId) => {
          const fresh = await round(ctx, s, next.node);
          const cid = fresh.status.kind === 'pending' ? fresh.status.proposalCid : undefined;
          return ctx.clients
            .dpm(next.node)
            .confirmGovernance(
              { party_id: s.partyId, rules_contract_id: rulesId, ...decisionFields(s, cid) },
              { signal: ctx.signal },
            );
        },
        // done, confirmed by this member, or enough others confirmed meanwhile (another operator's members)
        done: async () => {
          const r = await round(ctx, s, next.node);
          return (
            r.status.kind === 'done' ||
            r.status.votes.some((v) => v.party === next.member) ||
            r.status.votes.length >= r.status.threshold
          );
        },
      });
      if (confirmed === 'unreachable') members.lost(next.node);
      continue;
    }
    if (status.votes.length >= status.threshold) {
      executable ??= ctx.clock.now();
      const designated = designatedExecutor(status.votes, status.members);
      const mine = members.ours.find((o) => o.member === designated);
      const graceOver = ctx.clock.now() - executable >= EXECUTOR_GRACE_MS;
      const executor =
        mine ?? (graceOver ? members.ours.find((o) => status.members.includes(o.member)) : undefined);
      if (executor !== undefined) {
        if ((await execute(ctx, s, executor, status, view, graceOver)) === 'unreachable')
          members.lost(executor.node);
        else executedBy = executor.node;
        continue;
      }
      ctx.progress(
        `${s.subject.text}: confirmed by ${status.votes.length} of ${status.threshold}; waiting for ${s.names[designated ?? ''] ?? designated} to execute it`,
      );
    } else {
      executable = undefined;
      const missing = status.members.filter((m) => !voted.has(m)).map((m) => s.names[m] ?? m);
      const expired = leftovers(s, status.stale).map((l) => s.names[l.member] ?? l.member);
      ctx.progress(
        `${s.subject.text}: ${status.votes.length} of ${status.threshold} confirmed; waiting for ${missing.join(', ')}${expired.length > 0 ? ` (the confirmation of ${expired.join(', ')} expired: confirmed again once that meets the threshold)` : ''}`,
      );
    }
    if (ctx.clock.now() >= until) {
      const missing = status.members.filter((m) => !voted.has(m)).map((m) => s.names[m] ?? m);
      const deadline =
        status.deadline === undefined
          ? ''
          : `; the earliest confirmation expires at ${new Date(status.deadline * 1000).toISOString()}`;
      const away = members.down.length > 0 ? `; cannot be reached: ${members.down.join(', ')}` : '';
      throw new PausedError(
        `${s.subject.text} for ${s.partyId}: ${status.votes.length} of ${status.threshold} members confirmed (missing: ${missing.join(', ') || 'nobody'})${status.votes.length >= status.threshold ? ', not executed yet' : ''}${deadline}${away}`,
        'the other members’ operators confirm it (this playbook, or dpm.governance-review); run this again to continue — nothing is confirmed twice',
      );
    }
    await ctx.clock.sleep(GOVERNANCE_POLL_MS, ctx.signal);
  }
}

/**
 * Our members' expired confirmations of a decision in effect, expired on the ledger (POST /governance/expire), so
 * that nothing of it stays listed as pending. Each once: a confirmation no longer listed is done.
 */
async function expireLeftovers(ctx: ItemContext, s: Observed, stale: readonly Vote[]): Promise<void> {
  for (const left of leftovers(s, stale)) {
    const listed = async (): Promise<boolean> =>
      (await round(ctx, s, left.node)).status.stale.some((v) => v.contractId === left.vote.contractId);
    const sent = await writeOnce(ctx, {
      node: left.node,
      partyId: s.partyId,
      member: left.member,
      event: 'expire',
      summary: EXPIRE_SUMMARY,
      intent: { decision: s.subject.text, confirmation: left.vote.contractId },
      what: `expire the leftover confirmation ${left.vote.contractId} of ${s.subject.text}`,
      send: (rulesId) =>
        ctx.clients.dpm(left.node).expireGovernance(
          {
            party_id: s.partyId,
            rules_contract_id: rulesId,
            confirmation_cid: left.vote.contractId,
            governance_type: s.subject.kind === 'action' ? 'core_self' : 'core_domain',
          },
          { signal: ctx.signal },
        ),
      done: async () => !(await listed()),
    });
    if (sent === 'unreachable')
      ctx.log(
        'warn',
        `${left.node} cannot be reached: its expired confirmation stays listed until a next run`,
      );
  }
}

/** the audit log's summary of an expire (dpm-api.md §11) */
const EXPIRE_SUMMARY = 'expire_confirmation';

async function proposalExists(ctx: StepContext, s: Observed, node: string): Promise<boolean> {
  const { status } = await round(ctx, s, node);
  return status.kind === 'pending' && status.proposalCid !== undefined;
}

async function execute(
  ctx: ItemContext,
  s: Observed,
  executor: { node: string; member: string },
  status: Pending,
  view: GovernanceView,
  graceOver: boolean,
): Promise<'sent' | 'already' | 'unreachable'> {
  void view;
  const summary = s.subject.kind === 'action' ? s.subject.action.type : 'governance_set_threshold';
  return writeOnce(ctx, {
    node: executor.node,
    partyId: s.partyId,
    member: executor.member,
    event: 'execute',
    summary,
    intent: { decision: s.subject.text },
    what: `execute ${s.subject.text} (confirmed by ${status.votes.length} of ${status.threshold})`,
    send: async (rulesId) => {
      const fresh = await round(ctx, s, executor.node);
      if (fresh.status.kind === 'done') return NOT_SENT;
      // a confirmation that arrived meanwhile may designate another member: it executes, not this one
      const designated = designatedExecutor(fresh.status.votes, fresh.status.members);
      if (!graceOver && designated !== executor.member) return NOT_SENT;
      return ctx.clients.dpm(executor.node).executeGovernance(
        {
          party_id: s.partyId,
          rules_contract_id: rulesId,
          ...decisionFields(s, fresh.status.proposalCid),
          confirmation_cids: fresh.status.votes.map((v) => v.contractId),
        },
        { signal: ctx.signal },
      );
    },
    done: async () => (await round(ctx, s, executor.node)).status.kind === 'done',
  });
}

/**
 * every trusted node of the target shows the decision in effect (the ledger is one; their reads must agree);
 * a node that cannot be reached is not waited for
 */
async function verifyEverywhere(ctx: StepContext, s: Observed, down: readonly string[]): Promise<void> {
  const trusted = s.auths.filter((a) => a.problem === undefined && !down.includes(a.node)).map((a) => a.node);
  for (const node of trusted) {
    for (;;) {
      let status: Status;
      try {
        ({ status } = await round(ctx, s, node));
      } catch (error) {
        if (!unreachable(error) || ctx.signal.aborted) throw error;
        ctx.log('warn', `${node} cannot be reached: not waiting for it to show ${s.subject.text}`);
        break;
      }
      if (status.kind === 'done') break;
      ctx.progress(`${node} does not show ${s.subject.text} in effect yet`);
      await ctx.clock.sleep(GOVERNANCE_POLL_MS, ctx.signal);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reconcile

async function reconcile(ctx: ItemContext, w: With, intents: readonly Intent[]): Promise<Reconciliation> {
  const s = await observe(ctx, w);
  if (s.status.kind === 'done' && leftovers(s, s.status.stale).length === 0)
    return { status: 'done', outputs: outputsOf(s, s.status.how, '') };
  for (const intent of sentIntents(intents)) {
    const node = typeof intent['node'] === 'string' ? intent['node'] : '';
    const member = typeof intent['member'] === 'string' ? intent['member'] : '';
    const mark = typeof intent['mark'] === 'number' ? intent['mark'] : 0;
    const event = intent.action;
    const summary =
      event === 'expire'
        ? EXPIRE_SUMMARY
        : event === 'propose'
          ? s.subject.kind === 'proposal'
            ? s.subject.proposal.type
            : ''
          : s.subject.kind === 'action'
            ? s.subject.action.type
            : 'governance_set_threshold';
    const outcome = await settle(
      ctx,
      ctx.clients.dpm(node),
      s.partyId,
      { mark, event, summary, member, sentAt: typeof intent['at'] === 'number' ? intent['at'] : 0 },
      async () => {
        const { status } = await round(ctx, s, node);
        if (event === 'expire') return !status.stale.some((v) => v.contractId === intent['confirmation']);
        if (status.kind === 'done') return true;
        if (event === 'propose') return status.proposalCid !== undefined;
        if (event === 'confirm') return status.votes.some((v) => v.party === member);
        return false;
      },
    );
    if (outcome.outcome === 'unknown') {
      return {
        status: 'ambiguous',
        seen: `${event} of ${s.subject.text} on ${node} (member ${member}) was sent before the run stopped; neither the confirmations nor ${node}'s audit log (after row ${mark}) show it`,
        hint: `look at GET /governance/confirmations and /governance/audit?party_id=${s.partyId} on ${node}; then record what you found with ledgerbook state resolve`,
      };
    }
  }
  return { status: 'not-done', note: 'what was sent before is settled; the confirmations are read again' };
}

export const dpmGovernance = defineStep<With, Observed>({
  ...dpmGovernanceDeclaration,
  observe,
  plan,
  planState,
  apply: (ctx, w, _item, _plan, state) => apply(ctx, w, state),
  reconcile: (ctx, w, _item, intents) => reconcile(ctx, w, intents),
});
