/**
 * A step's `with` as the engine hands it to the kind: resolved against the run's scope (lazy fields left to the
 * kind), checked against the kind's schema, one group per element of `for_each`, and the items of each group.
 */
import { createHash } from 'node:crypto';
import { StepError } from '../errors.js';
import { collectReferences, evaluateString, resolveDeep, type Scope } from '../playbook/expressions/index.js';
import type { StepSpec } from '../playbook/model.js';
import { lazyPointers } from '../playbook/resolved-check.js';
import { checkResolvedWith } from '../playbook/schema-check.js';
import { canonicalJson } from '../digest.js';
import type { RunContext } from './run-context.js';
import { typeName } from './run-text.js';
import type { AnyStepKind, Item, Outputs } from '../steps/contract.js';

/** Items of a step, grouped by the `with` they share: one group, or one per element of `for_each`. */
export interface Group {
  with: Record<string, unknown>;
  items: Item[];
}

/** Resolve `with` (and `for_each`) against the scope; check the result against the kind's schema. */
export function expand(rc: RunContext, spec: StepSpec, kind: AnyStepKind): Group[] {
  const lazy = lazyPointers(kind);
  const skip = (pointer: string): boolean => lazy.has(pointer);
  const resolveWith = (scope: Scope): Record<string, unknown> => {
    const value = resolveDeep(spec.with, scope, skip) as Record<string, unknown>;
    const findings = checkResolvedWith(kind, value);
    if (findings.length > 0) {
      const lines = findings.map(
        (f) => `with${f.pointer}: ${f.message}${f.expected ? ` (expected ${f.expected})` : ''}`,
      );
      throw new StepError(
        `step '${spec.id}' (${spec.uses}): its resolved \`with\` is invalid: ${lines.join('; ')}`,
        {
          hint: 'an expression produced a value of the wrong type or shape; check the inputs and outputs it uses',
        },
      );
    }
    return value;
  };
  if (spec.forEach === undefined) return [{ with: resolveWith(rc.scope), items: [] }];
  return forEachElements(rc, spec).map(({ key, element }) => ({
    with: resolveWith({ ...rc.scope, item: element }),
    items: [{ key, value: element }],
  }));
}

/** The elements of a `for_each` step, each with its key (checkpoints are named by it). */
export function forEachElements(rc: RunContext, spec: StepSpec): Array<{ key: string; element: unknown }> {
  const { playbook } = rc.o;
  const list = Array.isArray(spec.forEach)
    ? resolveDeep(spec.forEach, rc.scope)
    : evaluateString(spec.forEach as string, rc.scope);
  if (!Array.isArray(list)) {
    const at = playbook.source.positionOf(`${spec.pointer}/for_each`);
    const where = `${playbook.file}:${at.line}:${at.col}`;
    throw new StepError(`${where}: step '${spec.id}': for_each must give a list, got ${typeName(list)}`, {
      hint: 'use a list, or an expression such as `${{ inputs.recipients }}` that gives one',
    });
  }
  const seen = new Set<string>();
  return list.map((element: unknown, index) => {
    const scope: Scope = { ...rc.scope, item: element };
    const key =
      spec.key !== undefined
        ? String(evaluateString(spec.key, scope))
        : typeof element === 'string' || typeof element === 'number'
          ? String(element)
          : String(index);
    if (seen.has(key)) {
      throw new StepError(`step '${spec.id}': two for_each elements have the key '${key}'`, {
        hint: 'keys name checkpoints and must be unique: set `key:` to an expression that tells elements apart',
      });
    }
    seen.add(key);
    return { key, element };
  });
}

/** Fill in the items of a step that fans out by itself (`items()`), or its single item. */
export async function withItems(
  rc: RunContext,
  spec: StepSpec,
  kind: AnyStepKind,
  groups: Group[],
): Promise<Group[]> {
  if (spec.forEach !== undefined) return groups;
  const group = groups[0];
  if (!group) return groups;
  const items = kind.items
    ? await kind.items(group.with, rc.stepContext(spec, undefined, group.with))
    : [{ key: '', value: group.with }];
  const keys = new Set(items.map((i) => i.key));
  if (keys.size !== items.length)
    throw new StepError(`step '${spec.id}': ${spec.uses} produced duplicate item keys`);
  return [{ with: group.with, items }];
}

/** The digest of groups and their items, keys and values, hashed one item at a time (100,000 items, no big text). */
export function itemsDigest(groups: readonly Group[]): string {
  const hash = createHash('sha256');
  for (const group of groups) {
    hash.update(canonicalJson(group.with) ?? 'undefined');
    for (const item of group.items) hash.update(`\n${canonicalJson([item.key, item.value]) ?? ''}`);
  }
  return hash.digest('hex');
}

/** Whether an expression in `values` reads a step's outputs (known only once that step ran). */
export function readsSteps(values: readonly unknown[]): boolean {
  const visit = (value: unknown): boolean => {
    if (typeof value === 'string') return collectReferences(value).some((ref) => ref.root === 'steps');
    if (Array.isArray(value)) return value.some(visit);
    if (value !== null && typeof value === 'object') return Object.values(value).some(visit);
    return false;
  };
  return visit(values);
}

/** The outputs one element of a for_each step had in the earlier execution `previous` (`results.<key>`). */
export function elementPrevious(
  previous: { outputs: Outputs } | undefined,
  key: string,
): { outputs: Outputs } | undefined {
  const results = previous?.outputs['results'];
  if (typeof results !== 'object' || results === null || Array.isArray(results)) return previous;
  const own = (results as Record<string, unknown>)[key];
  return typeof own === 'object' && own !== null && !Array.isArray(own)
    ? { outputs: own as Outputs }
    : previous;
}
