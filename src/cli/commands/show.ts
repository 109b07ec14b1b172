/**
 * `ledgerbook show plan.json`: a saved plan as Markdown, for a pull request comment or a job summary. Text that
 * came from the playbook or the services (ids, summaries) is shown in code spans, so that it can neither format
 * the comment, nor mention people, nor inject HTML.
 */
import { sizeText } from '../../data-file.js';
import { PlanRefusedError } from '../../errors.js';
import { PlanKey } from '../../engine/plan-signature.js';
import { PLAN_KEY_ENV } from '../../environment.js';
import type { PlannedStep, SavedPlan } from '../../engine/saved-plan.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { readSavedPlan, trustOf, type Trust } from './plan.js';
import { stdout } from '../stdio.js';

/** items listed per step before "… and N more" */
const ITEMS_SHOWN = 25;

/** `text` as a code span: delimited by more backticks than it contains in a row, on one line. */
export function code(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function stepPlan(step: PlannedStep): string {
  switch (step.status) {
    case 'changes':
      return `**${plural(step.changes, 'change')}**`;
    case 'known-after-apply': {
      const on = step.dependsOn ?? [];
      const steps = on.filter((d) => !d.includes('.'));
      const secrets = on.filter((d) => d.includes('.'));
      const reads = [
        ...(steps.length > 0 ? [`reads outputs of ${steps.map(code).join(', ')}`] : []),
        ...(secrets.length > 0
          ? [`reads ${secrets.map(code).join(', ')}, not read by an untrusted plan`]
          : []),
      ].join('; ');
      const keys = step.itemKeys;
      if (keys === undefined) return `known after apply (${reads})`;
      const shown = keys.slice(0, ITEMS_SHOWN).map(code).join(', ');
      const more = keys.length > ITEMS_SHOWN ? ` and ${keys.length - ITEMS_SHOWN} more` : '';
      return `${plural(keys.length, 'item')}${keys.length > 0 ? `: ${shown}${more}` : ''}; changes known after apply (${reads})`;
    }
    case 'skipped':
      return 'skipped (`if:` is false)';
    default:
      return 'in sync';
  }
}

/** Whether the plan is signed, and what its signature is worth here (or that it is for review only). */
function trustLine(plan: SavedPlan, trust: Trust): string {
  const key = `\`${PLAN_KEY_ENV}\``;
  if (plan.untrusted)
    return '> **For review only.** Made with `plan --untrusted` (a change nobody reviewed yet): no command of the playbook ran and no address it names was contacted, so what those would tell says _not evaluated_; `ledgerbook run` does not apply this plan.';
  if (!trust.signed)
    return trust.key
      ? `**Not signed**: \`ledgerbook run\` refuses it while ${key} is set.`
      : `Not signed: nothing but its own digests vouches for it (with ${key} set, \`plan --out\` signs).`;
  const signed = `HMAC-SHA-256, key id ${code(trust.keyId)}`;
  switch (trust.key) {
    case 'valid':
      return `**Signed** (${signed}); the signature verifies with ${key}.`;
    case 'none':
      return `**Signed** (${signed}); ${key} is not set here, so the signature was not checked.`;
    case 'other-key':
      return `**Signed with another key** (${signed}) than ${key}: \`ledgerbook run\` refuses it.`;
    case 'invalid':
      return `**The signature does not verify** with ${key}: the plan was changed after it was signed, and \`ledgerbook run\` refuses it.`;
  }
}

/** `run` would refuse the plan for what its signature is worth here (show exits 65 then). */
function refusedBySignature(plan: SavedPlan, trust: Trust): string | undefined {
  if (plan.untrusted) return undefined;
  if (!trust.signed) return trust.key ? `not signed, and ${PLAN_KEY_ENV} is set` : undefined;
  if (trust.key === 'invalid') return `its signature does not verify with ${PLAN_KEY_ENV}`;
  if (trust.key === 'other-key') return `it was signed with another key than ${PLAN_KEY_ENV}`;
  return undefined;
}

function filesLine(plan: SavedPlan): string {
  const what = plan.target.text === undefined ? 'the playbook' : 'the playbook and the target';
  if (plan.files.length === 0) return `It carries ${what} it applies.`;
  const shown = plan.files
    .slice(0, ITEMS_SHOWN)
    .map((f) => `${code(f.path)} (${sizeText(f.bytes)}, sha256 ${code(f.sha256.slice(0, 12))})`);
  const more = plan.files.length > ITEMS_SHOWN ? ` and ${plan.files.length - ITEMS_SHOWN} more` : '';
  return `It carries ${what} it applies, and holds ${plural(plan.files.length, 'data file')} to their digest: ${shown.join(', ')}${more}.`;
}

export function renderPlanMarkdown(plan: SavedPlan, file: string, trust: Trust): string {
  const changing = plan.steps.filter((s) => s.status === 'changes');
  const later = plan.steps.filter((s) => s.status === 'known-after-apply');
  const lines: string[] = [
    `## ledgerbook plan: ${code(plan.playbook.name)} on ${code(plan.target.name)}`,
    '',
    plan.changes === 0 && later.length === 0
      ? '**No changes.** The live state matches the playbook.'
      : `**${plural(plan.changes, 'change')}** in ${changing.length} of ${plural(plan.steps.length, 'step')}` +
        (later.length > 0 ? `, and ${plural(later.length, 'step')} known after apply.` : '.'),
    '',
    `Made ${plan.createdAt} by ledgerbook ${plan.ledgerbook} from ${code(plan.playbook.file)} ` +
      `(sha256 ${code(plan.playbook.digest.slice(0, 12))}), target ${code(plan.target.spec)}` +
      (plan.target.text === undefined ? '' : ` (sha256 ${code(plan.target.digest.slice(0, 12))})`) +
      (plan.inputs.given.length > 0 ? `, inputs ${plan.inputs.given.map(code).join(' ')}` : '') +
      `. ${filesLine(plan)}`,
    '',
    trustLine(plan, trust),
    '',
    '| step | kind | plan |',
    '| --- | --- | --- |',
    ...plan.steps.map((s) => `| ${code(s.id)} | ${code(s.uses)} | ${stepPlan(s)} |`),
  ];
  for (const step of changing) {
    lines.push('', `### ${code(step.id)}: ${plural(step.changes, 'change')}`, '');
    for (const item of step.items.slice(0, ITEMS_SHOWN)) {
      for (const change of item.changes) {
        const who = item.key === '' ? '' : `${code(item.key)}: `;
        lines.push(`- ${who}${change.action} — ${code(change.summary)}`);
      }
    }
    if (step.items.length > ITEMS_SHOWN)
      lines.push(
        `- … and ${plural(step.items.length - ITEMS_SHOWN, 'more item')} (the plan file lists them all)`,
      );
  }
  if (later.length > 0) {
    lines.push(
      '',
      plan.untrusted
        ? '_Known after apply_: these steps read outputs of steps that will change, or secrets an untrusted plan does not read, so they are planned when a run reaches them.'
        : '_Known after apply_: these steps read outputs of steps that will change, so they are planned when the run reaches them, after those steps applied.',
    );
  }
  if (!plan.untrusted)
    lines.push(
      '',
      `Apply exactly this plan with \`ledgerbook run ${file}\`: it plans again first and refuses (exit 1, with the differences) if the playbook, its inputs, its target, its data files or the live state changed since.`,
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Renders the plan, with what its signature is worth where `show` runs. Exits 65, after the rendering, when
 * `run` would refuse the plan for its signature here. Reads nothing the plan names.
 */
export async function showCommand(file: string, options: GlobalOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const key = PlanKey.fromEnv(process.env[PLAN_KEY_ENV]);
    const plan = await readSavedPlan(file);
    const trust = trustOf(plan, key);
    stdout.write(renderPlanMarkdown(plan, file, trust));
    const refused = refusedBySignature(plan, trust);
    if (refused !== undefined)
      throw new PlanRefusedError(
        `${file}: ${refused}: \`ledgerbook run\` refuses it`,
        'make a new plan with the key of the job that applies it, review it, and apply that one',
      );
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}
