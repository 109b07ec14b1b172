/** Runs the built CLI (dist/, built by test/global-setup.ts) as a child process, as a user or a pipeline would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** its own process group, as a shell runs a foreground job: `process.kill(-pid, …)` signals it like a terminal */
  processGroup?: boolean;
}

/** Environment of a pipeline: no terminal, CI set, no colours. */
function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  return env;
}

export function spawnCli(args: string[], options: CliOptions): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: 'pipe',
    detached: options.processGroup === true,
  });
}

/**
 * The CLI on a pseudo-terminal of 120 columns (`script` from util-linux), as a person at a terminal runs it: the
 * task tree, colours, no CI. `collect` reads what it drew (escape sequences included) and its exit code.
 */
export function spawnCliInTerminal(args: string[], options: CliOptions): ChildProcess {
  const command = ['stty cols 120 rows 50;', 'exec', process.execPath, CLI, ...args]
    .map((part, i) => (i < 2 ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm', ...options.env };
  delete env['CI'];
  delete env['NO_COLOR'];
  return spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** What a terminal showed, as text: escape sequences removed, carriage returns as line breaks. */
export function screenText(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n');
}

/**
 * What the process printed and how it ended. `timeoutMs` only stops a process that hangs: it is longer than most
 * tests' own timeout, which a test that runs long (several operators under the realistic profile) sets itself.
 */
export function collect(child: ChildProcess, timeoutMs = 180_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`ledgerbook did not finish within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
      );
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

export function cli(args: string[], options: CliOptions): Promise<CliResult> {
  return collect(spawnCli(args, options), options.timeoutMs);
}

export async function tempDir(prefix = 'lb-e2e-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/**
 * A temporary folder with a copy of the built CLI as a package holds it (dist/, package.json) and the shipped
 * playbooks, for a test that changes the installation; the caller links the node_modules it means to give it.
 */
export async function copyOfBuild(prefix: string): Promise<string> {
  const root = resolve(import.meta.dirname, '../..');
  const dir = await tempDir(prefix);
  await cp(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  await cp(join(root, 'package.json'), join(dir, 'package.json'));
  await cp(join(root, 'playbooks'), join(dir, 'playbooks'), { recursive: true });
  return dir;
}

export async function writePlaybook(dir: string, name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

export async function lines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return text.split('\n').filter((l) => l !== '');
}

/** NDJSON events from --json stdout. */
export function events(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
}
