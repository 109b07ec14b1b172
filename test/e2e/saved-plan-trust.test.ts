/**
 * A saved plan is an artifact an attacker may have written to (issue 18): nothing it names is read for use,
 * contacted or run before the plan is verified. Against one sandbox under the realistic profile (time-scaled),
 * with a loopback listener standing in for an attacker's identity provider and ledger: a plan with only its
 * target swapped, or only its playbook swapped (to one whose `core.shell` check would write a marker), a data
 * file changed since the plan, a signed plan swapped consistently (text and digest), an unsigned plan where a key
 * is set: each is refused, with no connection to the attacker, no request to the services and no command run.
 * The untouched signed plan is applied, in a terminal, and its effect read on the services' own APIs. `plan
 * --untrusted` runs no command of the playbook and reads none of its secrets, and its plan is never applied.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedPlan } from '../../src/engine/saved-plan.js';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { TRANSFER_OFFER } from '@ledgerbook/sandbox/testing';
import { CLI, cli, type CliResult } from './cli.js';
import { contracts, expectExit, mintWorld, type MintWorld } from './mint-setup.js';

const KEY = 'f3a91c07d2b84e6a9c15e0b7d46a28ce51f09b3d7ae2c6418b5d90e7c3a6f214';
const OTHER_KEY = '0d6e2b9f47a31c85e9d04f7a62b1c3e8d5f90a4b7c2e61d38f5a09b4c7e2d1a6';
const DEPLOY_TOKEN = 'deploy-token-of-production-0001';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const PLAYBOOK = `name: trusted
steps:
  - id: packages
    uses: token.dar-check
    with: { expected_file: expected.json }
  - id: ask
    uses: token.faucet
    with: { party: alice, amount: '1.5', interval: 1s, wait: 30s }
`;

/**
 * The same name, so its journal is the same; a `core.shell` check that would leave a marker behind, a secret of
 * the job it would print, and a poll of an address of its own (the attacker's).
 */
const evil = (url: string): string => `name: trusted
steps:
  - id: packages
    uses: core.shell
    with:
      run: 'true'
      unless: 'touch PWNED; false'
  - id: read
    uses: core.log
    with: { message: 'token \${{ secrets.LB_DEPLOY_TOKEN }}' }
  - id: call
    uses: core.wait
    with: { http: { url: '${url}/ping' }, timeout: 1s }
`;

let w: MintWorld;
let attacker: Server;
let attackerConnections = 0;
let attackerTarget: string;

beforeAll(async () => {
  w = await mintWorld({ profile: 'realistic', timeScale: 0.05 });
  attacker = createServer((_req, res) => res.writeHead(500).end());
  attacker.on('connection', () => attackerConnections++);
  await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  // the same target, but its identity provider and ledgers are the attacker's
  attackerTarget = await w.target('attacker.yaml', (target) => {
    (target['auth'] as Record<string, unknown>)['issuer'] = `${url}/auth/realms/ledgerbook`;
    for (const node of Object.values(target['nodes'] as Record<string, Record<string, unknown>>)) {
      node['ledger'] = url;
      const auth = node['auth'] as Record<string, unknown> | undefined;
      if (auth) auth['issuer'] = `${url}/auth/realms/ledgerbook`;
    }
  });
  await w.playbook('p.yaml', PLAYBOOK);
  await w.playbook('evil.yaml', evil(url));
  await copyFile(
    resolve(import.meta.dirname, '../fixtures/specs/wrapped/expected_packages.head-derived.json'),
    join(w.dir, 'expected.json'),
  );
}, 60_000);
afterAll(async () => {
  await new Promise((done) => attacker?.close(done));
  await w?.stop();
});

/** `ledgerbook ARGS` in the test's folder (with its state dir unless ARGS name one); `key` as LEDGERBOOK_PLAN_KEY. */
function ledgerbook(args: string[], key?: string): Promise<CliResult> {
  return cli(args.includes('--state-dir') ? args : [...args, '--state-dir', w.stateDir], {
    cwd: w.dir,
    env: { LEDGERBOOK_PLAN_KEY: key, LB_DEPLOY_TOKEN: DEPLOY_TOKEN },
    timeoutMs: 60_000,
  });
}

/** Every request the sandbox's listeners have received, summed. */
async function requests(): Promise<number> {
  return (await requestCounts(w.world)).reduce((n, c) => n + c.count, 0);
}

/** A plan file's JSON, edited, written beside it. */
async function edited(from: string, to: string, edit: (plan: SavedPlan) => void): Promise<void> {
  const plan = JSON.parse(await readFile(join(w.dir, from), 'utf8')) as SavedPlan;
  edit(plan);
  await writeFile(join(w.dir, to), JSON.stringify(plan, null, 2));
}

/** A refused run: its exit code and message, nothing sent to the services, nothing to the attacker. */
async function refused(args: string[], key: string | undefined, code: number, says: string): Promise<void> {
  const before = await requests();
  const connections = attackerConnections;
  const result = await ledgerbook(args, key);
  expectExit(result, code);
  expect(result.stderr).toContain(says);
  expect(attackerConnections - connections, 'connections to the attacker').toBe(0);
  expect((await requests()) - before, 'requests to the services').toBe(0);
  expect(existsSync(join(w.dir, 'PWNED')), 'a command of the swapped playbook ran').toBe(false);
}

/** Runs the CLI on a pseudo-terminal (`script`), as a person at a terminal would; the text it drew. */
async function inTerminal(
  args: string[],
  key: string | undefined,
): Promise<{ code: number | null; screen: string }> {
  const command = ['stty cols 160 rows 50;', 'exec', process.execPath, CLI, ...args]
    .map((part, i) => (i < 2 ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm', LB_DEPLOY_TOKEN: DEPLOY_TOKEN };
  if (key === undefined) delete env['LEDGERBOOK_PLAN_KEY'];
  else env['LEDGERBOOK_PLAN_KEY'] = key;
  delete env['CI'];
  delete env['NO_COLOR'];
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: w.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  // eslint-disable-next-line no-control-regex
  return { code, screen: raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n') };
}

describe('a saved plan is verified before anything it names is used', () => {
  it('plan --out signs with LEDGERBOOK_PLAN_KEY; the plan carries the playbook and target and pins the data file', async () => {
    const unsigned = await ledgerbook(['plan', 'p.yaml', '--target', w.targetFile, '--out', 'unsigned.json']);
    expectExit(unsigned, 0);
    const signed = await ledgerbook(['plan', 'p.yaml', '--target', w.targetFile, '--out', 'plan.json'], KEY);
    expectExit(signed, 0);
    expect(signed.stdout).toContain('Saved the signed plan to plan.json');
    const plan = JSON.parse(await readFile(join(w.dir, 'plan.json'), 'utf8')) as SavedPlan;
    expect(plan.version).toBe(2);
    expect(plan.playbook.text).toBe(PLAYBOOK);
    expect(plan.target.text).toBe(await readFile(w.targetFile, 'utf8'));
    const expected = await readFile(join(w.dir, 'expected.json'));
    expect(plan.files).toEqual([
      { path: 'expected.json', sha256: sha256(expected.toString()), bytes: expected.length },
    ]);
    expect(plan.signature?.alg).toBe('HMAC-SHA256');
    expect(plan.signature?.key).toMatch(/^[0-9a-f]{16}$/);
    const text = await readFile(join(w.dir, 'plan.json'), 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(w.world.password);
    const shown = await ledgerbook(['show', 'plan.json'], KEY);
    expectExit(shown, 0);
    expect(shown.stdout).toContain('the signature verifies with `LEDGERBOOK_PLAN_KEY`');
    expect(shown.stdout).toContain('holds 1 data file to their digest: `expected.json`');
  });

  it('only target.spec swapped to the attacker’s target: refused, no connection to it', async () => {
    await edited('unsigned.json', 'swapped-target.json', (plan) => (plan.target.spec = 'attacker.yaml'));
    await refused(['run', 'swapped-target.json'], undefined, 1, 'the target attacker.yaml changed (sha256');
  });

  it('only playbook.file swapped to a playbook whose check would write a marker: refused, no command run', async () => {
    await edited('unsigned.json', 'swapped-playbook.json', (plan) => (plan.playbook.file = 'evil.yaml'));
    await refused(['run', 'swapped-playbook.json'], undefined, 1, 'the playbook evil.yaml changed (sha256');
  });

  it('a data file changed since the plan: refused before it is read for use', async () => {
    const file = join(w.dir, 'expected.json');
    const original = await readFile(file, 'utf8');
    await writeFile(file, `${original}\n`);
    try {
      await refused(['run', 'plan.json'], KEY, 1, 'the file expected.json changed since the plan (sha256');
    } finally {
      await writeFile(file, original);
    }
  });

  it('a signed plan swapped consistently (text, digest and spec of the target): refused, no connection', async () => {
    const attack = await readFile(attackerTarget, 'utf8');
    const swap = (plan: SavedPlan): void => {
      plan.target = { ...plan.target, spec: 'attacker.yaml', text: attack, digest: sha256(attack) };
    };
    await edited('plan.json', 'redigested.json', swap);
    await refused(['run', 'redigested.json'], KEY, 65, 'the signature of redigested.json does not verify');
    // the signature taken off as well: an unsigned plan, refused while the key is set
    await edited('plan.json', 'stripped.json', (plan) => {
      swap(plan);
      delete plan.signature;
    });
    await refused(
      ['run', 'stripped.json'],
      KEY,
      65,
      'stripped.json is not signed, and LEDGERBOOK_PLAN_KEY is set',
    );
    await refused(['run', 'plan.json'], OTHER_KEY, 65, 'plan.json was signed with another key');
    const shown = await ledgerbook(['show', 'redigested.json'], KEY);
    expectExit(shown, 65);
    expect(shown.stdout).toContain('**The signature does not verify**');
  });

  it('an unsigned plan while a key is set: refused before any connection', async () => {
    await refused(
      ['run', 'unsigned.json'],
      KEY,
      65,
      'unsigned.json is not signed, and LEDGERBOOK_PLAN_KEY is set',
    );
  });

  it('the untouched signed plan is applied, in a terminal: the faucet’s offer is on alice’s ledger', async () => {
    const alice = w.wallet(w.tokens.holders[0] as string);
    const offersBefore = (await contracts(alice, { template: TRANSFER_OFFER })).length;
    const { code, screen } = await inTerminal(['run', 'plan.json', '--state-dir', w.stateDir], KEY);
    expect(code, screen).toBe(0);
    expect(screen).toContain('the saved plan plan.json still holds');
    expect(attackerConnections).toBe(0);
    const offers = await contracts(alice, { template: TRANSFER_OFFER });
    expect(offers.length).toBe(offersBefore + 1);
    const offer = offers.at(-1)?.createArgument?.['transfer'] as { amount: string; sender: string };
    expect(offer).toMatchObject({ sender: w.tokens.faucet });
  });
});

describe('plan --untrusted (a pull request)', () => {
  it('runs no command of the playbook, reads none of its secrets, and its plan is never applied', async () => {
    // a pull request's job: a state of its own, no key
    const review = ['--target', w.targetFile, '--state-dir', join(w.dir, 'pr-state')];
    const { code, screen } = await inTerminal(
      ['plan', 'evil.yaml', ...review, '--untrusted', '--out', 'review.json'],
      undefined,
    );
    expect(code, screen).toBe(0);
    expect(existsSync(join(w.dir, 'PWNED'))).toBe(false);
    expect(screen).toContain('`touch PWNED; false` not evaluated: an untrusted plan runs no command');
    expect(screen).toContain('secrets.LB_DEPLOY_TOKEN (an untrusted plan reads no secret of the playbook)');
    expect(screen).not.toContain(DEPLOY_TOKEN);
    expect(screen).toContain('/ping not evaluated: an untrusted plan contacts no address the playbook names');
    expect(attackerConnections).toBe(0);
    const plan = JSON.parse(await readFile(join(w.dir, 'review.json'), 'utf8')) as SavedPlan;
    expect(plan.untrusted).toBe(true);
    expect(plan).not.toHaveProperty('signature');
    await refused(
      ['run', 'review.json'],
      undefined,
      65,
      'review.json was made by `plan --untrusted`, for review',
    );
    const keyed = await ledgerbook(['plan', 'evil.yaml', ...review, '--untrusted'], KEY);
    expectExit(keyed, 64);
    expect(keyed.stderr).toContain(
      'LEDGERBOOK_PLAN_KEY is set: a job that plans an untrusted change must not hold the key',
    );
  });
});
