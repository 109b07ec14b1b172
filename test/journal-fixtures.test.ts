/**
 * Journals written by earlier versions must keep loading: one committed sample per format version
 * (test/fixtures/journals/v<N>-*.ndjson). Never edit or delete them; add new ones for a new format.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, Journal, readJournal } from '../src/engine/journal.js';
import { allRuns, lastFinishedStep, lastRun, summarizeRun } from '../src/engine/journal-state.js';
import { Masker } from '../src/engine/masker.js';
import { checkSamePlaybook } from '../src/engine/playbook-path.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'journals');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-fixture-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(name: string): Promise<string> {
  await copyFile(join(FIXTURES, name), join(dir, JOURNAL_FILE));
  return dir;
}

describe('v1-interrupted-fanout.ndjson', () => {
  it('summarises as a run killed in the middle of a fan-out step', async () => {
    const records = await readJournal(await load('v1-interrupted-fanout.ndjson'));
    expect(records).toHaveLength(13);
    const state = lastRun(records);
    expect(state && summarizeRun(state)).toEqual({
      run: '20250301T101500-3f2a',
      playbook: 'distribute-wbtc',
      target: 'sandbox',
      status: 'running',
      startedAt: '2025-03-01T10:15:00.120Z',
      steps: [
        { step: 'mint', status: 'applied', items: 1, done: 1, pending: [] },
        { step: 'pay', status: 'unfinished', items: 5, done: 3, pending: ['bob'] },
      ],
    });
    expect(state?.steps.get('pay')?.pending.get('bob')).toEqual([
      { action: 'transfer', commandId: 'lb-pay-bob-9e13', amount: '0.3000000000' },
    ]);
    expect(state?.steps.get('pay')?.done.get('dave')).toEqual({
      status: 'reconciled',
      outputs: { updateId: '1220aa03' },
    });
  });

  it('recorded no playbook path: any file with its name carries it on, from any checkout', async () => {
    const records = await readJournal(await load('v1-interrupted-fanout.ndjson'));
    const state = lastRun(records);
    expect(state?.path).toBeUndefined();
    for (const file of ['playbooks/distribute-wbtc.yaml', '/home/ci/work/ops/playbooks/other.yaml'])
      expect(() => checkSamePlaybook(state, { file, path: file }, 'test')).not.toThrow();
  });

  it('opens for resume: the torn line is dropped and appending continues after the whole lines', async () => {
    const runDir = await load('v1-interrupted-fanout.ndjson');
    const original = await readFile(join(FIXTURES, 'v1-interrupted-fanout.ndjson'), 'utf8');
    const journal = await Journal.open(runDir, new Masker());
    expect(journal.records).toHaveLength(13);
    await journal.appendDurable({
      t: 'done',
      run: '20250301T101500-3f2a',
      step: 'pay',
      item: 'bob',
      at: '2025-03-01T11:00:00.000Z',
      status: 'reconciled',
      outputs: { updateId: '1220aa04' },
    });
    await journal.close();
    const text = await readFile(join(runDir, JOURNAL_FILE), 'utf8');
    expect(text.startsWith(original.slice(0, original.lastIndexOf('\n') + 1))).toBe(true);
    const state = lastRun(await readJournal(runDir));
    expect(state?.steps.get('pay')?.pending.size).toBe(0);
    expect(state?.steps.get('pay')?.done.size).toBe(4);
  });
});

describe('v1-finished.ndjson', () => {
  it('summarises a failed run followed by a succeeded one', async () => {
    const records = await readJournal(await load('v1-finished.ndjson'));
    const runs = allRuns(records).map(summarizeRun);
    expect(runs.map((r) => [r.run, r.status, r.exitCode, r.error?.code])).toEqual([
      ['20250302T080000-0a11', 'failed', 1, 'LB_SERVICE'],
      ['20250302T081500-5c9d', 'succeeded', 0, undefined],
    ]);
    expect(runs[1]).toEqual({
      run: '20250302T081500-5c9d',
      playbook: 'onboard-party',
      target: 'testnet',
      status: 'succeeded',
      startedAt: '2025-03-02T08:15:00.000Z',
      endedAt: '2025-03-02T08:16:41.700Z',
      exitCode: 0,
      steps: [
        { step: 'prepare', status: 'in-sync', items: 1, done: 0, pending: [] },
        { step: 'approve-onboarding', status: 'applied', items: 1, done: 1, pending: [] },
        { step: 'onboard', status: 'applied', items: 1, done: 1, pending: [] },
        { step: 'announce', status: 'skipped', items: 1, done: 0, pending: [] },
      ],
    });
    expect(lastFinishedStep(records, 'prepare', '3'.repeat(64))).toEqual({
      outputs: { exitCode: 0, stdout: 'keys ready' },
    });
    expect(lastFinishedStep(records, 'announce', '6'.repeat(64))).toBeUndefined();
  });
});
