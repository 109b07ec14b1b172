/**
 * token.distribute's recipients: read (a CSV file as a stream, or an inline list), checked before anything is
 * sent, and looked up on the network (`verify`); each recipient is an item.
 */
import { displayPath } from '../../../data-file.js';
import type { Diagnostic } from '../../../diagnostics.js';
import type { StaticFinding } from '../../../playbook/step-declaration.js';
import type { StepContext } from '../../contract.js';
import { ValidationError } from '../../../errors.js';
import { unknownParties } from '../common.js';
import { actingPartyId, nodeOf, unknownPartyMessage } from '../common.declaration.js';
import {
  inlineRecipients,
  readRecipients,
  recipientDiagnostics,
  type Recipient,
  type Recipients,
} from '../recipients.js';
import { recipientsPath, unreadable } from './recipients.declaration.js';
import type { With } from './schema.js';
import type { Ctx } from './session.js';

async function loadRecipients(w: With, ctx: StepContext): Promise<Recipients> {
  const sender = actingPartyId(ctx.target, w.sender);
  const path = recipientsPath(w, ctx.baseDir);
  if (path === undefined)
    return inlineRecipients(w.recipients as Exclude<With['recipients'], string>, { sender });
  try {
    return await readRecipients(path, displayPath(path), { sender }, ctx.signal);
  } catch (error) {
    const why = unreadable(error);
    if (why === undefined) throw error;
    throw new ValidationError('LB_INPUT_INVALID', [
      {
        file: displayPath(path),
        line: 1,
        col: 1,
        pointer: '',
        message: `cannot read the recipients file: ${why.message}`,
        hint: why.hint,
        rule: 'recipients',
      },
    ]);
  }
}

export function refuse(diagnostics: Diagnostic[]): never {
  throw new ValidationError('LB_INPUT_INVALID', diagnostics);
}

/**
 * `verify`: the recipients as `items` reads them, and every receiver looked up on the network (the participant's
 * party lookup, from the sender's node): one it does not know is refused at its line before anything is sent —
 * not half-way, when the ledger refuses its transfer (`UNKNOWN_INFORMEES`) after the lines before it were paid.
 */
export async function verifyRecipients(ctx: StepContext, w: With): Promise<StaticFinding[]> {
  const recipients = await loadRecipients(w, ctx);
  if (recipients.problems.length > 0)
    return recipientDiagnostics(recipients).map((d) => ({
      pointer: '/recipients',
      message: d.message,
      ...(d.hint ? { hint: d.hint } : {}),
      at: { file: d.file, line: d.line, col: d.col },
    }));
  const unknown = await unknownParties(
    ctx,
    w.sender,
    recipients.recipients.map((r) => r.receiver),
  );
  const node = nodeOf(ctx.target, w.sender);
  const inline = typeof w.recipients !== 'string';
  const where = (r: Recipient) =>
    inline
      ? { pointer: `/recipients/${r.line - 1}/receiver` }
      : { pointer: '/recipients', at: { file: recipients.source, line: r.line, col: 1 } };
  const findings: StaticFinding[] = [];
  let more = 0;
  let last: Recipient | undefined;
  for (const r of recipients.recipients) {
    if (!unknown.has(r.receiver)) continue;
    // as many as a file's problems are listed; the rest counted
    if (findings.length >= MAX_FINDINGS) more++;
    else findings.push({ ...unknownPartyMessage(r.receiver, node), ...where(r) });
    last = r;
  }
  if (more > 0 && last !== undefined)
    findings.push({
      ...where(last),
      message: `and ${more} more receiver${more === 1 ? '' : 's'} the network does not know`,
    });
  return findings;
}

/** Findings listed at most (a file's problems are kept as many). */
const MAX_FINDINGS = 1000;

export async function recipientItems(w: With, ctx: Ctx): Promise<Array<{ key: string; value: Recipient }>> {
  const recipients = await loadRecipients(w, ctx);
  if (recipients.problems.length > 0) refuse(recipientDiagnostics(recipients));
  ctx.session.recipients = recipients;
  return recipients.recipients.map((r) => ({ key: r.receiver, value: r }));
}
