import type { FromSchema } from 'json-schema-to-ts';
import { FIELD_DEFINITION_TYPES } from '../../clients/dpm-wire-names.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { checkNode, nodeNameSchema, waitTimeoutSchema } from './packages-common.declaration.js';

export const DEFAULT_TIMEOUT = '10m';

export const cantonId = { type: 'string', pattern: '^[^:]+::[0-9a-f]{68}$' } as const;

export const contractSchema = {
  type: 'object',
  description: "One contract to create for the party (the DPM's ContractDefinition, dpm-api.md §5.5).",
  properties: {
    id: { type: 'string', minLength: 1, description: 'An id for this contract, unique in the list.' },
    name: {
      type: 'string',
      minLength: 1,
      description:
        'The package name shown to the peers in their invitation (`package_names`). Default: the name of the package it resolves to.',
    },
    package_id: {
      type: 'string',
      pattern: '^(#[A-Za-z0-9._-]+|[0-9a-f]{64})$',
      description:
        'The package: a package id (64 hex digits), or `#name` for the highest version of that package vetted on the coordinator (as Canton resolves it).',
    },
    module_name: {
      type: 'string',
      minLength: 1,
      description: 'The template’s module, e.g. `Governance.Rules`.',
    },
    entity_name: {
      type: 'string',
      minLength: 1,
      description: 'The template’s name, e.g. `GovernanceRules`.',
    },
    fields: {
      type: 'array',
      description:
        "The template's create arguments in order, each tagged by `type`: decentralized_party, operator_party, participant_party {id}, text {value}, int64 {value}, bool {value}, instrument {id}, attestors_set, party_set {parties}, rel_time {microseconds}, optional {inner}, record {fields}, governance_threshold {value?}, none. Default none.",
      items: {
        type: 'object',
        properties: { type: { enum: FIELD_DEFINITION_TYPES, description: 'The kind of field.' } },
        required: ['type'],
      },
    },
  },
  required: ['id', 'package_id', 'module_name', 'entity_name'],
  additionalProperties: false,
} as const;

const withSchema = {
  type: 'object',
  description:
    'Create contracts for a decentralized party (a Contracts workflow), once every participant vetted their packages.',
  properties: {
    coordinator: {
      ...nodeNameSchema,
      description:
        'The node that starts the Contracts workflow (POST /contracts); it needs the party’s credentials (dpm.party-config).',
    },
    party: {
      type: 'string',
      pattern: '^([A-Za-z][A-Za-z0-9_-]{0,179}|[^:]+::[0-9a-f]{68})$',
      description:
        'The decentralized party: its id (`prefix::1220…`), or its prefix as the coordinator lists it.',
    },
    participants: {
      type: 'array',
      minItems: 1,
      description:
        "The nodes whose participants take part, each a node name or {node, party}. Their member parties come from `party` here, else the target node's `party`, else the node's own party credentials (GET /auth/status). Default: every node of the target that hosts the party. The coordinator is always one of them.",
      items: {
        anyOf: [
          nodeNameSchema,
          {
            type: 'object',
            properties: {
              node: nodeNameSchema,
              party: { ...cantonId, description: "The node operator's member party (PARTY_ID)." },
            },
            required: ['node'],
            additionalProperties: false,
          },
        ],
      },
    },
    operator_party: {
      ...cantonId,
      description: "The operator party of the contracts. Default: the coordinator's member party.",
    },
    contracts: { type: 'array', minItems: 1, items: contractSchema, description: 'The contracts to create.' },
    timeout: waitTimeoutSchema(DEFAULT_TIMEOUT),
  },
  required: ['coordinator', 'party', 'contracts'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.deploy-contracts`; its run-time code is ./deploy-contracts.ts. */
export const dpmDeployContractsDeclaration = declareStep<With>({
  kind: 'dpm.deploy-contracts',
  summary: 'Create contracts for a decentralized party (Contracts workflow), only when vetted parity holds.',
  withSchema,
  outputs: {
    party: 'the decentralized party id',
    contracts:
      'the ContractInfo rows of the declared contracts [{contract_id, template_id, package_id, package_name, package_version, created_at}]',
    governance: 'GET /governance/state of the party when a GovernanceRules contract is deployed, else null',
  },
  needsTarget: true,
  check(w, target) {
    const findings: StaticFinding[] = [...checkNode(w.coordinator, target, '/coordinator')];
    if (Array.isArray(w.participants)) {
      const seen = new Set<string>();
      w.participants.forEach((p, i) => {
        const node = typeof p === 'string' ? p : p.node;
        const pointer = typeof p === 'string' ? `/participants/${i}` : `/participants/${i}/node`;
        findings.push(...checkNode(node, target, pointer));
        if (typeof node === 'string' && !hasExpression(node)) {
          if (seen.has(node))
            findings.push({ pointer, message: `${node} is listed twice`, hint: 'list each node once' });
          seen.add(node);
        }
      });
    }
    if (Array.isArray(w.contracts)) {
      const ids = new Map<string, number>();
      w.contracts.forEach((c, i) => {
        if (typeof c.id !== 'string' || hasExpression(c.id)) return;
        const first = ids.get(c.id);
        if (first !== undefined) {
          findings.push({
            pointer: `/contracts/${i}/id`,
            message: `contract id '${c.id}' is used by entries ${first} and ${i}`,
            hint: 'give each contract its own id',
          });
        }
        ids.set(c.id, i);
      });
    }
    return findings;
  },
});
