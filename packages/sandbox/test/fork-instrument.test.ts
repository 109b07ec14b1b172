/**
 * A fork of a network whose instrument is its own (src/token/world-instrument.ts): the copy's world adopts the
 * snapshot's instrument (admin and id), its registry serves that admin, the network's own rules contract that was
 * copied is the one the registry discloses (no second one is created) while the rules contracts the network's copy
 * lacks are the copy's own, and the fork report says which. A restart without the snapshot keeps that world.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeIdentity } from '../src/identity.js';
import { startSandbox, type ForkRecord, type Sandbox } from '../src/index.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const node = nodeIdentity(0);
const ADMIN = `network-admin::1220${'7c'.repeat(32)}`;
const OPERATOR = `network-operator::1220${'7d'.repeat(32)}`;
const CONFIG_CID = '00' + 'c4'.repeat(33);
const REGISTRY_PKG = 'a236e8e22a3b5f199e37d5554e82bafd2df688f901de02b00be3964bdfa8c1ab';

function snapshot(dir: string): string {
  const records: ForkRecord[] = [
    {
      kind: 'header',
      version: 1,
      source: { name: 'other-network', network: 'testnet' },
      readAt: '2026-01-02T03:04:05.000Z',
      nodes: [{ name: 'node1', participantId: node.participantId }],
      instrument: { admin: ADMIN, id: 'XBTC' },
      parties: { admin: ADMIN },
    },
    { kind: 'ledger', node: 'node1', read: 'ledger-end', body: { offset: 7 } },
    {
      kind: 'contract',
      node: 'node1',
      contractId: CONFIG_CID,
      templateId: `${REGISTRY_PKG}:Utility.Registry.V0.Configuration.Instrument:InstrumentConfiguration`,
      createArgument: {
        operator: OPERATOR,
        registrar: ADMIN,
        instrumentId: { admin: ADMIN, id: 'XBTC' },
        name: 'Other BTC',
        symbol: 'XBTC',
        decimals: '8',
      },
    },
  ];
  const file = join(dir, 'snapshot.jsonl');
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** the registry's transfer factory for a self-transfer of the instrument: the contracts it discloses */
async function disclosed(sandbox: Sandbox): Promise<string[]> {
  const response = await fetch(
    `${sandbox.urls.registry}/api/token-standard/v0/registrars/${ADMIN}/registry/transfer-instruction/v1/transfer-factory`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        choiceArguments: {
          expectedAdmin: ADMIN,
          transfer: { sender: ADMIN, receiver: ADMIN, instrumentId: { admin: ADMIN, id: 'XBTC' } },
        },
      }),
    },
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    choiceContext: { disclosedContracts: Array<{ contractId: string }> };
  };
  return body.choiceContext.disclosedContracts.map((c) => c.contractId);
}

describe('a fork of a network with its own instrument', () => {
  it('leaves a state dir whose world is the sandbox’s as it is, whatever instrument a later start asks for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgerbook-fork-instr-'));
    dirs.push(dir);
    const first = await startSandbox({ stateDir: dir });
    const own = first.world.instrument;
    await first.stop();
    const again = await startSandbox({ stateDir: dir, instrument: { admin: ADMIN, id: 'XBTC' } });
    try {
      expect(again.world.instrument).toEqual(own);
      expect(own.id).toBe('CBTC');
      expect(existsSync(join(dir, 'world.json'))).toBe(false);
    } finally {
      await again.stop();
    }
  });

  it('adopts the network’s admin and id, uses its copied rules contract, and keeps that world', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgerbook-fork-instr-'));
    dirs.push(dir);
    const stateDir = join(dir, 'state');
    const sandbox = await startSandbox({ stateDir, fork: snapshot(dir) });
    try {
      expect(sandbox.world.instrument).toEqual({ admin: ADMIN, id: 'XBTC' });
      expect(sandbox.world.hostOf.get(ADMIN)).toBe('node1');
      const info = await fetch(
        `${sandbox.urls.registry}/api/token-standard/v0/registrars/${ADMIN}/registry/metadata/v1/info`,
      );
      expect(await info.json()).toMatchObject({ adminId: ADMIN });
      expect(await disclosed(sandbox)).toContain(CONFIG_CID);
      expect(sandbox.fork?.copied).toMatchObject({
        "rules contracts of the instrument XBTC (the network's)": 1,
      });
      const said = sandbox.fork?.simulated.find((line) => line.startsWith('the instrument XBTC'));
      expect(said).toContain('Factory, BurnMintFactory, TransferRule, AppRewardConfiguration');
      expect(said).not.toContain('InstrumentConfiguration');
      expect(existsSync(join(stateDir, 'world.json'))).toBe(true);
    } finally {
      await sandbox.stop();
    }
    const again = await startSandbox({ stateDir });
    try {
      expect(again.world.instrument).toEqual({ admin: ADMIN, id: 'XBTC' });
      expect(await disclosed(again)).toContain(CONFIG_CID);
    } finally {
      await again.stop();
    }
  });
});
