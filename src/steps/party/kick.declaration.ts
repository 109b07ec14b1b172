import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import {
  MEMBERSHIP_TIMEOUT,
  memberSchema,
  membershipCheck,
  membershipOutputs,
  membershipProperties,
  newThresholdSchema,
} from './membership.declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    ...membershipProperties,
    member: memberSchema('The member to remove (it gets no invitation).'),
    threshold: newThresholdSchema(
      'The party’s threshold after the removal: 1 to the number of remaining members.',
    ),
  },
  required: ['coordinator', 'party', 'member', 'threshold'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.kick`; its run-time code is ./kick.ts. */
export const dpmKickDeclaration = declareStep<With>({
  kind: 'dpm.kick',
  summary: `Remove a member from a decentralized party (in sync once it is gone and the threshold is as declared; default timeout ${MEMBERSHIP_TIMEOUT}).`,
  withSchema,
  outputs: membershipOutputs,
  needsTarget: true,
  check: membershipCheck,
});
