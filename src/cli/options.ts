/**
 * Every command-line option, once: commander is built from this table, and the docs test checks that every
 * `--flag` the README and docs mention is here.
 */
export interface OptionSpec {
  flags: string;
  description: string;
  /** commands that take it; `*` = global */
  commands: readonly string[] | '*';
  default?: string | boolean | string[];
  /** collect repeated values into a list */
  repeatable?: boolean;
}

const collect = ['validate', 'plan', 'run'] as const;

export const OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--json',
    description: 'NDJSON events on stdout (first line: a version event); human text on stderr',
    commands: '*',
  },
  { flags: '--no-color', description: 'no colours (also NO_COLOR=1 or TERM=dumb)', commands: '*' },
  { flags: '--debug', description: 'stack traces for errors', commands: '*' },
  {
    flags: '--state-dir <dir>',
    description: 'where journals and locks live',
    commands: '*',
    default: '.ledgerbook',
  },
  {
    flags: '--state <url>',
    description:
      'keep journals and locks in PostgreSQL (postgres://user:password@host/db; also LEDGERBOOK_STATE) instead of the state dir',
    commands: '*',
  },
  {
    flags: '-t, --target <target>',
    description: 'a target file, or `sandbox` for the built-in sandbox',
    commands: [...collect],
    default: 'sandbox',
  },
  {
    flags: '-i, --input <name=value>',
    description: 'a playbook input (repeatable)',
    commands: [...collect],
    repeatable: true,
    default: [],
  },
  {
    flags: '--secrets-file <file>',
    description: 'secrets as NAME=value lines (or YAML); values never printed',
    commands: [...collect],
  },
  {
    flags: '--fresh',
    description: 'start a new run instead of resuming an unfinished one',
    commands: ['run'],
  },
  {
    flags: '--approve <step-id>',
    description: 'approve a core.approve gate (repeatable)',
    commands: ['run'],
    repeatable: true,
    default: [],
  },
  {
    flags: '--summary <file>',
    description: 'write a Markdown summary of the run',
    commands: ['run', 'plan'],
  },
  {
    flags: '--verbose',
    description:
      'every item’s line: in a terminal, lines instead of the task tree; the planned change of each item of big fan-outs too',
    commands: ['run', 'plan'],
  },
  {
    flags: '--out <file>',
    description: 'save the plan to a file: `run FILE` applies exactly it, `show FILE` renders it',
    commands: ['plan'],
  },
  {
    flags: '--untrusted',
    description:
      'plan a change nobody reviewed yet (a pull request): no playbook command runs and no address the playbook names is contacted; secrets not given are unknown; the plan is never applied',
    commands: ['plan'],
  },
  {
    flags: '--detailed-exitcode',
    description: 'exit 0 when nothing would change, 2 when something would',
    commands: ['plan'],
  },
];

export function optionsFor(command: string): OptionSpec[] {
  return OPTIONS.filter((o) => o.commands === '*' || o.commands.includes(command)).filter(
    (o) => o.commands !== '*',
  );
}

export function globalOptions(): OptionSpec[] {
  return OPTIONS.filter((o) => o.commands === '*');
}
