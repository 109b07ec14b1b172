/** `state push` / `state pull`: copies every run's journal from one state to another, under both locks. */
import { LockedError } from '../../errors.js';
import { Masker } from '../masker.js';
import type { RunKey, StateBackend } from './backend.js';

export interface CopyResult {
  key: RunKey;
  /** records copied; 0 with `skipped` when the destination already had a journal for the key */
  records: number;
  skipped?: 'exists' | 'locked';
}

/**
 * Copies each key's records (already masked when they were first written) to `to`, holding the key's lock in
 * both states so that no run writes either side meanwhile. A key whose destination already has records is left
 * alone: the copy never merges or overwrites two histories.
 */
export async function copyState(
  from: StateBackend,
  to: StateBackend,
  info: { pid: number; host: string; user: string; command: string },
): Promise<CopyResult[]> {
  const results: CopyResult[] = [];
  const masker = new Masker();
  for (const key of await from.listRuns()) {
    let fromLock, toLock;
    try {
      fromLock = await from.acquireLock(key, info);
      toLock = await to.acquireLock(key, info);
    } catch (error) {
      await fromLock?.release();
      if (!(error instanceof LockedError)) throw error;
      results.push({ key, records: 0, skipped: 'locked' });
      continue;
    }
    try {
      const source = await from.openJournal(key, masker, { readOnly: true });
      await source.close();
      const target = await to.openJournal(key, masker, { lock: toLock });
      try {
        if (target.records.length > 0) {
          results.push({ key, records: 0, skipped: 'exists' });
          continue;
        }
        for (const record of source.records) target.append(record);
        await target.flush();
        results.push({ key, records: source.records.length });
      } finally {
        await target.close();
      }
    } finally {
      await toLock.release();
      await fromLock.release();
    }
  }
  return results;
}
