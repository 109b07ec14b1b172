import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import {
  Findings,
  isExpression,
  nodeListSchema,
  nodeNameSchema,
  thresholdSchema,
  timeoutSchema,
} from './party-common.declaration.js';

export const DEFAULT_TIMEOUT = '10m';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  f.node('/coordinator', w.coordinator);
  f.nodes('/peers', w.peers);
  const peers = Array.isArray(w.peers) ? w.peers : [];
  const at = peers.indexOf(w.coordinator);
  if (at >= 0 && !isExpression(w.coordinator)) {
    f.add(
      `/peers/${at}`,
      `the coordinator ${w.coordinator} is listed among the peers`,
      'list only the other members',
    );
  }
  const threshold = w.threshold as unknown;
  if (typeof threshold === 'number' && Array.isArray(w.peers) && !w.peers.some(isExpression)) {
    const members = w.peers.length + 1;
    if (threshold > members) {
      f.add(
        '/threshold',
        `threshold ${threshold} is more than the ${members} members`,
        undefined,
        `1 to ${members}`,
      );
    }
  }
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    coordinator: nodeNameSchema(
      'The node that starts the onboarding (POST /onboarding); it becomes a member. When this target does not control it (another operator’s node), the step starts nothing: it follows that operator’s run, accepting on the nodes it controls.',
    ),
    peers: nodeListSchema(
      'The other member nodes, by target node name. The ones this target controls accept the invitation here; the others’ operators accept it themselves (dpm.accept-invitations).',
    ),
    prefix: {
      type: 'string',
      pattern: '^[A-Za-z][A-Za-z0-9_-]{0,179}$',
      description:
        'The party id prefix: the party becomes `<prefix>::<namespace>`. A letter first; letters, digits, `-`, `_`; at most 180 characters. Also names the run (`<prefix>-creation`).',
    },
    threshold: thresholdSchema(
      'Signatures needed out of the members (coordinator + peers). Default: more than half rounded up, ceil(members / 2), as the DPM does.',
    ),
    timeout: timeoutSchema(DEFAULT_TIMEOUT, 'the onboarding to complete and every member to see the party'),
  },
  required: ['coordinator', 'peers', 'prefix'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.onboard-party`; its run-time code is ./onboard-party.ts. */
export const dpmOnboardPartyDeclaration = declareStep<With>({
  kind: 'dpm.onboard-party',
  summary:
    'Create a decentralized party: in sync when a party with the prefix, exactly these members and this threshold exists.',
  withSchema,
  outputs: {
    party_id: 'the party id, `<prefix>::<namespace>`',
    threshold: 'the party’s threshold',
    members: 'the members’ participant ids',
    nodes: 'the members’ node names: the coordinator, then the peers',
  },
  needsTarget: true,
  check,
});
