import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DataFileError,
  openDataFile,
  readDataBytes,
  readDataFile,
  readDataFileSync,
  useFileSource,
} from '../data-file.js';
import { sha256 } from '../digest.js';
import { PlanFiles, changedFiles, pinPath } from './plan-files.js';

let dir: string;
let playbook: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-plan-files-'));
  playbook = join(dir, 'pb', 'p.yaml');
  await mkdir(join(dir, 'pb', 'data'), { recursive: true });
  await writeFile(playbook, 'name: p\n');
  await writeFile(join(dir, 'pb', 'data', 'list.json'), '[1]');
  await writeFile(join(dir, 'shared.csv'), 'receiver,amount\n');
  await writeFile(join(dir, 'secret.env'), 'TOKEN=abcdefghijkl\n');
});
afterEach(async () => {
  useFileSource(undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('PlanFiles', () => {
  it('recording: every data file a step reads, whole or streamed, named from the playbook’s folder; secrets never', async () => {
    const files = PlanFiles.recording(playbook);
    useFileSource(files);
    await readDataFile(join(dir, 'pb', 'data', 'list.json'), 1024);
    const { fd } = openDataFile(join(dir, 'shared.csv'), 1024);
    closeSync(fd);
    readDataFileSync(join(dir, 'pb', 'data', 'list.json'), 1024);
    await readDataFile(join(dir, 'secret.env'), 1024, { secret: true });
    expect(files.recorded()).toEqual([
      { path: '../shared.csv', sha256: sha256('receiver,amount\n'), bytes: 16 },
      { path: 'data/list.json', sha256: sha256('[1]'), bytes: 3 },
    ]);
  });

  it('carries the playbook and target: their bytes are what is read at their path, never the file’s', async () => {
    const files = PlanFiles.carrying(playbook);
    files.carry(join(dir, 'pb', '..', 'pb', 'p.yaml'), Buffer.from('name: carried\n'));
    useFileSource(files);
    await writeFile(playbook, 'name: on disk\n');
    expect((await readDataBytes(playbook, 1024)).toString()).toBe('name: carried\n');
    await expect(readDataBytes(playbook, 4)).rejects.toThrow(DataFileError);
    // a plain run digests nothing: only a saved plan needs the digests (a pass over every file)
    expect(files.digests).toBe(false);
    expect(PlanFiles.recording(playbook).digests).toBe(true);
  });

  it('holding: a data file whose bytes are not the plan’s is refused before they are used; others read as they are', async () => {
    const pins = [{ path: 'data/list.json', sha256: sha256('[1]'), bytes: 3 }];
    useFileSource(PlanFiles.holding(playbook, pins));
    expect(await readDataFile(join(dir, 'pb', 'data', 'list.json'), 1024)).toBe('[1]');
    // a file the plan did not read (written by this run, or read by a step known after apply)
    expect(readDataFileSync(join(dir, 'shared.csv'), 1024)).toBe('receiver,amount\n');
    await writeFile(join(dir, 'pb', 'data', 'list.json'), '[2]');
    await expect(readDataFile(join(dir, 'pb', 'data', 'list.json'), 1024)).rejects.toThrow(
      /it is not the file the saved plan was made with \(sha256 [0-9a-f]{12}, now [0-9a-f]{12}\)/,
    );
    expect(() => openDataFile(join(dir, 'pb', 'data', 'list.json'), 1024)).toThrow(DataFileError);
  });

  it('changedFiles: one line per pinned file that changed or is gone, read only to be digested', () => {
    const pins = [
      { path: 'data/list.json', sha256: sha256('[1]'), bytes: 3 },
      { path: '../shared.csv', sha256: sha256('other'), bytes: 5 },
      { path: 'data/gone.csv', sha256: sha256(''), bytes: 0 },
    ];
    expect(changedFiles(playbook, pins)).toEqual([
      `the file ../shared.csv changed since the plan (sha256 ${sha256('other').slice(0, 12)} → ${sha256('receiver,amount\n').slice(0, 12)})`,
      'the file data/gone.csv the plan reads: no such file',
    ]);
    expect(pinPath(join(dir, 'pb'), join(dir, 'pb', 'data', 'x.csv'))).toBe('data/x.csv');
  });
});
