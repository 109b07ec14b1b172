/**
 * token.distribute's static check of its recipients (inline, or a file read without keeping it), for its
 * declaration.
 */
import { resolve } from 'node:path';
import { DataFileError, displayPath } from '../../../data-file.js';
import type { StaticFinding } from '../../../playbook/step-declaration.js';
import { hasExpression } from '../../../playbook/expressions/template.js';
import type { Target } from '../../../playbook/target.js';
import { actingPartyId, checkActingParty } from '../common.declaration.js';
import {
  inlineRecipients,
  readRecipientsSync,
  recipientDiagnostics,
  type Recipients,
} from '../recipients.js';
import type { With } from './schema.js';

export const PATH_HINT = 'the path is relative to the playbook';

export function recipientsPath(w: With, baseDir: string): string | undefined {
  return typeof w.recipients === 'string' ? resolve(baseDir, w.recipients) : undefined;
}

/** Why the recipients file could not be read (a DataFileError, or an error of the file system while reading). */
export function unreadable(error: unknown): { message: string; hint: string } | undefined {
  if (error instanceof DataFileError)
    return {
      message: error.message,
      hint: error.hint === undefined || error.hint === 'check the path' ? PATH_HINT : error.hint,
    };
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? undefined : { message: code, hint: PATH_HINT };
}

/** `check`: the sender, and the recipients (inline, or a file read without keeping it) before anything runs. */
export function checkRecipients(w: With, target: Target | undefined, baseDir: string): StaticFinding[] {
  const findings: StaticFinding[] = checkActingParty(w.sender, target, '/sender');
  if (Array.isArray(w.recipients)) {
    const result = inlineRecipients(w.recipients, { sender: actingPartyId(target, w.sender) });
    for (const p of result.problems)
      findings.push({
        pointer: `/recipients${p.pointer ?? ''}`,
        message: p.message,
        ...(p.hint ? { hint: p.hint } : {}),
      });
  } else if (typeof w.recipients === 'string' && !hasExpression(w.recipients)) {
    const path = recipientsPath(w, baseDir) as string;
    let result: Recipients;
    try {
      result = readRecipientsSync(path, displayPath(path), {
        sender: actingPartyId(target, w.sender),
        keep: false,
      });
    } catch (error) {
      const why = unreadable(error);
      if (why === undefined) throw error;
      return [
        ...findings,
        { pointer: '/recipients', message: `cannot read ${w.recipients}: ${why.message}`, hint: why.hint },
      ];
    }
    for (const d of recipientDiagnostics(result))
      findings.push({
        pointer: '/recipients',
        message: d.message,
        ...(d.hint ? { hint: d.hint } : {}),
        at: { file: d.file, line: d.line, col: d.col },
      });
  }
  return findings;
}
