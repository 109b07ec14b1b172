import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What the approver is asked to check before approving.' },
  },
  required: ['message'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `core.approve`; its run-time code is ./approve.ts. */
export const coreApproveDeclaration = declareStep<With>({
  kind: 'core.approve',
  summary: 'Pause the run until an operator approves this step with --approve <step-id>.',
  withSchema,
  outputs: {
    approved_by: 'who approved (user@host, or the CI actor)',
    approved_at: 'when (ISO-8601)',
    approved_for: 'digest of the playbook text and inputs the approval holds for',
  },
  needsTarget: false,
});
