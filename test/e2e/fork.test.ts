/**
 * Issue 20 through the CLI: a sandbox stands in for the live network; onboard-party, distribute-dars,
 * deploy-contracts and mint-and-distribute run on it; `ledgerbook sandbox up --fork` copies it. Checked on the
 * services' own APIs: the original received reads only (its request counters); the playbooks plan in sync on the
 * copy as on the original; a threshold change and a distribution rehearsed on the copy land there and leave the
 * original's threshold and holdings as they were; the copy's state dir survives a restart; a target whose every
 * login is the read-only viewer's is enough to fork; bad inputs are refused before anything is read.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  requestCounts,
  startWorld,
  tokenWorld,
  walletFor,
  type TokenWorld,
  type World,
} from '@ledgerbook/sandbox/testing';
import { cli, tempDir } from './cli.js';
import {
  PLAYBOOKS,
  copyApis,
  expectExit,
  forkAfter,
  holdingBlobs,
  holdingIds,
  partyOn,
  payFromMinter,
  playbook,
  sandboxUp,
  writesTo,
  type SandboxProcess,
} from './fork-setup.js';

const SHIPPED = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'mint-and-distribute'];

let world: World;
let tokens: TokenWorld;
let dir: string;
let targetFile: string;
let copy: SandboxProcess;
const copyState = (): string => join(dir, 'copy');
const copyTarget = (): string => join(dir, 'copy.yaml');

beforeAll(async () => {
  world = await startWorld();
  tokens = await tokenWorld(world);
  dir = await tempDir('lb-fork-');
  ({ targetFile, copy } = await forkAfter(world, dir, SHIPPED));
}, 180_000);

afterAll(async () => {
  await copy?.stop();
  await world?.stop();
});

describe('sandbox up --fork of a network the party and token playbooks ran on', { timeout: 120_000 }, () => {
  it('reads every node and sends the original nothing but reads', async () => {
    expect(await writesTo(world)).toEqual([]);
    const reads = await requestCounts(world);
    for (const node of ['node1', 'node2', 'node3']) {
      expect(reads).toContainEqual(
        expect.objectContaining({ node, method: 'WS', route: '/v2/state/active-contracts' }),
      );
    }
    expect(copy.stderr()).toMatch(/copied: 3 nodes, 1 decentralized parties, .*\d+ contracts/);
    expect(copy.stderr()).toContain('simulated: the Bitcoin chain');
    // the network is a ledgerbook sandbox: the copy's world has the very rules contracts the gateway answered with
    expect(copy.stderr()).toContain('2 gateway rules contracts (the same ids)');
    expect(copy.stderr()).toMatch(/1 archived contracts/);
  });

  it('keeps none of the network’s secrets in the snapshot or the copy’s state', async () => {
    const secrets = await Promise.all(
      (await readdir(join(world.stateDir, 'secrets'))).map(async (f) =>
        (await readFile(join(world.stateDir, 'secrets', f), 'utf8')).trim(),
      ),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    const snapshot = await readFile(join(copyState(), 'sandbox', 'fork-snapshot.jsonl'), 'utf8');
    expect(snapshot.split('\n')[0]).toContain('"kind":"header"');
    expect(snapshot).toContain('"read":"party-config"');
    const nodeTables = await readFile(join(copyState(), 'sandbox', 'nodes', 'node1.json'), 'utf8');
    for (const secret of secrets) {
      expect(snapshot).not.toContain(secret);
      expect(nodeTables).not.toContain(secret);
    }
  });

  it('writes a target of the copy under the original’s names, with the copy’s URLs and no secret', async () => {
    const original = parse(await readFile(targetFile, 'utf8')) as Record<string, Record<string, unknown>>;
    const text = await readFile(copyTarget(), 'utf8');
    const written = parse(text) as Record<string, Record<string, Record<string, unknown>>>;
    expect(written['name']).toBe('sandbox-fork');
    expect(written['parties']).toEqual(original['parties']);
    expect(written['instrument']).toEqual(original['instrument']);
    for (const [i, node] of copy.urls.nodes.entries()) {
      expect(written['nodes']?.[node.name]).toMatchObject({
        participantId: world.participant[i],
        dpm: node.dpm,
        ledger: node.ledger,
      });
    }
    const secret = await readFile(join(copyState(), 'sandbox', 'secrets', 'operator-password'), 'utf8');
    expect(text).not.toContain(secret.trim());
    expect(text).not.toContain(world.password);
  });

  it('plans every shipped playbook in sync on the copy, as on the original', async () => {
    for (const name of SHIPPED) {
      const original = await playbook(dir, name, 'plan', targetFile, join(dir, 'runs'));
      const onCopy = await playbook(dir, name, 'plan', copyTarget(), join(dir, 'copy-runs'));
      expectExit(onCopy, original.code ?? -1);
      expectExit(onCopy, 0);
    }
  });

  it('rehearses a threshold change and a distribution on the copy; the original keeps its threshold and holdings', async () => {
    const apis = copyApis(copy.urls, join(copyState(), 'sandbox'));
    const minter = tokens.minter;
    const originalHoldings = await holdingIds(walletFor(world, tokens, minter));
    expect(await holdingIds(apis.wallet(minter, 0))).toEqual(originalHoldings);
    // the same contracts, disclosed by the copy with the very blobs the network hands out
    const blobs = await holdingBlobs(walletFor(world, tokens, minter));
    expect(blobs.every((b) => b.split(' ')[1] !== '')).toBe(true);
    expect(await holdingBlobs(apis.wallet(minter, 0))).toEqual(blobs);

    const changed = await playbook(
      dir,
      'change-threshold',
      'run',
      copyTarget(),
      join(dir, 'copy-runs'),
      '--input',
      'threshold=3',
    );
    expectExit(changed, 0);
    expect((await partyOn(apis.dpm[0]!, 'alpha'))?.threshold).toBe(3);
    expect((await partyOn(world.dpm[0]!, 'alpha'))?.threshold).toBe(2);

    const bob = tokens.holders[1] as string;
    const paid = await payFromMinter(dir, 'rehearsal', bob, '0.001', copyTarget(), join(dir, 'copy-runs'));
    expectExit(paid, 0);
    expect(await holdingIds(apis.wallet(minter, 0))).not.toEqual(originalHoldings);
    expect(await holdingIds(walletFor(world, tokens, minter))).toEqual(originalHoldings);
    expect(await writesTo(world)).toEqual([]);
  });

  it('keeps the copy across a restart without --fork, and refuses to fork into it again', async () => {
    const apis = copyApis(copy.urls, join(copyState(), 'sandbox'));
    const before = await partyOn(apis.dpm[1]!, 'alpha');
    const minterHoldings = await holdingIds(apis.wallet(tokens.minter, 0));
    const stopped = await copy.stop();
    expect(stopped.code).toBe(0);
    copy = await sandboxUp(['--state-dir', copyState()], dir);
    const again = copyApis(copy.urls, join(copyState(), 'sandbox'));
    const after = await partyOn(again.dpm[1]!, 'alpha');
    expect(after?.threshold).toBe(3);
    expect(after?.party_id).toBe(before?.party_id);
    expect(after?.contracts?.map((c) => c.contract_id)).toEqual(before?.contracts?.map((c) => c.contract_id));
    expect(await holdingIds(again.wallet(tokens.minter, 0))).toEqual(minterHoldings);

    const stoppedAgain = await copy.stop();
    expect(stoppedAgain.code).toBe(0);
    const busy = await cli(['sandbox', 'up', '--fork', targetFile, '--state-dir', copyState()], { cwd: dir });
    expectExit(busy, 64);
    expect(busy.stderr).toContain('already holds a sandbox (a fork)');
    // a plan without --target in the fork's state dir starts the copy for itself, under the copy's target
    const builtIn = await cli(
      ['plan', join(PLAYBOOKS, 'deploy-contracts.yaml'), '--state-dir', copyState(), '--detailed-exitcode'],
      { cwd: dir, timeoutMs: 120_000 },
    );
    expectExit(builtIn, 0);
    expect(builtIn.stderr + builtIn.stdout).toContain('on sandbox-fork');
    copy = await sandboxUp(['--state-dir', copyState()], dir);
  });

  it('forks with a target whose every login is the read-only viewer’s', async () => {
    const viewerTarget = parse(world.sandbox.targetYaml()) as {
      auth: Record<string, unknown>;
      nodes: Record<string, Record<string, unknown>>;
      secrets: Record<string, unknown>;
    };
    viewerTarget.auth = { ...viewerTarget.auth, username: 'viewer', password: { secret: 'VIEWER' } };
    for (const node of Object.values(viewerTarget.nodes)) {
      delete node['auth'];
      node['controlled'] = false;
    }
    viewerTarget.secrets = { VIEWER: { file: join(world.stateDir, 'secrets', 'viewer-password') } };
    const file = join(dir, 'viewer.yaml');
    await writeFile(file, stringify(viewerTarget));
    expect((await world.admin.call('DELETE', '/requests')).status).toBe(204);
    const state = join(dir, 'viewer-copy');
    const fork = await sandboxUp(
      ['--fork', file, '--state-dir', state, '--write-target', join(dir, 'viewer-copy.yaml')],
      dir,
    );
    try {
      expect(await writesTo(world)).toEqual([]);
      for (const name of ['onboard-party', 'deploy-contracts'])
        expectExit(
          await playbook(dir, name, 'plan', join(dir, 'viewer-copy.yaml'), join(dir, 'viewer-runs')),
          0,
        );
    } finally {
      const said = (await fork.stop()).stderr;
      // what the viewer may not read is named: listing the participant's parties needs ParticipantAdmin
      expect(said).toContain('not copied: ledger:node1 parties, not read:');
      expect(said).toContain('PERMISSION_DENIED');
    }
  });
});

describe('sandbox up --fork refuses bad input before it reads', () => {
  /** the network's target with one node's DPM URL changed, written to `dir/<name>` */
  async function targetWithDpm(node: string, url: string, name: string): Promise<string> {
    const target = parse(world.sandbox.targetYaml()) as { nodes: Record<string, Record<string, unknown>> };
    (target.nodes[node] as Record<string, unknown>)['dpm'] = url;
    const file = join(dir, name);
    await writeFile(file, stringify(target));
    return file;
  }

  it('a target that names a non-loopback plain-http URL: exit 65, nothing started', async () => {
    const file = await targetWithDpm('node2', 'http://192.0.2.1:8080', 'remote.yaml');
    const result = await cli(['sandbox', 'up', '--fork', file, '--state-dir', join(dir, 'remote')], {
      cwd: dir,
    });
    expectExit(result, 65);
    expect(result.stderr).toContain('http://192.0.2.1:8080');
  });

  it('an unreachable target: a clear error naming the service, no sandbox left behind', async () => {
    const file = await targetWithDpm('node1', 'http://127.0.0.1:9', 'down.yaml');
    const result = await cli(['sandbox', 'up', '--fork', file, '--state-dir', join(dir, 'down')], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    expectExit(result, 1);
    expect(result.stderr).toContain('cannot read the network to fork');
    expect(result.stderr).toContain('dpm:node1');
    expect(existsSync(join(dir, 'down', 'sandbox', 'identity.json'))).toBe(false);
    expect(existsSync(join(dir, 'down', 'sandbox', 'ledger'))).toBe(false);
  });

  it('a target file that is missing, or --fork-days out of range: refused with nothing read', async () => {
    const missing = await cli(
      ['sandbox', 'up', '--fork', join(dir, 'nowhere.yaml'), '--state-dir', join(dir, 'x')],
      {
        cwd: dir,
      },
    );
    expectExit(missing, 65);
    expect(missing.stderr).toContain('nowhere.yaml');
    expect((await world.admin.call('DELETE', '/requests')).status).toBe(204);
    const days = await cli(
      ['sandbox', 'up', '--fork', targetFile, '--fork-days', '0', '--state-dir', join(dir, 'y')],
      { cwd: dir },
    );
    expectExit(days, 64);
    expect(days.stderr).toContain('--fork-days must be a whole number from 1 to 366');
    expect(await requestCounts(world)).toEqual([]);
  });

  it('a secret of the target that is not set: exit 65 naming it', async () => {
    const target = parse(world.sandbox.targetYaml()) as { secrets: Record<string, unknown> };
    target.secrets = {};
    const file = join(dir, 'nosecret.yaml');
    await writeFile(file, stringify(target));
    const result = await cli(['sandbox', 'up', '--fork', file, '--state-dir', join(dir, 'nosecret')], {
      cwd: dir,
      env: { SANDBOX_OPERATOR_PASSWORD: undefined },
    });
    expectExit(result, 65);
    expect(result.stderr).toContain("secret 'SANDBOX_OPERATOR_PASSWORD'");
  });
});
