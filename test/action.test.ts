/**
 * The composite GitHub Action (action.yml), without GitHub: this test reads action.yml and runs its shell steps
 * in order, as a runner does (`bash --noprofile --norc -eo pipefail`, `${{ inputs.* }}` and
 * `${{ github.action_path }}` filled in, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files), against the built-in
 * sandbox with a PostgreSQL state: validate, plan (exit code 2, the plan file and its Markdown as outputs), run
 * of the saved plan, plan again (in sync). Values that try to become code stay data.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createDatabase, startPgServer, type PgServer } from './pg-server.js';

const ROOT = resolve(import.meta.dirname, '..');

interface ActionStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** `${{ name }}` filled in from `values`; an unknown name fails the test (a typo in action.yml). */
function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`action.yml refers to \${{ ${name} }}, which is not defined`);
    return value;
  });
}

/** GITHUB_OUTPUT in both forms: `name=value` and `name<<DELIMITER` … `DELIMITER`. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2] as string, i + 1);
      outputs[heredoc[1] as string] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

interface ActionRun {
  /** the exit code of the step that failed, or 0 */
  code: number;
  outputs: Record<string, string>;
  log: string;
  summary: string;
}

/** Runs the action's steps in order with `inputs`, in `cwd`, with the job's `env`; stops at a failing step. */
async function runAction(
  inputs: Record<string, string>,
  cwd: string,
  env: Record<string, string>,
): Promise<ActionRun> {
  const files = await mkdtemp(join(tmpdir(), 'lb-action-run-'));
  try {
    const summaryFile = join(files, 'summary.md');
    await writeFile(summaryFile, '');
    const values: Record<string, string> = { 'github.action_path': ROOT };
    for (const [name, spec] of Object.entries(action.inputs))
      values[`inputs.${name}`] = inputs[name] ?? spec.default ?? '';
    for (const name of Object.keys(inputs)) expect(action.inputs, `input ${name}`).toHaveProperty(name);
    let log = '';
    let code = 0;
    const stepOutputs: Record<string, Record<string, string>> = {};
    for (const [index, step] of action.runs.steps.entries()) {
      if (step.uses !== undefined) {
        // actions/setup-node: the Node.js running this test is the one set up (put first on PATH below)
        expect(step.uses).toMatch(/^actions\/setup-node@v\d+$/);
        continue;
      }
      const script = join(files, `step-${index}.sh`);
      await writeFile(script, step.run ?? '');
      const outputFile = join(files, `output-${index}`);
      await writeFile(outputFile, '');
      const stepEnv = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, values)]),
      );
      const workdir = resolve(cwd, expand(step['working-directory'] ?? '.', values));
      const result = await new Promise<{ code: number; out: string }>((done, fail) => {
        const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
          cwd: workdir,
          env: {
            ...process.env,
            PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
            CI: 'true',
            GITHUB_ACTIONS: 'true',
            GITHUB_OUTPUT: outputFile,
            GITHUB_STEP_SUMMARY: summaryFile,
            ...env,
            ...stepEnv,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', fail);
        child.on('close', (exit) => done({ code: exit ?? 1, out }));
      });
      log += result.out;
      if (step.id !== undefined) {
        stepOutputs[step.id] = parseOutputs(await readFile(outputFile, 'utf8'));
        for (const [name, value] of Object.entries(stepOutputs[step.id] ?? {}))
          values[`steps.${step.id}.outputs.${name}`] = value;
      }
      if (result.code !== 0) {
        code = result.code;
        break;
      }
    }
    const outputs: Record<string, string> = {};
    for (const [name, spec] of Object.entries(action.outputs)) {
      const ref = /\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}/.exec(spec.value);
      expect(ref, `output ${name}`).not.toBeNull();
      const value = stepOutputs[ref?.[1] as string]?.[ref?.[2] as string];
      if (value !== undefined) outputs[name] = value;
    }
    return { code, outputs, log, summary: await readFile(summaryFile, 'utf8') };
  } finally {
    await rm(files, { recursive: true, force: true });
  }
}

let server: PgServer;
let work: string;
beforeAll(async () => {
  server = await startPgServer();
  work = await mkdtemp(join(tmpdir(), 'lb-action-'));
  await cp(join(ROOT, 'playbooks'), join(work, 'playbooks'), { recursive: true });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('action.yml', () => {
  it('is a composite action whose shell steps take inputs only through env: (no ${{ }} in any script)', () => {
    expect(action.runs.using).toBe('composite');
    const scripts = action.runs.steps.filter((s) => s.run !== undefined);
    expect(scripts.length).toBeGreaterThan(0);
    for (const step of scripts) {
      expect(step.run, step.name).not.toContain('${{');
      expect(step.shell).toBe('bash');
    }
    const main = action.runs.steps.find((s) => s.id === 'ledgerbook');
    for (const name of Object.keys(action.outputs)) expect(main?.run).toContain(`output ${name} `);
  });

  it('validate, plan (changes: exit code 2, plan file and Markdown), run the saved plan, plan again (in sync)', async () => {
    const state = await createDatabase(server, 'action');
    const password = new URL(state).password;
    const playbooks = readdirSync(join(work, 'playbooks'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `playbooks/${f}`);

    const validate = await runAction({ command: 'validate', playbook: playbooks.join('\n') }, work, {});
    expect(validate.code, validate.log).toBe(0);
    expect(validate.outputs['exit-code']).toBe('0');
    expect(validate.summary).toContain('### ledgerbook validate: exit code 0');

    // the plan job and the apply job hold the key that signs plans
    const key = { LEDGERBOOK_PLAN_KEY: 'c'.repeat(32) + 'd'.repeat(32) };
    const plan = await runAction(
      { command: 'plan', playbook: 'playbooks/onboard-party.yaml', target: 'sandbox', state },
      work,
      key,
    );
    expect(plan.code, plan.log).toBe(0);
    expect(plan.outputs).toMatchObject({
      'exit-code': '2',
      changes: 'true',
      'plan-file': 'ledgerbook-plan.json',
      'plan-markdown': 'ledgerbook-plan.md',
    });
    expect(existsSync(join(work, 'ledgerbook-plan.json'))).toBe(true);
    const markdown = await readFile(join(work, 'ledgerbook-plan.md'), 'utf8');
    expect(markdown).toContain('## ledgerbook plan: `onboard-party` on `sandbox`');
    expect(markdown).toContain('the signature verifies with `LEDGERBOOK_PLAN_KEY`');
    expect(plan.summary).toContain('### ledgerbook plan: onboard-party on sandbox');
    expect(plan.summary).toContain(markdown);
    // what the CLI printed could not be read as workflow commands
    expect(plan.log).toMatch(/^::stop-commands::lb_[0-9a-f]{32}$/m);

    // the apply job: the saved plan, its state from the job's env (the secret store), no target of its own
    const run = await runAction({ command: 'run', playbook: 'ledgerbook-plan.json' }, work, {
      LEDGERBOOK_STATE: state,
      ...key,
    });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs['exit-code']).toBe('0');
    expect(run.log).toContain('the saved plan ledgerbook-plan.json still holds');
    expect(run.summary).toContain('### ledgerbook run: onboard-party on sandbox');

    const drift = await runAction({ command: 'plan', playbook: 'playbooks/onboard-party.yaml' }, work, {
      LEDGERBOOK_STATE: state,
    });
    expect(drift.code, drift.log).toBe(0);
    expect(drift.outputs).toMatchObject({ 'exit-code': '0', changes: 'false' });
    for (const r of [validate, plan, run, drift]) {
      expect(r.log).not.toContain(password);
      expect(r.summary).not.toContain(password);
      expect(r.log).not.toContain(key.LEDGERBOOK_PLAN_KEY);
    }
  }, 180_000);

  it('inputs stay data: quotes, $(…) and newlines reach ledgerbook as arguments, and a failure fails the step', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-action-hostile-'));
    try {
      const hostile = await runAction(
        {
          command: 'validate',
          playbook: 'x.yaml"; touch pwned; echo "\n$(touch pwned2)',
          args: '--input\nwho=`touch pwned3`',
        },
        dir,
        {},
      );
      expect(hostile.code).toBe(65);
      expect(hostile.outputs['exit-code']).toBe('65');
      expect(hostile.log).toContain('x.yaml"; touch pwned; echo "');
      expect(readdirSync(dir)).toEqual([]);

      const unknown = await runAction({ command: 'destroy', playbook: 'x.yaml' }, dir, {});
      expect(unknown.code).toBe(64);
      expect(unknown.log).toContain("input 'command' must be validate, plan or run");
      const two = await runAction({ command: 'plan', playbook: 'a.yaml\nb.yaml' }, dir, {});
      expect(two.code).toBe(64);
      expect(two.log).toContain('the plan command takes one playbook');
      const maybe = await runAction({ command: 'plan', playbook: 'x.yaml', untrusted: 'yes' }, dir, {});
      expect(maybe.code).toBe(64);
      expect(maybe.log).toContain("input 'untrusted' must be true or false");
      const applied = await runAction({ command: 'run', playbook: 'x.yaml', untrusted: 'true' }, dir, {});
      expect(applied.code).toBe(64);
      expect(applied.log).toContain("input 'untrusted' is for the plan command only");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('untrusted: the pull request’s plan runs no command of the playbook and is marked for review', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-action-untrusted-'));
    try {
      await writeFile(
        join(dir, 'pr.yaml'),
        'name: pr\nsteps:\n  - id: check\n    uses: core.shell\n    with: { run: "true", unless: "touch PWNED; false" }\n',
      );
      const plan = await runAction({ command: 'plan', playbook: 'pr.yaml', untrusted: 'true' }, dir, {});
      expect(plan.code, plan.log).toBe(0);
      expect(plan.outputs).toMatchObject({ 'exit-code': '2', changes: 'true' });
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
      expect(plan.log).toContain('`touch PWNED; false` not evaluated: an untrusted plan runs no command');
      expect(plan.summary).toContain('> **For review only.** Made with `plan --untrusted`');
      // the key that makes plans applicable must not be in such a job
      const keyed = await runAction({ command: 'plan', playbook: 'pr.yaml', untrusted: 'true' }, dir, {
        LEDGERBOOK_PLAN_KEY: 'e'.repeat(64),
      });
      expect(keyed.code).toBe(64);
      expect(keyed.log).toContain('LEDGERBOOK_PLAN_KEY is set: a job that plans an untrusted change');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
