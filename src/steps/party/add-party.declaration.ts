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
    member: memberSchema(
      'The participant to add. It must be in the coordinator’s peers table (dpm.network) and must have every package the party’s contracts use.',
    ),
    threshold: newThresholdSchema(
      'The party’s threshold after the addition: 1 to the number of members with the new one.',
    ),
  },
  required: ['coordinator', 'party', 'member', 'threshold'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.add-party`; its run-time code is ./add-party.ts. */
export const dpmAddPartyDeclaration = declareStep<With>({
  kind: 'dpm.add-party',
  summary: `Add a participant to a decentralized party (in sync once it is a member and the threshold is as declared; default timeout ${MEMBERSHIP_TIMEOUT}).`,
  withSchema,
  outputs: membershipOutputs,
  needsTarget: true,
  check: membershipCheck,
});
