/**
 * What `validate` and `ledgerbook schema` read of a step kind (../../docs/architecture.md "The step contract"): its
 * name, its `with` block and its static checks. The run-time half of the contract, which a kind adds to its
 * declaration, is src/steps/contract.ts; this half needs nothing above the playbook layer, so that validation and
 * the playbook's schema checks read it without the engine, the steps or a client.
 */
import type { Target } from './target.js';

/** A JSON Schema (draft 2020-12) object, written `as const` in the step module so that types derive from it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a static check found, relative to the step's `with` block. */
export interface StaticFinding {
  /** JSON pointer relative to `with`, e.g. `/coordinator` */
  pointer: string;
  message: string;
  expected?: string;
  hint?: string;
  /** a problem inside another file the step reads (a line of a recipients file): reported at that position */
  at?: { file: string; line: number; col: number };
  /**
   * A problem only if the step runs (it needs something this target lacks): not reported for a step with an `if:`,
   * which may be the playbook's way of skipping it on such a target; the step refuses at run time instead.
   */
  onlyIfRuns?: boolean;
}

/**
 * What `validate` and `ledgerbook schema` read of a kind: its name, its `with` block, its outputs and
 * its static checks. Each kind declares it in a module of its own (`<kind>.declaration.ts`), which imports no
 * client and no run-time code, so that validating a playbook loads no step's run-time code.
 */
export interface StepDeclaration<W = unknown> {
  /** `<group>.<name>`, e.g. `core.shell`, `dpm.onboard-party` */
  readonly kind: string;
  /** one line, shown in `ledgerbook schema` and the editor */
  readonly summary: string;
  /** the `with` block; `x-secret: true` marks a field that must come from `${{ secrets.* }}` */
  readonly withSchema: JsonSchema;
  /** output keys and what each holds */
  readonly outputs: Readonly<Record<string, string>>;
  /** does the step need a target (service URLs, credentials)? */
  readonly needsTarget: boolean;
  /** checks that need the target but no network: node names exist, files exist and match their sha256 … */
  check?(w: W, target: Target | undefined, baseDir: string): StaticFinding[];
}

/** A declaration with its `with` type erased, for the registry. */
export type AnyStepDeclaration = StepDeclaration<unknown>;

/** A kind's declaration (`<kind>.declaration.ts`): what validation reads, nothing of its run-time code. */
export function declareStep<W>(declaration: StepDeclaration<W>): StepDeclaration<W> {
  return declaration;
}
