/**
 * What the governance steps share (dpm-api.md §11, §12a "Governance"): which nodes may be trusted to read a
 * party's governance (the node has the party's credentials and its ledger user may read as the party — without
 * them the DPM answers `state: null` and no actions, as if there were nothing), one read of the rules and the
 * confirmations, who has confirmed (unexpired, once per member), who executes, and the writes: the rules
 * contract id is read right before every consuming choice; a write refused because another member's write held
 * or consumed that contract had no effect and ends the attempt with contention, which the engine paces (a pause
 * with jitter, then the step observes again and reads the new id) — a step never loops on its own; and a write
 * whose answer was lost is settled by reading the confirmations and the node's audit log — never by sending it
 * twice.
 */
import type { DpmClient } from '../../clients/dpm.js';
import type { GovernanceConfirmationsResponse, GovernanceStateResponse } from '../../clients/dpm-wire.js';
import type { AuditEntry, ChainAuditResponse } from '../../clients/dpm-wire.js';
import { AmbiguousOutcomeError, ServiceError, StepError } from '../../errors.js';
import type { Intent, ItemContext, StepContext } from '../contract.js';
import { readEach } from './workflow-runs.js';

/** how long an answer lost in flight may still take to land (the node's ledger submission and its audit row) */
export const SETTLE_MS = 10_000;
/** the pause between two reads while waiting for other members */
export const GOVERNANCE_POLL_MS = 500;
/** how long the other members wait for the designated executor before one of them executes */
export const EXECUTOR_GRACE_MS = 20_000;

// ---------------------------------------------------------------------------------------------------------
// Which nodes can be read, and as whom each node acts

export interface NodeAuth {
  node: string;
  /** the member party the node acts as for the party (its party config) */
  member: string | undefined;
  /** why this node's governance answers cannot be trusted; undefined when they can */
  problem: string | undefined;
  /** the rights missing for the node's writes (actAs the member, readAs both) */
  missingRights: string[];
  /** the node did not answer at all (down, restarting): it may be back later */
  unreachable?: true;
}

/**
 * A node that did not answer: the connection was refused or dropped before a request was sent, or a gateway in
 * front of it answered a read 502/503/504. Nothing the request asked for happened, and the node may come back.
 */
export function unreachable(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    error.retryability === 'transient' &&
    (error.status === undefined || error.status === 502 || error.status === 503 || error.status === 504)
  );
}

/** GET /auth/status of each node: a trusted node has the party's token and may read as the party */
export async function authOf(
  ctx: StepContext,
  nodes: readonly string[],
  partyId: string,
): Promise<NodeAuth[]> {
  return readEach(ctx, nodes, async (node): Promise<NodeAuth> => {
    let parties;
    try {
      ({ parties } = await ctx.clients.dpm(node).authStatus({ signal: ctx.signal }));
    } catch (error) {
      if (!(error instanceof ServiceError) || ctx.signal.aborted) throw error;
      return {
        node,
        member: undefined,
        problem: `cannot be ${unreachable(error) ? 'reached' : 'read'} (${error.serviceMessage ?? error.message})`,
        missingRights: [],
        ...(unreachable(error) ? { unreachable: true as const } : {}),
      };
    }
    const entry = parties.find((p) => p.dec_party_id === partyId);
    if (entry === undefined)
      return { node, member: undefined, problem: 'has no credentials for the party', missingRights: [] };
    const status = entry.status.status;
    if (status === 'failed' || status === 'notconfigured') {
      const why = entry.status.status === 'failed' ? `: ${entry.status.error}` : '';
      return {
        node,
        member: entry.member_party_id,
        problem: `cannot get a token for the party (${status}${why})`,
        missingRights: [],
      };
    }
    const rights = entry.rights;
    const missing =
      rights === undefined || rights === null
        ? ['the ledger user is not on the participant']
        : Object.entries(rights)
            .filter(([key, value]) => value !== true && key !== 'dec_party_act_as')
            .map(([key]) => key);
    return {
      node,
      member: entry.member_party_id,
      problem: missing.length > 0 ? `its ledger user lacks ${missing.join(', ')}` : undefined,
      missingRights: missing,
    };
  });
}

/**
 * The member nodes this target acts on, each with its member party, and those that cannot be reached now (they
 * are left out of this pass; a node that answers but cannot act for the party stops the step).
 */
export function ourMembers(
  mine: readonly string[],
  auths: readonly NodeAuth[],
  partyId: string,
): { ours: Array<{ node: string; member: string }>; down: string[] } {
  const ours: Array<{ node: string; member: string }> = [];
  const down: string[] = [];
  for (const node of mine) {
    const auth = auths.find((a) => a.node === node)!;
    if (auth.unreachable) {
      down.push(node);
      continue;
    }
    if (auth.problem !== undefined || auth.member === undefined) {
      throw new StepError(
        `${node} cannot act for ${partyId} in its governance: it ${auth.problem ?? 'names no member party'}`,
        { hint: authHint(auth) },
      );
    }
    ours.push({ node, member: auth.member });
  }
  if (ours.length === 0) {
    throw new StepError(
      `none of the member nodes this target acts on can be reached: ${down
        .map((n) => `${n} ${auths.find((a) => a.node === n)?.problem ?? ''}`)
        .join('; ')}`,
      { retryability: 'transient', hint: 'bring them up (or check the target’s URLs) and run again' },
    );
  }
  return { ours, down };
}

/** the nodes of a list that answer GET /auth/status again (a node left out as unreachable that came back) */
export async function reachableAgain(
  ctx: StepContext,
  down: readonly string[],
  partyId: string,
): Promise<Array<{ node: string; member: string }>> {
  if (down.length === 0) return [];
  const auths = await authOf(ctx, down, partyId);
  return auths
    .filter((a) => a.problem === undefined && a.member !== undefined)
    .map((a) => ({ node: a.node, member: a.member! }));
}

/** the hint for a node whose credentials or rights are missing */
export function authHint(auth: NodeAuth): string {
  return auth.missingRights.length > 0
    ? `grant the party's ledger user its rights on ${auth.node} (dpm.grant-rights), then run again`
    : `configure the party's credentials on ${auth.node} (dpm.party-config), then run again`;
}

// ---------------------------------------------------------------------------------------------------------
// One read of the party's governance

export interface Vote {
  contractId: string;
  party: string;
  createdAt: number;
  /** unix seconds; 0 when unknown */
  expiresAt: number;
}

export interface GovernanceView {
  node: string;
  rulesId: string | undefined;
  threshold: number;
  members: string[];
  timeoutMicros: number | undefined;
  state: GovernanceStateResponse['state'];
  confirmations: GovernanceConfirmationsResponse;
}

export async function readGovernance(
  ctx: StepContext,
  node: string,
  partyId: string,
): Promise<GovernanceView> {
  const dpm = ctx.clients.dpm(node);
  const [confirmations, { state }] = await Promise.all([
    dpm.governanceConfirmations(partyId, { signal: ctx.signal }),
    dpm.governanceState(partyId, { signal: ctx.signal }),
  ]);
  return {
    node,
    rulesId: confirmations.rules_contract_id ?? undefined,
    threshold: state?.threshold ?? confirmations.threshold,
    members: state?.members ?? [],
    timeoutMicros: state?.action_confirmation_timeout_microseconds ?? undefined,
    state: state ?? null,
    confirmations,
  };
}

/** the unexpired confirmations of a list, one per party (the newest) */
export function validVotes(
  list: ReadonlyArray<{
    contract_id: string;
    confirming_party: string;
    created_at: number;
    expires_at: number;
  }>,
  nowSeconds: number,
): Vote[] {
  const out = new Map<string, Vote>();
  for (const c of [...list].sort((a, b) => b.created_at - a.created_at)) {
    if (out.has(c.confirming_party)) continue;
    if (c.expires_at !== 0 && c.expires_at <= nowSeconds) continue;
    out.set(c.confirming_party, {
      contractId: c.contract_id,
      party: c.confirming_party,
      createdAt: c.created_at,
      expiresAt: c.expires_at,
    });
  }
  return [...out.values()];
}

/** the expired confirmations of a list (unix seconds), newest first */
export function expiredVotes(
  list: ReadonlyArray<{
    contract_id: string;
    confirming_party: string;
    created_at: number;
    expires_at: number;
  }>,
  nowSeconds: number,
): Vote[] {
  return [...list]
    .filter((c) => c.expires_at !== 0 && c.expires_at <= nowSeconds)
    .sort((a, b) => b.created_at - a.created_at)
    .map((c) => ({
      contractId: c.contract_id,
      party: c.confirming_party,
      createdAt: c.created_at,
      expiresAt: c.expires_at,
    }));
}

/**
 * Who executes once enough members confirmed, so that members running the same playbook at once do not all
 * send it: the confirming member with the smallest party id. The others wait EXECUTOR_GRACE_MS for it.
 */
export function designatedExecutor(votes: readonly Vote[], members: readonly string[]): string | undefined {
  return votes
    .map((v) => v.party)
    .filter((p) => members.length === 0 || members.includes(p))
    .sort()[0];
}

// ---------------------------------------------------------------------------------------------------------
// Writes

/**
 * A refusal that had no effect because another write held or consumed the rules contract (or a contract it
 * names): the DPM client classes it as transient contention (dpm-errors.ts).
 */
export function contended(error: unknown): boolean {
  return (
    error instanceof ServiceError && error.retryability === 'transient' && error.backpressure !== undefined
  );
}

/** the participant's refusal texts that mean contention (as the node's audit log keeps them) */
const CONTENTION_TEXT = /LOCAL_VERDICT_LOCKED_CONTRACTS|LOCKED_CONTRACTS|CONTRACT_NOT_FOUND/;

/** an answer that may have been lost after the node acted on it */
export function lostAnswer(error: unknown): boolean {
  return error instanceof ServiceError && error.retryability === 'ambiguous';
}

/** the newest audit id of the node for the party (rows after it are the results of what this step sends next) */
export async function auditMark(dpm: DpmClient, partyId: string, signal: AbortSignal): Promise<number> {
  const { entries } = await dpm.governanceAudit(partyId, { limit: 1 }, { signal });
  return entries[0]?.id ?? 0;
}

/** the node's audit rows for the party after `mark`, of one event, oldest first */
export async function auditSince(
  dpm: DpmClient,
  partyId: string,
  mark: number,
  event: string,
  signal: AbortSignal,
): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = [];
  for (let offset = 0; ; offset += 100) {
    const { entries } = await dpm.governanceAudit(partyId, { limit: 100, offset }, { signal });
    const newer = entries.filter((e) => e.id > mark);
    rows.push(...newer.filter((e) => e.event_type === event));
    if (entries.length < 100 || newer.length < entries.length) break;
  }
  return rows.reverse();
}

export type Settled =
  | { outcome: 'happened' }
  /** the node's audit log shows the write refused, with the node's error */
  | { outcome: 'refused'; error: string }
  | { outcome: 'unknown' };

/**
 * What became of a write whose answer was lost (or that a crash interrupted): `evidence` reads the live state
 * (the member's confirmation, the action executed); otherwise the node's audit rows after the mark tell whether
 * the node acted and how. Waits up to SETTLE_MS (counted from `sentAt`) for a write that may still be in flight.
 */
export async function settle(
  ctx: StepContext,
  dpm: DpmClient,
  partyId: string,
  write: { mark: number; event: string; summary: string; member: string; sentAt: number },
  evidence: () => Promise<boolean>,
): Promise<Settled> {
  for (;;) {
    if (await evidence()) return { outcome: 'happened' };
    const rows = (await auditSince(dpm, partyId, write.mark, write.event, ctx.signal)).filter(
      (r) => r.member_party_id === write.member && r.action_summary === write.summary,
    );
    const last = rows.at(-1);
    if (last?.status === 'success') return { outcome: 'happened' };
    if (last !== undefined) return { outcome: 'refused', error: last.error_message ?? 'no error given' };
    if (ctx.clock.now() - write.sentAt >= SETTLE_MS) return { outcome: 'unknown' };
    await ctx.clock.sleep(GOVERNANCE_POLL_MS, ctx.signal);
  }
}

/** what a write's `send` returns when, on a last fresh read, it decided not to send after all */
export const NOT_SENT = Symbol('not sent');

export interface WriteSpec {
  node: string;
  partyId: string;
  member: string;
  /** the audit log's event and summary of this write (`confirm` and the action type, …) */
  event: 'propose' | 'confirm' | 'execute' | 'expire';
  summary: string;
  /** the intent recorded before the write, without the mark and time this function adds */
  intent: Record<string, string | number>;
  /** what the write is, for messages */
  what: string;
  /** the request, built with the rules id just read; NOT_SENT when a fresh read shows it is not needed */
  send(rulesId: string): Promise<unknown>;
  /** the write is already done (read live): nothing is sent */
  done(): Promise<boolean>;
}

/**
 * One governance write, exactly once: read the rules id, record the intent (with the node's audit mark), send. A
 * write refused for contention (another member's write holds or consumed the rules contract) had no effect: that
 * is recorded, and the refusal ends the attempt, so that the engine backs off and the next attempt observes the
 * rules again. A lost answer is settled by reading; a write the audit log shows refused is not sent again here.
 */
export async function writeOnce(
  ctx: ItemContext,
  spec: WriteSpec,
): Promise<'sent' | 'already' | 'unreachable'> {
  const dpm = ctx.clients.dpm(spec.node);
  let view: GovernanceView;
  let mark: number;
  try {
    if (await spec.done()) return 'already';
    view = await readGovernance(ctx, spec.node, spec.partyId);
    mark = await auditMark(dpm, spec.partyId, ctx.signal);
  } catch (error) {
    if (unreachable(error) && !ctx.signal.aborted) return 'unreachable';
    throw error;
  }
  if (view.rulesId === undefined) {
    throw new StepError(`${spec.node} sees no governance rules contract of ${spec.partyId}`, {
      hint: 'deploy the GovernanceRules contract first (dpm.deploy-contracts), and check the node’s credentials and rights',
    });
  }
  const sentAt = ctx.clock.now();
  await ctx.record({
    action: spec.event,
    ...spec.intent,
    node: spec.node,
    member: spec.member,
    mark,
    at: sentAt,
  });
  // the write recorded above had no effect (not sent, refused at connect, refused for contention): the journal
  // says so, and reconcile does not look for it
  const noEffect = () => ctx.record({ action: NO_EFFECT, node: spec.node, at: sentAt });
  try {
    if ((await spec.send(view.rulesId)) === NOT_SENT) {
      await noEffect();
      return 'already';
    }
    ctx.log('info', `${spec.node}: ${spec.what}`);
    return 'sent';
  } catch (error) {
    if (unreachable(error) && !ctx.signal.aborted) {
      await noEffect();
      return 'unreachable';
    }
    if (contended(error)) {
      await noEffect();
      throw error;
    }
    if (!lostAnswer(error)) throw error;
    const settled = await settle(
      ctx,
      dpm,
      spec.partyId,
      { mark, event: spec.event, summary: spec.summary, member: spec.member, sentAt },
      () => spec.done(),
    );
    if (settled.outcome === 'happened') return 'sent';
    if (settled.outcome === 'refused') {
      await noEffect();
      const contention = CONTENTION_TEXT.test(settled.error);
      throw new StepError(
        `${spec.node}: the ${spec.event} of ${spec.what} got no answer; the node's audit log shows it refused: ${settled.error}`,
        {
          retryability: contention ? 'transient' : 'permanent',
          ...(contention ? { backpressure: {} } : {}),
          hint: contention
            ? 'another member’s write held the rules contract: it is read again and sent once more after a pause'
            : `GET /governance/audit?party_id=${spec.partyId} on ${spec.node} shows the node's errors`,
        },
      );
    }
    throw new AmbiguousOutcomeError(
      `${spec.node}: the ${spec.event} of ${spec.what} got no answer, and neither the confirmations nor the node's audit log show it`,
      `POST /governance/${spec.event} sent to ${spec.node}; no answer; GET /governance/audit shows no row after ${mark}`,
      `look at GET /governance/confirmations and /governance/audit on ${spec.node}; when it is not there, run again (ledgerbook state resolve)`,
    );
  }
}

/** the journal's mark that a recorded write had no effect (its name from when it meant "refused at connect") */
const NO_EFFECT = 'unsent';

/** the write intents of an interrupted attempt that may have reached their node (not those known to have had no effect) */
export function sentIntents(intents: readonly Intent[]): Intent[] {
  const key = (i: Intent): string => JSON.stringify([i['node'], i['at']]);
  const unsent = new Set(intents.filter((i) => i.action === NO_EFFECT).map(key));
  return intents.filter((i) => i.action !== NO_EFFECT && !unsent.has(key(i)));
}

/** a node's member party from the target, for names in messages */
export function memberNamer(ctx: StepContext, auths: readonly NodeAuth[]): (party: string) => string {
  const byParty = new Map<string, string>();
  for (const a of auths) if (a.member !== undefined) byParty.set(a.member, a.node);
  for (const [name, node] of Object.entries(ctx.target?.nodes ?? {}))
    if (node.party !== undefined && !byParty.has(node.party)) byParty.set(node.party, name);
  return (party) => {
    const node = byParty.get(party);
    return node === undefined ? party : `${node} (${party.split('::')[0] ?? party})`;
  };
}

/** the chain-audit entries of the party (every page, newest first), read live */
export async function chainEntries(
  dpm: DpmClient,
  partyId: string,
  signal: AbortSignal,
  stop: (entry: ChainAuditResponse['entries'][number]) => boolean = () => false,
): Promise<ChainAuditResponse['entries']> {
  const out: ChainAuditResponse['entries'] = [];
  let before: number | undefined;
  for (;;) {
    const page = await dpm.governanceChainAudit(
      partyId,
      { limit: 1000, refresh: true, ...(before === undefined ? {} : { beforeOffset: before }) },
      { signal },
    );
    out.push(...page.entries);
    if (page.entries.some(stop)) return out;
    if (page.next_before_offset === null || page.next_before_offset === undefined) return out;
    before = page.next_before_offset;
  }
}

/** the node names the target lists, in its order */
export function targetNodeNames(ctx: StepContext): string[] {
  return Object.keys(ctx.target?.nodes ?? {});
}
