import { setMaxListeners } from 'node:events';
import { appendFile, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { createClients } from '../../clients/factory.js';
import { useFileSource } from '../../data-file.js';
import { EXIT } from '../../errors.js';
import { systemClock } from '../../engine/clock.js';
import { EventBus } from '../../engine/event-bus.js';
import { runPlaybook, type RunMode } from '../../engine/run.js';
import { recordedCommand, type StateBackend } from '../../engine/state/backend.js';
import { openState, stateSpec } from '../../engine/state/open.js';
import { MIN_SECRET_LENGTH } from '../../engine/masker.js';
import { stateCommand } from '../../engine/state-command.js';
import { PLAN_KEY_ENV } from '../../environment.js';
import { stepKinds } from '../../steps/index.js';
import { terminalSafe, terminalSafeDeep } from '../../terminal-text.js';
import type { LedgerbookEvent } from '../../engine/events.js';
import { checkWritable } from '../files.js';
import { makeOutput, reportError, versionEvent, type GlobalOptions } from '../output.js';
import { prepare } from '../prepare.js';
import { terminalReporter } from '../reporters/terminal.js';
import { plainReporter } from '../reporters/plain.js';
import { SummaryReporter } from '../reporters/summary.js';
import { stateOptions } from '../state-options.js';
import { runnerSafe } from '../workflow-commands.js';
import { commandSources, refuseSecretsInPlan, savedPlanCheck, writeSavedPlan } from './plan.js';
import { stderr, stdout } from '../stdio.js';

export interface RunCommandOptions extends GlobalOptions {
  target: string;
  input: string[];
  secretsFile?: string;
  fresh?: boolean;
  approve?: string[];
  summary?: string;
  detailedExitcode?: boolean;
  /** plan: write the saved plan here */
  out?: string;
  /** plan: a change nobody reviewed yet: no command of the playbook runs, secrets not given are unknown */
  untrusted?: boolean;
  /** `--target` was given on the command line (not its default) */
  targetGiven?: boolean;
  /** every item's line: plain lines (no task tree), big fan-outs' planned changes included */
  verbose?: boolean;
}

/** `ledgerbook run` (of a playbook or a saved plan) and `ledgerbook plan`. Returns the exit code. */
export async function runCommand(
  mode: RunMode,
  playbookFile: string,
  options: RunCommandOptions,
): Promise<number> {
  const out = makeOutput(options);
  out.event(versionEvent());
  let masker;
  try {
    if (options.summary !== undefined) await checkWritable(options.summary, '--summary');
    if (options.out !== undefined) await checkWritable(options.out, '--out');
    const untrusted = mode === 'plan' && options.untrusted === true;
    const keyText = process.env[PLAN_KEY_ENV];
    // a saved plan is checked here, before anything it names is read for use, contacted or run
    const { savedPlan, key, files, targetSpec, targetText, given } = await commandSources(
      mode,
      playbookFile,
      { ...options, untrusted },
      keyText,
      (text) => stderr.write(text),
    );
    useFileSource(files);
    const prepared = await prepare({
      playbookFile: savedPlan ? savedPlan.playbook.file : playbookFile,
      target: targetSpec,
      inputs: given,
      secretsFile: options.secretsFile,
      env: process.env,
      startSandbox: { stateDir: options.stateDir ?? '.ledgerbook' },
      untrusted,
    });
    masker = prepared.masker;
    // a secret like any other wherever it shows up (an `${{ env.… }}` of the playbook)
    if (keyText !== undefined && keyText.length >= MIN_SECRET_LENGTH) masker.add(keyText);
    if (mode === 'plan' && options.out !== undefined) refuseSecretsInPlan(prepared, given, targetText);
    const approvals = options.approve ?? [];
    const unknownApprovals = approvals.filter((id) => !prepared.playbook.steps.some((s) => s.id === id));
    if (unknownApprovals.length > 0) {
      const ids = prepared.playbook.steps.filter((s) => s.uses === 'core.approve').map((s) => s.id);
      stderr.write(
        terminalSafe(
          `warning: --approve ${unknownApprovals.join(', ')}: no such step (approval steps: ${ids.join(', ') || 'none'})\n`,
        ),
      );
    }

    const events = new EventBus(prepared.masker);
    const summary = new SummaryReporter();
    events.on(summary.listener);
    let finishRenderer: () => void = () => undefined;
    const verbose = options.verbose === true;
    if (out.json) {
      events.on((e) => out.event(e));
      events.on(forTerminal(plainReporter((t) => stderr.write(t), out.color, verbose)));
    } else if (out.interactive && !verbose) {
      const terminal = terminalReporter(stdout.stream(), stderr.stream());
      events.on(forTerminal(terminal.listener));
      finishRenderer = () => terminal.finished();
    } else {
      events.on(forTerminal(plainReporter((t) => stdout.write(t), out.color, verbose)));
    }

    const stop = stopOnSignals();

    const clients = createClients({
      target: prepared.target,
      secrets: prepared.secrets,
      onToken: (token) => prepared.masker.add(token),
    });
    let state: StateBackend | undefined;
    try {
      state = await openState(
        stateSpec(options.state, process.env),
        options.stateDir ?? '.ledgerbook',
        masker,
      );
      const check = savedPlan ? savedPlanCheck(savedPlan, playbookFile, prepared) : undefined;
      const result = await runPlaybook({
        playbook: prepared.playbook,
        inputs: prepared.inputs,
        target: prepared.target,
        targetName: prepared.targetName,
        mode,
        stateDir: options.stateDir ?? '.ledgerbook',
        state,
        fresh: options.fresh === true,
        approvals: new Set(approvals),
        secrets: prepared.secrets,
        env: prepared.env,
        registry: await stepKinds.load(prepared.playbook.steps.map((step) => step.uses)),
        clients,
        clock: systemClock,
        masker: prepared.masker,
        events,
        signal: stop.now,
        stopping: stop.afterInFlight,
        command: recordedCommand(process.argv.slice(2)),
        stateCommand: stateCommand({
          playbook: prepared.playbook.file,
          target: prepared.builtinTarget ? undefined : targetSpec,
          state: stateOptions(options),
        }),
        actor: actor(),
        untrusted,
        withheldSecrets: prepared.withheldSecrets,
        ...(check ? { savedPlan: check } : {}),
      });
      finishRenderer();
      if (mode === 'plan' && options.out !== undefined && result.status === 'planned') {
        const plan = await writeSavedPlan(
          options.out,
          result,
          { prepared, targetSpec, targetText, given, stateWhere: state.where, files, untrusted },
          key,
        );
        out.say(
          untrusted
            ? `Saved the plan to ${options.out} for review (\`ledgerbook show ${options.out}\` renders it); made with --untrusted, it is never applied.\n`
            : `Saved the ${plan.signature ? 'signed ' : ''}plan to ${options.out}: \`ledgerbook show ${options.out}\` renders it, \`ledgerbook run ${options.out}\` applies exactly it.\n`,
        );
      }
      await writeSummary(summary.markdown(), options.summary, prepared.masker.mask.bind(prepared.masker));
      if (mode === 'plan')
        return options.detailedExitcode && result.changes > 0 ? EXIT.CHANGES : result.exitCode;
      if (out.debug && result.error?.stack) stderr.write(`${prepared.masker.mask(result.error.stack)}\n`);
      return result.exitCode;
    } finally {
      // a run that threw leaves the terminal as it found it too
      finishRenderer();
      await state?.close();
      await clients.close();
      await prepared.stop();
      stop.dispose();
    }
  } catch (error) {
    return reportError(error, out, masker);
  } finally {
    useFileSource(undefined);
  }
}

/** A reporter for people: the values in events (from playbooks, inputs, services) cannot drive the terminal. */
function forTerminal(listener: (event: LedgerbookEvent) => void): (event: LedgerbookEvent) => void {
  return (event) => listener(terminalSafeDeep(event));
}

/** How long a SIGTERM lets the items in flight finish before it stops them (docker stop waits 10 s, then kills). */
const SIGTERM_GRACE_MS = 5000;

/**
 * Ctrl-C (SIGINT) and SIGTERM. The first stops the run after what is in flight: no new step, item or attempt
 * starts; the items in flight, their commands included, run to their end and are journalled. A second signal
 * (or a SIGTERM's grace period running out) stops at once: the items in flight are cancelled (commands get
 * SIGTERM) and the next run reconciles them. A third exits on the spot.
 */
function stopOnSignals(): { now: AbortSignal; afterInFlight: AbortSignal; dispose(): void } {
  const now = new AbortController();
  const afterInFlight = new AbortController();
  // every request in flight listens to the run's signal: a fan-out has many more than ten at once
  setMaxListeners(0, now.signal, afterInFlight.signal);
  let received = 0;
  let grace: NodeJS.Timeout | undefined;
  const atOnce = (why: string): void => {
    stderr.write(
      `\n${why}: stopping at once; the steps in flight are cancelled and reconciled by the next run\n`,
    );
    now.abort(new Error(why));
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    received++;
    if (received === 1) {
      const when =
        signal === 'SIGTERM'
          ? `for up to ${SIGTERM_GRACE_MS / 1000} s (a second signal stops at once)`
          : '(Ctrl-C again to stop at once)';
      stderr.write(
        `\n${signal}: stopping once the steps in flight finish ${when}; no new step or item starts\n`,
      );
      afterInFlight.abort(new Error(`interrupted by ${signal}`));
      if (signal === 'SIGTERM')
        grace = setTimeout(
          () => atOnce(`SIGTERM ${SIGTERM_GRACE_MS / 1000} s ago`),
          SIGTERM_GRACE_MS,
        ).unref();
    } else if (received === 2) {
      atOnce(signal);
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    now: now.signal,
    afterInFlight: afterInFlight.signal,
    dispose() {
      clearTimeout(grace);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

async function writeSummary(
  markdown: string,
  file: string | undefined,
  mask: (text: string) => string,
): Promise<void> {
  if (!markdown) return;
  // a later step may print either file: under GitHub Actions no line of it can be a workflow command
  const text = runnerSafe(mask(markdown));
  if (file) await writeFile(file, text);
  const github = process.env['GITHUB_STEP_SUMMARY'];
  if (github) await appendFile(github, `${text}\n`);
}

function actor(): string {
  const ci = process.env['GITHUB_ACTOR'];
  if (ci) return `${ci} (GitHub Actions)`;
  return `${userInfo().username}@${hostname()}`;
}
