/**
 * The six workflow start routes (dpm-api.md §5): each runs its checks in the real order with the real texts, then
 * persists the coordinator row, registers the run and answers 202; invitations go out afterwards.
 */
import { type Reply, json, jsonError } from '../../http/reply.js';
import { MeshError } from '../../mesh.js';
import { nowSeconds } from '../../time.js';
import { prefixOf } from '../keys.js';
import { DPM_VERSION, type DpmNode } from '../node.js';
import { cachedParty } from '../parties.js';
import type { PendingInvitation, RunRow } from '../types.js';
import type {
  AddPartyConfig,
  ChangeThresholdConfig,
  ContractDefinition,
  ContractsConfig,
  DarFile,
  DarsConfig,
  KickConfig,
  OnboardingConfig,
} from '../workflows/configs.js';
import { startCoordinator } from '../workflows/coordinator.js';
import { defaultThreshold } from '../workflows/effects.js';
import { KINDS, type WorkflowKind } from '../workflows/kinds.js';
import { route, type DpmRoute } from './route.js';
import { requestShape } from '../wire.js';

const PUBLIC_KEY = /^0[23][0-9a-fA-F]{64}$/;

interface OnboardingRequest {
  party_id_prefix: string;
  peer_ids: string[];
  threshold?: number;
}
interface KickRequest {
  decentralized_party_id: string;
  participant_id: string;
  new_threshold: number;
  previous_threshold?: number;
}
interface AddPartyRequest {
  decentralized_party_id: string;
  new_participant_id: string;
  new_threshold: number;
  previous_threshold?: number;
}
interface ChangeThresholdRequest {
  decentralized_party_id: string;
  new_threshold: number;
  previous_threshold?: number;
}
interface ContractsRequest {
  decentralized_party_id: string;
  participant_ids: string[];
  participant_parties: string[];
  operator_party: string;
  contracts?: ContractDefinition[];
}
interface DarsRequest {
  dar_files: DarFile[];
  peer_ids?: string[];
}

export const startRoutes: DpmRoute[] = [
  route<OnboardingRequest>({
    method: 'POST',
    template: '/onboarding',
    access: 'admin',
    body: requestShape('POST /onboarding'),
    handle: async ({ node, body }) => startOnboarding(node, body),
  }),
  route<KickRequest>({
    method: 'POST',
    template: '/kick',
    access: 'admin',
    body: requestShape('POST /kick'),
    handle: async ({ node, body }) => startKick(node, body),
  }),
  route<AddPartyRequest>({
    method: 'POST',
    template: '/add-party',
    access: 'admin',
    body: requestShape('POST /add-party'),
    handle: async ({ node, body }) => startAddParty(node, body),
  }),
  route<ChangeThresholdRequest>({
    method: 'POST',
    template: '/change-threshold',
    access: 'admin',
    body: requestShape('POST /change-threshold'),
    handle: async ({ node, body }) => startChangeThreshold(node, body),
  }),
  route<ContractsRequest>({
    method: 'POST',
    template: '/contracts',
    access: 'admin',
    body: requestShape('POST /contracts'),
    handle: async ({ node, body }) => startContracts(node, body),
  }),
  route<DarsRequest>({
    method: 'POST',
    template: '/dars/distribute',
    access: 'admin',
    body: requestShape('POST /dars/distribute'),
    handle: async ({ node, body }) => startDars(node, body),
  }),
];

// ---- Onboarding ------------------------------------------------------------------------------------------------

async function startOnboarding(node: DpmNode, body: OnboardingRequest): Promise<Reply> {
  const prefix = body.party_id_prefix;
  const prefixProblem = validatePrefix(prefix);
  if (prefixProblem !== undefined) return jsonError(400, prefixProblem);

  const missing = await meshPreflight(node, body.peer_ids);
  if (missing.length > 0) {
    const summary = missing
      .map(
        (e) =>
          `[${e.kind === 'unreachable_from_coordinator' ? 'unreachable from coordinator' : 'mesh hole'}] ${e.from} → ${e.to}`,
      )
      .join('; ');
    return json(422, {
      error:
        'Could not verify a full peer mesh. Two failure modes are folded together: `unreachable from coordinator` ' +
        "(the coordinator cannot query that peer — it's missing from network config, has no/invalid public key, " +
        "didn't answer, or replied with an unparsable peer list — fix the coordinator's view of `to`, or `to` " +
        'itself), and `mesh hole` (peer `from` is reachable but does not have peer `to` in its peer list — add `to` ' +
        `to \`from\`'s network config). Edges: ${summary}`,
      missing_edges: missing,
    });
  }

  const owners = body.peer_ids.length + 1;
  if (body.threshold !== undefined && (body.threshold < 1 || body.threshold > owners)) {
    return jsonError(
      400,
      `threshold must be between 1 and ${owners} (invited peers + this node); got ${body.threshold}`,
    );
  }
  const existing = node.state.party_cache.find((r) => prefixOf(r.party.party_id) === prefix);
  if (existing !== undefined) {
    return jsonError(
      409,
      `A decentralized party with the prefix '${prefix}' already exists (${existing.party.party_id}). Choose a different prefix.`,
    );
  }
  const instance = `${prefix}-creation`;
  const config: OnboardingConfig = {
    party_id_prefix: prefix,
    instance_name: instance,
    threshold: body.threshold ?? null,
    _p: null,
  };
  return start(node, 'Onboarding', instance, config, body.peer_ids, undefined, {
    prefix,
    participants: body.peer_ids,
    new_threshold: body.threshold ?? defaultThreshold(owners),
  });
}

function validatePrefix(prefix: string): string | undefined {
  if (prefix === '') return 'Party prefix must not be empty';
  const length = [...prefix].length;
  if (length > 180) return `Party prefix must be at most 180 characters (got ${length})`;
  if (!/^[A-Za-z]/.test(prefix)) return 'Party prefix must start with a letter (a-z, A-Z)';
  const bad = [...prefix].find((c) => !/[A-Za-z0-9_-]/.test(c));
  if (bad !== undefined) {
    return `Party prefix contains invalid character ${rustChar(bad)}; only ASCII letters, digits, '-' and '_' are allowed`;
  }
  return undefined;
}

/** Rust's `{:?}` of a char */
function rustChar(c: string): string {
  const escapes: Record<string, string> = {
    '\n': '\\n',
    '\t': '\\t',
    '\r': '\\r',
    "'": "\\'",
    '\\': '\\\\',
    '\0': '\\0',
  };
  return `'${escapes[c] ?? c}'`;
}

interface MissingEdge {
  from: string;
  to: string;
  kind: 'unreachable_from_coordinator' | 'mesh_hole';
}

/** every selected peer must be reachable from the coordinator and list every other selected peer */
async function meshPreflight(node: DpmNode, peerIds: string[]): Promise<MissingEdge[]> {
  const missing: MissingEdge[] = [];
  const views = new Map<string, Set<string>>();
  for (const peerId of peerIds) {
    const key = node.peerKey(peerId);
    if (key === undefined || key === '' || !PUBLIC_KEY.test(key)) {
      missing.push({ from: node.participantId, to: peerId, kind: 'unreachable_from_coordinator' });
      continue;
    }
    try {
      const reply = await node.send(peerId, { type: 'list-peers' });
      if (reply.type !== 'peers') throw new MeshError('handshake_failed', 'unexpected reply');
      views.set(peerId, new Set(reply.participantIds));
    } catch (error) {
      if (!(error instanceof MeshError)) throw error;
      missing.push({ from: node.participantId, to: peerId, kind: 'unreachable_from_coordinator' });
    }
  }
  for (const a of peerIds) {
    const view = views.get(a);
    if (view === undefined) continue;
    for (const b of peerIds) {
      if (a !== b && !view.has(b)) missing.push({ from: a, to: b, kind: 'mesh_hole' });
    }
  }
  return missing;
}

// ---- Kick / AddParty / ChangeThreshold -------------------------------------------------------------------------

async function startKick(node: DpmNode, body: KickRequest): Promise<Reply> {
  const party = body.decentralized_party_id;
  const target = body.participant_id;
  if (target === node.participantId) return jsonError(400, 'Cannot kick yourself');
  const cached = cachedParty(node, party);
  const targetKey = cached?.participants.find((p) => p.participant_uid === target)?.owner_key;
  if (targetKey === undefined) {
    return jsonError(
      409,
      `Participant ${target} is not present in cached decentralized party ${party}, or its owner key has not yet been resolved. Try refreshing /decentralized-parties first.`,
    );
  }
  const cachedMembers = new Set(cached?.participants.map((p) => p.participant_uid) ?? []);
  let members = node.state.peers.map((p) => p.participant_id).filter((p) => cachedMembers.has(p));
  if (members.length === 0) members = node.state.peers.map((p) => p.participant_id);
  if (members.length < 2) {
    return jsonError(
      400,
      `Cannot kick: need at least 2 party members (this node + the target), have ${members.length}`,
    );
  }
  if (!members.includes(target))
    return jsonError(400, `Cannot kick ${target}: not a member of this decentralized party`);
  const max = members.length - 1;
  if (body.new_threshold < 1 || body.new_threshold > max) {
    return jsonError(
      400,
      `new_threshold must be between 1 and ${max} (party member count ${members.length}, minus the participant being kicked); got ${body.new_threshold}`,
    );
  }
  const instance = `${prefixOf(party)}-kick-${nowSeconds()}`;
  const invitees = members.filter((m) => m !== node.participantId && m !== target);
  const config: KickConfig = {
    decentralized_party_id: party,
    participant_id: target,
    namespace_fingerprint: targetKey,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    instance_name: instance,
    _p: null,
  };
  return start(node, 'Kick', instance, config, invitees, party, {
    dec_party_id: party,
    kicked_participant: target,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    participants: invitees,
  });
}

async function startAddParty(node: DpmNode, body: AddPartyRequest): Promise<Reply> {
  const party = body.decentralized_party_id;
  const newcomer = body.new_participant_id;
  if (newcomer === node.participantId) return jsonError(400, 'Cannot add yourself as the new participant');
  if (!node.isConfiguredPeer(newcomer))
    return jsonError(400, `Participant ${newcomer} is not a configured peer of this node`);
  const members = cachedParty(node, party)?.participants.map((p) => p.participant_uid) ?? [];
  if (members.length === 0)
    return jsonError(409, `No cached membership for ${party}. Try refreshing /decentralized-parties first.`);
  if (members.includes(newcomer))
    return jsonError(409, `Participant ${newcomer} is already a member of ${party}`);
  if (!members.includes(node.participantId)) {
    return jsonError(
      400,
      `This node is not a member of ${party}; only an existing member can coordinate adding one`,
    );
  }
  const max = members.length + 1;
  if (body.new_threshold < 1 || body.new_threshold > max) {
    return jsonError(
      400,
      `new_threshold must be between 1 and ${max} (party member count ${members.length}, plus the new member); got ${body.new_threshold}`,
    );
  }
  const instance = `${prefixOf(party)}-add-party-${nowSeconds()}`;
  const invitees = [...members.filter((m) => m !== node.participantId && node.isConfiguredPeer(m)), newcomer];
  const config: AddPartyConfig = {
    decentralized_party_id: party,
    new_participant_id: newcomer,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    instance_name: instance,
    _p: null,
  };
  return start(node, 'AddParty', instance, config, invitees, party, {
    dec_party_id: party,
    new_participant: newcomer,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    participants: [...invitees, node.participantId],
  });
}

async function startChangeThreshold(node: DpmNode, body: ChangeThresholdRequest): Promise<Reply> {
  const party = body.decentralized_party_id;
  const members = cachedParty(node, party)?.participants.map((p) => p.participant_uid) ?? [];
  if (members.length === 0)
    return jsonError(409, `No cached membership for ${party}. Try refreshing /decentralized-parties first.`);
  if (!members.includes(node.participantId)) {
    return jsonError(
      400,
      `This node is not a member of ${party}; only an existing member can coordinate a threshold change`,
    );
  }
  if (members.length < 2)
    return jsonError(400, `Cannot change threshold: ${party} has only ${members.length} member(s)`);
  if (body.new_threshold < 1 || body.new_threshold > members.length) {
    return jsonError(
      400,
      `new_threshold must be between 1 and ${members.length} (party member count); got ${body.new_threshold}`,
    );
  }
  const instance = `${prefixOf(party)}-change-threshold-${nowSeconds()}`;
  const invitees = members.filter((m) => m !== node.participantId);
  const config: ChangeThresholdConfig = {
    decentralized_party_id: party,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    instance_name: instance,
    _p: null,
  };
  return start(node, 'ChangeThreshold', instance, config, invitees, party, {
    dec_party_id: party,
    new_threshold: body.new_threshold,
    previous_threshold: body.previous_threshold ?? 0,
    participants: [...invitees, node.participantId],
  });
}

// ---- Contracts / Dars ------------------------------------------------------------------------------------------

async function startContracts(node: DpmNode, body: ContractsRequest): Promise<Reply> {
  const party = body.decentralized_party_id;
  const instance = `${prefixOf(party)}-contracts-${nowSeconds()}`;
  const invitees = body.participant_ids.filter((p) => p !== node.participantId && node.isConfiguredPeer(p));
  const contracts = body.contracts ?? [];
  const config: ContractsConfig = {
    decentralized_party_id: party,
    participant_ids: body.participant_ids,
    participant_parties: body.participant_parties,
    operator_party: body.operator_party,
    contracts,
    instance_name: instance,
  };
  return start(node, 'Contracts', instance, config, invitees, party, {
    dec_party_id: party,
    participants: invitees,
    package_names: [...new Set(contracts.map((c) => c.name))].sort(),
  });
}

async function startDars(node: DpmNode, body: DarsRequest): Promise<Reply> {
  const peers = body.peer_ids ?? [];
  if (peers.length === 0) return jsonError(400, 'peer_ids must contain at least one peer');
  const instance = `dars-distribute-${nowSeconds()}`;
  const config: DarsConfig = { dar_files: body.dar_files, instance_name: instance, peer_ids: peers };
  return start(node, 'Dars', instance, config, peers, undefined, {
    dar_filenames: body.dar_files.map((f) => f.filename),
    participants: peers,
  });
}

// ---- common ----------------------------------------------------------------------------------------------------

type InvitationFields = Omit<
  PendingInvitation,
  'id' | 'received_at' | 'invitation_type' | 'coordinator_pubkey' | 'coordinator_name' | 'workflow_instance'
>;

/** the common 409 checks (same party, version gate, duplicate instance), then persist, register and 202 */
async function start(
  node: DpmNode,
  kind: WorkflowKind,
  instance: string,
  config: object,
  invitees: string[],
  partyId: string | undefined,
  invitation: InvitationFields,
): Promise<Reply> {
  const refusal = startRefusal(node, instance, partyId);
  if (refusal !== undefined) return refusal;
  // Reserved before the first await: a second start of this instance or party meanwhile is refused above.
  const keys = [`instance:${instance}`, ...(partyId !== undefined ? [`party:${partyId}`] : [])];
  for (const key of keys) node.starting.set(key, kind);
  try {
    return await startReserved(node, kind, instance, config, invitees, partyId, invitation);
  } finally {
    for (const key of keys) node.starting.delete(key);
  }
}

/** The 409 a start gets when its instance or its party already has a workflow running or starting. */
function startRefusal(node: DpmNode, instance: string, partyId: string | undefined): Reply | undefined {
  if (node.coordinators.has(instance) || node.starting.has(`instance:${instance}`))
    return jsonError(409, `A workflow with instance ${instance} is already running`);
  if (partyId === undefined) return undefined;
  const busy = node.state.runs.find((r) => r.status === 'inprogress' && r.dec_party_id === partyId);
  const starting = node.starting.get(`party:${partyId}`);
  if (busy === undefined && starting === undefined) return undefined;
  const what = busy
    ? `a ${busy.kind} workflow in flight (run ${busy.instance_name})`
    : `a ${String(starting)} workflow starting`;
  return jsonError(409, `Party ${partyId} already has ${what}; wait for it to finish or cancel it first`);
}

async function startReserved(
  node: DpmNode,
  kind: WorkflowKind,
  instance: string,
  config: object,
  invitees: string[],
  partyId: string | undefined,
  invitation: InvitationFields,
): Promise<Reply> {
  const blocking = await versionGate(node, invitees);
  if (blocking.length > 0) {
    return jsonError(
      409,
      `Cannot start the workflow: every invited peer must run dec-party-manager >= ${DPM_VERSION} (concurrent workflows changed the Noise wire format, older builds cannot participate). Blocking peer(s): ${blocking.join('; ')}. Upgrade or deselect them and retry.`,
    );
  }
  const now = nowSeconds();
  const def = KINDS[kind];
  const row: RunRow = {
    instance_name: instance,
    kind,
    role: 'Coordinator',
    status: 'inprogress',
    current_step: def.steps[0]?.name ?? 'WaitingForPeers',
    step_index: 0,
    step_total: def.steps.length,
    config_json: JSON.stringify(config),
    expected_peers: invitees,
    completed_peers: [],
    ...(partyId !== undefined ? { dec_party_id: partyId } : {}),
    dismissed: false,
    created_at: now,
    updated_at: now,
  };
  node.state.runs = [...node.state.runs.filter((r) => r.instance_name !== instance), row];
  node.save();
  startCoordinator(node, row, {
    ...invitation,
    invitation_type: kind,
    coordinator_pubkey: node.publicKey,
    coordinator_name: null,
    workflow_instance: instance,
  });
  return json(202, { status: 'inprogress', message: def.startedMessage, instance_name: instance });
}

/** every configured invitee with a valid key must answer Health with version ≥ 0.1.9 */
async function versionGate(node: DpmNode, invitees: string[]): Promise<string[]> {
  const results = await Promise.all(
    invitees.map(async (invitee) => {
      const key = node.peerKey(invitee);
      if (key === undefined || !PUBLIC_KEY.test(key)) return undefined;
      try {
        const reply = await node.send(invitee, { type: 'health' });
        if (reply.type !== 'health')
          return `${invitee} (reachable but reported no version (pre-0.1.9 build))`;
        return versionAtLeast(reply.version, DPM_VERSION)
          ? undefined
          : `${invitee} (running version ${reply.version})`;
      } catch (error) {
        if (!(error instanceof MeshError)) throw error;
        return `${invitee} (could not verify version: ${error.message})`;
      }
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}
