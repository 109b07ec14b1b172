/**
 * dpm.accept-invitations — for setups where each operator runs their own playbook (dpm-api.md §8): on the nodes
 * this target controls, accept exactly the invitations the playbook declares (kind, coordinator, prefix or party,
 * DAR file names, package names, threshold, member) and report — or, when asked, decline — every other one.
 * Nothing undeclared is ever accepted. An expectation is met by a pending invitation or by the peer run a node
 * created when it accepted one earlier, so a second run waits for nothing and changes nothing.
 */
import { type PendingInvitation, type WorkflowKind, type WorkflowRun } from '../../clients/dpm-wire.js';
import {
  defineStep,
  type Change,
  type Item,
  type ItemContext,
  type Outputs,
  type StepContext,
} from '../contract.js';
import { ServiceError, StepError } from '../../errors.js';
import { check, dpmAcceptInvitationsDeclaration, type With } from './accept-invitations.declaration.js';
import { durationMs, enforceChecks, nameOf, participantRef, refused, sameSet } from './party-common.js';
import { nodesOrControlled } from './party-common.declaration.js';
import { POLL_MS, readEach } from './workflow-runs.js';
type Expectation = With['expect'][number];

/** An invitation or a joined run, in the shape expectations are matched against. */
interface Offer {
  kind: WorkflowKind;
  coordinator: string | undefined;
  prefix: string | undefined;
  party: string | undefined;
  darFiles: string[] | undefined;
  packages: string[] | undefined;
  threshold: number | undefined;
  member: string | undefined;
}

interface NodeLook {
  cards: PendingInvitation[];
  joined: WorkflowRun[];
  /** the invitee's peers table: public key → participant id */
  keys: Map<string, string>;
}

/** An expectation with its coordinator and member as participant ids. */
type Resolved = Expectation & { coordinatorId: string; memberId: string | undefined };

interface Observed {
  nodes: Record<string, NodeLook>;
  expect: Resolved[];
  /** node names of the participants the target knows, for messages */
  names: Record<string, string>;
}

interface CardRef {
  node: string;
  id: string;
}

function fromCard(card: PendingInvitation, keys: Map<string, string>): Offer {
  return {
    kind: card.invitation_type,
    coordinator: keys.get(card.coordinator_pubkey),
    prefix: card.prefix ?? undefined,
    party: card.dec_party_id ?? undefined,
    darFiles: card.dar_filenames ?? undefined,
    packages: card.package_names ?? undefined,
    threshold: card.new_threshold ?? undefined,
    member: card.kicked_participant ?? card.new_participant ?? undefined,
  };
}

function fromRun(run: WorkflowRun, keys: Map<string, string>): Offer {
  let config: Record<string, unknown> = {};
  try {
    config = JSON.parse(run.config_json) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? (v as string[]) : undefined);
  return {
    kind: run.kind,
    coordinator: run.coordinator_pubkey ? keys.get(run.coordinator_pubkey) : undefined,
    prefix: run.prefix ?? text(config['prefix']),
    party: run.dec_party_id ?? undefined,
    darFiles: run.dar_filenames ?? list(config['dar_filenames']),
    packages: run.package_names ?? list(config['package_names']),
    threshold:
      run.new_threshold ??
      (typeof config['new_threshold'] === 'number' ? config['new_threshold'] : undefined),
    member:
      run.kicked_participant ??
      run.added_participant ??
      text(config['participant_id']) ??
      text(config['new_participant_id']),
  };
}

function matches(e: Resolved, o: Offer): boolean {
  if (o.kind !== e.kind || o.coordinator !== e.coordinatorId) return false;
  if (e.prefix !== undefined && o.prefix !== e.prefix) return false;
  if (e.party !== undefined) {
    if (o.party === undefined) return false;
    if (e.party.includes('::') ? o.party !== e.party : o.party.split('::')[0] !== e.party) return false;
  }
  if (e.dar_files !== undefined && !sameSet(o.darFiles ?? [], e.dar_files)) return false;
  if (e.packages !== undefined && !sameSet(o.packages ?? [], e.packages)) return false;
  if (e.threshold !== undefined && o.threshold !== e.threshold) return false;
  if (e.memberId !== undefined && o.member !== e.memberId) return false;
  return true;
}

function resolve(ctx: StepContext, w: With): Resolved[] {
  return w.expect.map((e) => ({
    ...e,
    coordinatorId: participantRef(ctx, e.coordinator),
    memberId: e.member === undefined ? undefined : participantRef(ctx, e.member),
  }));
}

function describeExpectation(e: Expectation): string {
  const what = [
    e.prefix && `prefix ${e.prefix}`,
    e.party && `party ${e.party}`,
    e.dar_files && `DARs ${e.dar_files.join(', ')}`,
    e.packages && `packages ${e.packages.join(', ')}`,
    e.threshold !== undefined && `threshold ${e.threshold}`,
    e.member && `member ${e.member}`,
  ].filter(Boolean);
  return `${e.kind} from ${e.coordinator}${what.length > 0 ? ` (${what.join(', ')})` : ''}`;
}

function describeCard(
  names: Record<string, string>,
  card: PendingInvitation,
  keys: Map<string, string>,
): string {
  const name = (p: string): string => names[p] ?? p;
  const o = fromCard(card, keys);
  const what = [
    o.prefix && `prefix ${o.prefix}`,
    o.party && `party ${o.party}`,
    o.darFiles && `DARs ${o.darFiles.join(', ')}`,
    o.packages && `packages ${o.packages.join(', ')}`,
    o.threshold !== undefined && `threshold ${o.threshold}`,
    o.member && `member ${name(o.member)}`,
  ].filter(Boolean);
  const from = o.coordinator
    ? name(o.coordinator)
    : `an unknown coordinator (key ${card.coordinator_pubkey.slice(0, 16)}…)`;
  return `${card.invitation_type} from ${from}${what.length > 0 ? ` (${what.join(', ')})` : ''}, id ${card.id}`;
}

async function look(ctx: StepContext, w: With, nodes: readonly string[]): Promise<Observed> {
  const seen: Record<string, NodeLook> = {};
  const ids = new Set<string>();
  const answers = await readEach(ctx, nodes, (node) => {
    const dpm = ctx.clients.dpm(node);
    return Promise.all([
      dpm.invitations({ signal: ctx.signal }),
      dpm.workflows({ signal: ctx.signal }),
      dpm.networkConfig({ signal: ctx.signal }),
    ]);
  });
  for (const [i, node] of nodes.entries()) {
    const [{ invitations }, { runs }, { peers }] = answers[i]!;
    for (const p of peers) ids.add(p.participant_id);
    seen[node] = {
      cards: invitations,
      joined: runs.filter((r) => r.role === 'Peer'),
      keys: new Map(peers.map((p) => [p.public_key, p.participant_id])),
    };
  }
  return {
    nodes: seen,
    expect: resolve(ctx, w),
    names: Object.fromEntries([...ids].map((p) => [p, nameOf(ctx, p)])),
  };
}

/** Expectations not met on a node: no matching invitation and no run it joined. */
function unmet(state: Observed, node: string): Resolved[] {
  const view = state.nodes[node];
  if (!view) return [];
  return state.expect.filter(
    (e) =>
      (e.nodes === undefined || e.nodes.includes(node)) &&
      !view.cards.some((c) => matches(e, fromCard(c, view.keys))) &&
      !view.joined.some((r) => matches(e, fromRun(r, view.keys))),
  );
}

function expected(state: Observed, card: PendingInvitation, view: NodeLook): boolean {
  return state.expect.some((e) => matches(e, fromCard(card, view.keys)));
}

/** The invitations to act on, after waiting (in a run, with `wait`) for every expected one to arrive. */
async function items(w: With, ctx: StepContext): Promise<Array<Item<CardRef>>> {
  enforceChecks(ctx, w, check);
  const nodes = nodesOrControlled(w.nodes, ctx.target);
  const waitMs = ctx.mode === 'run' && w.wait !== undefined ? durationMs(w.wait, '0s') : 0;
  const deadline = ctx.clock.now() + waitMs;
  let seen = await look(ctx, w, nodes);
  for (;;) {
    const missing = nodes.flatMap((n) => unmet(seen, n).map((e) => `${n}: ${describeExpectation(e)}`));
    if (missing.length === 0) break;
    if (ctx.clock.now() >= deadline) {
      if (waitMs > 0) {
        throw new StepError(
          `expected invitations did not arrive within ${String(w.wait)}: ${missing.join('; ')}`,
          {
            hint: 'has the coordinator’s operator started the workflow? Both nodes must list each other as peers (dpm.network); run again to keep waiting',
          },
        );
      }
      ctx.log('info', `no invitation (yet) for ${missing.join('; ')}`);
      break;
    }
    ctx.progress(`waiting for ${missing.join('; ')}`);
    await ctx.clock.sleep(Math.min(POLL_MS, Math.max(1, deadline - ctx.clock.now())), ctx.signal);
    seen = await look(ctx, w, nodes);
  }
  const refs: Array<Item<CardRef>> = [];
  for (const node of nodes) {
    const view = seen.nodes[node];
    for (const card of view?.cards ?? []) {
      if (view && (expected(seen, card, view) || w.decline_unexpected === true)) {
        refs.push({ key: `${node}/${card.id}`, value: { node, id: card.id } });
      } else if (view) {
        ctx.log('warn', `${node}: not accepted, not declared: ${describeCard(seen.names, card, view.keys)}`);
      }
    }
  }
  return refs;
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  return look(ctx, w, nodesOrControlled(w.nodes, ctx.target));
}

/** What happened to a card that is gone: the node joined its run (accepted), or not (declined or withdrawn). */
function settled(view: NodeLook, card: CardRef): string {
  const instance = card.id.split('-').slice(2).join('-');
  return view.joined.some((r) => r.coordinator_instance === instance) ? 'accepted' : 'gone';
}

function plan(_w: With, state: Observed, item: Item<CardRef>): { changes: Change[]; outputs?: Outputs } {
  const { node, id } = item.value;
  const view = state.nodes[node];
  if (!view) throw new StepError(`no observation of ${node}`);
  const card = view.cards.find((c) => c.id === id);
  if (!card) return { changes: [], outputs: { node, invitation: id, action: settled(view, item.value) } };
  const what = describeCard(state.names, card, view.keys);
  const details = { node, invitation: id };
  return {
    changes: [
      expected(state, card, view)
        ? { action: 'update', summary: `accept on ${node}: ${what}`, details }
        : { action: 'delete', summary: `decline on ${node} (not declared): ${what}`, details },
    ],
  };
}

async function apply(ctx: ItemContext, w: With, item: Item<CardRef>, state: Observed): Promise<Outputs> {
  const { node, id } = item.value;
  const view = state.nodes[node];
  const card = view?.cards.find((c) => c.id === id);
  if (!view || !card) return { node, invitation: id, action: 'gone' };
  const accept = expected(state, card, view);
  const dpm = ctx.clients.dpm(node);
  await ctx.record({ action: accept ? 'accept-invitation' : 'decline-invitation', node, invitation: id });
  try {
    if (accept) await dpm.acceptInvitation(id, { signal: ctx.signal });
    else await dpm.declineInvitation(id, { signal: ctx.signal });
  } catch (error) {
    // 404: accepted, declined or withdrawn meanwhile; 409: this node already joined the run
    if (error instanceof ServiceError && (error.status === 404 || error.status === 409)) {
      const again = (await look(ctx, w, [node])).nodes[node];
      return { node, invitation: id, action: again ? settled(again, item.value) : 'gone' };
    }
    throw refused(
      `${node} refused to ${accept ? 'accept' : 'decline'} ${describeCard(state.names, card, view.keys)}`,
      error,
    );
  }
  ctx.log(
    'info',
    `${node}: ${accept ? 'accepted' : 'declined'} ${describeCard(state.names, card, view.keys)}`,
  );
  return { node, invitation: id, action: accept ? 'accepted' : 'declined' };
}

export const dpmAcceptInvitations = defineStep<With, Observed, CardRef>({
  ...dpmAcceptInvitationsDeclaration,
  items,
  observe,
  plan,
  apply: (ctx, w, item, _plan, state) => apply(ctx, w, item, state),
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the invitations are observed again' }),
  combine: (_w, results) => ({
    accepted: results.filter((r) => r.outputs['action'] === 'accepted').map((r) => r.key),
    declined: results.filter((r) => r.outputs['action'] === 'declined').map((r) => r.key),
  }),
});
