/** The `with` of dpm.governance-review: the policy a party's pending decisions are held against (dpm-api.md §11, §12). */
import type { FromSchema } from 'json-schema-to-ts';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { nodeListSchema, partyRefSchema } from './party-common.declaration.js';

const partyList = {
  type: 'array',
  items: { type: 'string', pattern: '^[^:]+::[0-9a-fA-F]{68}$' },
  uniqueItems: true,
} as const;
const decimal = {
  type: 'string',
  pattern: '^\\d+(\\.\\d{1,10})?$',
  description: 'a decimal amount',
} as const;

const SELF_TYPES = [
  'governance_set_threshold',
  'governance_set_timeout',
  'governance_add_member',
  'governance_remove_member',
  'governance_add_additional_proposer',
  'governance_remove_additional_proposer',
] as const;
export const PROPOSAL_LABELS = {
  generic_vote: 'GenericVote',
  accept_mint_request: 'AcceptMintRequest',
  accept_burn_request: 'AcceptBurnRequest',
} as const;
export type ReviewedProposal = keyof typeof PROPOSAL_LABELS;

export const withSchema = {
  type: 'object',
  properties: {
    party: partyRefSchema,
    nodes: nodeListSchema(
      'The member nodes whose members confirm (default: every node of the target this target controls).',
    ),
    policy: {
      type: 'object',
      description:
        'What this target’s members confirm. A pending decision no rule names is reported, never confirmed.',
      properties: {
        actions: {
          type: 'array',
          description: 'Self-management actions (`ActionType`) the members confirm.',
          items: {
            type: 'object',
            properties: {
              type: {
                enum: SELF_TYPES,
                description: 'the action (`ActionType`) this rule lets the members confirm',
              },
              min: {
                type: 'integer',
                description:
                  'lowest new threshold (set_threshold, add/remove member) or timeout in microseconds (set_timeout)',
              },
              max: { type: 'integer', description: 'highest of the same' },
              parties: {
                ...partyList,
                description: 'the only members or additional proposers the action may name (default: any)',
              },
            },
            required: ['type'],
            additionalProperties: false,
          },
        },
        proposals: {
          type: 'array',
          description: 'Domain proposals (`ProposalType`) the members confirm.',
          items: {
            type: 'object',
            properties: {
              type: {
                enum: Object.keys(PROPOSAL_LABELS) as ReviewedProposal[],
                description: 'the proposal’s kind (`ProposalType`) this rule lets the members confirm',
              },
              proposers: {
                ...partyList,
                description: 'the only proposers whose proposals are confirmed (default: any member)',
              },
              description: {
                type: 'string',
                description: 'a regular expression the description must match (default: any)',
              },
              max_amount: {
                ...decimal,
                description: 'mint or burn requests: the largest amount of one request',
              },
              max_total: {
                ...decimal,
                description:
                  'mint or burn requests: the most this review confirms or proposes in one run, summed',
              },
              holders: {
                ...partyList,
                description: 'mint or burn requests: the only holders (default: any)',
              },
              instruments: {
                type: 'array',
                items: { type: 'string', minLength: 1 },
                description:
                  'mint or burn requests: the only instrument ids of the party’s instruments (default: any)',
              },
            },
            required: ['type'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    propose_requests: {
      type: 'boolean',
      description:
        'Propose the acceptance of open mint and burn requests the policy names that no member proposed yet (default false).',
    },
    wait: {
      ...durationSchema,
      description:
        'How long to wait for the other members to confirm and for what becomes executable (default 0s: one pass, then report).',
    },
  },
  required: ['party', 'policy'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;
export type ActionRule = NonNullable<NonNullable<With['policy']['actions']>[number]>;
export type ProposalRule = NonNullable<NonNullable<With['policy']['proposals']>[number]>;
