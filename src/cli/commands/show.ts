/**
 * `ledgerbook show plan.json`: a saved plan as Markdown, for a pull request comment or a job summary. Text that
 * came from the playbook or the services (ids, summaries) is shown in code spans, so that it can neither format
 * the comment, nor mention people, nor inject HTML.
 */
import type { PlannedStep, SavedPlan } from '../../engine/saved-plan.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { readSavedPlan } from './plan.js';

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
      const reads = `reads outputs of ${(step.dependsOn ?? []).map(code).join(', ')}`;
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

export function renderPlanMarkdown(plan: SavedPlan, file: string): string {
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
      (plan.inputs.given.length > 0 ? `, inputs ${plan.inputs.given.map(code).join(' ')}` : '') +
      '.',
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
      '_Known after apply_: these steps read outputs of steps that will change, so they are planned when the run reaches them, after those steps applied.',
    );
  }
  lines.push(
    '',
    `Apply exactly this plan with \`ledgerbook run ${file}\`: it plans again first and refuses (exit 1, with the differences) if the playbook, its inputs, its target or the live state changed since.`,
  );
  return `${lines.join('\n')}\n`;
}

export async function showCommand(file: string, options: GlobalOptions): Promise<number> {
  const out = makeOutput(options);
  try {
    const plan = await readSavedPlan(file);
    process.stdout.write(renderPlanMarkdown(plan, file));
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}
