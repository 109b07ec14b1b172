/**
 * Playbook validation in three passes, every problem of a file at once, sorted by position:
 *  1. the playbook schema (keys, types, patterns);
 *  2. each step's `with` against its kind's schema (values that are whole `${{ … }}` expressions are checked
 *     again, resolved, at run time with checkResolvedWith);
 *  3. named semantic rules (rules.ts, expression-rules.ts) and the step kinds' own `check()`.
 * Pass 2 and the expression rules go step by step together, so that the strings both read are parsed once.
 * Positions are looked up only for what is reported (load.ts): a valid file never pays for them.
 */
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { ValidationError } from '../errors.js';
import { didYouMean } from '../playbook/closest.js';
import { RETRY_DEFAULTS } from './defaults.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics.js';
import { parseDuration } from '../playbook/duration.js';
import { checkStepExpressions, checkVarExpressions } from './expression-rules.js';
import { readSource } from './load.js';
import type { Playbook, RetryPolicy, SourceDoc, StepSpec } from '../playbook/model.js';

export type { NameUse } from '../playbook/model.js';
import {
  playbookSchema,
  stepSchema,
  type PlaybookFile,
  type RetryFile,
  type StepFile,
} from '../playbook/playbook-schema.js';
import { parsePointer } from '../playbook/pointer.js';
import { RuleContext, isRecord, type StepInfo } from './rule-context.js';
import {
  durations,
  duplicateStepIds,
  reservedNames,
  inputDefaults,
  keyWithoutForEach,
  secretsInPlainFields,
  stepChecks,
} from './rules.js';
import {
  checkSchema,
  explainErrors,
  genericWhere,
  validatorFor,
  expressionPointers,
  withWhere,
  type Finding,
} from '../playbook/schema-check.js';
import type { Target } from '../playbook/target.js';
import type { StepKinds } from '../steps/index.js';

export interface ValidateOptions {
  /** the step kinds by `uses`: the kinds the playbook names must be loaded (`loadPlaybook` loads them) */
  registry: Pick<StepKinds, 'names' | 'declaration'>;
  /** when given, the step kinds' `check()` run with it (they get the unresolved `with`) */
  target?: Target | undefined;
}

export function validatePlaybook(
  doc: SourceDoc,
  opts: ValidateOptions,
): { playbook?: Playbook; diagnostics: Diagnostic[] } {
  if (doc.data === null || doc.data === undefined) {
    const diagnostic: Diagnostic = {
      file: doc.file,
      line: 1,
      col: 1,
      pointer: '',
      rule: 'schema',
      message: 'the file is empty',
      expected: 'a playbook: name, steps, and optionally description, inputs, vars',
    };
    return { diagnostics: [diagnostic] };
  }
  const ctx = new RuleContext(doc, opts.registry, opts.target);
  const schemaFindings: Diagnostic[] = checkSchema(playbookSchema, doc.data, {
    where: playbookWhere(ctx),
  }).map((finding) => toDiagnostic(doc, '', finding));
  const checkKind = stepKindCheck(ctx, schemaFindings);
  const validWith = new Set<StepInfo>();
  checkVarExpressions(ctx);
  for (const step of ctx.steps) {
    // one after the other, so that the strings both parse are parsed once (the parser's cache still has them)
    if (checkKind(step)) validWith.add(step);
    checkStepExpressions(ctx, step);
  }

  duplicateStepIds(ctx);
  reservedNames(ctx);
  keyWithoutForEach(ctx);
  secretsInPlainFields(ctx);
  durations(ctx);
  inputDefaults(ctx);
  stepChecks(ctx, validWith);

  const diagnostics = [...schemaFindings, ...ctx.diagnostics].sort(compareDiagnostics);
  if (diagnostics.length > 0) return { diagnostics };
  return { playbook: buildPlaybook(doc, doc.data as PlaybookFile, ctx.names), diagnostics };
}

/**
 * Load, parse and validate a playbook file, loading the step kinds it names (and no other); throws
 * ValidationError('LB_PLAYBOOK_INVALID') with every problem.
 */
export async function loadPlaybook(
  file: string,
  opts: ValidateOptions & { registry: StepKinds },
): Promise<Playbook> {
  const { doc, diagnostics } = readSource(file, 'LB_PLAYBOOK_INVALID');
  if (diagnostics.length > 0) throw new ValidationError('LB_PLAYBOOK_INVALID', diagnostics);
  await opts.registry.declare(kindsNamed(doc.data));
  const result = validatePlaybook(doc, opts);
  if (!result.playbook) throw new ValidationError('LB_PLAYBOOK_INVALID', result.diagnostics);
  return result.playbook;
}

/** The `uses` of every step of a playbook's data, as written (unknown ones included). */
function kindsNamed(data: unknown): string[] {
  const steps = isRecord(data) && Array.isArray(data['steps']) ? (data['steps'] as unknown[]) : [];
  return steps.flatMap((step) => (isRecord(step) && typeof step['uses'] === 'string' ? [step['uses']] : []));
}

/**
 * Pass 2, one step at a time: `uses` names a registered kind, and `with` fits its schema. The check says
 * whether the step's `with` fits.
 */
function stepKindCheck(ctx: RuleContext, out: Diagnostic[]): (step: StepInfo) => boolean {
  const kinds = ctx.registry.names;
  const usesPattern = new RegExp(stepSchema.properties.uses.pattern);
  return (step) => {
    if (step.uses === undefined) return false;
    if (!step.kind) {
      if (!usesPattern.test(step.uses)) return false; // the schema reported it
      ctx.report({
        pointer: `${step.pointer}/uses`,
        rule: 'unknown-step-kind',
        message: `unknown step kind '${step.uses}'`,
        expected: `one of ${kinds.join(', ')}`,
        hint: didYouMean(step.uses, kinds) ?? 'run `ledgerbook schema --list` to see the step kinds',
      });
      return false;
    }
    const value = step.raw['with'] ?? {};
    if (!isRecord(value)) return false; // the schema reported it
    const validate = validatorFor(step.kind.withSchema);
    if (validate(value)) return true;
    const errors = validate.errors ?? [];
    const expressions = expressionPointers(value, (text) => ctx.template(text));
    // the usual failure: values that are whole expressions, whose type is known only at run time (explaining the
    // errors would drop every one of them)
    if (errors.every((error) => expressions.whole.has(error.instancePath))) return true;
    const kind = step.kind;
    const fields = ctx.fields(step);
    const findings = explainErrors(errors, {
      where: (pointer) => withWhere(kind.kind, pointer),
      expressions: expressions.whole,
      templates: expressions.templates,
      secret: (pointer) => fields.get(pointer)?.secret === true,
    });
    for (const finding of findings) out.push(toDiagnostic(ctx.doc, `${step.pointer}/with`, finding));
    return findings.length === 0;
  };
}

function toDiagnostic(doc: SourceDoc, base: string, finding: Finding): Diagnostic {
  const pointer = `${base}${finding.pointer}`;
  const position = doc.positionOf(pointer, finding.atKey ? 'key' : 'value');
  return {
    file: doc.file,
    line: position.line,
    col: position.col,
    pointer,
    message: finding.message,
    expected: finding.expected,
    hint: finding.hint,
    rule: 'schema',
  };
}

/** Where a pointer of the playbook is, in words: "in step 'deploy'", "in retry of step 'deploy'". */
function playbookWhere(ctx: RuleContext): (pointer: string) => string {
  return (pointer) => {
    const [top, index, field, ...rest] = parsePointer(pointer);
    if (top === 'steps' && index !== undefined) {
      const step = ctx.steps.find((s) => String(s.index) === index);
      const name = step ? ctx.describeStep(step) : `step ${Number(index) + 1}`;
      if (field === undefined) return `in ${name}`;
      return `in \`${[field, ...rest].join('.')}\` of ${name}`;
    }
    if (top === 'inputs' && index !== undefined && field === undefined) return `in input '${index}'`;
    return genericWhere(pointer);
  };
}

function buildPlaybook(doc: SourceDoc, data: PlaybookFile, names: Playbook['names']): Playbook {
  const file = doc.file;
  let digest: string | undefined;
  return {
    file,
    baseDir: dirname(resolve(file)),
    name: data.name,
    description: data.description,
    inputs: data.inputs ?? {},
    vars: data.vars ?? {},
    steps: data.steps.map((step, index) => buildStep(step, index)),
    // on first read: `validate` never reads it, and so never loads Node's crypto for it
    get digest() {
      return (digest ??= createHash('sha256').update(doc.text).digest('hex'));
    },
    source: doc,
    names,
  };
}

function buildStep(step: StepFile, index: number): StepSpec {
  return {
    id: step.id,
    name: step.name ?? step.id,
    uses: step.uses,
    with: step.with ?? {},
    if: step.if,
    forEach: step.for_each,
    key: step.key,
    concurrency: step.concurrency,
    retry: retryPolicy(step.retry),
    timeoutMs: step.timeout === undefined ? undefined : parseDuration(step.timeout),
    pointer: `/steps/${index}`,
  };
}

/** The policy of a step without `retry:`, shared by all of them. */
let defaultRetry: Readonly<RetryPolicy> | undefined;

function retryPolicy(retry: RetryFile | undefined): RetryPolicy {
  if (retry === undefined) return (defaultRetry ??= Object.freeze(policyOf(undefined)));
  return policyOf(retry);
}

function policyOf(retry: RetryFile | undefined): RetryPolicy {
  return {
    attempts: retry?.attempts ?? RETRY_DEFAULTS.attempts,
    delayMs: parseDuration(retry?.delay ?? RETRY_DEFAULTS.delay),
    factor: retry?.factor ?? RETRY_DEFAULTS.factor,
    maxDelayMs: parseDuration(retry?.max_delay ?? RETRY_DEFAULTS.max_delay),
    jitter: retry?.jitter ?? RETRY_DEFAULTS.jitter,
  };
}

/**
 * The secrets and environment variables a playbook refers to, each with the place it is first used (so that a
 * missing one is reported at the line that needs it). Found while validating its expressions.
 */
export function referencedNames(playbook: Playbook): Playbook['names'] {
  return playbook.names;
}
