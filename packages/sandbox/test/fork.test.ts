/**
 * Seeding a sandbox from a fork snapshot (src/fork/): the copy keeps the network's node names and participant ids,
 * its history starts at the fork (the network's ledger end, every earlier offset pruned), a contract of a template
 * the sandbox does not run is counted and named rather than copied, and a state dir that holds a sandbox or a file
 * that is no snapshot is refused before anything starts.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../src/errors.js';
import { nodeIdentity } from '../src/identity.js';
import { startSandbox, type ForkRecord } from '../src/index.js';
import { Api, passwordGrant } from '../testing/helpers.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerbook-fork-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const node = nodeIdentity(0);
const LEDGER_END = 42;

function snapshotFile(dir: string, records: ForkRecord[]): string {
  const file = join(dir, 'snapshot.jsonl');
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

const header: ForkRecord = {
  kind: 'header',
  version: 1,
  source: { name: 'mainnet-ops', network: 'testnet' },
  readAt: '2026-01-02T03:04:05.000Z',
  nodes: [{ name: 'node1', participantId: node.participantId }],
  parties: {},
};

describe('a sandbox seeded from a fork snapshot', () => {
  it('starts where the network was: its ledger end, the history before it pruned; unknown templates named', async () => {
    const dir = tempDir();
    const file = snapshotFile(dir, [
      header,
      { kind: 'ledger', node: 'node1', read: 'ledger-end', body: { offset: LEDGER_END } },
      {
        kind: 'contract',
        node: 'node1',
        contractId: '00' + 'ab'.repeat(33),
        templateId: 'deadbeef:Other.App:Thing',
        createArgument: { owner: 'someone::1220aa' },
      },
    ]);
    const sandbox = await startSandbox({ stateDir: join(dir, 'state'), fork: file });
    try {
      expect(sandbox.fork).toMatchObject({
        source: { name: 'mainnet-ops', network: 'testnet' },
        notCopied: { 'deadbeef:Other.App:Thing': 1 },
        copied: { nodes: 1, contracts: 0 },
      });
      expect(sandbox.urls.nodes.map((n) => n.participantId)).toEqual([node.participantId]);
      const password = readFileSync(join(dir, 'state', 'secrets', 'operator-password'), 'utf8');
      const token = await passwordGrant(sandbox.urls.idp.tokenUrl, 'operator1', password.trim());
      const ledger = new Api(sandbox.urls.nodes[0]!.ledger, () => Promise.resolve(token));
      const pruned = await ledger.get<{ participantPrunedUpToInclusive: number }>(
        '/v2/state/latest-pruned-offsets',
      );
      expect(pruned.body.participantPrunedUpToInclusive).toBe(LEDGER_END);
      const end = await ledger.get<{ offset: number }>('/v2/state/ledger-end');
      expect(end.body.offset).toBeGreaterThanOrEqual(LEDGER_END);
    } finally {
      await sandbox.stop();
    }
    // a restart on the same state dir is an ordinary sandbox: it says whose copy it is and seeds nothing again
    const again = await startSandbox({ stateDir: join(dir, 'state') });
    try {
      expect(again.fork?.source.name).toBe('mainnet-ops');
    } finally {
      await again.stop();
    }
  });

  it('refuses a state dir that holds a sandbox, and a file that is no fork snapshot', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    mkdirSync(state);
    writeFileSync(join(state, 'canton.json'), '{"version":1,"parties":[],"packages":{}}');
    const file = snapshotFile(dir, [header]);
    const busy = await startSandbox({ stateDir: state, fork: file }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SandboxError);
    expect(busy).toMatchObject({ kind: 'usage' });
    expect((busy as Error).message).toContain('already holds a sandbox');

    const notSnapshot = join(dir, 'not.jsonl');
    writeFileSync(notSnapshot, '{"kind":"contract"}\n');
    const refused = await startSandbox({ stateDir: join(dir, 'fresh'), fork: notSnapshot }).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ kind: 'state' });
    expect((refused as Error).message).toContain('is not a fork snapshot');
  });

  it('refuses to start a forked state dir whose fork.json or world.json was edited out of shape, naming the file', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const forked = await startSandbox({ stateDir: state, fork: snapshotFile(dir, [header]) });
    await forked.stop();
    const forkFile = join(state, 'fork.json');
    const kept = readFileSync(forkFile, 'utf8');
    writeFileSync(forkFile, JSON.stringify({ ...JSON.parse(kept), copied: { nodes: 'many' } }));
    const badFork = await startSandbox({ stateDir: state }).catch((e: unknown) => e);
    expect(badFork).toMatchObject({ kind: 'state' });
    expect((badFork as Error).message).toContain(`${forkFile} is not what a fork records`);

    writeFileSync(forkFile, kept);
    const worldFile = join(state, 'world.json');
    writeFileSync(
      worldFile,
      JSON.stringify({ version: 1, instrument: { admin: 7, id: 'CBTC', host: 'node9' } }),
    );
    const badWorld = await startSandbox({ stateDir: state }).catch((e: unknown) => e);
    expect(badWorld).toMatchObject({ kind: 'state' });
    expect((badWorld as Error).message).toContain(`${worldFile} does not name an instrument`);
  });
});
