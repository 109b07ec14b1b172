/**
 * Diagnostics for people:
 *
 *     playbooks/x.yaml:12:7 error: unknown key 'thresold' in dpm.onboard-party `with`
 *       at /steps/1/with/thresold
 *       expected: one of coordinator, peers, prefix, threshold
 *       hint: did you mean 'threshold'?
 *
 * and a last line "N problems found; nothing was run".
 */
import type { Diagnostic } from '../diagnostics.js';
import { terminalSafeDeep } from '../terminal-text.js';

export interface FormatOptions {
  color: boolean;
  /** `warning` prints warnings (a target's), with no "nothing was run" line */
  severity?: 'error' | 'warning';
}

const ANSI = { bold: 1, dim: 2, red: 31, yellow: 33, cyan: 36 } as const;

export function formatDiagnostics(diags: readonly Diagnostic[], opts: FormatOptions): string {
  const paint = (style: keyof typeof ANSI, text: string): string =>
    opts.color ? `\u001b[${ANSI[style]}m${text}\u001b[0m` : text;
  const severity = opts.severity ?? 'error';
  const label = severity === 'error' ? paint('red', 'error:') : paint('yellow', 'warning:');
  const lines: string[] = [];
  for (const raw of diags) {
    const d = terminalSafeDeep(raw);
    lines.push(`${paint('bold', `${d.file}:${d.line}:${d.col}`)} ${label} ${d.message}`);
    if (d.pointer !== '') lines.push(`  ${paint('dim', `at ${d.pointer}`)}`);
    if (d.expected !== undefined) lines.push(`  expected: ${d.expected}`);
    if (d.hint !== undefined) lines.push(`  ${paint('cyan', `hint: ${d.hint}`)}`);
  }
  const n = diags.length;
  if (severity === 'error') lines.push(`${n} problem${n === 1 ? '' : 's'} found; nothing was run`);
  else lines.push(`${n} warning${n === 1 ? '' : 's'}`);
  return `${lines.join('\n')}\n`;
}
