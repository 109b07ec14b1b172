/**
 * The auth routes (dpm-api.md §9, §3): each configured party's token status and the rights its ledger user
 * really has on the participant (`member_party_act_as` … from the user's CanActAs / CanReadAs rights), a fresh
 * token per party, granting those rights with an administrator's client credentials, and finding the ledger user
 * (and its primary party) behind a set of credentials. Insecure mode answers with the mock principal and every
 * right, as the real server does.
 */
import { json, jsonError } from '../../http/reply.js';
import type { DpmNode } from '../node.js';
import { fetchPartyToken, keycloakTokenUrl, requestToken } from '../party-auth.js';
import { mockMemberParty, rightsOf } from '../party-ledger.js';
import {
  type DiscoverMemberPartyRequest,
  type GrantRightsRequest,
  discoverMemberPartyShape,
  grantRightsShape,
} from '../governance/wire.js';
import type { PartyCredentials } from '../types.js';
import { route, type DpmRoute } from './route.js';

const ALL_RIGHTS = {
  member_party_act_as: true,
  member_party_read_as: true,
  dec_party_act_as: true,
  dec_party_read_as: true,
};

/** the rights of the user a party's token names, or undefined when that user is not on the participant */
function rightsFor(node: DpmNode, subject: string, row: PartyCredentials): typeof ALL_RIGHTS | undefined {
  const participant = node.env.participant;
  if (participant.ledger.user(participant.participantId, subject) === undefined) return undefined;
  return rightsOf(node, subject, row.member_party_id, row.dec_party_id);
}

async function authStatus(node: DpmNode): Promise<unknown[]> {
  const rows = node.state.party_credentials;
  if (node.env.auth.insecure) {
    if (rows.length === 0) {
      const member = mockMemberParty(node);
      return [
        {
          dec_party_id: member,
          member_party_id: member,
          user_id: 'ledger-api-user',
          status: { status: 'mock' },
        },
      ];
    }
    return rows.map((r) => ({
      dec_party_id: r.dec_party_id,
      member_party_id: r.member_party_id,
      user_id: r.user_id,
      status: { status: 'mock' },
      rights: ALL_RIGHTS,
    }));
  }
  return Promise.all(
    rows.map(async (r) => {
      const token = await fetchPartyToken(r);
      const where =
        r.auth0_domain !== undefined
          ? { auth0_domain: r.auth0_domain, auth0_audience: r.auth0_audience }
          : { keycloak_url: r.keycloak_url, keycloak_realm: r.keycloak_realm };
      const rights = token.ok ? rightsFor(node, token.subject, r) : undefined;
      return {
        dec_party_id: r.dec_party_id,
        member_party_id: r.member_party_id,
        user_id: r.user_id,
        ...where,
        status: token.ok ? { status: 'authenticated' } : { status: 'failed', error: token.error },
        ...(rights !== undefined ? { rights } : {}),
      };
    }),
  );
}

async function authTest(node: DpmNode): Promise<unknown[]> {
  if (node.env.auth.insecure) return [{ party_id: mockMemberParty(node), success: true }];
  return Promise.all(
    node.state.party_credentials.map(async (r) => {
      const token = await fetchPartyToken(r);
      return token.ok
        ? { party_id: r.dec_party_id, success: true }
        : { party_id: r.dec_party_id, success: false, error: token.error };
    }),
  );
}

async function grantRights(node: DpmNode, body: GrantRightsRequest) {
  const adminClientId = body.admin_client_id.trim();
  const adminSecret = body.admin_client_secret.trim();
  if (adminClientId === '' || adminSecret === '')
    return jsonError(400, 'admin_client_id and admin_client_secret are required');
  if (node.env.auth.insecure) return json(200, { rights: ALL_RIGHTS });
  const row = node.state.party_credentials.find((c) => c.dec_party_id === body.dec_party_id);
  if (row === undefined) return jsonError(404, `Party ${body.dec_party_id} is not configured`);
  const party = await fetchPartyToken(row);
  if (!party.ok) return jsonError(500, `Failed to get auth token: ${party.error}`);
  node.env.noteCaller('party', party.subject);
  if (row.auth0_domain !== undefined) {
    // the sandbox's identity provider is Keycloak-style only: an Auth0 tenant cannot be reached from it
    return jsonError(401, 'Admin Auth0 auth failed');
  }
  if (row.keycloak_url.trim() === '' || row.keycloak_realm.trim() === '') {
    return jsonError(
      400,
      `Party ${row.dec_party_id} has neither an Auth0 tenant nor a Keycloak realm configured, so there is no token endpoint to mint an admin token from`,
    );
  }
  const admin = await requestToken(
    keycloakTokenUrl(row.keycloak_url, row.keycloak_realm),
    new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: adminClientId,
      client_secret: adminSecret,
    }),
  );
  if (!admin.ok) {
    node.env.log(`${node.name}: grant-rights admin token: ${admin.error}`);
    return jsonError(401, 'Admin Keycloak auth failed');
  }
  node.env.noteCaller('party', admin.subject);
  const participant = node.env.participant;
  const ledger = participant.ledger;
  const adminUser = ledger.user(participant.participantId, admin.subject);
  const target = ledger.user(participant.participantId, party.subject);
  const isAdmin =
    adminUser?.rights.some((r) => r.kind === 'ParticipantAdmin') === true && !adminUser.isDeactivated;
  if (!isAdmin || target === undefined) {
    node.env.log(
      `${node.name}: grant-rights refused: ${isAdmin ? `user ${party.subject} does not exist` : `${admin.subject} is not a participant administrator`}`,
    );
    return jsonError(500, 'Failed to grant rights');
  }
  const wanted = [
    { kind: 'CanActAs' as const, party: row.member_party_id },
    { kind: 'CanReadAs' as const, party: row.member_party_id },
    { kind: 'CanActAs' as const, party: row.dec_party_id },
    { kind: 'CanReadAs' as const, party: row.dec_party_id },
  ];
  const missing = wanted.filter((w) => !target.rights.some((r) => r.kind === w.kind && r.party === w.party));
  if (missing.length > 0)
    ledger.putUser(participant.participantId, { ...target, rights: [...target.rights, ...missing] });
  return json(200, { rights: rightsOf(node, party.subject, row.member_party_id, row.dec_party_id) });
}

async function discoverMemberParty(node: DpmNode, body: DiscoverMemberPartyRequest) {
  const nonEmpty = (value: string | undefined): string | undefined =>
    value !== undefined && value.trim() !== '' ? value : undefined;
  if (nonEmpty(body.auth0_domain) !== undefined) {
    if (nonEmpty(body.auth0_audience) === undefined) return jsonError(400, 'auth0_audience is required');
    if (nonEmpty(body.auth0_client_id) === undefined) return jsonError(400, 'auth0_client_id is required');
    if (nonEmpty(body.auth0_client_secret) === undefined)
      return jsonError(400, 'auth0_client_secret is required');
    return jsonError(502, 'Auth0 auth failed');
  }
  const url = body.keycloak_url ?? '';
  const realm = body.keycloak_realm ?? '';
  const clientId = body.keycloak_client_id ?? '';
  if (url.trim() === '' || realm.trim() === '' || clientId.trim() === '') {
    return jsonError(
      400,
      'keycloak_url, keycloak_realm, and keycloak_client_id are required (or supply auth0_domain to use the Auth0 path)',
    );
  }
  const form = new URLSearchParams({ client_id: clientId });
  const secret = nonEmpty(body.keycloak_client_secret);
  const username = nonEmpty(body.keycloak_username);
  const password = nonEmpty(body.keycloak_password);
  if (secret !== undefined) {
    form.set('grant_type', 'client_credentials');
    form.set('client_secret', secret);
  } else if (username !== undefined && password !== undefined) {
    form.set('grant_type', 'password');
    form.set('username', username);
    form.set('password', password);
  } else {
    return jsonError(
      400,
      'Provide either keycloak_client_secret, keycloak_username + keycloak_password, or the auth0_* fields',
    );
  }
  const token = await requestToken(keycloakTokenUrl(url, realm), form);
  if (!token.ok) {
    node.env.log(`${node.name}: member-party discovery: ${token.error}`);
    return jsonError(502, 'Keycloak auth failed');
  }
  const participant = node.env.participant;
  const user = participant.ledger.user(participant.participantId, token.subject);
  if (user === undefined) return jsonError(500, 'Canton GetUser failed');
  const description = user.annotations['description'];
  return json(200, {
    user_id: user.id,
    ...(user.primaryParty ? { primary_party: user.primaryParty } : {}),
    ...(description ? { description } : {}),
  });
}

export const authRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/auth/status',
    access: 'auth',
    handle: async ({ node }) => json(200, { parties: await authStatus(node) }),
  }),
  route({
    method: 'POST',
    template: '/auth/test',
    access: 'auth',
    handle: async ({ node }) => json(200, { results: await authTest(node) }),
  }),
  route<GrantRightsRequest>({
    method: 'POST',
    template: '/auth/grant-rights',
    access: 'admin',
    body: grantRightsShape,
    handle: ({ node, body }) => grantRights(node, body),
  }),
  route<DiscoverMemberPartyRequest>({
    method: 'POST',
    template: '/party-config/discover-member-party',
    access: 'admin',
    body: discoverMemberPartyShape,
    handle: ({ node, body }) => discoverMemberParty(node, body),
  }),
];
