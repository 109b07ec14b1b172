/**
 * What the semantic rules see of a playbook: its raw data read defensively (the schema may have found errors,
 * and every rule still runs so that all problems of a file are reported at once), and helpers to report.
 */
import type { AnyStepKind } from '../engine/step.js';
import type { Diagnostic } from './diagnostics.js';
import type { SourceDoc } from './model.js';
import { childPointer } from './pointer.js';
import { positionInString } from './scalar-position.js';
import type { Target } from './target.js';

export interface StepInfo {
  index: number;
  /** `/steps/3` */
  pointer: string;
  raw: Record<string, unknown>;
  id: string | undefined;
  uses: string | undefined;
  /** undefined when `uses` names no registered kind */
  kind: AnyStepKind | undefined;
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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class RuleContext {
  readonly data: Record<string, unknown>;
  readonly steps: StepInfo[];
  readonly inputs: Record<string, unknown>;
  readonly varNames: string[];
  private readonly found: Diagnostic[] = [];
  private readonly byId = new Map<string, StepInfo>();

  constructor(
    readonly doc: SourceDoc,
    readonly registry: ReadonlyMap<string, AnyStepKind>,
    readonly target: Target | undefined,
  ) {
    this.data = isRecord(doc.data) ? doc.data : {};
    this.inputs = isRecord(this.data['inputs']) ? this.data['inputs'] : {};
    this.varNames = isRecord(this.data['vars']) ? Object.keys(this.data['vars']) : [];
    const steps = Array.isArray(this.data['steps']) ? (this.data['steps'] as unknown[]) : [];
    this.steps = steps.flatMap((raw, index): StepInfo[] => {
      if (!isRecord(raw)) return [];
      const uses = typeof raw['uses'] === 'string' ? raw['uses'] : undefined;
      return [
        {
          index,
          pointer: childPointer('/steps', index),
          raw,
          id: typeof raw['id'] === 'string' ? raw['id'] : undefined,
          uses,
          kind: uses === undefined ? undefined : registry.get(uses),
          forEach: raw['for_each'] !== undefined,
        },
      ];
    });
    for (const step of this.steps)
      if (step.id !== undefined && !this.byId.has(step.id)) this.byId.set(step.id, step);
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

  /** `step 'deploy'`, or `step 3` for a step without a usable id */
  describeStep(step: StepInfo): string {
    return step.id === undefined ? `step ${step.index + 1}` : `step '${step.id}'`;
  }
}

/** Every string in `value` with its pointer. */
export function* strings(value: unknown, pointer: string): Generator<{ pointer: string; text: string }> {
  if (typeof value === 'string') {
    yield { pointer, text: value };
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* strings(value[i], childPointer(pointer, i));
  } else if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) yield* strings(child, childPointer(pointer, key));
  }
}
