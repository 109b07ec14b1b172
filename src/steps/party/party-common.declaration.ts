/**
 * What the declarations of the DPM step kinds share: the schema pieces of their `with` blocks and their static
 * checks (node names, participant ids), with nothing of their run-time code.
 */
import type { StaticFinding } from '../../playbook/step-declaration.js';
import { didYouMean } from '../../playbook/closest.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import type { Target } from '../../playbook/target.js';

// ---------------------------------------------------------------------------------------------------------
// Schema fragments

export const NODE_NAME_PATTERN = '^[a-z][a-z0-9_-]*$';

export const CANTON_ID = /^[^:]+::[0-9a-fA-F]{68}$/;

export function nodeNameSchema(description: string) {
  return { type: 'string', pattern: NODE_NAME_PATTERN, description } as const;
}

export function nodeListSchema(description: string) {
  return {
    type: 'array',
    items: { type: 'string', pattern: NODE_NAME_PATTERN },
    minItems: 1,
    uniqueItems: true,
    description,
  } as const;
}

export const partyRefSchema = {
  type: 'string',
  minLength: 1,
  description:
    'The decentralized party: its id `<prefix>::<namespace>`, or its prefix (looked up on the coordinator, e.g. `${{ steps.onboard.outputs.party_id }}` or `alpha`).',
} as const;

export const thresholdSchema = (description: string) =>
  ({ type: 'integer', minimum: 1, maximum: 2147483647, description }) as const;

export function timeoutSchema(fallback: string, what: string) {
  return {
    ...durationSchema,
    description: `How long to wait for ${what} (default ${fallback}). A wait that times out leaves the run alone: the next run adopts it.`,
  } as const;
}

// ---------------------------------------------------------------------------------------------------------
// Static checks (before anything is sent)

/** A value the playbook computes at run time (`${{ … }}`): a static check cannot see it yet. */
export function isExpression(value: unknown): boolean {
  return typeof value === 'string' && value.includes('${{');
}

export function isParticipantId(value: string): boolean {
  return CANTON_ID.test(value);
}

/** Collects findings with pointers relative to `with`. */
export class Findings {
  readonly list: StaticFinding[] = [];

  constructor(private readonly target: Target | undefined) {}

  add(pointer: string, message: string, hint?: string, expected?: string): void {
    this.list.push({
      pointer,
      message,
      ...(hint === undefined ? {} : { hint }),
      ...(expected === undefined ? {} : { expected }),
    });
  }

  nodeNames(): string[] {
    return Object.keys(this.target?.nodes ?? {});
  }

  /** the node exists in the target; false when it does not (or cannot be told yet: an expression, no target) */
  node(pointer: string, name: unknown): name is string {
    if (typeof name !== 'string' || isExpression(name) || this.target === undefined) return false;
    const names = this.nodeNames();
    if (names.includes(name)) return true;
    this.add(
      pointer,
      `the target has no node '${name}'`,
      didYouMean(name, names) ?? `nodes of this target: ${names.join(', ') || 'none'}`,
      'a node name of the target',
    );
    return false;
  }

  /** every element of a node list exists; returns the names that can be checked further */
  nodes(pointer: string, names: unknown): string[] {
    if (!Array.isArray(names)) return [];
    return names.filter((name, i): name is string => this.node(`${pointer}/${i}`, name));
  }

  /** the node may be written to by this target */
  controlled(pointer: string, name: string, why: string): void {
    if (this.target?.nodes?.[name]?.controlled === false) {
      this.add(
        pointer,
        `${name} is not controlled by this target (controlled: false), but ${why}`,
        `choose a node this target controls, or let ${name}'s operator run this step`,
      );
    }
  }

  /** a party given by its id is a whole one (`<prefix>::<68 hex digits>`); a prefix or an expression is looked up later */
  partyRef(pointer: string, value: unknown): void {
    if (typeof value !== 'string' || !value.includes('::') || isExpression(value) || isParticipantId(value))
      return;
    this.add(
      pointer,
      `'${value}' is not a party id (<prefix>::<68 hex digits>)`,
      'give the full id, or only its prefix',
    );
  }

  /** a node name of the target or a participant id */
  member(pointer: string, value: unknown): void {
    if (typeof value !== 'string' || isExpression(value) || isParticipantId(value)) return;
    this.node(pointer, value);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Names

/** The nodes a step names, or by default every node of the target this target controls. */
export function nodesOrControlled(nodes: string[] | undefined, target: Target | undefined): string[] {
  return (
    nodes ??
    Object.entries(target?.nodes ?? {})
      .filter(([, n]) => n.controlled !== false)
      .map(([name]) => name)
  );
}
