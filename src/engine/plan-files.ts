/**
 * The files of a saved plan (DESIGN principle 14: artifacts are untrusted until verified). A plan carries the
 * text of its playbook and target; the data files its steps read (recipients, expected package lists, DARs,
 * receipts) it holds to their sha256 and size, named relative to the playbook's folder as the playbook names
 * them. This is the file source (src/data-file.ts) of a command:
 *
 * - `carrying`: the playbook and target are parsed from bytes the CLI read once (a `<(command)` playbook is read
 *   once, and what was parsed is what was digested);
 * - `recording` (`plan --out`): besides, the digest of every data file a step reads, for the plan;
 * - `holding` (`run plan.json`): the playbook and target come from the plan, never from the files its fields
 *   name, and every data file a step reads must have the digest the plan recorded for it, checked before its
 *   bytes are used. A file the plan did not read (one this run writes first, or one a step known after apply
 *   reads) is read as it is: what the run reads follows from the playbook, the inputs and the target, all
 *   three fixed by the plan.
 */
import { relative, resolve, sep } from 'node:path';
import { DataFileError, digestOfDataFile, type FileSource } from '../data-file.js';

export interface PinnedFile {
  /** relative to the playbook's folder, `/`-separated */
  path: string;
  sha256: string;
  bytes: number;
}

const short = (sha256: string): string => sha256.slice(0, 12);

export class PlanFiles implements FileSource {
  private readonly carried = new Map<string, Buffer>();
  private readonly seen = new Map<string, PinnedFile>();
  private readonly pins: ReadonlyMap<string, PinnedFile>;

  private constructor(
    /** the playbook's folder, absolute */
    private readonly base: string,
    private readonly mode: 'carrying' | 'recording' | 'holding',
    pins: readonly PinnedFile[],
  ) {
    this.pins = new Map(pins.map((pin) => [pin.path, pin]));
  }

  static carrying(playbookFile: string): PlanFiles {
    return new PlanFiles(folderOf(playbookFile), 'carrying', []);
  }

  static recording(playbookFile: string): PlanFiles {
    return new PlanFiles(folderOf(playbookFile), 'recording', []);
  }

  static holding(playbookFile: string, pins: readonly PinnedFile[]): PlanFiles {
    return new PlanFiles(folderOf(playbookFile), 'holding', pins);
  }

  /** `bytes` are what is read at `path` from now on (the playbook, the target). */
  carry(path: string, bytes: Buffer): void {
    this.carried.set(resolve(path), bytes);
  }

  contentOf(path: string): Buffer | undefined {
    return this.carried.get(resolve(path));
  }

  get digests(): boolean {
    return this.mode !== 'carrying';
  }

  read(path: string, sha256: string, bytes: number): void {
    const key = pinPath(this.base, path);
    const pin = this.pins.get(key);
    if (pin !== undefined && pin.sha256 !== sha256) {
      throw new DataFileError(
        `it is not the file the saved plan was made with (sha256 ${short(pin.sha256)}, now ${short(sha256)})`,
        'restore the file, or make a new plan and review it',
      );
    }
    if (this.mode === 'recording' && !this.seen.has(key)) this.seen.set(key, { path: key, sha256, bytes });
  }

  /** `recording`: every data file read so far, by path. */
  recorded(): PinnedFile[] {
    return [...this.seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

function folderOf(playbookFile: string): string {
  return resolve(playbookFile, '..');
}

/** A file's name in a plan: relative to the playbook's folder, with `/` whatever the system. */
export function pinPath(base: string, path: string): string {
  return relative(base, resolve(base, path)).split(sep).join('/');
}

/** Where a pinned file is, for a playbook at `playbookFile`. */
export function pinnedLocation(playbookFile: string, pin: PinnedFile): string {
  return resolve(folderOf(playbookFile), ...pin.path.split('/'));
}

/**
 * The pinned files that differ from the plan now, one line each (missing, unreadable, other bytes): read as
 * streams of any size, only to be digested. Empty when every file is the one the plan was made with.
 */
export function changedFiles(playbookFile: string, pins: readonly PinnedFile[]): string[] {
  const lines: string[] = [];
  for (const pin of pins) {
    let now: { sha256: string; bytes: number };
    try {
      now = digestOfDataFile(pinnedLocation(playbookFile, pin));
    } catch (error) {
      if (!(error instanceof DataFileError)) throw error;
      lines.push(`the file ${pin.path} the plan reads: ${error.message}`);
      continue;
    }
    if (now.sha256 !== pin.sha256)
      lines.push(
        `the file ${pin.path} changed since the plan (sha256 ${short(pin.sha256)} → ${short(now.sha256)})`,
      );
  }
  return lines;
}
