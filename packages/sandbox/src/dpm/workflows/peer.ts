/**
 * The invitee side of a workflow run (dpm-api.md §7.2, §7.3, §8): pending invitations (persisted, at most 16 per
 * coordinator), accept (creates the peer row and starts its loop), decline (notifies the coordinator, 5 attempts),
 * and the peer loop that polls the coordinator, executes the commanded steps and completes on Disconnect.
 */
import { MeshError } from '../../mesh.js';
import { Aborted, nowSeconds, sleep } from '../../time.js';
import { DarUploadError } from '../dars.js';
import type { DpmNode } from '../node.js';
import type { PendingInvitation, RunRow } from '../types.js';
import { peerConfigJson } from './configs.js';
import { StepFailure, peerWork } from './effects.js';
import { KINDS } from './kinds.js';

const TRANSPORT_FAILURES = 3;
const UNAVAILABLE_FAILURES = 4;
const STEP_FAILURES = 6;
const DECLINE_ATTEMPTS = 5;
const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;

/** the peer row's step for a coordinator step (§7.1 "Peer-row step mapping") */
function peerStepOf(row: RunRow, step: string): { name: string; index: number } | undefined {
  const steps = KINDS[row.kind].steps;
  const index = steps.findIndex((s) => s.name === step);
  const def = steps[index];
  if (def === undefined || (def.actor !== 'peers' && def.actor !== 'both')) return undefined;
  return { name: def.name, index };
}

export function handleInvite(node: DpmNode, invitation: PendingInvitation): void {
  const card = { ...invitation, received_at: nowSeconds() };
  if (node.env.faults.declines(node.name, card.invitation_type)) {
    node.env.log(`${node.name}: declining ${card.id} on arrival (fault)`);
    notifyDecline(node, card);
    return;
  }
  node.addInvitation(card);
}

export type InvitationOutcome = { ok: true } | { ok: false; status: 404 | 409; error: string };

export function acceptInvitation(node: DpmNode, id: string): InvitationOutcome {
  const card = takeInvitation(node, id);
  if (card === undefined) return { ok: false, status: 404, error: 'Invitation not found' };
  const instance = card.workflow_instance ?? '';
  if (
    instance !== '' &&
    node.state.runs.some(
      (r) =>
        r.role === 'Peer' &&
        r.status === 'inprogress' &&
        r.coordinator_instance === instance &&
        r.coordinator_pubkey === card.coordinator_pubkey,
    )
  ) {
    return {
      ok: false,
      status: 409,
      error: `Already participating in workflow run ${instance} from this coordinator`,
    };
  }
  const now = nowSeconds();
  const kind = KINDS[card.invitation_type];
  const row: RunRow = {
    instance_name: `peer-${kind.lowercase}-${card.coordinator_pubkey.slice(0, 16)}-${instance}`,
    kind: card.invitation_type,
    role: 'Peer',
    status: 'inprogress',
    current_step: 'Active',
    step_index: 0,
    step_total: kind.steps.length,
    config_json: peerConfigJson(card),
    coordinator_pubkey: card.coordinator_pubkey,
    coordinator_instance: instance,
    expected_peers: card.participants ?? [],
    completed_peers: [],
    ...(card.dec_party_id !== undefined ? { dec_party_id: card.dec_party_id } : {}),
    dismissed: false,
    created_at: now,
    updated_at: now,
  };
  node.state.runs = node.state.runs.filter((r) => r.instance_name !== row.instance_name);
  node.state.runs.push(row);
  node.save();
  startPeerLoop(node, row);
  return { ok: true };
}

export function declineInvitation(node: DpmNode, id: string): InvitationOutcome {
  const card = takeInvitation(node, id);
  if (card === undefined) return { ok: false, status: 404, error: 'Invitation not found' };
  notifyDecline(node, card);
  return { ok: true };
}

function takeInvitation(node: DpmNode, id: string): PendingInvitation | undefined {
  const card = node.state.invitations.find((i) => i.id === id);
  if (card === undefined) return undefined;
  node.state.invitations = node.state.invitations.filter((i) => i !== card);
  node.save();
  return card;
}

/** best effort, in the background: the coordinator answers 503 during its init window, so try a few times */
function notifyDecline(node: DpmNode, card: PendingInvitation): void {
  const coordinator = node.peerByKey(card.coordinator_pubkey);
  if (coordinator === undefined) {
    node.env.log(
      `${node.name}: cannot notify the coordinator of a decline: no peer with key ${card.coordinator_pubkey}`,
    );
    return;
  }
  node.spawn(`decline of ${card.id}`, async (signal) => {
    for (let attempt = 1; attempt <= DECLINE_ATTEMPTS; attempt++) {
      try {
        const reply = await node.send(coordinator.participant_id, {
          type: 'decline',
          kind: card.invitation_type,
          instance: card.workflow_instance ?? '',
        });
        if (reply.type === 'ack') return;
      } catch (error) {
        if (!(error instanceof MeshError)) throw error;
      }
      await sleep(node.timings.declineRetryMs, signal);
    }
    node.env.log(`${node.name}: gave up notifying ${coordinator.name} of the decline of ${card.id}`);
  });
}

/** CancelInvite from a coordinator: drop its card for that run, cancel the in-progress peer row */
export function handleCancelInvite(node: DpmNode, from: string, instance: string): void {
  const key = node.peerKey(from)?.toLowerCase();
  const matches = (pubkey: string | undefined): boolean => pubkey?.toLowerCase() === key;
  const before = node.state.invitations.length;
  node.state.invitations = node.state.invitations.filter(
    (i) => !(i.workflow_instance === instance && matches(i.coordinator_pubkey)),
  );
  if (node.state.invitations.length !== before) node.save();
  for (const row of node.state.runs) {
    if (
      row.role === 'Peer' &&
      row.status === 'inprogress' &&
      row.coordinator_instance === instance &&
      matches(row.coordinator_pubkey)
    ) {
      node.updateRun(row, { status: 'cancelled', error: 'Coordinator cancelled the workflow' });
    }
  }
}

/** RetryWorkflow from a coordinator: its failed peer rows for that run go back to in progress */
export function handleRetry(node: DpmNode, from: string, instance: string): void {
  const key = node.peerKey(from)?.toLowerCase();
  for (const row of node.state.runs) {
    if (
      row.role === 'Peer' &&
      row.status === 'failed' &&
      row.coordinator_instance === instance &&
      row.coordinator_pubkey?.toLowerCase() === key
    ) {
      node.updateRun(row, { status: 'inprogress', error: undefined });
      startPeerLoop(node, row);
    }
  }
}

export function startPeerLoop(node: DpmNode, row: RunRow): void {
  node.peerLoops.get(row.instance_name)?.abort();
  const controller = new AbortController();
  node.peerLoops.set(row.instance_name, controller);
  const signal = AbortSignal.any([node.signal, controller.signal]);
  node.spawn(`peer loop ${row.instance_name}`, async () => {
    try {
      await peerLoop(node, row, signal);
    } finally {
      if (node.peerLoops.get(row.instance_name) === controller) node.peerLoops.delete(row.instance_name);
    }
  });
}

async function peerLoop(node: DpmNode, row: RunRow, signal: AbortSignal): Promise<void> {
  const fail = (error: string): void => node.updateRun(row, { status: 'failed', error });
  const coordinator = node.peerByKey(row.coordinator_pubkey ?? '');
  if (coordinator === undefined) {
    fail('Coordinator not found in peer database');
    return;
  }
  const timings = node.timings;
  let transportFailures = 0;
  let unavailable = 0;
  let stepFailures = 0;
  for (;;) {
    if (signal.aborted) throw new Aborted();
    let reply;
    try {
      reply = await node.send(coordinator.participant_id, {
        type: 'poll',
        instance: row.coordinator_instance ?? '',
      });
      if (reply.type === 'command' && bundleBytes(reply.darFiles) > MAX_BUNDLE_BYTES) {
        throw new MeshError('tcp_connect_failed', 'DAR bundle larger than 16 MiB');
      }
    } catch (error) {
      if (!(error instanceof MeshError)) throw error;
      unavailable = 0;
      if (++transportFailures >= TRANSPORT_FAILURES) {
        fail('Peer failed: persistent communication errors with coordinator');
        return;
      }
      await sleep(timings.peerTransportRetryMs, signal);
      continue;
    }
    transportFailures = 0;
    if (reply.type === 'unavailable') {
      if (++unavailable >= UNAVAILABLE_FAILURES) {
        fail('Peer failed: coordinator has no active workflow (cancelled or dismissed)');
        return;
      }
      await sleep(timings.peerUnavailableRetryMs, signal);
      continue;
    }
    unavailable = 0;
    if (reply.type === 'disconnect') {
      const steps = KINDS[row.kind].steps;
      node.updateRun(row, { status: 'completed', current_step: 'Complete', step_index: steps.length - 1 });
      return;
    }
    if (reply.type === 'command' && row.status === 'inprogress') {
      const step = peerStepOf(row, reply.step);
      if (step !== undefined && (row.current_step !== step.name || row.step_index !== step.index)) {
        node.updateRun(row, { current_step: step.name, step_index: step.index });
      }
      await sleep(timings.peerStepMs, signal);
      try {
        peerWork(node, row, reply.step, reply.darFiles);
        stepFailures = 0;
      } catch (error) {
        const counted = !(error instanceof DarUploadError);
        if (!(error instanceof StepFailure || error instanceof DarUploadError)) throw error;
        node.env.log(`${node.name}: step ${reply.step} of ${row.instance_name} failed: ${error.message}`);
        if (counted && ++stepFailures >= STEP_FAILURES) {
          fail(`Aborting peer: ${STEP_FAILURES} consecutive step failures: ${error.message}`);
          return;
        }
        await sleep(timings.peerPollMs, signal);
        continue;
      }
      try {
        await node.send(coordinator.participant_id, {
          type: 'step-done',
          instance: row.coordinator_instance ?? '',
          step: reply.step,
        });
      } catch (error) {
        if (!(error instanceof MeshError)) throw error;
        // the next poll finds out whether the coordinator is still there
      }
      continue;
    }
    await sleep(timings.peerPollMs, signal);
  }
}

function bundleBytes(files: Array<{ data: string }> | undefined): number {
  return (files ?? []).reduce((sum, f) => sum + Math.floor((f.data.length * 3) / 4), 0);
}
