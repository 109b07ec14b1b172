import type { FromSchema } from 'json-schema-to-ts';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  checkDarFiles,
  checkNodeList,
  darFileSchema,
  nodeNames,
  nodeNameSchema,
  packageIdSchema,
} from './packages-common.declaration.js';

const withSchema = {
  type: 'object',
  description:
    'The parity gate: every expected package must be vetted on every node, or the run stops here (in `plan` as well).',
  properties: {
    nodes: {
      type: 'array',
      items: nodeNameSchema,
      minItems: 1,
      description:
        'The nodes whose participants must have vetted every package; each is asked on its own DPM API (GET /packages/vetted). Default: every node of the target.',
    },
    packages: {
      type: 'array',
      minItems: 1,
      description:
        'The expected packages: package ids, or objects with `package_id` (and `name`, `version`), such as `${{ steps.upload.outputs.packages }}` of dpm.distribute-dars.',
      items: {
        anyOf: [
          { ...packageIdSchema, description: 'A package id (64 hex digits).' },
          {
            type: 'object',
            properties: {
              package_id: { ...packageIdSchema, description: 'The package id (64 hex digits).' },
              name: { type: 'string', description: 'Package name, for the matrix.' },
              version: { type: 'string', description: 'Package version, for the matrix.' },
            },
            required: ['package_id'],
            additionalProperties: false,
          },
        ],
      },
    },
    dars: {
      type: 'array',
      minItems: 1,
      items: darFileSchema,
      description:
        'Instead of `packages`: DAR files pinned by sha256; every package they carry (main and dependencies) is expected.',
    },
    show_uploaded: {
      type: 'boolean',
      description:
        'Where a package is not vetted, ask the node (GET /packages/compare-peers) whether it is at least uploaded, and mark it ↑ in the matrix (a partial upload). Default true.',
    },
  },
  oneOf: [{ required: ['packages'] }, { required: ['dars'] }],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.vetted-parity`; its run-time code is ./vetted-parity.ts. */
export const dpmVettedParityDeclaration = declareStep<With>({
  kind: 'dpm.vetted-parity',
  summary: 'Gate: every expected package vetted on every node; prints the participant × package matrix.',
  withSchema,
  outputs: {
    packages: 'the expected packages [{package_id, name, version}], names filled in from the nodes',
    nodes: 'the nodes that were checked',
  },
  needsTarget: true,
  check(w, target, baseDir) {
    const findings: StaticFinding[] = [...checkNodeList(w.nodes, target, '/nodes')];
    findings.push(...checkDarFiles(w.dars, baseDir, '/dars'));
    if (w.nodes === undefined && target !== undefined && nodeNames(target).length === 0) {
      findings.push({
        pointer: '',
        message: 'the target has no nodes to check',
        hint: 'add nodes to the target',
      });
    }
    if (Array.isArray(w.packages)) {
      const ids = w.packages.map((p) => (typeof p === 'string' ? p : p.package_id));
      ids.forEach((id, i) => {
        if (!hasExpression(id) && ids.indexOf(id) !== i)
          findings.push({ pointer: `/packages/${i}`, message: `package ${id} is listed twice` });
      });
    }
    return findings;
  },
});
