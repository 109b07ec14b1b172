/**
 * Output read by a CI runner that executes commands found in it: a GitHub Actions runner runs a line of a step's
 * stdout or stderr that starts with `::` (or holds `##[`) as a workflow command. Kept apart from output.ts so that
 * the CLI's entry loads only this at start-up.
 */
import { StringDecoder } from 'node:string_decoder';
import { workflowCommandEscaper, workflowCommandSafe } from '../terminal-text.js';
import { stderr, stdout } from './stdio.js';

/**
 * Whether the output is read by a CI runner that executes commands found in it: a GitHub Actions runner (workflow
 * commands) or an Azure Pipelines agent (`TF_BUILD`: logging commands).
 */
export function underCommandReadingRunner(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['GITHUB_ACTIONS'] === 'true' || env['TF_BUILD']?.toLowerCase() === 'true';
}

/**
 * Under GitHub Actions or Azure Pipelines, nothing ledgerbook writes to stdout or stderr can act as a workflow command: every write
 * (reporters, errors, help, --json, `show`) passes workflowCommandEscaper, whether or not our Action encloses the
 * run in `::stop-commands::`. ledgerbook issues no workflow command of its own. Call once, at start-up: the
 * channels then write through the streams it guards.
 */
export function guardWorkflowCommands(env: NodeJS.ProcessEnv = process.env): void {
  if (!underCommandReadingRunner(env)) return;
  for (const stream of [stdout.stream(), stderr.stream()]) {
    const write = stream.write.bind(stream) as (chunk: string, ...rest: unknown[]) => boolean;
    const escape = workflowCommandEscaper();
    const decoder = new StringDecoder('utf8');
    stream.write = (chunk: unknown, ...rest: unknown[]): boolean => {
      // a Buffer is read as the UTF-8 text it is (a character split across two writes is held until it is whole)
      const text = typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk as Uint8Array));
      // the encoding of a Buffer's write (ignored for it) does not apply to the text it became
      const after = typeof chunk !== 'string' && typeof rest[0] === 'string' ? rest.slice(1) : rest;
      return write(escape(text), ...after);
    };
  }
}

/** Text for a file the runner may show or a later step may print (the step summary): escaped under such a runner. */
export function runnerSafe(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return underCommandReadingRunner(env) ? workflowCommandSafe(text) : text;
}
