import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxError } from '../errors.js';
import { LedgerLog } from './log.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lb-ledger-log-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tx = (o: number) => JSON.stringify({ t: 'tx', o });

describe('the ledger log', () => {
  it('replays what was appended, in order, after a restart', () => {
    const dir = tempDir();
    const log = new LedgerLog<{ n: number }>(dir);
    expect(log.recover()).toEqual({ snapshot: undefined, entries: [] });
    log.append(tx(1), true);
    log.append(JSON.stringify({ t: 'note', note: { ns: 'x', body: 1 } }), false);
    log.append(tx(2), true);
    log.close();
    const again = new LedgerLog<{ n: number }>(dir).recover();
    expect(again.entries).toEqual([
      { t: 'tx', o: 1 },
      { t: 'note', note: { ns: 'x', body: 1 } },
      { t: 'tx', o: 2 },
    ]);
  });

  it('drops a torn last line (a write cut by a kill, never acknowledged) and appends after what is whole', () => {
    const dir = tempDir();
    const log = new LedgerLog(dir);
    log.recover();
    log.append(tx(1), true);
    log.close();
    const file = join(dir, 'log-000001.ndjson');
    appendFileSync(file, '{"t":"tx","o":2,"nodes":[{"k"');
    const reopened = new LedgerLog(dir);
    expect(reopened.recover().entries).toEqual([{ t: 'tx', o: 1 }]);
    expect(readFileSync(file, 'utf8')).toBe(`${tx(1)}\n`);
    reopened.append(tx(2), true);
    reopened.close();
    expect(new LedgerLog(dir).recover().entries).toEqual([
      { t: 'tx', o: 1 },
      { t: 'tx', o: 2 },
    ]);
  });

  it('keeps a last line that lost only its newline', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'log-000001.ndjson'), `${tx(1)}\n${tx(2)}`);
    const log = new LedgerLog(dir);
    expect(log.recover().entries).toEqual([
      { t: 'tx', o: 1 },
      { t: 'tx', o: 2 },
    ]);
    log.append(tx(3), true);
    log.close();
    expect(new LedgerLog(dir).recover().entries).toHaveLength(3);
  });

  it('refuses damage before the last line, naming the file and the byte', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'log-000001.ndjson'), `${tx(1)}\n{oops\n${tx(3)}\n`);
    expect(() => new LedgerLog(dir).recover()).toThrow(SandboxError);
    expect(() => new LedgerLog(dir).recover()).toThrow(/log-000001\.ndjson is damaged at byte 17/);
  });

  it('rotates: a snapshot of the state, a new segment; start-up reads the snapshot and what follows; old segments go', () => {
    const dir = tempDir();
    const log = new LedgerLog<{ upTo: number }>(dir, { segmentEntries: 2, retainedSegments: 1 });
    log.recover();
    let o = 0;
    for (let segment = 0; segment < 4; segment++) {
      log.append(tx(++o), true);
      log.append(tx(++o), true);
      expect(log.full()).toBe(true);
      log.rotate({ upTo: o });
    }
    log.append(tx(++o), true);
    log.close();
    expect(readdirSync(dir).sort()).toEqual([
      'log-000004.ndjson',
      'log-000005.ndjson',
      'snapshot-000005.json',
    ]);
    const recovered = new LedgerLog<{ upTo: number }>(dir).recover();
    expect(recovered.snapshot).toEqual({ upTo: 8 });
    expect(recovered.entries).toEqual([{ t: 'tx', o: 9 }]);
    expect([...new LedgerLog(dir, { segmentEntries: 2, retainedSegments: 1 }).history()]).toEqual([
      { t: 'tx', o: 7 },
      { t: 'tx', o: 8 },
      { t: 'tx', o: 9 },
    ]);
  });
});
