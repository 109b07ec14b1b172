/**
 * Party, user and package management of one participant (canton-json-api.md §3): party allocation (hosted here,
 * optionally granting a user the right to act as it), users and their rights, and the package store the DPM
 * nodes share (an upload here shows up in the DPM's vetted lists and the other way round).
 */
import { CantonError } from '../../canton.js';
import { json } from '../../http/reply.js';
import type { Right, UserRecord } from '../entries.js';
import { errors } from '../errors.js';
import { Reader, intQuery } from './body.js';
import type { Caller, LedgerNodeEnv, LedgerRoute } from './context.js';

const RIGHT_KINDS = [
  'CanActAs',
  'CanReadAs',
  'CanExecuteAs',
  'CanExecuteAsAnyParty',
  'CanReadAsAnyParty',
  'IdentityProviderAdmin',
  'ParticipantAdmin',
  'Empty',
] as const;

const PARTY_HINT = /^[A-Za-z0-9:_ -]{1,255}$/;

/** Why a string is no Daml-LF party (letters, digits, `:`, `-`, `_` and space, at most 255), as Canton says it. */
function lfPartyProblem(party: string): string | undefined {
  const bad = [...party].find((c) => !/[A-Za-z0-9:_ -]/.test(c));
  if (bad !== undefined)
    return `non expected character 0x${(bad.codePointAt(0) ?? 0).toString(16)} in Daml-LF Party "${party}"`;
  if (party.length > 255) return `Daml-LF Party "${party.slice(0, 32)}…" is too long (max: 255)`;
  return undefined;
}

function partyDetails(env: LedgerNodeEnv, party: string): Record<string, unknown> {
  return {
    party,
    isLocal: env.ledger.hosting(party)[env.participantId] !== undefined,
    localMetadata: { resourceVersion: '0', annotations: {} },
    identityProviderId: '',
  };
}

export function rightJson(right: Right): Record<string, unknown> {
  return { kind: { [right.kind]: { value: right.party === undefined ? {} : { party: right.party } } } };
}

function readRights(reader: Reader): Right[] {
  return reader.optArray().flatMap((r): Right[] => {
    r.object(['kind']);
    const { tag, body } = r.at('kind').oneOf(RIGHT_KINDS);
    if (tag === 'Empty') return [];
    body.object(['value']);
    const value = body.at('value');
    if (tag === 'CanActAs' || tag === 'CanReadAs' || tag === 'CanExecuteAs') {
      value.object(['party']);
      return [{ kind: tag, party: value.at('party').string() }];
    }
    value.object(['identityProviderId']);
    return [{ kind: tag as Right['kind'] }];
  });
}

function userJson(env: LedgerNodeEnv, user: UserRecord): Record<string, unknown> {
  return {
    id: user.id,
    ...(user.primaryParty ? { primaryParty: user.primaryParty } : {}),
    isDeactivated: user.isDeactivated,
    metadata: { resourceVersion: String(user.resourceVersion), annotations: user.annotations },
    identityProviderId: '',
    ...(env.encoder.profile === '3.4' ? {} : { primaryPartyAuthentication: false }),
  };
}

function requireUser(env: LedgerNodeEnv, id: string): UserRecord {
  const user = env.ledger.user(env.participantId, id);
  if (user === undefined) throw errors.userNotFound(id);
  return user;
}

/** a user may read itself; anything else needs ParticipantAdmin */
function requireSelfOrAdmin(caller: Caller, id: string): void {
  if (id !== caller.userId) caller.requireAdmin();
}

const sameRight = (a: Right, b: Right): boolean => a.kind === b.kind && a.party === b.party;

export const managementRoutes: LedgerRoute[] = [
  {
    method: 'GET',
    template: '/v2/parties',
    handle: ({ env, caller, query }) => {
      caller.requireAdmin();
      const filter = query.get('filter-party') ?? '';
      const pageSize = intQuery(query, 'pageSize') || 10_000;
      // pageToken is an opaque string (it always decodes); one the node did not hand out is INVALID_ARGUMENT
      const token = query.get('pageToken') ?? '';
      if (!/^\d*$/.test(token)) throw errors.invalidArgument(`Invalid page token: ${token}`);
      const start = Number(token);
      const all = env.ledger.allParties().filter((p) => filter === '' || p.startsWith(filter));
      const page = all.slice(start, start + pageSize);
      return json(200, {
        partyDetails: page.map((p) => partyDetails(env, p)),
        ...(start + pageSize < all.length ? { nextPageToken: String(start + pageSize) } : {}),
      });
    },
  },
  {
    method: 'GET',
    template: '/v2/parties/{party}',
    handle: ({ env, caller, params, query }) => {
      caller.requireAdmin();
      const wanted = [params.party ?? '', ...query.getAll('parties')].filter((p) => p !== '');
      // as Canton reads them: each a Daml-LF party string (an unknown one is left out of the answer)
      for (const party of wanted) {
        const problem = lfPartyProblem(party);
        if (problem !== undefined) throw errors.invalidArgument(problem);
      }
      return json(200, {
        partyDetails: wanted.filter((p) => env.ledger.partyKnown(p)).map((p) => partyDetails(env, p)),
      });
    },
  },
  {
    method: 'POST',
    template: '/v2/parties',
    handle: ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['partyIdHint', 'localMetadata', 'identityProviderId', 'synchronizerId', 'userId']);
      const hint = reader.at('partyIdHint').optString() ?? '';
      const userId = reader.at('userId').optString() ?? '';
      reader.at('identityProviderId').optString();
      reader.at('synchronizerId').optString();
      caller.requireAdmin();
      if (hint !== '' && !PARTY_HINT.test(hint)) {
        throw errors.invalidArgument(
          `Party id hint ${hint} is not a valid party name: letters, digits, space, colon, minus and underscore, at most 255 characters`,
        );
      }
      const namespace = env.participantId.slice(env.participantId.indexOf('::') + 2);
      const party = `${hint === '' ? `party-${Date.now().toString(36)}` : hint}::${namespace}`;
      if (env.ledger.hosting(party)[env.participantId] !== undefined) {
        throw errors.invalidArgument(
          `Party already exists: party ${party} is already allocated on this node`,
        );
      }
      const user = userId === '' ? undefined : requireUser(env, userId);
      env.ledger.allocateParty(party, env.participantId, 'submission');
      if (user !== undefined && !user.rights.some((r) => sameRight(r, { kind: 'CanActAs', party }))) {
        env.ledger.putUser(env.participantId, {
          ...user,
          rights: [...user.rights, { kind: 'CanActAs', party }],
        });
      }
      return json(200, { partyDetails: partyDetails(env, party) });
    },
  },
  {
    method: 'GET',
    template: '/v2/users',
    handle: ({ env, caller }) => {
      caller.requireAdmin();
      return json(200, { users: env.ledger.listUsers(env.participantId).map((u) => userJson(env, u)) });
    },
  },
  {
    method: 'POST',
    template: '/v2/users',
    handle: ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['user', 'rights']);
      const u = reader.at('user');
      u.object([
        'id',
        'primaryParty',
        'isDeactivated',
        'metadata',
        'identityProviderId',
        'primaryPartyAuthentication',
      ]);
      const id = u.at('id').string();
      const rights = readRights(reader.at('rights'));
      caller.requireAdmin();
      if (!/^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$/.test(id))
        throw errors.invalidArgument(`invalid user id ${JSON.stringify(id)}`);
      if (env.ledger.user(env.participantId, id) !== undefined) throw errors.userExists(id);
      const primaryParty = u.at('primaryParty').optString();
      const user: UserRecord = {
        id,
        ...(primaryParty ? { primaryParty } : {}),
        isDeactivated: u.at('isDeactivated').optBoolean() ?? false,
        annotations: {},
        rights,
        resourceVersion: 0,
      };
      env.ledger.putUser(env.participantId, user);
      return json(200, { user: userJson(env, requireUser(env, id)) });
    },
  },
  {
    method: 'GET',
    template: '/v2/users/{user-id}',
    handle: ({ env, caller, params }) => {
      const id = params['user-id'] ?? '';
      requireSelfOrAdmin(caller, id);
      return json(200, { user: userJson(env, requireUser(env, id)) });
    },
  },
  {
    method: 'DELETE',
    template: '/v2/users/{user-id}',
    handle: ({ env, caller, params }) => {
      caller.requireAdmin();
      env.ledger.deleteUser(env.participantId, requireUser(env, params['user-id'] ?? ''));
      return json(200, {});
    },
  },
  {
    method: 'GET',
    template: '/v2/authenticated-user',
    handle: ({ env, caller }) => {
      if (caller.user === undefined) throw errors.userNotFound(caller.userId);
      return json(200, { user: userJson(env, caller.user) });
    },
  },
  {
    method: 'GET',
    template: '/v2/users/{user-id}/rights',
    handle: ({ env, caller, params }) => {
      const id = params['user-id'] ?? '';
      requireSelfOrAdmin(caller, id);
      return json(200, { rights: requireUser(env, id).rights.map(rightJson) });
    },
  },
  {
    method: 'POST',
    template: '/v2/users/{user-id}/rights',
    handle: ({ env, caller, params, body }) => {
      const reader = Reader.parse(body);
      reader.object(['userId', 'rights', 'identityProviderId']);
      reader.at('userId').string();
      const rights = readRights(reader.at('rights'));
      caller.requireAdmin();
      const user = requireUser(env, params['user-id'] ?? '');
      const added = rights.filter(
        (r, i) => !user.rights.some((x) => sameRight(x, r)) && rights.findIndex((y) => sameRight(y, r)) === i,
      );
      if (added.length > 0)
        env.ledger.putUser(env.participantId, { ...user, rights: [...user.rights, ...added] });
      return json(200, { newlyGrantedRights: added.map(rightJson) });
    },
  },
  {
    method: 'PATCH',
    template: '/v2/users/{user-id}/rights',
    handle: ({ env, caller, params, body }) => {
      const reader = Reader.parse(body);
      reader.object(['userId', 'rights', 'identityProviderId']);
      reader.at('userId').string();
      const rights = readRights(reader.at('rights'));
      caller.requireAdmin();
      const user = requireUser(env, params['user-id'] ?? '');
      const removed = user.rights.filter((x) => rights.some((r) => sameRight(x, r)));
      if (removed.length > 0) {
        env.ledger.putUser(env.participantId, {
          ...user,
          rights: user.rights.filter((x) => !removed.includes(x)),
        });
      }
      return json(200, { newlyRevokedRights: removed.map(rightJson) });
    },
  },
  {
    method: 'GET',
    template: '/v2/packages',
    handle: ({ env }) =>
      json(200, { packageIds: env.canton.uploadedPackages(env.participantId).map((p) => p.packageId) }),
  },
  {
    method: 'GET',
    template: '/v2/packages/{package-id}/status',
    handle: ({ env, params }) => {
      const known = env.canton
        .uploadedPackages(env.participantId)
        .some((p) => p.packageId === params['package-id']);
      return json(200, { packageStatus: known ? 'PACKAGE_STATUS_REGISTERED' : 'PACKAGE_STATUS_UNSPECIFIED' });
    },
  },
  ...['/v2/packages', '/v2/dars'].map((template): LedgerRoute => ({
    method: 'POST',
    template,
    handle: ({ env, caller, body, query }) => {
      caller.requireAdmin();
      const vet = query.get('vetAllPackages') !== 'false' && !env.faults.vetFails(env.node);
      try {
        env.canton.uploadDar(env.participantId, body, 'uploaded DAR', vet);
      } catch (error) {
        if (error instanceof CantonError) throw errors.invalidArgument(error.message);
        throw error;
      }
      return json(200, {});
    },
  })),
];
