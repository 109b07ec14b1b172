/**
 * The task tree a person sees in a terminal (listr2), under a real pseudo-terminal (`script` from util-linux):
 * what a step reports stays on screen after the step ends, including steps that start, log and finish at once.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, tempDir, writePlaybook } from './cli.js';

/** Runs the CLI on a pseudo-terminal of 120 columns; the text it drew, escape sequences removed. */
async function inTerminal(args: string[], cwd: string): Promise<{ code: number | null; screen: string }> {
  const command = ['stty cols 120 rows 50;', 'exec', process.execPath, CLI, ...args]
    .map((part, i) => (i < 2 ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
  delete env['CI'];
  delete env['NO_COLOR'];
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // eslint-disable-next-line no-control-regex
  const screen = raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n');
  return { code, screen };
}

describe('in a terminal', () => {
  it('keeps every step’s log lines and planned changes on screen after the steps end', async () => {
    const dir = await tempDir();
    await writePlaybook(
      dir,
      'p.yaml',
      [
        'name: tty',
        'steps:',
        '  - id: hello',
        '    uses: core.log',
        '    with: { message: "hello from core.log" }',
        '  - id: work',
        '    uses: core.shell',
        '    with: { run: "sleep 0.2" }',
        '  - id: bye',
        '    uses: core.log',
        '    with: { message: "the last word" }',
        '',
      ].join('\n'),
    );
    const { code, screen } = await inTerminal(['run', 'p.yaml'], dir);
    expect(code, screen).toBe(0);
    // the last frame, drawn when the tree is complete: everything above the outcome line
    const lastFrame = screen.slice(screen.lastIndexOf('✔ hello'), screen.lastIndexOf('Done:'));
    expect(lastFrame).toContain('hello from core.log');
    expect(lastFrame).toContain('~ run `sleep 0.2` (no guard)');
    expect(lastFrame).toContain('the last word');
  });
});
