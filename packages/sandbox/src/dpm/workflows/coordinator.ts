/**
 * The coordinator side of a workflow run (dpm-api.md §7): invitations go out after the 202, then a short init
 * window (polls are answered 503), then the state machine walks the kind's steps. Gates: WaitingForPeers waits
 * for `quorum` peers to have polled; peer steps wait for `quorum` peers to complete the step (completed_peers is
 * persisted and reset at each advance); coordinator steps do their Canton work. At Complete the coordinator
 * answers Disconnect for a while, then marks the run completed and forgets it.
 */
import { CantonError } from '../../canton.js';
import { type CoordinatorMessage, MeshError, type MeshReply } from '../../mesh.js';
import { Aborted, nowSeconds, sleep } from '../../time.js';
import { DarUploadError } from '../dars.js';
import type { DpmNode } from '../node.js';
import { cachedParty, refreshPartyCache } from '../parties.js';
import type { CoordinatorRun, PendingInvitation, RunRow } from '../types.js';
import type { DarsConfig } from './configs.js';
import { KINDS } from './kinds.js';
import { StepFailure, completionWork, contractsAuthProblem, coordinatorWork } from './effects.js';

/** Registers and starts a new run whose row was just persisted; invitations follow the HTTP 202. */
export function startCoordinator(
  node: DpmNode,
  row: RunRow,
  invitation: Omit<PendingInvitation, 'id' | 'received_at'>,
): void {
  const run = register(node, row, 'init');
  spawnRun(node, run, async (signal) => {
    await sleep(node.timings.inviteDelayMs, signal);
    await sendInvitations(node, row, invitation, signal);
    await sleep(node.timings.coordinatorStartDelayMs, signal);
    run.phase = 'running';
    await drive(node, run, row, signal);
  });
}

/** After a restart or a retry: the run continues at its persisted step; invitations are not sent again. */
export function resumeCoordinator(node: DpmNode, row: RunRow): void {
  const run = register(node, row, 'running');
  spawnRun(node, run, (signal) => drive(node, run, row, signal));
}

function register(node: DpmNode, row: RunRow, phase: CoordinatorRun['phase']): CoordinatorRun {
  const run: CoordinatorRun = {
    instance: row.instance_name,
    kind: row.kind,
    status: 'inprogress',
    phase,
    connected: new Set(),
    quorum: quorumOf(node, row),
    abort: new AbortController(),
  };
  node.coordinators.set(row.instance_name, run);
  return run;
}

/** all invitees, or for Kick/Contracts clamp(M−1, 1, n) from the cached threshold (0 for a 1-of-N contracts run) */
function quorumOf(node: DpmNode, row: RunRow): number {
  const n = row.expected_peers.length;
  if (KINDS[row.kind].quorum === 'all' || row.dec_party_id === undefined) return n;
  const threshold = cachedParty(node, row.dec_party_id)?.threshold;
  if (threshold === undefined) return n;
  if (row.kind === 'Contracts' && threshold === 1) return 0;
  return Math.min(Math.max(threshold - 1, 1), n);
}

function spawnRun(node: DpmNode, run: CoordinatorRun, task: (signal: AbortSignal) => Promise<void>): void {
  const signal = AbortSignal.any([node.signal, run.abort.signal]);
  node.spawn(`coordinator ${run.instance}`, async () => {
    try {
      await task(signal);
    } catch (error) {
      if (error instanceof Aborted || signal.aborted) return;
      const row = node.run(run.instance);
      const text = error instanceof Error ? error.message : String(error);
      if (row !== undefined)
        node.updateRun(row, { status: 'failed', error: `Coordinator workflow failed: ${text}` });
      run.status = 'failed';
      if (node.coordinators.get(run.instance) === run) node.coordinators.delete(run.instance);
      if (!(error instanceof StepFailure || error instanceof CantonError || error instanceof DarUploadError))
        throw error;
    }
  });
}

async function sendInvitations(
  node: DpmNode,
  row: RunRow,
  invitation: Omit<PendingInvitation, 'id' | 'received_at'>,
  signal: AbortSignal,
): Promise<void> {
  for (const invitee of row.expected_peers) {
    if (signal.aborted) throw new Aborted();
    // invitees missing from the peers table (or without a key) are skipped silently; the run still waits for them
    if (node.peerKey(invitee) === undefined) continue;
    const card: PendingInvitation = {
      ...invitation,
      id: `${KINDS[row.kind].lowercase}-${node.publicKey.slice(0, 16)}-${row.instance_name}`,
      received_at: nowSeconds(),
    };
    try {
      await node.send(invitee, { type: 'invite', invitation: card });
    } catch (error) {
      if (!(error instanceof MeshError)) throw error;
      node.env.log(`${node.name}: invite to ${invitee} for ${row.instance_name} failed: ${error.message}`);
    }
  }
}

async function drive(node: DpmNode, run: CoordinatorRun, row: RunRow, signal: AbortSignal): Promise<void> {
  const steps = KINDS[row.kind].steps;
  if (row.kind === 'Contracts') {
    const problem = contractsAuthProblem(node, row);
    if (problem !== undefined) throw new StepFailure(problem);
  }
  for (;;) {
    const step = steps[row.step_index];
    if (step === undefined) throw new StepFailure(`Resume failed: invalid config`);
    const restart = node.env.faults.takeRestartAt(node.name, row.kind, step.name);
    if (restart !== undefined) {
      node.env.requestRestart(node.name, restart.downMs);
      throw new Aborted();
    }
    switch (step.actor) {
      case 'gate':
        await until(() => run.connected.size >= run.quorum, node, signal);
        break;
      case 'peers':
        await until(() => row.completed_peers.length >= run.quorum, node, signal);
        break;
      case 'both':
        await coordinatorStep(node, row, step.name, signal);
        await until(() => row.completed_peers.length >= run.quorum, node, signal);
        break;
      case 'coordinator':
        await coordinatorStep(node, row, step.name, signal);
        break;
      case 'complete': {
        completionWork(node, row);
        if (row.kind === 'Onboarding' || row.kind === 'Contracts') refreshPartyCache(node, '');
        run.phase = 'linger';
        await sleep(
          KINDS[row.kind].linger === 'long' ? node.timings.lingerLongMs : node.timings.lingerShortMs,
          signal,
        );
        // status writes are unconditional: a declined Kick/Contracts run that still reached quorum ends completed
        node.updateRun(row, { status: 'completed', error: undefined });
        run.status = 'completed';
        node.coordinators.delete(run.instance);
        return;
      }
    }
    const next = steps[row.step_index + 1];
    if (next === undefined) throw new StepFailure('Resume failed: invalid config');
    node.updateRun(row, { current_step: next.name, step_index: row.step_index + 1, completed_peers: [] });
  }
}

async function coordinatorStep(node: DpmNode, row: RunRow, step: string, signal: AbortSignal): Promise<void> {
  await sleep(node.timings.coordinatorStepMs, signal);
  await coordinatorWork(node, row, step);
}

async function until(condition: () => boolean, node: DpmNode, signal: AbortSignal): Promise<void> {
  while (!condition()) await sleep(node.timings.gateTickMs, signal);
}

/** decline, poll and step-done messages from peers, routed by the run's instance name */
export function handleCoordinatorMessage(
  node: DpmNode,
  from: string,
  message: CoordinatorMessage,
): MeshReply {
  const run = node.coordinators.get(message.instance);
  const row = node.run(message.instance);
  if (run === undefined || row === undefined || run.phase === 'init' || !row.expected_peers.includes(from)) {
    return { type: 'unavailable' };
  }
  switch (message.type) {
    case 'decline': {
      if (message.kind !== row.kind) return { type: 'unavailable' };
      node.updateRun(row, { status: 'failed', error: `Peer ${from} declined the invitation` });
      for (const other of row.expected_peers.filter((p) => p !== from)) {
        node.spawn(`CancelInvite to ${other}`, async () => {
          await node
            .send(other, { type: 'cancel-invite', instance: row.instance_name })
            .catch(logMeshError(node, other));
        });
      }
      return { type: 'ack' };
    }
    case 'poll': {
      run.connected.add(from);
      if (run.phase === 'linger') return { type: 'disconnect' };
      const step = KINDS[row.kind].steps[row.step_index];
      if ((step?.actor === 'peers' || step?.actor === 'both') && !row.completed_peers.includes(from)) {
        const darFiles =
          row.kind === 'Dars' ? (JSON.parse(row.config_json) as DarsConfig).dar_files : undefined;
        return {
          type: 'command',
          step: step.name,
          stepIndex: row.step_index,
          ...(darFiles ? { darFiles } : {}),
        };
      }
      return { type: 'wait' };
    }
    case 'step-done': {
      if (row.current_step === message.step && !row.completed_peers.includes(from)) {
        node.updateRun(row, { completed_peers: [...row.completed_peers, from] });
      }
      return { type: 'ack' };
    }
  }
}

/**
 * Cancels a registered run: `cancelled` is persisted before the task is stopped, then the invitees are told
 * (instance-scoped CancelInvite, best effort).
 */
export function cancelRun(node: DpmNode, run: CoordinatorRun, row: RunRow): void {
  node.updateRun(row, { status: 'cancelled', error: undefined });
  run.status = 'cancelled';
  run.abort.abort();
  node.coordinators.delete(run.instance);
  broadcastCancel(node, row);
}

export function broadcastCancel(node: DpmNode, row: RunRow): void {
  for (const invitee of row.expected_peers) {
    node.spawn(`CancelInvite to ${invitee}`, async () => {
      await node
        .send(invitee, { type: 'cancel-invite', instance: row.instance_name })
        .catch(logMeshError(node, invitee));
    });
  }
}

export function broadcastRetry(node: DpmNode, row: RunRow): void {
  for (const invitee of row.expected_peers) {
    node.spawn(`RetryWorkflow to ${invitee}`, async () => {
      await node
        .send(invitee, { type: 'retry', instance: row.instance_name })
        .catch(logMeshError(node, invitee));
    });
  }
}

function logMeshError(node: DpmNode, to: string): (error: unknown) => undefined {
  return (error: unknown) => {
    if (!(error instanceof MeshError)) throw error;
    node.env.log(`${node.name}: message to ${to} failed: ${error.message}`);
    return undefined;
  };
}
