/** The `with` of dpm.governance: one decision, a self-management action or a domain proposal (dpm-api.md §11). */
import type { FromSchema } from 'json-schema-to-ts';
import { durationSchema } from '../../playbook/playbook-schema.js';
import { nodeListSchema, partyRefSchema } from './party-common.declaration.js';

const partyId = {
  type: 'string',
  pattern: '^[^:]+::[0-9a-fA-F]{68}$',
  description: 'a party id, `<prefix>::<68 hex digits>` (e.g. `${{ target.nodes.node3.party }}`)',
} as const;
const threshold = {
  type: 'integer',
  minimum: 1,
  maximum: 2147483647,
  description: 'the threshold of members the rules need after the action',
} as const;

const variant = <const T extends string, const P extends Record<string, object>>(
  type: T,
  description: string,
  properties: P,
) =>
  ({
    type: 'object',
    description,
    properties: { type: { const: type, description: `the action: ${description}` }, ...properties },
    required: ['type', ...(Object.keys(properties) as Array<keyof P & string>)],
    additionalProperties: false,
  }) as const;

/** the proposals a member can tell apart by their label and description (their `description` field) */
export const DESCRIBED_PROPOSALS = {
  generic_vote: 'GenericVote',
  accept_mint_request: 'AcceptMintRequest',
  accept_burn_request: 'AcceptBurnRequest',
  mint: 'Mint',
  burn: 'Burn',
  offer_free_credential: 'OfferFreeCredential',
  offer_paid_credential: 'OfferPaidCredential',
  setup_minting_delegation: 'SetupMintingDelegation',
} as const;

const actionSchema = {
  description:
    'A self-management action of the governance rules (`ActionType`, confirmed with governance_type core_self).',
  oneOf: [
    variant('governance_set_threshold', 'set the threshold', { new_threshold: threshold }),
    variant('governance_set_timeout', 'set how long a confirmation stays valid', {
      new_timeout_microseconds: {
        type: 'integer',
        minimum: 10_000_000,
        description: 'how long a member’s confirmation stays valid, in microseconds (at least 10 seconds)',
      },
    }),
    variant('governance_add_member', 'add a member (a member party) and set the threshold', {
      member: partyId,
      new_threshold: threshold,
    }),
    variant('governance_remove_member', 'remove a member and set the threshold', {
      member: partyId,
      new_threshold: threshold,
    }),
    variant('governance_add_additional_proposer', 'let a party propose (not confirm)', {
      additional_proposer: partyId,
    }),
    variant('governance_remove_additional_proposer', 'stop letting a party propose', {
      additional_proposer: partyId,
    }),
  ],
} as const;

const proposalSchema = {
  type: 'object',
  description:
    'A domain proposal (`ProposalType`: `type` and the variant’s fields as the DPM takes them). Told apart from other proposals by its label and `description`.',
  properties: {
    type: {
      enum: Object.keys(DESCRIBED_PROPOSALS) as Array<keyof typeof DESCRIBED_PROPOSALS>,
      description: 'the proposal’s kind (`ProposalType`)',
    },
    description: {
      type: 'string',
      minLength: 1,
      description:
        'what the proposal is for, as the members read it; with the kind, it tells the proposal apart',
    },
  },
  required: ['type', 'description'],
} as const;

export const withSchema = {
  type: 'object',
  properties: {
    party: partyRefSchema,
    action: actionSchema,
    proposal: proposalSchema,
    nodes: nodeListSchema(
      'The member nodes whose members confirm (default: every node of the target this target controls). Each must have the party’s credentials and rights.',
    ),
    wait: {
      ...durationSchema,
      description:
        'How long to wait for the other members’ confirmations and the execution (default 10m). When it passes, the run pauses (exit 3): run it again to continue.',
    },
  },
  required: ['party'],
  oneOf: [{ required: ['action'] }, { required: ['proposal'] }],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;
export type Action = Extract<NonNullable<With['action']>, object>;
export type Proposal = NonNullable<With['proposal']> & Record<string, unknown>;
