/**
 * Issue 20 follow-up through the CLI: a network whose instrument is its own, not the sandbox's `cbtc-network` CBTC
 * (a sandbox started with another instrument stands in for it). mint-and-distribute runs on it; `ledgerbook sandbox
 * up --fork` copies it; the copy's world adopts the network's instrument: its registry serves the network's admin,
 * mint-and-distribute plans in sync there and a distribution rehearsed there pays (the copy under the realistic
 * profile, ×0.1), the original untouched; a restart of the copy without --fork keeps that world.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, tokenWorld, walletFor, type TokenWorld, type World } from '@ledgerbook/sandbox/testing';
import { tempDir } from './cli.js';
import {
  copyApis,
  expectExit,
  forkAfter,
  holdingIds,
  payFromMinter,
  playbook,
  REALISTIC_COPY,
  sandboxUp,
  writesTo,
  type SandboxProcess,
} from './fork-setup.js';

const NETWORK = { admin: `other-network::1220${'5e'.repeat(32)}`, id: 'XBTC' };

let world: World;
let tokens: TokenWorld;
let dir: string;
let copy: SandboxProcess;
const copyState = (): string => join(dir, 'copy');
const copyTarget = (): string => join(dir, 'copy.yaml');

async function registry(
  base: string,
  admin: string,
  path: string,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}/api/token-standard/v0/registrars/${admin}/registry${path}`);
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  world = await startWorld({ instrument: NETWORK });
  tokens = await tokenWorld(world);
  dir = await tempDir('lb-fork-instr-');
  ({ copy } = await forkAfter(world, dir, ['mint-and-distribute'], REALISTIC_COPY));
}, 180_000);

afterAll(async () => {
  await copy?.stop();
  await world?.stop();
});

describe('sandbox up --fork of a network with its own instrument', { timeout: 120_000 }, () => {
  it('adopts the network’s instrument: the copy’s registry serves the network’s admin', async () => {
    expect(tokens.instrument).toEqual(NETWORK);
    expect(await writesTo(world)).toEqual([]);
    expect(copy.stderr()).toContain(`the instrument XBTC of ${NETWORK.admin}`);
    const written = parse(await readFile(copyTarget(), 'utf8')) as Record<string, unknown>;
    expect(written['instrument']).toEqual(NETWORK);
    const info = await registry(copy.urls.registry, NETWORK.admin, '/metadata/v1/info');
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ adminId: NETWORK.admin });
    const instrument = await registry(copy.urls.registry, NETWORK.admin, '/metadata/v1/instruments/XBTC');
    expect(instrument.status).toBe(200);
    expect(instrument.body).toMatchObject({ id: 'XBTC' });
    // the sandbox's own admin is no registrar of the copy
    const sandboxAdmin = (await world.admin.get<{ otherAdmin: { party: string } }>('/world')).body.otherAdmin
      .party;
    expect((await registry(copy.urls.registry, sandboxAdmin, '/metadata/v1/info')).status).toBe(404);
  });

  it('plans mint-and-distribute in sync on the copy and pays a distribution there alone', async () => {
    expectExit(await playbook(dir, 'mint-and-distribute', 'plan', copyTarget(), join(dir, 'copy-runs')), 0);
    const apis = copyApis(copy.urls, join(copyState(), 'sandbox'));
    const minter = tokens.minter;
    const originalHoldings = await holdingIds(walletFor(world, tokens, minter));
    expect(await holdingIds(apis.wallet(minter, 0))).toEqual(originalHoldings);
    const bob = tokens.holders[1] as string;
    const paid = await payFromMinter(dir, 'rehearsal', bob, '0.001', copyTarget(), join(dir, 'copy-runs'));
    expectExit(paid, 0);
    expect(await holdingIds(apis.wallet(minter, 0))).not.toEqual(originalHoldings);
    expect(await holdingIds(walletFor(world, tokens, minter))).toEqual(originalHoldings);
    expect(await writesTo(world)).toEqual([]);
  });

  it('keeps the adopted world across a restart without --fork', async () => {
    const before = await holdingIds(
      copyApis(copy.urls, join(copyState(), 'sandbox')).wallet(tokens.minter, 0),
    );
    expect((await copy.stop()).code).toBe(0);
    expect(existsSync(join(copyState(), 'sandbox', 'world.json'))).toBe(true);
    copy = await sandboxUp(['--state-dir', copyState(), ...REALISTIC_COPY], dir);
    const info = await registry(copy.urls.registry, NETWORK.admin, '/metadata/v1/info');
    expect(info.body).toMatchObject({ adminId: NETWORK.admin });
    const apis = copyApis(copy.urls, join(copyState(), 'sandbox'));
    expect(await holdingIds(apis.wallet(tokens.minter, 0))).toEqual(before);
    // the copy's holdings of the network's instrument still move: a payment from the minter on the restarted copy
    const paid = await payFromMinter(
      dir,
      'rehearsal-again',
      tokens.holders[2] as string,
      '0.002',
      copyTarget(),
      join(dir, 'copy-runs-2'),
    );
    expectExit(paid, 0);
    expect(await holdingIds(apis.wallet(tokens.minter, 0))).not.toEqual(before);
  });
});
