import type { FromSchema } from 'json-schema-to-ts';
import { WORKFLOW_KINDS } from '../../clients/dpm-wire-names.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import type { Target } from '../../playbook/target.js';
import {
  Findings,
  NODE_NAME_PATTERN,
  isExpression,
  nodeListSchema,
  nodesOrControlled,
} from './party-common.declaration.js';

export const expectationSchema = {
  type: 'object',
  description:
    'One invitation this node may accept. Every field given must match; `kind` and `coordinator` always.',
  properties: {
    kind: { enum: WORKFLOW_KINDS, description: 'The workflow kind (the invitation’s `invitation_type`).' },
    coordinator: {
      type: 'string',
      minLength: 1,
      description:
        'Who invites: a node name of the target or a participant id. Matched through the invitee’s peers table (the invitation carries the coordinator’s key).',
    },
    prefix: {
      type: 'string',
      minLength: 1,
      description: 'Onboarding: the prefix of the party to create (required for Onboarding).',
    },
    party: {
      type: 'string',
      minLength: 1,
      description:
        'Kick, AddParty, ChangeThreshold, Contracts: the party, by id or prefix (required for these kinds).',
    },
    dar_files: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description: 'Dars: exactly these DAR file names (required for Dars).',
    },
    packages: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description: 'Contracts: exactly these package names.',
    },
    threshold: {
      type: 'integer',
      minimum: 1,
      description: 'The threshold the invitation announces (`new_threshold`).',
    },
    member: {
      type: 'string',
      minLength: 1,
      description:
        'Kick: the participant removed; AddParty: the participant added (node name or participant id).',
    },
    nodes: {
      type: 'array',
      items: { type: 'string', pattern: NODE_NAME_PATTERN },
      minItems: 1,
      description: 'Which of the step’s nodes expect it (default: all of them).',
    },
  },
  required: ['kind', 'coordinator'],
  allOf: [
    { if: { properties: { kind: { const: 'Onboarding' } } }, then: { required: ['prefix'] } },
    { if: { properties: { kind: { const: 'Dars' } } }, then: { required: ['dar_files'] } },
    {
      if: { properties: { kind: { enum: ['Kick', 'AddParty', 'ChangeThreshold', 'Contracts'] } } },
      then: { required: ['party'] },
    },
  ],
  additionalProperties: false,
} as const;

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  for (const name of f.nodes('/nodes', w.nodes))
    f.controlled(`/nodes/${w.nodes?.indexOf(name) ?? 0}`, name, 'accepting writes to it');
  const nodes = nodesOrControlled(w.nodes, target);
  if (nodes.length === 0)
    f.add('', 'no node to accept on', 'set `nodes`, or mark a node as controlled in the target');
  (Array.isArray(w.expect) ? w.expect : []).forEach((e, i) => {
    f.member(`/expect/${i}/coordinator`, e.coordinator);
    f.partyRef(`/expect/${i}/party`, e.party);
    if (e.member !== undefined) f.member(`/expect/${i}/member`, e.member);
    (e.nodes ?? []).forEach((n, j) => {
      if (!isExpression(n) && !nodes.includes(n))
        f.add(
          `/expect/${i}/nodes/${j}`,
          `'${n}' is not among the nodes this step accepts on`,
          `nodes: ${nodes.join(', ')}`,
        );
    });
  });
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    nodes: nodeListSchema('Where to accept, by target node name (default: every node this target controls).'),
    expect: {
      type: 'array',
      items: expectationSchema,
      minItems: 1,
      description:
        'The invitations to accept. Anything else is reported (or declined with `decline_unexpected`).',
    },
    decline_unexpected: {
      type: 'boolean',
      description:
        'Decline invitations that match no expectation (default false: report them and leave them).',
    },
    wait: {
      ...durationSchema,
      description:
        'Wait up to this long for each expected invitation to arrive (default: do not wait). A node that already joined the run (an earlier acceptance) does not wait.',
    },
  },
  required: ['expect'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.accept-invitations`; its run-time code is ./accept-invitations.ts. */
export const dpmAcceptInvitationsDeclaration = declareStep<With>({
  kind: 'dpm.accept-invitations',
  summary:
    'Accept exactly the declared invitations on the nodes this target controls; report (or decline) the others.',
  withSchema,
  outputs: {
    accepted: '`node/invitation id` of the invitations accepted by this run',
    declined: '`node/invitation id` of the invitations declined by this run',
  },
  needsTarget: true,
  check,
});
