/**
 * The world the package and contract playbooks need, set up through the sandbox's own API (not through
 * ledgerbook's steps): a 3-node mesh, the party `alpha` onboarded by node1, and the party's credentials on every
 * node. Plus what the e2e tests check with: the sample DARs' packages, request counts, a CLI run on the world.
 */
import { readFileSync } from 'node:fs';
import { cp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { readDar } from '../../src/dar/read.js';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import {
  bootstrapMesh,
  onboard,
  refreshedParty,
  requestCounts,
  startWorld,
  type PartyRecord,
  type RequestCount,
  type World,
} from '@ledgerbook/sandbox/testing';
import { cli, tempDir, type CliResult } from './cli.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const PLAYBOOKS = join(ROOT, 'playbooks');
export const SAMPLE_DARS = [
  'governance-core-0.2.0.dar',
  'wrapped-1.2.1.dar',
  'utility-registry-app-0.0.1.dar',
];

/** Every package (id, name, version) the sample DARs carry, read from their manifests. */
export function samplePackages(files: readonly string[] = SAMPLE_DARS): Array<{ id: string; name: string }> {
  return files.flatMap((file) =>
    readDar(readFileSync(join(PLAYBOOKS, 'dars', file))).packages.map((p) => ({
      id: p.packageId,
      name: `${p.name}:${p.version}`,
    })),
  );
}

export function operatorParty(world: World, i: number): string {
  return `operator${i + 1}::${world.participant[i]!.split('::')[1]}`;
}

export interface PackagesWorld {
  world: World;
  party: PartyRecord;
  /** a temp folder with the target file; runs use a state dir inside it */
  dir: string;
  targetFile: string;
  /** `ledgerbook run <playbook> --target … --state-dir …` */
  run(playbook: string, ...args: string[]): Promise<CliResult>;
  stop(): Promise<void>;
}

/**
 * mesh + party `alpha` + party credentials (the CI client) and its ledger rights on every node, on a sandbox of
 * the given profile (fast unless told). Under the realistic profile the mesh and party are set up fast on a state
 * dir, which the realistic sandbox then serves (the party's credentials are stored there, with its identity
 * provider's port).
 */
export async function packagesWorld(options: Partial<SandboxOptions> = {}): Promise<PackagesWorld> {
  const realistic = options.profile === 'realistic';
  const stateDir = realistic ? await tempDir('lb-sandbox-') : undefined;
  if (stateDir !== undefined) {
    const fast = await startWorld({ stateDir });
    try {
      await bootstrapMesh(fast);
      await onboard(fast, 'alpha');
    } finally {
      await fast.stop();
    }
  }
  const world = await startWorld({ ...options, ...(stateDir === undefined ? {} : { stateDir }) });
  const stop = async (): Promise<void> => {
    await world.stop();
    if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true });
  };
  try {
    if (stateDir === undefined) await bootstrapMesh(world);
    const party =
      stateDir === undefined ? await onboard(world, 'alpha') : await refreshedParty(world.dpm[0]!, 'alpha');
    const keycloak = world.sandbox.urls.idp.issuer.replace(/\/realms\/[^/]+$/, '');
    for (const [i, api] of world.dpm.entries()) {
      const response = await api.put('/party-config', {
        dec_party_id: party.party_id,
        member_party_id: operatorParty(world, i),
        user_id: 'service-account-ledgerbook-ci',
        keycloak_url: keycloak,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-ci',
        keycloak_client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET,
      });
      expect(response.status, response.text).toBe(200);
      // the governance reads act for the party: its ledger user needs the rights (onboard-party.yaml grants them)
      const granted = await api.post('/auth/grant-rights', {
        dec_party_id: party.party_id,
        admin_client_id: 'ledgerbook-ci',
        admin_client_secret: world.sandbox.secrets().SANDBOX_CI_CLIENT_SECRET,
      });
      expect(granted.status, granted.text).toBe(200);
    }
    const dir = await tempDir('lb-packages-');
    const targetFile = join(dir, 'target.yaml');
    await writeFile(targetFile, world.sandbox.targetYaml());
    return {
      world,
      party,
      dir,
      targetFile,
      run: (playbook, ...args) =>
        cli(['run', playbook, '--target', targetFile, '--state-dir', join(dir, 'state'), ...args], {
          cwd: dir,
        }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A copy of a shipped playbook in `dir` (with the sample DARs beside it), edited by `edit`. */
export async function playbookCopy(
  dir: string,
  name: string,
  edit: (text: string) => string = (t) => t,
): Promise<string> {
  await cp(join(PLAYBOOKS, 'dars'), join(dir, 'dars'), { recursive: true });
  const file = join(dir, name);
  await writeFile(file, edit(readFileSync(join(PLAYBOOKS, name), 'utf8')));
  return file;
}

/** requests that change state (anything but GET), as `node METHOD route` → count */
export function writes(counts: readonly RequestCount[]): Map<string, number> {
  return new Map(
    counts.filter((c) => c.method !== 'GET').map((c) => [`${c.node} ${c.method} ${c.route}`, c.count]),
  );
}

export async function writesNow(world: World): Promise<Map<string, number>> {
  return writes(await requestCounts(world));
}

export function count(counts: readonly RequestCount[], node: string, method: string, route: string): number {
  return counts.find((c) => c.node === node && c.method === method && c.route === route)?.count ?? 0;
}
