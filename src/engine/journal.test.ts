import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StateError } from '../errors.js';
import { JOURNAL_FILE, Journal, readJournal } from './journal.js';
import type { JournalRecord } from './journal.js';
import { Masker } from './masker.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-journal-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const AT = '2025-01-01T00:00:00.000Z';
const runRecord: JournalRecord = {
  t: 'run',
  v: 1,
  run: 'r1',
  at: AT,
  playbook: 'mint',
  file: 'playbooks/mint.yaml',
  target: 'sandbox',
  digest: 'd',
  inputsDigest: 'i',
  pid: 1,
  host: 'h',
  user: 'u',
  mode: 'run',
};
const intent = (item: string): JournalRecord => ({
  t: 'intent',
  run: 'r1',
  step: 'pay',
  item,
  at: AT,
  intent: { action: 'transfer', commandId: `cmd-${item}` },
});
const done = (item: string): JournalRecord => ({
  t: 'done',
  run: 'r1',
  step: 'pay',
  item,
  at: AT,
  status: 'applied',
  outputs: { updateId: `u-${item}` },
});

async function linesOnDisk(): Promise<unknown[]> {
  const text = await readFile(join(dir, JOURNAL_FILE), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

async function stateErrorOf(promise: Promise<unknown>): Promise<StateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StateError);
  return error as StateError;
}

/** Counts write and datasync calls on every FileHandle. */
async function spyOnFileHandles(): Promise<{
  write: { mock: { calls: unknown[] } };
  datasync: { mock: { calls: unknown[] } };
}> {
  const probe: FileHandle = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  return { write: vi.spyOn(proto, 'write'), datasync: vi.spyOn(proto, 'datasync') };
}

describe('Journal', () => {
  it('creates the directory and file, appends, and reads everything back on open', async () => {
    const runDir = join(dir, 'mint@sandbox');
    const journal = await Journal.open(runDir, new Masker());
    expect(journal.records).toEqual([]);
    await journal.appendDurable(runRecord);
    journal.append(intent('alice'));
    journal.append(done('alice'));
    await journal.close();
    // item records are written, not kept in memory (a 100,000-item step must not hold them all)
    expect(journal.records).toEqual([runRecord]);
    const again = await Journal.open(runDir, new Masker());
    expect(again.records).toEqual([runRecord, intent('alice'), done('alice')]);
    await again.close();
    expect(await readJournal(runDir)).toEqual([runRecord, intent('alice'), done('alice')]);
  });

  it('masks secrets before anything reaches the disk', async () => {
    const masker = new Masker();
    masker.add('hunter2');
    const journal = await Journal.open(dir, masker);
    await journal.appendDurable(runRecord);
    await journal.appendDurable({
      t: 'done',
      run: 'r1',
      step: 'login',
      item: 'user-1',
      at: AT,
      status: 'applied',
      outputs: {
        note: 'password hunter2 accepted',
        encoded: Buffer.from('hunter2').toString('base64'),
      },
    });
    await journal.close();
    const text = await readFile(join(dir, JOURNAL_FILE), 'utf8');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(Buffer.from('hunter2').toString('base64'));
    expect((await readJournal(dir))[1]).toMatchObject({
      item: 'user-1',
      outputs: { note: 'password *** accepted', encoded: '***' },
    });
  });

  it('masks only the payload: a secret equal to a record type, status or id leaves the journal readable', async () => {
    const masker = new Masker();
    for (const secret of ['step-done', 'applied1', 'reconciled']) masker.add(secret);
    const journal = await Journal.open(dir, masker);
    await journal.appendDurable(runRecord);
    await journal.appendDurable({
      t: 'step-done',
      run: 'r1',
      step: 'step-done',
      at: AT,
      status: 'applied',
      outputs: { said: 'reconciled' },
      withDigest: 'd',
    });
    await journal.close();
    const reopened = await Journal.open(dir, masker);
    expect(reopened.records[1]).toMatchObject({
      t: 'step-done',
      step: 'step-done',
      outputs: { said: '***' },
    });
    await reopened.close();
  });

  it('makes concurrent durable appends share one write and one fdatasync per batch', async () => {
    const journal = await Journal.open(dir, new Masker());
    await journal.appendDurable(runRecord);
    const spies = await spyOnFileHandles();
    const items = Array.from({ length: 16 }, (_, i) => `item-${i}`);
    // The first call starts a batch at once; the 15 issued while it is in flight share the next one.
    await Promise.all(items.map((item) => journal.appendDurable(intent(item))));
    expect(spies.write.mock.calls).toHaveLength(2);
    expect(spies.datasync.mock.calls).toHaveLength(2);
    expect(journal.stats).toMatchObject({ batches: 3, records: 17 });
    expect(await linesOnDisk()).toHaveLength(17);
    await journal.close();
  });

  it('carries buffered appends with the next durable append', async () => {
    const journal = await Journal.open(dir, new Masker());
    await journal.appendDurable(runRecord);
    journal.append(done('a'));
    journal.append(done('b'));
    expect(await linesOnDisk()).toHaveLength(1);
    await journal.appendDurable(intent('c'));
    expect(journal.stats.batches).toBe(2);
    expect(await linesOnDisk()).toEqual([runRecord, done('a'), done('b'), intent('c')]);
    await journal.close();
  });

  it('writes buffered appends within about 50 ms without any other call', async () => {
    const journal = await Journal.open(dir, new Masker());
    journal.append(runRecord);
    journal.append(intent('a'));
    expect((await stat(join(dir, JOURNAL_FILE))).size).toBe(0);
    await vi.waitFor(() => expect(journal.stats.batches).toBe(1), { timeout: 1000, interval: 5 });
    expect(await linesOnDisk()).toEqual([runRecord, intent('a')]);
    await journal.close();
  });

  it('flush writes what is buffered, and close flushes', async () => {
    const journal = await Journal.open(dir, new Masker());
    journal.append(runRecord);
    await journal.flush();
    expect(await linesOnDisk()).toHaveLength(1);
    journal.append(intent('x'));
    await journal.close();
    expect(await linesOnDisk()).toHaveLength(2);
    expect(() => journal.append(done('x'))).toThrow(StateError);
  });

  it('ignores a torn last line, and truncates it before the next append', async () => {
    const file = join(dir, JOURNAL_FILE);
    const whole = [runRecord, intent('a')].map((r) => JSON.stringify(r) + '\n').join('');
    await writeFile(file, whole + JSON.stringify(done('a')).slice(0, 25));
    expect(await readJournal(dir)).toEqual([runRecord, intent('a')]);
    const journal = await Journal.open(dir, new Masker());
    expect(journal.records).toEqual([runRecord, intent('a')]);
    await journal.appendDurable(done('a'));
    await journal.close();
    expect(await readFile(file, 'utf8')).toBe(whole + JSON.stringify(done('a')) + '\n');
  });

  it('ignores trailing NUL bytes left by a crash', async () => {
    const file = join(dir, JOURNAL_FILE);
    await writeFile(file, Buffer.concat([Buffer.from(JSON.stringify(runRecord) + '\n'), Buffer.alloc(64)]));
    const journal = await Journal.open(dir, new Masker());
    expect(journal.records).toEqual([runRecord]);
    await journal.appendDurable(intent('a'));
    await journal.close();
    expect(await linesOnDisk()).toEqual([runRecord, intent('a')]);
  });

  it('refuses a corrupt line in the middle, naming the file and line', async () => {
    const file = join(dir, JOURNAL_FILE);
    await writeFile(
      file,
      [JSON.stringify(runRecord), '{"t":"intent", oops', JSON.stringify(done('a')), ''].join('\n'),
    );
    const error = await stateErrorOf(Journal.open(dir, new Masker()));
    expect(error.message).toBe(`${file}:2: not a journal record (not valid JSON)`);
    expect(error.hint).toContain(`mv ${file} ${file}.damaged`);
  });

  it('refuses records of a run that never started and records of unknown types', async () => {
    const file = join(dir, JOURNAL_FILE);
    await writeFile(file, JSON.stringify(intent('a')) + '\n');
    expect((await stateErrorOf(readJournal(dir))).message).toBe(
      `${file}:1: record "intent" of run r1, which has no run record before it`,
    );
    await writeFile(
      file,
      JSON.stringify(runRecord) + '\n' + JSON.stringify({ t: 'teleport', run: 'r1' }) + '\n',
    );
    expect((await stateErrorOf(readJournal(dir))).message).toBe(`${file}:2: unknown record type "teleport"`);
  });

  it('refuses a journal written in a newer format, with a hint to upgrade', async () => {
    const file = join(dir, JOURNAL_FILE);
    await writeFile(file, JSON.stringify({ ...runRecord, v: 2 }) + '\n');
    const error = await stateErrorOf(Journal.open(dir, new Masker()));
    expect(error.message).toBe(
      `${file}:1: written by a newer ledgerbook (journal format 2; this version reads format 1)`,
    );
    expect(error.hint).toMatch(/upgrade ledgerbook/);
  });

  it('read-only: creates nothing and refuses appends', async () => {
    const runDir = join(dir, 'plan@only');
    const journal = await Journal.open(runDir, new Masker(), { readOnly: true });
    expect(journal.records).toEqual([]);
    expect(() => journal.append(runRecord)).toThrow(/read-only/);
    await journal.close();
    await expect(stat(runDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('read-only: leaves a torn last line in place for the writer to deal with', async () => {
    const file = join(dir, JOURNAL_FILE);
    const content = JSON.stringify(runRecord) + '\n{"t":"inte';
    await writeFile(file, content);
    const journal = await Journal.open(dir, new Masker(), { readOnly: true });
    expect(journal.records).toEqual([runRecord]);
    await journal.close();
    expect(await readFile(file, 'utf8')).toBe(content);
  });
});
