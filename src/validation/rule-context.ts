/**
 * What the semantic rules see of a playbook: its raw data read defensively (the schema may have found errors,
 * and every rule still runs so that all problems of a file are reported at once), and helpers to report.
 */
import type { AnyStepDeclaration } from '../playbook/step-declaration.js';
import type { Diagnostic } from '../diagnostics.js';
import type { SourceDoc } from '../playbook/model.js';
import { hasExpression, readTemplate, type Template } from '../playbook/expressions/template.js';
import type { NameUse } from '../playbook/model.js';
import { childPointer } from '../playbook/pointer.js';
import { positionInString } from './scalar-position.js';
import { annotate, type FieldAnnotations } from '../playbook/schema-annotations.js';
import type { Target } from '../playbook/target.js';
import type { StepKinds } from '../steps/index.js';

export interface StepInfo {
  index: number;
  /** `/steps/3` */
  pointer: string;
  raw: Record<string, unknown>;
  id: string | undefined;
  uses: string | undefined;
  /** undefined when `uses` names no registered kind */
  kind: AnyStepDeclaration | undefined;
  forEach: boolean;
}

export interface Problem {
  pointer: string;
  message: string;
  rule: string;
  expected?: string | undefined;
  hint?: string | undefined;
  /** point at the key of `pointer` rather than its value */
  atKey?: boolean;
  /** a character offset inside the string at `pointer` */
  offset?: { value: string; at: number };
}

const NO_FIELDS: ReadonlyMap<string, FieldAnnotations> = new Map();
/** More strings than one step holds: enough for a step's two passes to share their parse. */
const RECENT_TEMPLATES = 256;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class RuleContext {
  readonly data: Record<string, unknown>;
  readonly steps: StepInfo[];
  readonly inputs: Record<string, unknown>;
  readonly varNames: string[];
  /** the secrets and environment variables the playbook refers to, each at its first use */
  readonly names = { secrets: new Map<string, NameUse>(), env: new Map<string, NameUse>() };
  /** steps whose id an earlier step already has, with that earlier step */
  readonly duplicates: { step: StepInfo; earlier: StepInfo }[] = [];
  private readonly found: Diagnostic[] = [];
  private readonly byId = new Map<string, StepInfo>();
  private readonly annotations = new Map<StepInfo, ReadonlyMap<string, FieldAnnotations>>();
  private readonly templates = new Map<string, Template>();

  constructor(
    readonly doc: SourceDoc,
    readonly registry: Pick<StepKinds, 'names' | 'declaration'>,
    readonly target: Target | undefined,
  ) {
    this.data = isRecord(doc.data) ? doc.data : {};
    this.inputs = isRecord(this.data['inputs']) ? this.data['inputs'] : {};
    this.varNames = isRecord(this.data['vars']) ? Object.keys(this.data['vars']) : [];
    const steps = Array.isArray(this.data['steps']) ? (this.data['steps'] as unknown[]) : [];
    this.steps = [];
    for (let index = 0; index < steps.length; index++) {
      const raw = steps[index];
      if (!isRecord(raw)) continue;
      const uses = typeof raw['uses'] === 'string' ? raw['uses'] : undefined;
      const step: StepInfo = {
        index,
        pointer: childPointer('/steps', index),
        raw,
        id: typeof raw['id'] === 'string' ? raw['id'] : undefined,
        uses,
        kind: uses === undefined ? undefined : registry.declaration(uses),
        forEach: raw['for_each'] !== undefined,
      };
      this.steps.push(step);
      if (step.id === undefined) continue;
      const earlier = this.byId.get(step.id);
      if (earlier === undefined) this.byId.set(step.id, step);
      else this.duplicates.push({ step, earlier });
    }
  }

  /** a problem in another file than the playbook (a recipients file a step reads), at its own position */
  reportElsewhere(diagnostic: Diagnostic): void {
    this.found.push(diagnostic);
  }

  report(problem: Problem): void {
    const position = problem.offset
      ? positionInString(this.doc, problem.pointer, problem.offset.value, problem.offset.at)
      : this.doc.positionOf(problem.pointer, problem.atKey ? 'key' : 'value');
    this.found.push({
      file: this.doc.file,
      line: position.line,
      col: position.col,
      pointer: problem.pointer,
      message: problem.message,
      expected: problem.expected,
      hint: problem.hint,
      rule: problem.rule,
    });
  }

  get diagnostics(): readonly Diagnostic[] {
    return this.found;
  }

  /** the first step with this id */
  stepById(id: string): StepInfo | undefined {
    return this.byId.get(id);
  }

  get stepIds(): string[] {
    return [...this.byId.keys()];
  }

  /**
   * What the step kind's schema says about each field of the step's `with` (secret, lazy, duration), by
   * pointer relative to `with`; computed once per step for the rules that ask.
   */
  fields(step: StepInfo): ReadonlyMap<string, FieldAnnotations> {
    let found = this.annotations.get(step);
    if (!found) {
      const value = step.raw['with'];
      found = step.kind && isRecord(value) ? annotate(step.kind.withSchema, value) : NO_FIELDS;
      // most kinds annotate nothing: an empty answer is quick to give again, and not worth keeping per step
      if (found.size > 0) this.annotations.set(step, found);
    }
    return found;
  }

  /**
   * A string's `${{ … }}` parsed, for the checks of one step: the schema check and the expression rules ask
   * for the same strings one after the other, and the few strings of the last steps are kept for that (throws
   * ExpressionSyntaxError).
   */
  template(text: string): Template {
    let template = this.templates.get(text);
    if (!template) {
      template = readTemplate(text);
      if (this.templates.size >= RECENT_TEMPLATES) this.templates.clear();
      this.templates.set(text, template);
    }
    return template;
  }

  /** `step 'deploy'`, or `step 3` for a step without a usable id */
  describeStep(step: StepInfo): string {
    return step.id === undefined ? `step ${step.index + 1}` : `step '${step.id}'`;
  }
}

/**
 * Every string in `value` that holds a `${{ … }}`, with its pointer (built only for those: most strings of a
 * playbook have none).
 */
export function forEachExpressionString(
  value: unknown,
  pointer: string,
  visit: (text: string, pointer: string) => void,
): void {
  if (typeof value === 'string') {
    if (hasExpression(value)) visit(value, pointer);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child !== 'string' || hasExpression(child))
        forEachExpressionString(child, childPointer(pointer, i), visit);
    }
  } else if (isRecord(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const child = value[key];
      if (typeof child !== 'string' || hasExpression(child))
        forEachExpressionString(child, childPointer(pointer, key), visit);
    }
  }
}
