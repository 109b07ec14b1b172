import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  checkDarFiles,
  checkNode,
  checkNodeList,
  darFileSchema,
  nodeNameSchema,
  waitTimeoutSchema,
} from './packages-common.declaration.js';

export const DEFAULT_TIMEOUT = '10m';

const withSchema = {
  type: 'object',
  description:
    'Distribute DARs from a coordinator node to its peers (a Dars workflow) until every package they carry is vetted on every node.',
  properties: {
    coordinator: {
      ...nodeNameSchema,
      description:
        'The node that starts the Dars workflow (POST /dars/distribute); it uploads its own copy last, when every peer finished.',
    },
    peers: {
      type: 'array',
      items: nodeNameSchema,
      minItems: 1,
      description:
        'The other nodes that must vet the packages; not the coordinator. Only those that lack a package are invited; invitations are accepted on the nodes this target controls.',
    },
    files: {
      type: 'array',
      items: darFileSchema,
      minItems: 1,
      description:
        'The DARs, each pinned by sha256. Every file is read and checked before anything is sent; its manifest says which packages (name, version, id) it carries.',
    },
    timeout: waitTimeoutSchema(DEFAULT_TIMEOUT),
  },
  required: ['coordinator', 'peers', 'files'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.distribute-dars`; its run-time code is ./distribute-dars.ts. */
export const dpmDistributeDarsDeclaration = declareStep<With>({
  kind: 'dpm.distribute-dars',
  summary: 'Distribute pinned DARs to the peers (Dars workflow) until every node vetted their packages.',
  withSchema,
  outputs: {
    packages:
      "every package the DARs carry [{package_id, name, version}] (from the manifests, cross-checked with the coordinator's vetted packages)",
    instance: 'the Dars workflow this step started or adopted; null when everything was vetted already',
  },
  needsTarget: true,
  check(w, target, baseDir) {
    const findings: StaticFinding[] = [
      ...checkNode(w.coordinator, target, '/coordinator'),
      ...checkNodeList(w.peers, target, '/peers'),
      ...checkDarFiles(w.files, baseDir, '/files'),
    ];
    if (Array.isArray(w.peers) && typeof w.coordinator === 'string' && !hasExpression(w.coordinator)) {
      const i = w.peers.indexOf(w.coordinator);
      if (i >= 0) {
        findings.push({
          pointer: `/peers/${i}`,
          message: `${w.coordinator} is the coordinator and cannot be one of its peers`,
          hint: 'remove it: the coordinator uploads its own copy at the end of the workflow',
        });
      }
    }
    return findings;
  },
});
