/** The workflows' side of a DPM node (NodeWorkflows of dpm/node.ts), handed to each node the host builds. */
import type { NodeWorkflows } from '../node.js';
import { refreshPartyCache } from '../parties.js';
import { handleCoordinatorMessage, resumeCoordinator } from './coordinator.js';
import { handleCancelInvite, handleInvite, handleRetry, startPeerLoop } from './peer.js';

export const NODE_WORKFLOWS: NodeWorkflows = {
  resume: (node, row) =>
    row.role === 'Coordinator' ? resumeCoordinator(node, row) : startPeerLoop(node, row),
  refreshPartyCache,
  invite: handleInvite,
  cancelInvite: handleCancelInvite,
  retry: handleRetry,
  coordinatorMessage: handleCoordinatorMessage,
};
