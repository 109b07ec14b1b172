/** GET /invitations and accept / decline (dpm-api.md §8). */
import { json, jsonError } from '../../http/reply.js';
import { acceptInvitation, declineInvitation } from '../workflows/peer.js';
import { route, type DpmRoute } from './route.js';
import { requestShape } from '../wire.js';

const actionShape = requestShape('POST /invitations/accept');

export const invitationRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/invitations',
    access: 'auth',
    handle: ({ node }) =>
      json(200, {
        invitations: node.state.invitations.map((card) => ({
          ...card,
          coordinator_name: node.peerByKey(card.coordinator_pubkey)?.name ?? null,
        })),
      }),
  }),
  route<{ id: string }>({
    method: 'POST',
    template: '/invitations/accept',
    access: 'admin',
    body: actionShape,
    handle: ({ node, body }) => {
      const outcome = acceptInvitation(node, body.id);
      return outcome.ok
        ? json(200, { message: 'Invitation accepted' })
        : jsonError(outcome.status, outcome.error);
    },
  }),
  route<{ id: string }>({
    method: 'POST',
    template: '/invitations/decline',
    access: 'admin',
    body: actionShape,
    handle: ({ node, body }) => {
      const outcome = declineInvitation(node, body.id);
      return outcome.ok
        ? json(200, { message: 'Invitation declined' })
        : jsonError(outcome.status, outcome.error);
    },
  }),
];
