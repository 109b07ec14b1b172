import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { playbookPath } from './playbook-path.js';

const dirs: string[] = [];
async function temp(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'lb-path-')));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function checkout(root: string): Promise<string> {
  await mkdir(join(root, 'playbooks'), { recursive: true });
  execFileSync('git', ['init', '-q', root]);
  const file = join(root, 'playbooks', 'onboard.yaml');
  await writeFile(file, 'name: onboard\nsteps: []\n');
  return file;
}

describe('playbookPath: one name for a playbook file in every checkout', () => {
  it('is the path in the git work tree, the same in two checkouts and from any working directory', async () => {
    const a = await checkout(join(await temp(), 'alice'));
    const b = await checkout(join(await temp(), 'ci-runner', 'work'));
    expect(playbookPath(a)).toBe('playbooks/onboard.yaml');
    expect(playbookPath(b)).toBe('playbooks/onboard.yaml');
    const cwd = process.cwd();
    try {
      process.chdir(join(a, '..'));
      expect(playbookPath('onboard.yaml')).toBe('playbooks/onboard.yaml');
    } finally {
      process.chdir(cwd);
    }
  });

  it('follows symbolic links to the file, and stops at a linked work tree (a `.git` file)', async () => {
    const root = await temp();
    const file = await checkout(join(root, 'repo'));
    await symlink(join(root, 'repo'), join(root, 'link'));
    expect(playbookPath(join(root, 'link', 'playbooks', 'onboard.yaml'))).toBe('playbooks/onboard.yaml');
    const linked = join(root, 'repo', 'nested');
    await mkdir(join(linked, 'ops'), { recursive: true });
    await writeFile(join(linked, '.git'), `gitdir: ${join(root, 'repo', '.git')}\n`);
    await writeFile(join(linked, 'ops', 'p.yaml'), 'name: p\n');
    expect(playbookPath(join(linked, 'ops', 'p.yaml'))).toBe('ops/p.yaml');
    expect(playbookPath(file)).toBe('playbooks/onboard.yaml');
  });

  it('outside a git work tree, is the absolute path', async () => {
    const dir = await temp();
    const file = join(dir, 'p.yaml');
    await writeFile(file, 'name: p\n');
    expect(playbookPath(file)).toBe(file);
  });
});
