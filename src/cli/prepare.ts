/**
 * Everything `validate`, `plan` and `run` check before any step runs: the playbook, the target, the inputs,
 * every secret and environment variable the playbook refers to. A problem here exits 65 and sends nothing.
 */
import { resolve } from 'node:path';
import { ValidationError } from '../errors.js';
import { digestOf } from '../digest.js';
import { MIN_SECRET_LENGTH, Masker } from '../engine/masker.js';
import { readSecretsFile, resolveSecrets } from '../engine/secrets.js';
import type { Diagnostic } from '../diagnostics.js';
import { parseInputFlags, resolveInputs } from '../validation/inputs.js';
import { checkResolvedSteps } from '../playbook/resolved-check.js';
import { terminalSafe } from '../terminal-text.js';
import type { Playbook } from '../playbook/model.js';
import type { Target } from '../playbook/target.js';
import { loadTarget } from '../validation/target-load.js';
import { positionInString } from '../validation/scalar-position.js';
import { loadPlaybook, referencedNames, type NameUse } from '../validation/validate.js';
import { stepKinds } from '../steps/index.js';
import { BUILTIN_SANDBOX_SECRETS } from './sandbox-secrets.js';
import { stderr } from './stdio.js';

export const BUILTIN_TARGET = 'sandbox';

export interface PrepareOptions {
  playbookFile: string;
  /** a target file, or `sandbox` for the built-in sandbox */
  target: string;
  inputs: string[];
  secretsFile?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** check required inputs (default true; `validate` only checks inputs it is given) */
  requireInputs?: boolean;
  /** check that every secret and env var is set (default true; `validate` checks the files only) */
  requireSecrets?: boolean;
  /** with requireSecrets false: receives each secret or env var that is not set (validate warns of them) */
  warn?: (problem: Diagnostic) => void;
  /** with the built-in target, start the sandbox in this process when a step needs a target (run, plan) */
  startSandbox?: { stateDir: string } | undefined;
  /**
   * `plan --untrusted`: the secrets the playbook reads are not read, even when they are set (a playbook nobody
   * reviewed yet could print them or send them anywhere); they are listed in `withheldSecrets`. The target's own
   * credentials are read and required: they log in to observe (give such a job read-only ones).
   */
  untrusted?: boolean;
}

export interface Prepared {
  playbook: Playbook;
  /** undefined for the built-in sandbox until it is started, and when no step needs a target */
  target: Target | undefined;
  targetName: string;
  builtinTarget: boolean;
  needsTarget: boolean;
  inputs: Record<string, unknown>;
  inputsDigest: string;
  secrets: Record<string, string>;
  /** `untrusted`: the secrets the playbook reads, not read (unknown to the plan) */
  withheldSecrets: Set<string>;
  env: Record<string, string | undefined>;
  masker: Masker;
  /** stop the built-in sandbox this run started, if any */
  stop(): Promise<void>;
}

export async function prepare(options: PrepareOptions): Promise<Prepared> {
  const masker = new Masker();
  const builtinTarget = options.target === BUILTIN_TARGET;
  let target = builtinTarget
    ? undefined
    : loadTarget(options.target, {
        warn: (w) =>
          stderr.write(
            terminalSafe(
              `warning: ${w.file}:${w.line}:${w.col}: ${w.message}${w.hint ? `\n  hint: ${w.hint}` : ''}\n`,
            ),
          ),
      });
  let playbook = await loadPlaybook(options.playbookFile, { registry: stepKinds, target });
  const needsTarget = playbook.steps.some((s) => stepKinds.declaration(s.uses)?.needsTarget === true);
  const given = parseInputFlags(options.inputs);
  const inputs = options.requireInputs === false ? given : resolveInputs(playbook, given);
  // read before a sandbox starts: a secrets file that cannot be used is refused with nothing started
  const fileEntries =
    options.secretsFile === undefined ? undefined : await readSecretsFile(options.secretsFile);
  // loaded only to start it: validate, and a playbook that needs no target, never load the sandbox's starter
  const sandbox =
    builtinTarget && needsTarget && options.startSandbox
      ? await (await import('./embedded-sandbox.js')).startEmbeddedSandbox(options.startSandbox.stateDir)
      : undefined;
  const stop = async (): Promise<void> => {
    await sandbox?.stop();
  };
  try {
    if (sandbox) {
      target = sandbox.target;
      // again, with the target: the steps' own checks (node names, files) need it
      playbook = await loadPlaybook(options.playbookFile, { registry: stepKinds, target });
    }
    return await checkNames({
      options,
      playbook,
      target,
      builtinTarget,
      needsTarget,
      inputs,
      masker,
      stop,
      fileEntries,
    });
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every secret and environment variable the playbook (and the target's credentials) name, and the resolved `with`s. */
async function checkNames(c: {
  options: PrepareOptions;
  playbook: Playbook;
  target: Target | undefined;
  builtinTarget: boolean;
  needsTarget: boolean;
  inputs: Record<string, unknown>;
  masker: Masker;
  stop: () => Promise<void>;
  fileEntries: Record<string, string> | undefined;
}): Promise<Prepared> {
  const { options, playbook, target, builtinTarget, masker } = c;
  const names = referencedNames(playbook);
  const credentials = new Set<string>();
  for (const auth of target ? authBlocks(target) : []) {
    for (const ref of [auth.password, auth.clientSecret]) if (ref) credentials.add(ref.secret);
  }
  const withheldSecrets = new Set(
    options.untrusted === true ? [...names.secrets.keys()].filter((name) => !credentials.has(name)) : [],
  );
  const secretNames = new Set([...names.secrets.keys()].filter((name) => !withheldSecrets.has(name)));
  for (const name of credentials) secretNames.add(name);
  const found = await resolveSecrets(secretNames, {
    file: options.secretsFile,
    fileEntries: c.fileEntries,
    env: options.env,
    declared: target?.secrets,
    baseDir: target?.file ? resolve(target.file, '..') : process.cwd(),
  });
  // a value too short to mask is refused below; registering it would hide letters of that very message
  const tooShort = Object.entries(found.values).filter(([, value]) => value.length < MIN_SECRET_LENGTH);
  for (const value of Object.values(found.values)) if (value.length >= MIN_SECRET_LENGTH) masker.add(value);

  // each problem at the line that uses the name: in the playbook, else where the target's credentials name it
  const where = (
    name: string,
    uses: ReadonlyMap<string, NameUse>,
  ): Pick<Diagnostic, 'file' | 'line' | 'col' | 'pointer'> => {
    const use = uses.get(name);
    if (use !== undefined) {
      return {
        file: playbook.file,
        ...positionInString(playbook.source, use.pointer, use.value, use.offset),
        pointer: use.pointer,
      };
    }
    const inTarget = target?.secretUses?.[name];
    if (inTarget !== undefined && target?.file !== undefined)
      return { file: target.file, ...inTarget, pointer: '' };
    return { file: playbook.file, line: 1, col: 1, pointer: '' };
  };
  // validate with the built-in target starts no sandbox: the secrets it will supply are not missing
  const builtinSecrets = target === undefined && builtinTarget ? BUILTIN_SANDBOX_SECRETS : new Set<string>();
  const missing = found.missing.filter((m) => !builtinSecrets.has(m.name));
  const problems: Diagnostic[] = missing.map((m) => ({
    ...where(m.name, names.secrets),
    rule: 'missing-secret',
    message: `secret '${m.name}' is not set`,
    expected: `a value from ${m.tried.join(', or ')}`,
    hint: `export ${m.name}=… before running, or pass --secrets-file with a line ${m.name}=…`,
  }));
  for (const [name, value] of tooShort) {
    problems.push({
      ...where(name, names.secrets),
      rule: 'short-secret',
      message: `secret '${name}' is ${value.length} character${value.length === 1 ? '' : 's'} long: too short to mask`,
      expected: `a value of at least ${MIN_SECRET_LENGTH} characters`,
      hint: `a shorter value occurs in ordinary text, so hiding it would hide words of every message; use a longer ${name}`,
    });
  }
  const env: Record<string, string | undefined> = {};
  for (const name of names.env.keys()) {
    env[name] = options.env[name];
    if (options.env[name] === undefined) {
      problems.push({
        ...where(name, names.env),
        rule: 'missing-env',
        message: `environment variable '${name}' is not set`,
        hint: `export ${name}=… before running, or give the value as an input instead`,
      });
    }
  }
  // validate: what only the environment of the run can supply is a warning; the files themselves are valid
  if (options.requireSecrets === false) for (const problem of problems) options.warn?.(problem);
  if (problems.length > 0 && options.requireSecrets !== false)
    throw new ValidationError('LB_INPUT_INVALID', problems);
  const resolvedProblems = checkResolvedSteps(playbook, {
    registry: stepKinds,
    inputs: c.inputs,
    env,
    target,
  });
  if (resolvedProblems.length > 0) throw new ValidationError('LB_INPUT_INVALID', resolvedProblems);

  return {
    playbook,
    target,
    targetName: target?.name ?? BUILTIN_TARGET,
    builtinTarget,
    needsTarget: c.needsTarget,
    inputs: c.inputs,
    // on first read: `validate` never reads it, and so never loads Node's crypto for it
    get inputsDigest() {
      return digestOf(c.inputs);
    },
    secrets: found.values,
    withheldSecrets,
    env,
    masker,
    stop: c.stop,
  };
}

function authBlocks(target: Target): NonNullable<Target['auth']>[] {
  const blocks: NonNullable<Target['auth']>[] = [];
  if (target.auth) blocks.push(target.auth);
  for (const node of Object.values(target.nodes ?? {})) if (node.auth) blocks.push(node.auth);
  for (const party of Object.values(target.parties ?? {}))
    if (typeof party === 'object' && party.auth) blocks.push(party.auth);
  return blocks;
}
