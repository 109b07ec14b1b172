/**
 * What the declarations of the token kinds that wait read: the schemas of their waits.
 */
import { durationSchema } from '../../playbook/playbook-schema.js';

export const intervalSchema = {
  ...durationSchema,
  description:
    'The longest pause between two polls (default 30s). Polls start one second apart and back off to it.',
} as const;

export const waitSchema = {
  ...durationSchema,
  description:
    'How long this run waits (default 10m; never beyond the step’s `timeout`). When it runs out the run pauses (exit 3) saying what it saw; running the same command again carries on waiting, and nothing is sent twice.',
} as const;
