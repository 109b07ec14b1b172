#!/usr/bin/env node
/**
 * The ledgerbook command line. Kept small: each command's module is imported only when that command runs, so
 * `--help` and `validate` start fast.
 */
import { Command, CommanderError, Option } from 'commander';
import { EXIT, EXIT_CODE_HELP } from '../errors.js';
import { damagedBuildMessage } from './damaged-build.js';
import { globalOptions, optionsFor, type OptionSpec } from './options.js';
import { stderr, stdout } from './stdio.js';
import { guardWorkflowCommands } from './workflow-commands.js';
import { VERSION } from './version.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.repeatable) option.argParser(collect);
    if (spec.default !== undefined) option.default(spec.default);
    command.addOption(option);
  }
  return command;
}

/** What Ctrl-C and SIGTERM do to a run (README "Stopping a run" says the same). */
const STOPPING_HELP = `
Stopping a run:
  Ctrl-C (or SIGTERM)  no new step, item or retry starts; the items in flight, their commands included, run
                       to their end and are journalled; then exit 130. A SIGTERM waits at most 5 s.
  Ctrl-C again         stop at once: the items in flight are cancelled (commands get SIGTERM), exit 130;
                       the next run reconciles them before anything is repeated.
  Run the same command again to resume.`;

/**
 * One or two real examples per command, shown at the end of its --help: commands that work as written in this
 * repository (test/e2e/first-hour.test.ts holds each to its command's options and to files that exist).
 */
const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  validate: [
    'ledgerbook validate playbooks/onboard-party.yaml playbooks/distribute-dars.yaml',
    'ledgerbook validate playbooks/redeem.yaml --input amount=0.01   # checked with this input too',
  ],
  plan: [
    'ledgerbook plan playbooks/onboard-party.yaml --detailed-exitcode   # exit 2: something would change',
    'ledgerbook plan playbooks/onboard-party.yaml --out plan.json       # then: show plan.json, run plan.json',
  ],
  run: [
    'ledgerbook run playbooks/onboard-party.yaml                        # on the built-in sandbox',
    'ledgerbook run playbooks/change-threshold.yaml --input threshold=3 --json --summary summary.md',
  ],
  show: ['ledgerbook show plan.json > plan.md   # a plan made by `plan --out plan.json`, for a pull request'],
  status: [
    'ledgerbook status                                   # every run of the state dir',
    'ledgerbook status playbooks/onboard-party.yaml --json',
  ],
  schema: ['ledgerbook schema --list', 'ledgerbook schema dpm.onboard-party   # the `with` of one step kind'],
  'sandbox up': [
    'ledgerbook sandbox up --write-target sandbox.yaml   # runs without --target use it too',
    'ledgerbook sandbox up --profile realistic --time-scale 0.1 --state-dir .ledgerbook/slow',
    'ledgerbook sandbox up --fork mainnet.yaml --state-dir .ledgerbook/rehearsal --write-target copy.yaml',
  ],
  'state unlock': [
    'ledgerbook state unlock playbooks/onboard-party.yaml   # a lock left by a process that is gone',
  ],
  'state resolve': [
    'ledgerbook state resolve playbooks/redeem.yaml --step burn --done   # the burn took effect',
    'ledgerbook state resolve playbooks/redeem.yaml --step burn --redo   # it did not: the next run does it',
  ],
  'state migrate': [
    'LEDGERBOOK_STATE=postgres://ledgerbook@db.example:5432/ledgerbook ledgerbook state migrate',
  ],
  'state push': ['LEDGERBOOK_STATE=postgres://ledgerbook@db.example:5432/ledgerbook ledgerbook state push'],
  'state pull': [
    'LEDGERBOOK_STATE=postgres://ledgerbook@db.example:5432/ledgerbook ledgerbook state pull --state-dir .ledgerbook',
  ],
};

/** The command's name as the examples' table keys it: `run`, `sandbox up`, `state unlock`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

const exitCodes = EXIT_CODE_HELP.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n');

function build(setExit: (code: number) => void): Command {
  const program = new Command('ledgerbook')
    .description(
      'Run declarative YAML playbooks against Canton decentralized-party nodes and the wrapped-BTC services:\nvalidate, plan (saved with --out, shown with show), run (resumable), status, and a built-in sandbox.',
    )
    .version(VERSION)
    .showSuggestionAfterError(true)
    // each command's help lists the options every command takes (--json, --state-dir, --debug …) too
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      `\nExit codes:\n${exitCodes}\n  130  interrupted (Ctrl-C, SIGTERM): run the same command again to resume\n`,
    );
  addOptions(program, globalOptions());

  const cmd = (name: string, description: string): Command =>
    addOptions(program.command(name).description(description), optionsFor(name));

  cmd('validate', 'check playbooks, their inputs and target against the schemas; nothing runs')
    .argument('<playbooks...>', 'playbook files')
    .action(async (files: string[], _opts, command: Command) => {
      const { validateCommand } = await import('./commands/validate.js');
      setExit(await validateCommand(files, command.optsWithGlobals()));
    });

  cmd('plan', 'observe live state and show what a run would change; no side effect')
    .argument('<playbook>', 'playbook file')
    .action(async (file: string, _opts, command: Command) => {
      const { runCommand } = await import('./commands/run.js');
      setExit(await runCommand('plan', file, command.optsWithGlobals()));
    });

  cmd(
    'run',
    'run a playbook (running it again resumes an unfinished run or converges a finished one), or apply a saved plan',
  )
    .argument('<playbook>', 'playbook file, or a saved plan (plan --out)')
    .addHelpText('after', STOPPING_HELP)
    .action(async (file: string, _opts, command: Command) => {
      const { runCommand } = await import('./commands/run.js');
      const targetGiven = command.getOptionValueSource('target') === 'cli';
      setExit(await runCommand('run', file, { ...command.optsWithGlobals(), targetGiven }));
    });

  cmd('show', 'render a saved plan (plan --out) as Markdown, for a pull request comment')
    .argument('<plan>', 'saved plan file')
    .action(async (file: string, _opts, command: Command) => {
      const { showCommand } = await import('./commands/show.js');
      setExit(await showCommand(file, command.optsWithGlobals()));
    });

  cmd('status', 'show the runs in the state (the state dir, or PostgreSQL) and where each stands')
    .argument('[playbook]', 'playbook file or name')
    .addOption(new Option('-t, --target <target>', 'only this target'))
    .action(async (playbook: string | undefined, _opts, command: Command) => {
      const { statusCommand } = await import('./commands/status.js');
      setExit(await statusCommand(playbook, command.optsWithGlobals()));
    });

  cmd('schema', 'print a JSON Schema: playbook (default), target, events, or a step kind')
    .argument('[name]', 'schema name, e.g. core.shell')
    .option('--list', 'list the schema names')
    .action(async (name: string | undefined, _opts, command: Command) => {
      const { schemaCommand } = await import('./commands/schema.js');
      setExit(await schemaCommand(name, command.optsWithGlobals()));
    });

  program
    .command('sandbox')
    .description(
      'the built-in sandbox: simulated DPM nodes, participants, identity provider and token services on loopback',
    )
    .command('up')
    .description(
      'start the sandbox of the state dir and print its URLs (a list in a terminal, one JSON line when piped); runs and plans without --target use it; stops on Ctrl-C or SIGTERM',
    )
    .option('--nodes <n>', 'number of operator nodes', '3')
    .option('--host <address>', 'loopback address to listen on', '127.0.0.1')
    .option(
      '--port <port>',
      'first port (admin; then idp, dpm and ledger per node, registry, gateway, rewards, faucet, bitcoin); 0 = free ports; default: the ports this state dir’s sandbox had before',
    )
    .option('--profile <profile>', 'fast (tests) or realistic (the real services’ timings)', 'fast')
    .option(
      '--time-scale <factor>',
      'multiply every duration of the profile by this factor (e.g. 0.1: realistic, ten times faster)',
    )
    .option('--faults <file>', 'YAML faults to inject (see packages/sandbox/README.md)')
    .option('--write-target <file>', 'write a target file for --target')
    .option(
      '--fork <target>',
      'read the network this target file names (reads only) and start a copy of it in a new state dir, with the target’s network and nodes (--nodes and --network are not used); --write-target then names the copy with the original’s nodes, parties and instrument',
    )
    .option('--fork-days <days>', 'days of rewards history a fork copies, up to today', '7')
    .option(
      '--network <network>',
      'the Canton network the nodes run on: devnet, testnet or mainnet',
      'devnet',
    )
    .option('--insecure', 'accept any token, like DECPM_INSECURE (devnet only)')
    .option('--token-ttl <seconds>', 'access-token lifetime of the identity provider')
    .option(
      '--ledger-api <release>',
      'the Canton release the ledger API behaves as: 3.4, 3.5, or strict (3.6: deprecated bodies refused); default by network',
    )
    .option(
      '--submit-latency <ms>',
      'added to every ledger submission (default by profile: fast 0, realistic 3000)',
    )
    .option(
      '--transfer-limit <count>',
      'transactions the network accepts per window, or none (default by profile: fast none, realistic 500)',
    )
    .option('--transfer-window <seconds>', 'the window of --transfer-limit (default 600)')
    .option(
      '--rewards-fields <names>',
      'the rewards API field names: document or live (default live, the running service’s names)',
    )
    .option(
      '--max-deduplication-duration <duration>',
      'how long a participant refuses a command id it committed, Canton’s max-deduplication-duration (default 168h; 0: never)',
    )
    .action(async (_opts, command: Command) => {
      const { sandboxUpCommand } = await import('./commands/sandbox.js');
      setExit(await sandboxUpCommand(command.optsWithGlobals()));
    });

  const state = program
    .command('state')
    .description('inspect, repair and move the state (the state dir, or PostgreSQL with --state)');
  state
    .command('unlock')
    .description('remove the lock of a playbook and target left by a process that is gone')
    .argument('<playbook>', 'playbook file or name')
    .option('-t, --target <target>', 'target name', 'sandbox')
    .option('--id <lock-id>', 'only remove the lock with this id')
    .option('--force', 'remove it even if its process is alive')
    .action(async (playbook: string, _opts, command: Command) => {
      const { unlockCommand } = await import('./commands/state.js');
      setExit(await unlockCommand(playbook, command.optsWithGlobals()));
    });

  state
    .command('resolve')
    .description(
      'decide an ambiguous outcome (exit 4): --done records the item as finished, --redo runs it again',
    )
    .argument('<playbook>', 'playbook file or name')
    .requiredOption('--step <step-id>', 'the step')
    .option('--item <key>', 'the item, for fan-out steps')
    .option('--done', 'the side effect happened: record the item as finished')
    .option('--redo', 'the side effect did not happen: let the next run do it')
    .option('-t, --target <target>', 'target name', 'sandbox')
    .action(async (playbook: string, _opts, command: Command) => {
      const { resolveCommand } = await import('./commands/state.js');
      setExit(await resolveCommand(playbook, command.optsWithGlobals()));
    });

  state
    .command('migrate')
    .description('create or upgrade the tables of a PostgreSQL state (--state or LEDGERBOOK_STATE)')
    .action(async (_opts, command: Command) => {
      const { migrateCommand } = await import('./commands/state.js');
      setExit(await migrateCommand(command.optsWithGlobals()));
    });
  for (const [name, description] of [
    ['push', 'copy every run of the state dir to the PostgreSQL state'],
    ['pull', 'copy every run of the PostgreSQL state to the state dir'],
  ] as const) {
    state
      .command(name)
      .description(description)
      .action(async (_opts, command: Command) => {
        const { copyCommand } = await import('./commands/state.js');
        setExit(await copyCommand(name, command.optsWithGlobals()));
      });
  }

  return program;
}

/**
 * commander writes through the CLI's channels (src/cli/stdio.ts): help to a pipe does not load Node's streams.
 * ledgerbook's help has no colours, so whether the output could show them changes nothing.
 */
const COMMANDER_OUTPUT = {
  writeOut: (text: string) => stdout.write(text),
  writeErr: (text: string) => stderr.write(text),
  // commander's own width for what is not a terminal
  getOutHelpWidth: () => stdout.columns ?? 80,
  getErrHelpWidth: () => stderr.columns ?? 80,
  getOutHasColors: () => false,
  getErrHasColors: () => false,
};

async function main(argv: string[]): Promise<number> {
  guardWorkflowCommands();
  let code: number = EXIT.OK;
  const program = build((c) => (code = c));
  // subcommands copy these settings only when created after them: set them on every command of the tree
  const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
  for (const command of everyCommand(program)) {
    command.exitOverride();
    command.configureOutput(COMMANDER_OUTPUT);
    const examples = EXAMPLES[pathOf(command)];
    if (examples) command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return EXIT.OK;
      }
      return EXIT.USAGE;
    }
    throw error;
  }
  return code;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    stderr.write(
      damagedBuildMessage(error) ??
        `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = EXIT.INTERNAL;
  },
);
