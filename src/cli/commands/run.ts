import { setMaxListeners } from 'node:events';
import { constants } from 'node:fs';
import { access, appendFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { hostname, userInfo } from 'node:os';
import { createClients } from '../../clients/factory.js';
import { EXIT, UsageError } from '../../errors.js';
import { systemClock } from '../../engine/clock.js';
import { EventBus } from '../../engine/event-bus.js';
import { runPlaybook, type RunMode } from '../../engine/run.js';
import { recordedCommand, type StateBackend } from '../../engine/state/backend.js';
import { openState, stateSpec } from '../../engine/state/open.js';
import { stateCommand } from '../../engine/state-command.js';
import type { SavedPlan } from '../../engine/saved-plan.js';
import { stepKinds } from '../../steps/index.js';
import { terminalSafe, terminalSafeDeep } from '../../terminal-text.js';
import type { LedgerbookEvent } from '../../engine/events.js';
import { makeOutput, reportError, versionEvent, type GlobalOptions } from '../output.js';
import { prepare } from '../prepare.js';
import { listrReporter } from '../reporters/listr.js';
import { plainReporter } from '../reporters/plain.js';
import { SummaryReporter } from '../reporters/summary.js';
import { stateOptions } from '../state-options.js';
import { runnerSafe } from '../workflow-commands.js';
import { isSavedPlanFile, readSavedPlan, refuseOverrides, savedPlanCheck, writeSavedPlan } from './plan.js';

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
  /** `--target` was given on the command line (not its default) */
  targetGiven?: boolean;
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
    let savedPlan: SavedPlan | undefined;
    if (mode === 'run' && (await isSavedPlanFile(playbookFile))) {
      refuseOverrides(playbookFile, {
        input: options.input.length > 0,
        target: options.targetGiven === true,
        fresh: options.fresh === true,
      });
      savedPlan = await readSavedPlan(playbookFile);
    }
    const targetSpec = savedPlan ? savedPlan.target.spec : options.target;
    const given = savedPlan ? savedPlan.inputs.given : options.input;
    const prepared = await prepare({
      playbookFile: savedPlan ? savedPlan.playbook.file : playbookFile,
      target: targetSpec,
      inputs: given,
      secretsFile: options.secretsFile,
      env: process.env,
      startSandbox: { stateDir: options.stateDir ?? '.ledgerbook' },
    });
    masker = prepared.masker;
    const approvals = options.approve ?? [];
    const unknownApprovals = approvals.filter((id) => !prepared.playbook.steps.some((s) => s.id === id));
    if (unknownApprovals.length > 0) {
      const ids = prepared.playbook.steps.filter((s) => s.uses === 'core.approve').map((s) => s.id);
      process.stderr.write(
        terminalSafe(
          `warning: --approve ${unknownApprovals.join(', ')}: no such step (approval steps: ${ids.join(', ') || 'none'})\n`,
        ),
      );
    }

    const events = new EventBus(prepared.masker);
    const summary = new SummaryReporter();
    events.on(summary.listener);
    let finishRenderer: () => Promise<void> = () => Promise.resolve();
    if (out.json) {
      events.on((e) => out.event(e));
      events.on(forTerminal(plainReporter((t) => process.stderr.write(t), out.color)));
    } else if (out.interactive) {
      const listr = await listrReporter((t) => process.stdout.write(t));
      events.on(forTerminal(listr.listener));
      finishRenderer = () => listr.finished();
    } else {
      events.on(forTerminal(plainReporter((t) => process.stdout.write(t), out.color)));
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
      const check = savedPlan ? await savedPlanCheck(savedPlan, playbookFile, prepared) : undefined;
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
        registry: stepKinds,
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
        ...(check ? { savedPlan: check } : {}),
      });
      await finishRenderer();
      if (mode === 'plan' && options.out !== undefined && result.status === 'planned') {
        await writeSavedPlan(options.out, result, { prepared, targetSpec, given, stateWhere: state.where });
        out.say(
          `Saved the plan to ${options.out}: \`ledgerbook show ${options.out}\` renders it, \`ledgerbook run ${options.out}\` applies exactly it.\n`,
        );
      }
      await writeSummary(summary.markdown(), options.summary, prepared.masker.mask.bind(prepared.masker));
      if (mode === 'plan')
        return options.detailedExitcode && result.changes > 0 ? EXIT.CHANGES : result.exitCode;
      if (out.debug && result.error?.stack)
        process.stderr.write(`${prepared.masker.mask(result.error.stack)}\n`);
      return result.exitCode;
    } finally {
      await state?.close();
      await clients.close();
      await prepared.stop();
      stop.dispose();
    }
  } catch (error) {
    return reportError(error, out, masker);
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
    process.stderr.write(
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
      process.stderr.write(
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

/** An output file the run will write at its end: refused now, before anything runs, if it cannot be written. */
async function checkWritable(file: string, flag: string): Promise<void> {
  const folder = dirname(resolve(file));
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory())
    throw new UsageError(
      `${flag} ${file}: the folder ${folder} does not exist`,
      'create it first, or give another path',
    );
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`${flag} ${file}: it is a folder`, 'give a file path');
  try {
    await access(existing ? file : folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(
      `${flag} ${file}: not writable (${code})`,
      'check the permissions, or give another path',
    );
  }
}

function actor(): string {
  const ci = process.env['GITHUB_ACTOR'];
  if (ci) return `${ci} (GitHub Actions)`;
  return `${userInfo().username}@${hostname()}`;
}
