/** The playbook after loading and validation: what the engine runs. */
import type { InputFile } from './playbook-schema.js';

export interface Position {
  /** 1-based */
  line: number;
  /** 1-based */
  col: number;
}

/** A parsed YAML file that can say where any JSON pointer in it starts. */
export interface SourceDoc {
  /** path as the user gave it */
  file: string;
  text: string;
  /** the plain JS value of the document */
  data: unknown;
  /**
   * Where the node at `pointer` starts. `key` gives the position of the mapping key (for unknown or
   * misspelled keys), `value` the value's. Falls back to the nearest existing ancestor.
   */
  positionOf(pointer: string, which?: 'key' | 'value'): Position;
}

export interface RetryPolicy {
  /** total tries, first included */
  attempts: number;
  delayMs: number;
  factor: number;
  maxDelayMs: number;
  jitter: boolean;
}

export interface StepSpec {
  id: string;
  /** display name; the id when the playbook gives none */
  name: string;
  uses: string;
  /** unresolved: may hold `${{ … }}` strings */
  with: Record<string, unknown>;
  if: string | boolean | undefined;
  forEach: unknown[] | string | undefined;
  key: string | undefined;
  concurrency: number | undefined;
  retry: RetryPolicy;
  timeoutMs: number | undefined;
  /** JSON pointer of the step in the playbook, e.g. `/steps/2` */
  pointer: string;
}

export interface Playbook {
  file: string;
  /** directory of the playbook file: relative paths in it resolve here */
  baseDir: string;
  name: string;
  description: string | undefined;
  inputs: Record<string, InputFile>;
  /** unresolved */
  vars: Record<string, unknown>;
  steps: StepSpec[];
  /** sha256 of the file's text */
  digest: string;
  source: SourceDoc;
  /** the secrets and environment variables it refers to, each with the place of its first use */
  names: { secrets: ReadonlyMap<string, NameUse>; env: ReadonlyMap<string, NameUse> };
}

/** Where a playbook first refers to a name: the string's JSON pointer and the reference's offset in it. */
export interface NameUse {
  pointer: string;
  value: string;
  offset: number;
}
