/** What an expression can read. Each root is plain data; `item` only in a for_each step. */
export interface Scope {
  inputs: Record<string, unknown>;
  vars: Record<string, unknown>;
  steps: Record<string, { outputs: Record<string, unknown> }>;
  secrets: Record<string, string>;
  env: Record<string, string | undefined>;
  item?: unknown;
  target?: unknown;
  [extra: string]: unknown;
}

/** The names an expression may start with (a step's lazy fields may add their own, e.g. `response`). */
export const ROOTS = ['inputs', 'vars', 'steps', 'secrets', 'env', 'item', 'target'] as const;

/** Names no expression can read, whatever object they are looked up on. */
export const FORBIDDEN_PROPERTIES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
