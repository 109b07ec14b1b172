/** Plain http to another machine carries tokens and secrets in clear: refused in a target unless it opts in. */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writePlaybook } from './cli.js';

const EXAMPLE = resolve(import.meta.dirname, '../../playbooks/targets/testnet.example.yaml');
const PLAYBOOK = 'name: p\nsteps:\n  - id: mesh\n    uses: dpm.network\n';

async function target(dir: string, edit: (text: string) => string): Promise<string> {
  const text = edit(await readFile(EXAMPLE, 'utf8'));
  await writeFile(join(dir, 't.yaml'), text);
  return text;
}

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('plain http in a target', () => {
  it('a node at http://<another host> is refused with its line (exit 65)', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', PLAYBOOK);
    const text = await target(dir, (t) => t.replace(/dpm: https:\/\/([^\s]+)/, 'dpm: http://$1'));
    const result = await cli(['validate', 'p.yaml', '--target', 't.yaml'], {
      cwd: dir,
      env: { IDP_PASSWORD: 'long-enough-password' },
    });
    expect(result.code).toBe(65);
    expect(result.stderr).toMatch(
      new RegExp(`t\\.yaml:${lineOf(text, 'dpm: http://')}:\\d+ error: http://\\S+ is plain http`),
    );
    expect(result.stderr).toContain('allowPlainHttp: true');
  });

  it('allowPlainHttp: true turns it into a warning; the issuer is never exempt', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', PLAYBOOK);
    await target(
      dir,
      (t) => `allowPlainHttp: true\n${t.replace(/dpm: https:\/\/([^\s]+)/, 'dpm: http://$1')}`,
    );
    const env = { IDP_PASSWORD: 'long-enough-password' };
    const lab = await cli(['validate', 'p.yaml', '--target', 't.yaml'], { cwd: dir, env });
    expect(lab.code, lab.stderr).toBe(0);
    expect(lab.stderr).toMatch(/warning: .*t\.yaml:\d+:\d+: http:\/\/\S+ is plain http/);
    await target(dir, (t) => `allowPlainHttp: true\n${t.replace('issuer: https://', 'issuer: http://')}`);
    const issuer = await cli(['validate', 'p.yaml', '--target', 't.yaml'], { cwd: dir, env });
    expect(issuer.code).toBe(65);
    expect(issuer.stderr).toContain('use https:// for the identity provider');
  });

  it('loopback hosts may use plain http', async () => {
    const dir = await tempDir();
    await writePlaybook(dir, 'p.yaml', PLAYBOOK);
    await target(dir, (t) => t.replace(/dpm: https:\/\/[^\s]+/, 'dpm: http://127.0.0.5:7000'));
    const result = await cli(['validate', 'p.yaml', '--target', 't.yaml'], {
      cwd: dir,
      env: { IDP_PASSWORD: 'long-enough-password' },
    });
    expect(result.code, result.stderr).toBe(0);
  });
});
