import type { TargetFile } from './target-schema.js';

/** A validated target. `file` is undefined for the built-in sandbox target. */
export interface Target extends TargetFile {
  file: string | undefined;
}
