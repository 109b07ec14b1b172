/**
 * The plan walk (`ledgerbook plan`, and the check a saved plan gets before it is applied): observes and plans
 * every step without a side effect and without a word to the journal. A step whose inputs read the outputs of a
 * step that will change first is known after apply (as are, in an untrusted plan, the steps that read a secret it
 * was not given); each step's plan is kept for a saved plan (`plan --out`), its digests of masked values only.
 */
import { EXIT } from '../errors.js';
import { collectReferences, evaluateCondition, resolveDeep } from '../playbook/expressions/index.js';
import type { StepSpec } from '../playbook/model.js';
import { digestOf } from '../digest.js';
import type { EngineResult } from './engine-options.js';
import type { ItemOutcome, ItemUnit, StepExecution } from './item-executor.js';
import { listed, plural } from './run-text.js';
import type { PlannedStep } from './saved-plan.js';
import { forEachElements, type Group } from './step-with.js';
import type { AnyStepKind, Item, ItemPlan, StepContext } from '../steps/contract.js';
import { Walk, type ListedStep } from './walk.js';

export class PlanWalk extends Walk {
  /** the steps whose outputs are not all known before they apply, and which of their outputs are not (`all`: none is) */
  private readonly unknownOutputs = new Map<string, ReadonlySet<string> | 'all'>();
  /** vars that read a withheld secret (or such a var): unknown until apply */
  private readonly unknownVars = new Set<string>();
  /** each step's plan */
  private readonly plans: PlannedStep[] = [];
  /** per step, the context its kind's `onItem` and `preview` get */
  private readonly previewContexts = new WeakMap<StepExecution, StepContext>();

  protected succeeded(): EngineResult {
    const { rc } = this;
    return { run: rc.runId, status: 'planned', exitCode: EXIT.OK, changes: rc.changes, planned: this.plans };
  }

  protected ended(): Promise<void> {
    return Promise.resolve();
  }

  protected override unknownVar(name: string, value: unknown): boolean {
    if (this.unknownDependencies([value]).length === 0) return false;
    this.unknownVars.add(name);
    return true;
  }

  /** A step that waits on what is not known yet (and whose `if` does not skip it): known after apply. */
  protected override async beforeStep(
    spec: StepSpec,
    kind: AnyStepKind,
    done: ListedStep['done'],
  ): Promise<boolean> {
    const { rc } = this;
    const waitingOn = this.unknownDependencies([spec.with, spec.if, spec.forEach, spec.key]);
    // a step whose `if` is known and false is skipped like any other
    const ifKnown = this.unknownDependencies([spec.if]).length === 0;
    if (waitingOn.length === 0 || (ifKnown && spec.if !== undefined && !evaluateCondition(spec.if, rc.scope)))
      return false;
    this.unknownOutputs.set(spec.id, 'all');
    const keys = ifKnown ? await this.itemKeysBeforeApply(spec, kind) : undefined;
    const on = dependenciesText(waitingOn);
    rc.log(
      'info',
      keys === undefined
        ? `known after apply: depends on ${on}`
        : `known after apply: ${plural(keys.length, 'item')}${keys.length > 0 ? ` (${listed(keys)})` : ''}; their changes depend on ${on}`,
      spec.id,
    );
    this.plans.push({
      id: spec.id,
      uses: spec.uses,
      status: 'known-after-apply',
      dependsOn: waitingOn,
      ...(keys === undefined ? {} : { itemKeys: rc.o.masker.maskDeep(keys) }),
      changes: 0,
      items: [],
    });
    done('planned', 0, {}, keys?.length);
    return true;
  }

  protected skipped(spec: StepSpec): Promise<void> {
    this.plans.push({ id: spec.id, uses: spec.uses, status: 'skipped', changes: 0, items: [] });
    return Promise.resolve();
  }

  protected async stepEnded({ execution, groups, results, done }: ListedStep): Promise<void> {
    const { spec, kind } = execution;
    const stepChanges = results.reduce((n, r) => n + r.changes, 0);
    await this.recordPlan(spec, kind, groups, execution.observed, results, stepChanges);
    if (stepChanges === 0) {
      // a kind that previews what its `finish` returns, with the context its items were reported to
      const ctx = this.previewContexts.get(execution);
      done('in-sync', 0, await this.kindOutputs(execution, groups, results, 'preview', ctx));
      return;
    }
    // what a step that will change says of its outputs already (one item: fan-outs combine theirs)
    const known = spec.forEach === undefined && results.length === 1 ? results[0]?.known : undefined;
    this.unknownOutputs.set(
      spec.id,
      known ? new Set(Object.keys(kind.outputs).filter((name) => !(name in known))) : 'all',
    );
    done('planned', stepChanges, known ?? {});
  }

  // ---------------------------------------------------------------------------------------------------------
  // Items: planned, never applied

  beforePlan(): Promise<ItemOutcome | undefined> {
    return Promise.resolve(undefined);
  }

  onPlan(): void {}

  withChanges({ item }: ItemUnit, plan: ItemPlan): Promise<ItemOutcome> {
    this.rc.changes += plan.changes.length;
    return Promise.resolve({
      key: item.key,
      outputs: {},
      changes: plan.changes.length,
      status: 'planned',
      planned: plan.changes,
      ...(plan.knownOutputs ? { known: plan.knownOutputs } : {}),
    });
  }

  settled(): void {}

  /** A kind that previews its report (`preview`) gets each item in sync, as a run's `onItem` does. */
  finished({ step, group, item }: ItemUnit, outcome: ItemOutcome): void {
    const { kind } = step;
    if (!kind.preview || !kind.onItem || outcome.status !== 'in-sync') return;
    let ctx = this.previewContexts.get(step);
    if (ctx === undefined) {
      ctx = this.executor.stepContext(step, group.with);
      this.previewContexts.set(step, ctx);
    }
    kind.onItem(ctx, group.with, item, { key: outcome.key, outputs: outcome.outputs, status: 'in-sync' });
  }

  // ---------------------------------------------------------------------------------------------------------
  // What is not known yet

  /**
   * What `values` refer to that is not known yet: steps whose outputs are not (by id), and, in an untrusted plan,
   * secrets it was not given (`secrets.NAME`) and the vars that read them (`vars.NAME`).
   */
  protected override unknownDependencies(values: readonly unknown[]): string[] {
    const withheld = this.rc.o.withheldSecrets;
    if (this.unknownOutputs.size === 0 && !withheld?.size) return [];
    const found = new Set<string>();
    const unknown = ([id, section, name]: readonly string[]): boolean => {
      const outputs = id === undefined ? undefined : this.unknownOutputs.get(id);
      if (outputs === undefined) return false;
      // the whole step, or all its outputs, is unknown while any of them is
      if (outputs === 'all' || section !== 'outputs' || name === undefined) return true;
      return outputs.has(name);
    };
    const visit = (value: unknown): void => {
      if (typeof value === 'string') {
        for (const ref of collectReferences(value)) {
          const name = ref.path[0] ?? '';
          if (ref.root === 'steps' && unknown(ref.path)) found.add(name);
          else if (ref.root === 'secrets' && withheld?.has(name)) found.add(`secrets.${name}`);
          else if (ref.root === 'vars' && this.unknownVars.has(name)) found.add(`vars.${name}`);
        }
      } else if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') Object.values(value).forEach(visit);
    };
    visit(values);
    return [...found];
  }

  /**
   * A step known after apply: the keys of the items it will have, when they do not depend on what is unknown — a
   * `for_each` over known values, or `items()` of a kind that says which fields it reads (`itemsFrom`) when those
   * are known. Undefined when they cannot be told, and for a step of one item.
   */
  private async itemKeysBeforeApply(spec: StepSpec, kind: AnyStepKind): Promise<string[] | undefined> {
    const { rc } = this;
    if (spec.forEach !== undefined) {
      if (this.unknownDependencies([spec.forEach, spec.key]).length > 0) return undefined;
      return forEachElements(rc, spec).map((e) => e.key);
    }
    if (!kind.items || !kind.itemsFrom) return undefined;
    const fields = kind.itemsFrom.filter((field) => field in spec.with);
    if (this.unknownDependencies(fields.map((field) => spec.with[field])).length > 0) return undefined;
    const w = Object.fromEntries(fields.map((field) => [field, resolveDeep(spec.with[field], rc.scope)]));
    // the kind's session is open while it lists its items, and closed right after
    const items: Item[] = await rc.withSession(
      spec,
      kind,
      async () => (await kind.items?.(w, rc.stepContext(spec, undefined, w))) ?? [],
    );
    return items.map((item) => item.key);
  }

  /** The step's entry of a saved plan. Digests are of masked values: it holds nothing a secret could be recovered from. */
  private async recordPlan(
    spec: StepSpec,
    kind: AnyStepKind,
    groups: Group[],
    observed: Map<number, Promise<unknown>>,
    results: ItemOutcome[],
    changes: number,
  ): Promise<void> {
    const { masker } = this.rc.o;
    const states = await Promise.all([...observed.entries()].sort(([a], [b]) => a - b).map(([, s]) => s));
    this.plans.push({
      id: spec.id,
      uses: spec.uses,
      status: changes > 0 ? 'changes' : 'in-sync',
      withDigest: digestOf(masker.maskDeep(groups.map((g) => [g.with, g.items.map((i) => i.key)]))),
      stateDigest: digestOf(
        masker.maskDeep(kind.planState ? states.map((s) => kind.planState?.(s)) : states),
      ),
      changes,
      items: results
        .filter((r) => r.planned !== undefined && r.planned.length > 0)
        .map((r) => ({
          key: r.key,
          changes: masker.maskDeep(
            (r.planned ?? []).map((c) => ({
              action: c.action,
              summary: c.summary,
              ...(c.details ? { details: c.details } : {}),
            })),
          ),
        })),
    });
  }
}

/**
 * What a step known after apply waits for, in words: `the outputs of 'a', 'b'`, and the secrets an untrusted
 * plan was not given (`secrets.NAME`, directly or through `vars.NAME`).
 */
function dependenciesText(on: readonly string[]): string {
  const steps = on.filter((d) => !d.includes('.')).map((d) => `'${d}'`);
  const others = on.filter((d) => d.includes('.'));
  const parts = [
    ...(steps.length > 0 ? [`the outputs of ${steps.join(', ')}`] : []),
    ...(others.length > 0
      ? [`${others.join(', ')} (an untrusted plan reads no secret of the playbook)`]
      : []),
  ];
  return parts.join(' and ');
}
