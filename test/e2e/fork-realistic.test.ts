/**
 * Issue 20 under the realistic profile, time-scaled (×0.1): the network's workflows take their time, and so do the
 * copy's. The party playbooks run on the original, `sandbox up --fork --profile realistic` copies it with reads
 * only, the playbooks plan in sync on the copy, and a threshold change rehearsed there goes through the copy's
 * workflows while the original keeps its threshold.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '@ledgerbook/sandbox/testing';
import { tempDir } from './cli.js';
import {
  copyApis,
  expectExit,
  forkAfter,
  partyOn,
  playbook,
  REALISTIC_COPY,
  writesTo,
  type SandboxProcess,
} from './fork-setup.js';

const PARTY_PLAYBOOKS = ['onboard-party', 'distribute-dars', 'deploy-contracts'];

let world: World;
let dir: string;
let copy: SandboxProcess;

beforeAll(async () => {
  world = await startWorld({ profile: 'realistic', timeScale: 0.1 });
  dir = await tempDir('lb-fork-real-');
  ({ copy } = await forkAfter(world, dir, PARTY_PLAYBOOKS, REALISTIC_COPY));
}, 240_000);

afterAll(async () => {
  await copy?.stop();
  await world?.stop();
});

describe('sandbox up --fork under the realistic profile (×0.1)', { timeout: 180_000 }, () => {
  it('reads only, plans in sync on the copy, and rehearses a threshold change there alone', async () => {
    expect(await writesTo(world)).toEqual([]);
    for (const name of PARTY_PLAYBOOKS)
      expectExit(await playbook(dir, name, 'plan', join(dir, 'copy.yaml'), join(dir, 'copy-runs')), 0);
    const changed = await playbook(
      dir,
      'change-threshold',
      'run',
      join(dir, 'copy.yaml'),
      join(dir, 'copy-runs'),
      '--input',
      'threshold=3',
    );
    expectExit(changed, 0);
    const apis = copyApis(copy.urls, join(dir, 'copy', 'sandbox'));
    expect((await partyOn(apis.dpm[2]!, 'alpha'))?.threshold).toBe(3);
    expect((await partyOn(world.dpm[2]!, 'alpha'))?.threshold).toBe(2);
    expect(await writesTo(world)).toEqual([]);
  });
});
