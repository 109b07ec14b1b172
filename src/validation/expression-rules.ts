/**
 * Semantic rules about expressions: syntax, and what each reference reads — a declared input, an earlier var,
 * a step that runs before (never itself or a later one) and an output its kind declares, `item` only in a
 * for_each step. Every problem points at the reference inside its string.
 */
import { didYouMean } from '../playbook/closest.js';
import { ExpressionSyntaxError } from '../playbook/expressions/errors.js';
import { collectReferences, templateReferences, type Reference } from '../playbook/expressions/references.js';
import { ROOTS } from '../playbook/expressions/scope.js';
import { hasExpression } from '../playbook/expressions/template.js';
import { childPointer, isWithin } from '../playbook/pointer.js';
import { forEachExpressionString, isRecord, type RuleContext, type StepInfo } from './rule-context.js';

/** Where a string is: in a var, or in a field of a step (`lazy`: a field the step evaluates itself). */
type Place =
  | { in: 'var'; index: number; name: string }
  | { in: 'step'; step: StepInfo; field: 'with' | 'for_each' | 'key' | 'if'; lazy: boolean };

/** The expressions of the vars (before any step's: the first use of a secret is the first in the file). */
export function checkVarExpressions(ctx: RuleContext): void {
  const vars = isRecord(ctx.data['vars']) ? ctx.data['vars'] : {};
  ctx.varNames.forEach((name, index) => {
    forEachExpressionString(vars[name], childPointer('/vars', name), (text, pointer) =>
      checkString(ctx, text, pointer, { in: 'var', index, name }),
    );
  });
}

/** The expressions of one step: in `with`, `for_each`, `key` and `if`. */
export function checkStepExpressions(ctx: RuleContext, step: StepInfo): void {
  const lazy = lazyPointers(ctx, step);
  forEachExpressionString(step.raw['with'], `${step.pointer}/with`, (text, pointer) => {
    const isLazy = lazy.length > 0 && lazy.some((p) => isWithin(pointer, p));
    checkString(ctx, text, pointer, { in: 'step', step, field: 'with', lazy: isLazy });
  });
  for (const field of ['for_each', 'key'] as const) {
    forEachExpressionString(step.raw[field], `${step.pointer}/${field}`, (text, pointer) =>
      checkString(ctx, text, pointer, { in: 'step', step, field, lazy: false }),
    );
  }
  if (typeof step.raw['for_each'] === 'string')
    checkForEachInput(ctx, step.raw['for_each'], `${step.pointer}/for_each`);
  checkIf(ctx, step);
}

/** Absolute pointers of the `with` fields the step kind evaluates itself (`x-lazy-expression`). */
function lazyPointers(ctx: RuleContext, step: StepInfo): string[] {
  const found: string[] = [];
  const fields = ctx.fields(step);
  if (fields.size === 0) return found;
  for (const [pointer, annotations] of fields)
    if (annotations.lazy) found.push(`${step.pointer}/with${pointer}`);
  return found;
}

function checkString(ctx: RuleContext, text: string, pointer: string, place: Place): void {
  let references: readonly Reference[];
  try {
    references = templateReferences(ctx.template(text));
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    ctx.report({
      pointer,
      rule: 'expression-syntax',
      message: `invalid expression: ${error.message}`,
      hint: error.hint,
      offset: { value: text, at: error.offset },
    });
    return;
  }
  for (const reference of references) checkReference(ctx, reference, text, pointer, place);
}

const YAML_11_BOOLEANS: ReadonlySet<string> = new Set(['yes', 'no', 'on', 'off', 'y', 'n']);

/** `if:` — a boolean, one `${{ … }}`, or a bare expression such as `inputs.mode == 'full'`. */
function checkIf(ctx: RuleContext, step: StepInfo): void {
  const text = step.raw['if'];
  if (typeof text !== 'string') return;
  const pointer = `${step.pointer}/if`;
  const place: Place = { in: 'step', step, field: 'if', lazy: false };
  if (hasExpression(text)) {
    try {
      if (!ctx.template(text).whole) {
        ctx.report({
          pointer,
          rule: 'if-expression',
          message:
            'if: mixes text with ${{ … }}: the result is a non-empty string, so the condition is always true',
          hint: 'put the whole condition inside one ${{ … }}',
        });
        return;
      }
    } catch (error) {
      if (!(error instanceof ExpressionSyntaxError)) throw error;
    }
    checkString(ctx, text, pointer, place);
    return;
  }
  if (YAML_11_BOOLEANS.has(text.trim().toLowerCase())) {
    ctx.report({
      pointer,
      rule: 'if-expression',
      message: `if: '${text}' is a string in YAML 1.2, not a boolean`,
      hint: 'write true or false',
    });
    return;
  }
  let references: readonly Reference[];
  try {
    references = collectReferences(text, { bare: true });
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    ctx.report({
      pointer,
      rule: 'if-expression',
      message: `if: is neither \${{ … }} nor a valid expression: ${error.message}`,
      hint: error.hint ?? "write a condition such as ${{ inputs.mode == 'full' }}",
      offset: { value: text, at: error.offset },
    });
    return;
  }
  for (const reference of references) checkReference(ctx, reference, text, pointer, place);
}

function checkReference(ctx: RuleContext, ref: Reference, text: string, pointer: string, place: Place): void {
  noteName(ctx, ref, text, pointer);
  const report = (
    rule: string,
    message: string,
    more: { expected?: string; hint?: string | undefined } = {},
  ): void => ctx.report({ pointer, rule, message, ...more, offset: { value: text, at: ref.offset } });
  const [first, second, third] = ref.path;
  switch (ref.root) {
    case 'inputs': {
      if (first === undefined || Object.hasOwn(ctx.inputs, first)) return;
      const names = Object.keys(ctx.inputs);
      report('unknown-input', `unknown input '${first}'`, {
        expected: names.length > 0 ? `one of ${names.join(', ')}` : 'no inputs are declared',
        hint: didYouMean(first, names) ?? `declare it under inputs:`,
      });
      return;
    }
    case 'vars': {
      if (first === undefined) return;
      const index = ctx.varNames.indexOf(first);
      if (index < 0) {
        report('unknown-var', `unknown var '${first}'`, {
          expected: ctx.varNames.length > 0 ? `one of ${ctx.varNames.join(', ')}` : 'no vars are declared',
          hint: didYouMean(first, ctx.varNames) ?? 'declare it under vars:',
        });
      } else if (place.in === 'var' && index >= place.index) {
        report(
          'var-order',
          index === place.index
            ? `var '${place.name}' refers to itself`
            : `var '${place.name}' refers to var '${first}', which is defined after it`,
          { hint: `vars are computed in order, top to bottom: define '${first}' before '${place.name}'` },
        );
      }
      return;
    }
    case 'steps':
      checkStepReference(report, ctx, place, first, second, third);
      return;
    case 'item':
      if (place.in === 'step' && place.field === 'key' && !place.step.forEach) return; // key-without-for-each says it
      if (place.in === 'var' || !place.step.forEach) {
        report('item-outside-for-each', '`item` is only defined in a step with for_each', {
          hint: 'add for_each: to the step, or refer to the value another way',
        });
      } else if (place.field === 'for_each') {
        report('item-outside-for-each', '`item` is not defined in for_each itself', {
          hint: 'for_each gives the list; `item` is each element of it, in with: and key:',
        });
      }
      return;
    case 'secrets':
    case 'env':
      if (first === undefined) {
        report(
          'unnamed-reference',
          `name the ${ref.root === 'secrets' ? 'secret' : 'environment variable'}: ${ref.root}.NAME`,
          {
            hint: `only named ${ref.root} are resolved before the run`,
          },
        );
      }
      return;
    case 'target':
      return;
    default:
      if (place.in === 'step' && place.lazy) return; // the step adds names of its own (e.g. `response`)
      report('unknown-name', `unknown name '${ref.root}'`, {
        expected: `one of ${ROOTS.join(', ')}`,
        hint: didYouMean(ref.root, ROOTS),
      });
  }
}

/** The first use of each secret and environment variable, for the checks that they are set. */
function noteName(ctx: RuleContext, ref: Reference, text: string, pointer: string): void {
  const name = ref.path[0];
  const uses = ref.root === 'secrets' ? ctx.names.secrets : ref.root === 'env' ? ctx.names.env : undefined;
  if (uses !== undefined && name !== undefined && !uses.has(name))
    uses.set(name, { pointer, value: text, offset: ref.offset });
}

function checkStepReference(
  report: (rule: string, message: string, more?: { expected?: string; hint?: string | undefined }) => void,
  ctx: RuleContext,
  place: Place,
  id: string | undefined,
  property: string | undefined,
  output: string | undefined,
): void {
  if (place.in === 'var') {
    report(
      'vars-step-reference',
      'vars cannot refer to steps: vars are computed before the first step runs',
      {
        hint: 'use the step output directly in the step that needs it',
      },
    );
    return;
  }
  if (id === undefined) return;
  const here = place.step;
  const referenced = ctx.stepById(id);
  if (!referenced) {
    const earlier = ctx.steps
      .filter((s) => s.index < here.index && s.id !== undefined)
      .map((s) => s.id as string);
    report('unknown-step', `unknown step '${id}'`, {
      expected:
        earlier.length > 0 ? `a step before this one: ${earlier.join(', ')}` : 'a step before this one',
      hint: didYouMean(id, ctx.stepIds),
    });
    return;
  }
  if (referenced.index === here.index) {
    report('self-reference', `step '${id}' refers to its own outputs`, {
      hint: 'a step can only read the outputs of steps that ran before it',
    });
    return;
  }
  if (referenced.index > here.index) {
    report(
      'forward-reference',
      `step '${id}' runs after ${ctx.describeStep(here)}: its outputs are not known yet`,
      {
        hint: `move '${id}' above ${ctx.describeStep(here)}, or refer to a step that runs earlier`,
      },
    );
    return;
  }
  if (property !== undefined && property !== 'outputs') {
    report('unknown-output', `steps.${id}.${property}: a step exposes only 'outputs'`, {
      hint: `write steps.${id}.outputs.<name>`,
    });
    return;
  }
  const kind = referenced.kind;
  if (output === undefined || kind === undefined) return;
  // A for_each step's outputs are its items' outputs by key: steps.<id>.outputs.results.<key>.<output>.
  if (referenced.forEach) {
    if (output === 'results') return;
    report('unknown-output', `step '${id}' fans out with for_each: its only output is 'results'`, {
      expected: "results (each item's outputs by its key)",
      hint: `write steps.${id}.outputs.results.<key>.${output}`,
    });
    return;
  }
  if (Object.hasOwn(kind.outputs, output)) return;
  const outputs = Object.keys(kind.outputs);
  report('unknown-output', `step '${id}' (${kind.kind}) has no output '${output}'`, {
    expected: outputs.length > 0 ? `one of ${outputs.join(', ')}` : `${kind.kind} has no outputs`,
    hint: didYouMean(output, outputs),
  });
}

/**
 * `for_each: ${{ inputs.x }}` over an input declared as something other than a list fails every run: say so
 * now. (Other expressions are known only at run time, where the engine reports the step's position.)
 */
function checkForEachInput(ctx: RuleContext, text: string, pointer: string): void {
  let whole;
  try {
    whole = ctx.template(text);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return; // checkString reported it
    throw error;
  }
  const expr = whole.whole ? whole.parts[0]?.expr : undefined;
  if (expr?.type !== 'member' || expr.object.type !== 'root' || expr.object.name !== 'inputs') return;
  const input = ctx.inputs[expr.property];
  if (input === undefined) return; // unknown-input reports it
  const type = isRecord(input) && typeof input['type'] === 'string' ? input['type'] : 'string';
  if (type === 'array') return;
  ctx.report({
    pointer,
    rule: 'for-each-type',
    message: `for_each must give a list, but input '${expr.property}' is declared as ${type}`,
    hint: `declare it with type: array (and a list default), or give for_each a list`,
    offset: { value: text, at: expr.object.start },
  });
}
