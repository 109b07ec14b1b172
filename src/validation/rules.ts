/**
 * Semantic rules a schema cannot express, one function each; every problem carries the rule's name. The
 * expression rules live in expression-rules.ts.
 */
import { dirname, resolve } from 'node:path';
import { hasExpression } from '../playbook/expressions/template.js';
import { InvalidDurationError, parseDuration } from '../playbook/duration.js';
import { RETRY_DEFAULTS } from './defaults.js';
import { durationSchema, inputSchema } from '../playbook/playbook-schema.js';
import { valueProblem } from './inputs.js';
import { childPointer } from '../playbook/pointer.js';
import { isRecord, type RuleContext, type StepInfo } from './rule-context.js';

const INPUT_TYPES: readonly unknown[] = inputSchema.properties.type.enum;
const DURATION = new RegExp(durationSchema.anyOf[0].pattern);
const SECRET_REFERENCE = /^\s*\$\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}\s*$/;

export function duplicateStepIds(ctx: RuleContext): void {
  for (const { step, earlier } of ctx.duplicates) {
    const line = ctx.doc.positionOf(`${earlier.pointer}/id`).line;
    ctx.report({
      pointer: `${step.pointer}/id`,
      rule: 'duplicate-step-id',
      message: `duplicate step id '${step.id}' (also the id of step ${earlier.index + 1}, line ${line})`,
      hint: 'ids name outputs, checkpoints and approvals: give each step its own',
    });
  }
}

/** Names that JavaScript objects already carry: as an input, var or step id they would shadow or be shadowed. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function reservedNames(ctx: RuleContext): void {
  const check = (pointer: string, name: string, what: string): void => {
    if (!RESERVED_NAMES.has(name)) return;
    ctx.report({
      pointer,
      atKey: pointer !== '' && !pointer.endsWith('/id'),
      rule: 'reserved-name',
      message: `'${name}' cannot be ${what}: it is reserved`,
      expected: `a name other than ${[...RESERVED_NAMES].join(', ')}`,
      hint: `rename it, e.g. '${name.replace(/_/g, '')}_value'`,
    });
  };
  for (const name of Object.keys(ctx.inputs)) check(childPointer('/inputs', name), name, 'an input name');
  for (const name of ctx.varNames) check(childPointer('/vars', name), name, 'a var name');
  for (const step of ctx.steps) if (step.id !== undefined) check(`${step.pointer}/id`, step.id, 'a step id');
}

export function keyWithoutForEach(ctx: RuleContext): void {
  for (const step of ctx.steps) {
    if (step.raw['key'] === undefined || step.forEach) continue;
    ctx.report({
      pointer: `${step.pointer}/key`,
      atKey: true,
      rule: 'key-without-for-each',
      message: `key: without for_each in ${ctx.describeStep(step)}`,
      hint: 'key names the checkpoint of each for_each element: add for_each:, or remove key:',
    });
  }
}

/** Fields marked `x-secret` take their value from a secret, never from the playbook text. */
export function secretsInPlainFields(ctx: RuleContext): void {
  for (const step of ctx.steps) {
    const value = step.raw['with'];
    if (!step.kind || !isRecord(value)) continue;
    for (const [pointer, { secret, value: field }] of ctx.fields(step)) {
      if (!secret) continue;
      if (typeof field === 'string' && SECRET_REFERENCE.test(field)) continue;
      ctx.report({
        pointer: `${step.pointer}/with${pointer}`,
        rule: 'secret-in-plain-field',
        message: `secret in a plain field: \`with${pointer.replace(/\//g, '.')}\` of ${step.kind.kind} must be \${{ secrets.NAME }}`,
        hint: 'move the value into a secret (an environment variable, the target’s secrets: or --secrets-file) and write ${{ secrets.NAME }} here',
      });
    }
  }
}

/**
 * Durations the schema accepts but that cannot be used: units out of order or repeated, too long for a timer, a
 * zero timeout, a retry delay longer than its maximum.
 */
export function durations(ctx: RuleContext): void {
  for (const step of ctx.steps) {
    const timeout = checkDuration(ctx, step.raw['timeout'], `${step.pointer}/timeout`);
    if (timeout === 0) {
      ctx.report({
        pointer: `${step.pointer}/timeout`,
        rule: 'duration',
        message: 'timeout: 0 would fail every attempt at once',
        hint: 'give a positive duration, or remove timeout:',
      });
    }
    const retry = step.raw['retry'];
    if (isRecord(retry)) {
      const delay = checkDuration(ctx, retry['delay'], `${step.pointer}/retry/delay`);
      const max = checkDuration(ctx, retry['max_delay'], `${step.pointer}/retry/max_delay`);
      const maxDelay = retry['max_delay'] === undefined ? parseDuration(RETRY_DEFAULTS.max_delay) : max;
      if (delay !== undefined && maxDelay !== undefined && delay > maxDelay) {
        ctx.report({
          pointer: `${step.pointer}/retry/delay`,
          rule: 'duration',
          message: `retry delay is longer than max_delay (${retry['max_delay'] === undefined ? `${RETRY_DEFAULTS.max_delay} by default` : `${JSON.stringify(retry['max_delay'])}`.replace(/"/g, '')})`,
          hint: 'shorten delay or raise max_delay',
        });
      }
    }
    for (const [pointer, { duration, value }] of ctx.fields(step))
      if (duration) checkDuration(ctx, value, `${step.pointer}/with${pointer}`);
  }
}

/** The duration in ms when the schema accepted the value; reports what parseDuration refuses. */
function checkDuration(ctx: RuleContext, value: unknown, pointer: string): number | undefined {
  if (typeof value === 'string' && (hasExpression(value) || !DURATION.test(value))) return undefined;
  if (typeof value !== 'string' && (typeof value !== 'number' || value < 0)) return undefined;
  try {
    return parseDuration(value);
  } catch (error) {
    if (!(error instanceof InvalidDurationError)) throw error;
    ctx.report({ pointer, rule: 'duration', message: error.message, hint: error.hint });
    return undefined;
  }
}

/** An input's default must be a value the input accepts. */
export function inputDefaults(ctx: RuleContext): void {
  for (const [name, declaration] of Object.entries(ctx.inputs)) {
    if (!isRecord(declaration) || !Object.hasOwn(declaration, 'default')) continue;
    // With a type or enum the schema refused, the schema's finding says it all.
    if (declaration['type'] !== undefined && !INPUT_TYPES.includes(declaration['type'])) continue;
    if (declaration['enum'] !== undefined && !Array.isArray(declaration['enum'])) continue;
    const problem = valueProblem(declaration, declaration['default']);
    if (!problem) continue;
    ctx.report({
      pointer: childPointer(childPointer('/inputs', name), 'default'),
      rule: 'input-default',
      message: `default of input '${name}': ${problem.message}`,
      expected: problem.expected,
      hint: problem.hint,
    });
  }
}

/**
 * The step kinds' own static checks (`check()`), for steps whose `with` passed its schema. Without a target (the
 * built-in sandbox, not started by `validate`) a kind still checks what needs none: its files and their contents.
 */
export function stepChecks(ctx: RuleContext, schemaValid: ReadonlySet<StepInfo>): void {
  const baseDir = dirname(resolve(ctx.doc.file));
  for (const step of ctx.steps) {
    const value = step.raw['with'] ?? {};
    if (!step.kind?.check || !schemaValid.has(step)) continue;
    for (const finding of step.kind.check(value, ctx.target, baseDir)) {
      if (finding.onlyIfRuns === true && step.raw['if'] !== undefined) continue;
      if (finding.at) {
        ctx.reportElsewhere({
          ...finding.at,
          pointer: '',
          rule: 'step-check',
          message: finding.message,
          expected: finding.expected,
          hint: finding.hint,
        });
        continue;
      }
      ctx.report({
        pointer: `${step.pointer}/with${finding.pointer}`,
        rule: 'step-check',
        message: finding.message,
        expected: finding.expected,
        hint: finding.hint,
      });
    }
  }
}
