import type { FromSchema } from 'json-schema-to-ts';
import { WORKFLOW_KINDS } from '../../clients/dpm-wire-names.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import { Findings, nodeNameSchema, timeoutSchema } from './party-common.declaration.js';

export const DEFAULT_TIMEOUT = '15m';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  if (f.node('/node', w.node) && w.action !== 'wait')
    f.controlled('/node', w.node, `${w.action} writes to it`);
  return f.list;
}

const withSchema = {
  type: 'object',
  properties: {
    node: nodeNameSchema('The node that holds the run (for cancel and retry: its coordinator).'),
    action: {
      enum: ['wait', 'cancel', 'retry', 'dismiss'],
      description:
        '`wait` until it finishes (fails if it fails); `cancel` a coordinator run in progress (or a declined one still registered); `retry` a failed coordinator run, only when its own work failed ("Coordinator workflow failed: …"), then wait; `dismiss` a finished run (it leaves GET /workflows).',
    },
    instance: {
      type: 'string',
      minLength: 1,
      description:
        'The run’s instance name (e.g. `alpha-creation`). Or give `kind` and `prefix`/`party` to pick the newest coordinator run.',
    },
    kind: {
      enum: WORKFLOW_KINDS,
      description: 'With `prefix` or `party`: the kind of the newest coordinator run to act on.',
    },
    prefix: {
      type: 'string',
      minLength: 1,
      description: 'With `kind`: the party prefix of the run (onboarding) or of its party.',
    },
    party: {
      type: 'string',
      minLength: 1,
      description:
        'With `kind`: the party (id or prefix) of the run (kick, add-party, change-threshold, contracts).',
    },
    timeout: timeoutSchema(DEFAULT_TIMEOUT, 'the run to finish (wait, retry)'),
  },
  required: ['node', 'action'],
  oneOf: [
    {
      required: ['instance'],
      not: { anyOf: [{ required: ['kind'] }, { required: ['prefix'] }, { required: ['party'] }] },
    },
    {
      required: ['kind'],
      not: { required: ['instance'] },
      oneOf: [{ required: ['prefix'] }, { required: ['party'] }],
    },
  ],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `dpm.workflow`; its run-time code is ./workflow-control.ts. */
export const dpmWorkflowDeclaration = declareStep<With>({
  kind: 'dpm.workflow',
  summary: 'Wait for, cancel, retry (only when safe) or dismiss one workflow run.',
  withSchema,
  outputs: {
    instance: 'the run’s instance name (null when no run was found to cancel or dismiss)',
    status: 'its status after the action: completed, cancelled, failed, dismissed, or absent',
  },
  needsTarget: true,
  check,
});
