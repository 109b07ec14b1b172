import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import {
  Findings,
  NODE_NAME_PATTERN,
  isExpression,
  nodeListSchema,
  timeoutSchema,
} from './party-common.declaration.js';

export const DEFAULT_TIMEOUT = '2m';

export function checkFindings(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  f.nodes('/nodes', w.nodes);
  for (const name of Object.keys(w.addresses ?? {})) {
    if (isExpression(name) || (w.nodes === undefined && target === undefined)) continue;
    const nodes = w.nodes ?? f.nodeNames();
    if (!nodes.includes(name)) {
      f.add(
        `/addresses/${name}`,
        `'${name}' is not a node of this mesh`,
        `nodes of the mesh: ${nodes.join(', ') || 'none'}`,
      );
    }
  }
  if (w.nodes === undefined && target !== undefined && f.nodeNames().length === 0)
    f.add('', 'the target names no nodes');
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    nodes: nodeListSchema(
      'The nodes of the mesh, by target node name (default: every node of the target). Each gets the full list, itself included.',
    ),
    addresses: {
      type: 'object',
      propertyNames: { pattern: NODE_NAME_PATTERN },
      additionalProperties: { type: 'string', minLength: 1 },
      description:
        'The address other nodes use to reach a node’s Noise port, by node name. Default: the node’s `node.public_address`, else its `listen_address` unless that is a wildcard (0.0.0.0, ::), else the host of its DPM URL in the target.',
    },
    timeout: timeoutSchema(DEFAULT_TIMEOUT, 'every node to see every other one Connected'),
  },
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.network`; its run-time code is ./network.ts. */
export const dpmNetworkDeclaration = declareStep<With>({
  kind: 'dpm.network',
  summary:
    'Peer mesh: every node gets the same full peers table (itself included) and sees every other node Connected.',
  withSchema,
  outputs: { peers: 'the participant ids of the mesh, in node order' },
  needsTarget: true,
  check: checkFindings,
});
