import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import { hasUrlCredentials, hideUrlCredentials } from '../../url-credentials.js';
import {
  Findings,
  NODE_NAME_PATTERN,
  isExpression,
  nodeListSchema,
  nodesOrControlled,
  partyRefSchema,
} from './party-common.declaration.js';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  const nodes = f.nodes('/nodes', w.nodes);
  nodes.forEach((name) =>
    f.controlled(`/nodes/${w.nodes?.indexOf(name) ?? 0}`, name, 'party-config writes to it'),
  );
  const all = nodesOrControlled(w.nodes, target);
  for (const name of Object.keys(w.member_parties ?? {})) {
    if (!isExpression(name) && !all.includes(name))
      f.add(
        `/member_parties/${name}`,
        `'${name}' is not among the nodes this step configures`,
        `nodes: ${all.join(', ')}`,
      );
  }
  for (const name of all) {
    if (isExpression(name) || w.member_parties?.[name] !== undefined) continue;
    const node = target?.nodes?.[name];
    if (node && node.party === undefined) {
      f.add(
        w.nodes ? `/nodes/${w.nodes.indexOf(name)}` : '',
        `${name} has no operator party: the target names none (nodes.${name}.party) and member_parties.${name} is not set`,
        `set nodes.${name}.party in the target (PARTY_ID), or member_parties.${name} in this step`,
      );
    }
  }
  f.partyRef('/party', w.party);
  if (w.keycloak.url !== undefined && hasUrlCredentials(w.keycloak.url))
    f.add(
      '/keycloak/url',
      `${hideUrlCredentials(w.keycloak.url)} carries credentials in the URL (user:password@): they would be sent to every node and printed`,
      "remove 'user:password@'; the node's login is keycloak.client_secret, or keycloak.username and keycloak.password",
    );
  // without a target (validate on the built-in sandbox) the nodes are not known yet
  if (target !== undefined && all.length === 0) f.add('', 'no node to configure', 'set `nodes`');
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    party: partyRefSchema,
    nodes: nodeListSchema(
      'The nodes to configure, by target node name (default: every node of the target this target controls).',
    ),
    member_parties: {
      type: 'object',
      propertyNames: { pattern: NODE_NAME_PATTERN },
      additionalProperties: { type: 'string', pattern: '^[^:]+::[0-9a-fA-F]{68}$' },
      description:
        'The party each node’s operator acts as in the decentralized party (member_party_id), by node name. Default: the node’s `party` in the target (PARTY_ID).',
    },
    user_id: {
      type: 'string',
      minLength: 1,
      description:
        'The ledger user the node acts as for the party (user_id): the user its token’s subject maps to.',
    },
    keycloak: {
      type: 'object',
      description:
        'The Keycloak client the node uses to get tokens for the party: a client secret (client-credentials grant) or a username and password (password grant).',
      properties: {
        url: {
          type: 'string',
          pattern: '^https?://',
          description:
            'Keycloak base URL, without `/realms/…` (IDP_HOST). Default: taken from the target’s `auth.issuer` (`<url>/realms/<realm>`).',
        },
        realm: {
          type: 'string',
          minLength: 1,
          description: 'The realm (IDP_REALM). Default: taken from the target’s `auth.issuer`.',
        },
        client_id: { type: 'string', minLength: 1, description: 'The client id (IDP_CLIENT_ID).' },
        client_secret: {
          type: 'string',
          minLength: 1,
          'x-secret': true,
          description: 'The client secret: `${{ secrets.NAME }}`.',
        },
        username: { type: 'string', minLength: 1, description: 'For the password grant (IDP_USERNAME).' },
        password: {
          type: 'string',
          minLength: 1,
          'x-secret': true,
          description: 'For the password grant (IDP_PASSWORD): `${{ secrets.NAME }}`.',
        },
      },
      required: ['client_id'],
      anyOf: [{ required: ['client_secret'] }, { required: ['username', 'password'] }],
      dependentRequired: { username: ['password'], password: ['username'] },
      additionalProperties: false,
    },
    rotate: {
      type: 'boolean',
      description:
        'Send the secret again even when the node already stores one (default false). The DPM never returns secrets, so a changed secret cannot be detected otherwise; a node whose token request fails is sent the secret again anyway.',
    },
  },
  required: ['party', 'user_id', 'keycloak'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.party-config`; its run-time code is ./party-config.ts. */
export const dpmPartyConfigDeclaration = declareStep<With>({
  kind: 'dpm.party-config',
  summary:
    'Per node, the credentials it uses for a decentralized party (PUT /party-config), checked with GET /auth/status.',
  withSchema,
  outputs: {
    party_id: 'the party id the nodes were configured for',
    statuses:
      'each node’s auth status for the party (`authenticated`, or `mock` on an insecure node), by node name',
    missing_rights:
      'the ledger rights each node’s party user still lacks (`member_party_act_as`, `member_party_read_as`, `dec_party_read_as`), by node name: grant them with dpm.grant-rights',
  },
  needsTarget: true,
  check,
});
