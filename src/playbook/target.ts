import type { Position } from './model.js';
import type { TargetFile } from './target-schema.js';

/** A validated target. `file` is undefined for the built-in sandbox target. */
export interface Target extends TargetFile {
  file: string | undefined;
  /** where the target names each secret its credentials use (for a missing secret's message) */
  secretUses?: Record<string, Position>;
}
