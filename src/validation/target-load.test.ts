import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidationError } from '../errors.js';
import type { Diagnostic } from '../diagnostics.js';
import { parseSource } from './load.js';
import { loadTarget, validateTarget } from './target-load.js';

const pid = (n: number): string => `participant${n}::1220${String(n).repeat(64)}`;
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const show = (d: Diagnostic): string => `${d.line}:${d.col} ${d.pointer} [${d.rule}] ${d.message}`;

function check(text: string): { errors: string[]; warnings: string[]; valid: boolean } {
  const { doc, diagnostics } = parseSource('t.yaml', text);
  expect(diagnostics).toEqual([]);
  const result = validateTarget(doc);
  return {
    errors: result.diagnostics.map(show),
    warnings: result.warnings.map(show),
    valid: result.target !== undefined,
  };
}

const good = yaml(
  'name: testnet',
  'network: testnet',
  'auth:',
  '  issuer: https://idp.example.com/auth/realms/canton',
  '  clientId: ledgerbook',
  '  grant: password',
  '  username: operator',
  '  password: { secret: IDP_PASSWORD }',
  'nodes:',
  '  node1:',
  `    participantId: ${pid(1)}`,
  '    dpm: https://dpm1.example.com',
  '  node2:',
  `    participantId: ${pid(2)}`,
  '    dpm: https://dpm2.example.com',
  '    auth:',
  '      issuer: https://idp2.example.com/auth/realms/canton',
  '      clientId: ledgerbook',
  '      grant: client_credentials',
  '      clientSecret: { secret: NODE2_SECRET }',
  'secrets:',
  '  IDP_PASSWORD: { env: LB_IDP_PASSWORD }',
);

describe('validateTarget', () => {
  it('takes an instrument, the token services, and parties to refer to or to act as through a node', () => {
    const text =
      good +
      yaml(
        'instrument: { admin: ' + pid(7).replace('participant7', 'cbtc-network') + ', id: CBTC }',
        'services:',
        '  registry: https://registry.example.com',
        '  gateway: https://gateway.example.com',
        '  faucet: https://faucet.example.com',
        'parties:',
        `  issuer: ${pid(7).replace('participant7', 'cbtc-network')}`,
        `  treasury: { party: ${pid(1).replace('participant1', 'treasury')}, node: node1 }`,
        `  desk: { party: ${pid(2).replace('participant2', 'desk')}, node: node2, auth: { issuer: https://idp2.example.com/auth/realms/canton, clientId: desk, grant: client_credentials, clientSecret: { secret: DESK_SECRET } } }`,
      );
    const { doc } = parseSource('t.yaml', text);
    const result = validateTarget(doc);
    expect(result.diagnostics.map(show)).toEqual([]);
    expect(result.target?.instrument).toEqual({
      admin: pid(7).replace('participant7', 'cbtc-network'),
      id: 'CBTC',
    });
    expect(result.target?.parties?.['treasury']).toMatchObject({ node: 'node1' });
  });

  it('refuses a party on an unknown node, incomplete party credentials and a plain-http party issuer', () => {
    const { errors, valid } = check(
      good +
        yaml(
          'parties:',
          `  treasury: { party: ${pid(1).replace('participant1', 'treasury')}, node: node9 }`,
          `  desk: { party: ${pid(2).replace('participant2', 'desk')}, node: node2, auth: { issuer: http://idp.example.com/realms/x, clientId: desk, grant: client_credentials } }`,
        ),
    );
    expect(valid).toBe(false);
    expect(errors.join('\n')).toContain(
      "[unknown-node] party 'treasury' is hosted on node 'node9', which is not under nodes:",
    );
    expect(errors.join('\n')).toContain(
      "/parties/desk/auth [auth-grant] the client_credentials grant needs 'clientSecret'",
    );
    expect(errors.join('\n')).toContain('/parties/desk/auth/issuer [plain-http]');
  });

  it('gives the target of a valid file, with a warning for a secret left to the environment', () => {
    const { doc } = parseSource('t.yaml', good);
    const result = validateTarget(doc);
    expect(result.diagnostics).toEqual([]);
    expect(result.target).toMatchObject({ name: 'testnet', network: 'testnet', file: 't.yaml' });
    expect(result.target?.nodes?.['node2']?.auth?.grant).toBe('client_credentials');
    expect(result.warnings.map(show)).toEqual([
      "20:31 /nodes/node2/auth/clientSecret/secret [undeclared-secret] secret 'NODE2_SECRET' is not declared under secrets:; it must come from --secrets-file or the environment variable NODE2_SECRET",
    ]);
  });

  it('reports schema problems in the same words as playbooks', () => {
    const text = good
      .replace('network: testnet', 'network: tesnet')
      .replace('    dpm: https://dpm1.example.com', '    dmp: https://dpm1.example.com')
      .replace(pid(2), 'participant2::abc');
    const { errors } = check(text);
    expect(errors).toEqual([
      "2:10 /network [schema] 'tesnet' is not an allowed value",
      "10:3 /nodes/node1 [schema] missing key 'dpm' in node 'node1'",
      "12:5 /nodes/node1/dmp [schema] unknown key 'dmp' in node 'node1'",
      "14:20 /nodes/node2/participantId [schema] 'participant2::abc' is not a valid participant id",
    ]);
  });

  it('refuses two nodes with one participant id', () => {
    const { errors } = check(good.replace(pid(2), pid(1)));
    expect(errors).toEqual([
      "14:20 /nodes/node2/participantId [duplicate-participant-id] node 'node2' has the participant id of node 'node1'",
    ]);
  });

  it('wants the credentials each grant needs, and nothing the grant does not use', () => {
    const text = good
      .replace('  password: { secret: IDP_PASSWORD }\n', '')
      .replace('      clientSecret: { secret: NODE2_SECRET }', '      username: nobody');
    expect(check(text).errors).toEqual([
      "3:1 /auth [auth-grant] the password grant needs 'password'",
      "15:5 /nodes/node2/auth [auth-grant] the client_credentials grant needs 'clientSecret'",
      "19:7 /nodes/node2/auth/username [auth-grant] 'username' is not used by the client_credentials grant",
    ]);
  });

  it('wants every node to authenticate, except on a devnet', () => {
    const noAuth = yaml(
      'name: t',
      'network: testnet',
      'nodes:',
      '  node1:',
      `    participantId: ${pid(1)}`,
      '    dpm: http://127.0.0.1:1',
    );
    expect(check(noAuth).errors).toEqual([
      "4:3 /nodes/node1 [missing-auth] node 'node1' has no auth and the target has none",
    ]);
    const devnet = check(noAuth.replace('network: testnet', 'network: devnet'));
    expect(devnet).toEqual({
      errors: [],
      warnings: ["2:10 /network [no-auth] no credentials for 'node1': requests are sent without a token"],
      valid: true,
    });
  });

  it('refuses credentials in every URL field, at its line, never quoting them', () => {
    const text = good
      .replace('https://idp.example.com/auth', 'https://operator:pa55-word-1@idp.example.com/auth')
      .replace('https://dpm1.example.com', 'https://dpm1.example.com')
      .replace(
        '    dpm: https://dpm2.example.com',
        '    dpm: https://tok3n-value-22@dpm2.example.com\n    ledger: https://u:p4ss-word-3@l2.example.com/v2',
      )
      .concat(yaml('services:', '  registry: http://svc:s3rvice-pass@registry.example.com'));
    const { errors, valid } = check(text);
    expect(valid).toBe(false);
    const credentials = errors.filter((e) => e.includes('[url-credentials]'));
    expect(credentials.map((e) => e.split(' [')[0])).toEqual([
      '4:11 /auth/issuer',
      '15:10 /nodes/node2/dpm',
      '16:13 /nodes/node2/ledger',
      '25:13 /services/registry',
    ]);
    expect(credentials[0]).toContain(
      'https://***@idp.example.com/auth/realms/canton carries credentials in the URL',
    );
    for (const secret of ['pa55-word-1', 'tok3n-value-22', 'p4ss-word-3', 's3rvice-pass'])
      expect(errors.join('\n')).not.toContain(secret);
    // the plain-http finding of the same URL does not quote them either
    expect(errors.join('\n')).toContain('http://***@registry.example.com is plain http');
    const { doc } = parseSource('t.yaml', text);
    expect(validateTarget(doc).diagnostics.find((d) => d.rule === 'url-credentials')?.hint).toContain(
      'secrets:',
    );
  });

  it('says so for an empty file', () => {
    expect(check('').errors).toEqual(['1:1  [schema] the file is empty']);
  });
});

/** what `load` throws (it must throw) */
function thrown(load: () => unknown): unknown {
  try {
    load();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('loadTarget', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lb-target-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a valid target and hands over its warnings', async () => {
    const file = join(dir, 'ok.yaml');
    await writeFile(file, good);
    const warnings: Diagnostic[] = [];
    const target = loadTarget(file, { warn: (w) => warnings.push(w) });
    expect(target.file).toBe(file);
    expect(warnings.map((w) => w.rule)).toEqual(['undeclared-secret']);
  });

  it('throws LB_TARGET_INVALID for a missing, malformed or invalid file', async () => {
    const missing = thrown(() => loadTarget(join(dir, 'none.yaml')));
    expect((missing as ValidationError).code).toBe('LB_TARGET_INVALID');
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'name: t\nname: u\n');
    const malformed = thrown(() => loadTarget(file)) as ValidationError;
    expect(malformed.code).toBe('LB_TARGET_INVALID');
    expect(malformed.diagnostics.map((d) => d.rule)).toEqual(['yaml']);
    await writeFile(file, 'name: t\n');
    const invalid = thrown(() => loadTarget(file)) as ValidationError;
    expect(invalid.diagnostics.map((d) => d.message)).toEqual(["missing key 'network' at the top level"]);
  });
});
