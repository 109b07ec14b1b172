import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';
import {
  MEMBERSHIP_TIMEOUT,
  membershipCheck,
  membershipOutputs,
  membershipProperties,
  newThresholdSchema,
} from './membership.declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    ...membershipProperties,
    threshold: newThresholdSchema('The new threshold: 1 to the number of members.'),
  },
  required: ['coordinator', 'party', 'threshold'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.change-threshold`; its run-time code is ./change-threshold.ts. */
export const dpmChangeThresholdDeclaration = declareStep<With>({
  kind: 'dpm.change-threshold',
  summary: `Set a decentralized party's threshold (in sync when it is as declared; default timeout ${MEMBERSHIP_TIMEOUT}).`,
  withSchema,
  outputs: membershipOutputs,
  needsTarget: true,
  check: membershipCheck,
});
