import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import { Findings, nodeListSchema, nodesOrControlled, partyRefSchema } from './party-common.declaration.js';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  const nodes = f.nodes('/nodes', w.nodes);
  nodes.forEach((name, i) => f.controlled(`/nodes/${i}`, name, 'dpm.grant-rights writes to it'));
  // without a target (validate on the built-in sandbox) the nodes are not known yet
  if (target !== undefined && nodesOrControlled(w.nodes, target).length === 0)
    f.add('', 'no node to grant on', 'set `nodes`');
  f.partyRef('/party', w.party);
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    party: partyRefSchema,
    nodes: nodeListSchema(
      'The nodes whose party user gets the rights (default: every node this target controls).',
    ),
    admin_client_id: {
      type: 'string',
      minLength: 1,
      description:
        'A client of the node’s identity provider whose service account administers the participant (ParticipantAdmin).',
    },
    admin_client_secret: {
      type: 'string',
      minLength: 1,
      'x-secret': true,
      description: 'Its secret: `${{ secrets.NAME }}`.',
    },
  },
  required: ['party', 'admin_client_id', 'admin_client_secret'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.grant-rights`; its run-time code is ./grant-rights.ts. */
export const dpmGrantRightsDeclaration = declareStep<With>({
  kind: 'dpm.grant-rights',
  summary:
    'Per node, grant the party’s ledger user actAs and readAs on its member party and the decentralized party (POST /auth/grant-rights).',
  withSchema,
  outputs: { party_id: 'the decentralized party', statuses: 'each node’s outcome (`granted`), by node name' },
  needsTarget: true,
  check,
});
