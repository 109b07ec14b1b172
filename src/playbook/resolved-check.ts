/**
 * The steps' `with` as the run will see it, checked before anything runs: a field written `${{ inputs.amount }}`
 * passes the file's validation whatever the input, so once the inputs, vars and target are known every step whose
 * `with` reads nothing else is resolved and checked again — its schema and its kind's own `check()`. A bad
 * `--input` is then refused with exit 65 before the first step sends anything, not at the step that reads it.
 *
 * Steps that read another step's outputs are checked when they run (their values do not exist yet); so are
 * fields that read secrets (a finding would quote the value) and steps whose `if:` is false.
 */
import type { AnyStepDeclaration } from './step-declaration.js';
import type { Diagnostic } from '../diagnostics.js';
import { collectReferences, type Reference } from './expressions/references.js';
import type { Scope } from './expressions/scope.js';
import { evaluateCondition, evaluateString, hasExpression, resolveDeep } from './expressions/template.js';
import type { Playbook, StepSpec } from './model.js';
import { childPointer } from './pointer.js';
import { checkResolvedWith } from './schema-check.js';
import type { Target } from './target.js';

export interface ResolvedCheckContext {
  registry: { declaration(kind: string): AnyStepDeclaration | undefined };
  inputs: Record<string, unknown>;
  env: Record<string, string | undefined>;
  target: Target | undefined;
}

/** The fields a kind evaluates itself, per item (`x-lazy-expression`): left as written. */
export function lazyPointers(kind: AnyStepDeclaration): Set<string> {
  const properties = (kind.withSchema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  return new Set(
    Object.entries(properties)
      .filter(([, schema]) => schema['x-lazy-expression'] === true)
      .map(([name]) => `/${name}`),
  );
}

export function checkResolvedSteps(playbook: Playbook, ctx: ResolvedCheckContext): Diagnostic[] {
  const scope: Scope = {
    inputs: ctx.inputs,
    vars: {},
    steps: {},
    secrets: {},
    env: ctx.env,
    target: ctx.target ? { ...ctx.target, file: undefined } : undefined,
  };
  // known before the run: the inputs given, the vars they decide, the environment, the target
  const known = (ref: Reference): boolean => {
    const name = ref.path[0] ?? '';
    switch (ref.root) {
      case 'inputs':
        return name in ctx.inputs;
      case 'vars':
        return name in scope.vars;
      case 'env':
        return true;
      case 'target':
        return ctx.target !== undefined;
      default:
        return false;
    }
  };
  resolveVars(playbook, scope, known);
  const diagnostics: Diagnostic[] = [];
  for (const spec of playbook.steps) {
    const kind = ctx.registry.declaration(spec.uses);
    if (kind === undefined) continue;
    for (const finding of checkStep(spec, kind, scope, known, ctx.target, playbook.baseDir)) {
      diagnostics.push(positioned(playbook, spec, finding));
    }
  }
  return diagnostics;
}

interface Finding {
  pointer: string;
  message: string;
  expected?: string | undefined;
  hint?: string | undefined;
  at?: { file: string; line: number; col: number } | undefined;
}

function checkStep(
  spec: StepSpec,
  kind: AnyStepDeclaration,
  scope: Scope,
  known: (ref: Reference) => boolean,
  target: Target | undefined,
  baseDir: string,
): Finding[] {
  const lazy = lazyPointers(kind);
  const isLazy = (name: string): boolean => lazy.has(`/${name}`);
  const fields = Object.entries(spec.with);
  const fieldRefs = fields.map(([name, value]) => ({ name, refs: isLazy(name) ? [] : referencesIn(value) }));
  const conditionRefs = typeof spec.if === 'string' ? referencesIn(spec.if, true) : [];
  const forEachRefs = spec.forEach === undefined ? [] : referencesIn(spec.forEach);
  const usable = (refs: Reference[] | undefined): boolean =>
    refs !== undefined && refs.every((r) => r.root === 'item' || known(r));
  if (!usable(conditionRefs) || !usable(forEachRefs)) return [];
  // a field that reads what is not known yet is checked when the step runs; so is one that reads a secret
  const checkable = new Set(fieldRefs.filter(({ refs }) => usable(refs)).map(({ name }) => name));
  // fields written out in full were checked by the file's own validation
  if (![...checkable].some((name) => !isLazy(name) && containsExpression(spec.with[name]))) return [];
  const complete = checkable.size === fields.length;
  const readsItem = fieldRefs.some(({ refs }) => refs?.some((r) => r.root === 'item'));

  try {
    const elements: unknown =
      spec.forEach === undefined
        ? [undefined]
        : Array.isArray(spec.forEach)
          ? resolveDeep(spec.forEach, scope)
          : evaluateString(spec.forEach, scope);
    if (!Array.isArray(elements)) return [];
    const findings: Finding[] = [];
    for (const element of elements as unknown[]) {
      const itemScope = spec.forEach === undefined ? scope : { ...scope, item: element };
      if (spec.if !== undefined && !evaluateCondition(spec.if, itemScope)) continue;
      // what is not known yet stays written as it is: the kind's check passes over an expression as validation did
      const resolved: Record<string, unknown> = {};
      for (const [name, value] of fields) {
        resolved[name] = checkable.has(name) && !isLazy(name) ? resolveDeep(value, itemScope) : value;
      }
      const schemaFindings = checkResolvedWith(kind, resolved).filter((f) =>
        f.pointer === '' ? complete : checkable.has(f.pointer.split('/')[1] ?? ''),
      );
      findings.push(...schemaFindings);
      if (schemaFindings.length === 0 && kind.check) findings.push(...kind.check(resolved, target, baseDir));
      if (findings.length > 0) break; // one element's problems say what is wrong with all of them
      if (!readsItem) break; // the same values for every element
    }
    return findings;
  } catch {
    // an expression that fails here fails the same way when the step runs, where it is reported with its step
    return [];
  }
}

/** The vars that read only what is known, resolved into the scope in order; the others stay out of it. */
function resolveVars(playbook: Playbook, scope: Scope, known: (ref: Reference) => boolean): void {
  for (const [name, value] of Object.entries(playbook.vars)) {
    const refs = referencesIn(value);
    if (refs === undefined || !refs.every(known)) continue;
    try {
      scope.vars[name] = resolveDeep(value, scope);
    } catch {
      // reported when the run resolves it
    }
  }
}

function containsExpression(value: unknown): boolean {
  if (typeof value === 'string') return hasExpression(value);
  if (Array.isArray(value)) return value.some(containsExpression);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsExpression);
  return false;
}

/** Every reference in the strings of `value`; undefined when one does not parse (validation said so). */
function referencesIn(value: unknown, bare = false): Reference[] | undefined {
  const found: Reference[] = [];
  const visit = (v: unknown): boolean => {
    if (typeof v === 'string') {
      try {
        found.push(...collectReferences(v, { bare: bare && !hasExpression(v) }));
        return true;
      } catch {
        return false;
      }
    }
    if (Array.isArray(v)) return v.every(visit);
    if (v !== null && typeof v === 'object') return Object.values(v).every(visit);
    return true;
  };
  return visit(value) ? found : undefined;
}

function positioned(playbook: Playbook, spec: StepSpec, finding: Finding): Diagnostic {
  return positionedFinding(playbook, spec, finding, {
    rule: 'resolved-with',
    advice: 'the value comes from an expression: check the inputs (--input, or their defaults) it reads',
  });
}

/** A step's finding as a diagnostic: at the line of the file it names, else at its field of the step's `with`. */
export function positionedFinding(
  playbook: Playbook,
  spec: StepSpec,
  finding: Finding,
  { rule, advice }: { rule: string; advice: string },
): Diagnostic {
  if (finding.at) {
    return {
      ...finding.at,
      pointer: '',
      rule,
      message: `step '${spec.id}': ${finding.message}`,
      expected: finding.expected,
      hint: finding.hint ?? advice,
    };
  }
  const field = finding.pointer.split('/')[1];
  const pointer = field === undefined ? `${spec.pointer}/with` : childPointer(`${spec.pointer}/with`, field);
  const written = field === undefined ? undefined : spec.with[field];
  const from = typeof written === 'string' && hasExpression(written) ? ` (from ${written})` : '';
  const where = `with${finding.pointer.replaceAll('/', '.')}`;
  return {
    file: playbook.file,
    ...playbook.source.positionOf(pointer, 'value'),
    pointer,
    rule,
    message: `step '${spec.id}' ${where}${from}: ${finding.message}`,
    expected: finding.expected,
    hint: finding.hint ?? advice,
  };
}
