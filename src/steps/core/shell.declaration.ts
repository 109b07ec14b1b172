import type { FromSchema } from 'json-schema-to-ts';
import { declareStep } from '../../playbook/step-declaration.js';

const withSchema = {
  type: 'object',
  properties: {
    run: {
      description:
        'The command: a string run by the shell (`sh -c`), or a list [program, arg…] run without a shell. Each `${{ … }}` in a string reaches the shell as an environment variable (`LB_EXPR_1`, …), never as command text: no value can change the command.',
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: { type: 'string' }, minItems: 1 },
      ],
    },
    creates: {
      type: 'string',
      minLength: 1,
      description: 'A path the command creates: when it exists, the step is in sync and does not run.',
    },
    unless: {
      type: 'string',
      minLength: 1,
      description:
        'A read-only check command (run by the shell, expressions passed as variables like `run`): when it exits 0, the step is in sync and does not run.',
    },
    cwd: {
      type: 'string',
      description: 'Working directory, relative to the playbook file (default its folder).',
    },
    env: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Extra environment variables for the command.',
    },
  },
  required: ['run'],
  additionalProperties: false,
} as const;

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `core.shell`; its run-time code is ./shell.ts. */
export const coreShellDeclaration = declareStep<With>({
  kind: 'core.shell',
  summary: 'Run a command; `creates` / `unless` make a rerun idempotent.',
  withSchema,
  outputs: {
    stdout: 'standard output, trailing newline removed',
    stderr: 'standard error',
    exit_code: 'exit code',
  },
  needsTarget: false,
});
