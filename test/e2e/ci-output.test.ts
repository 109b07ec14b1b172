/**
 * Output under GitHub Actions cannot command the runner: run directly in a job (no Action around it, so no
 * `::stop-commands::`), a playbook's `core.log` message and a service's error text that carry a newline and a
 * workflow command (`::add-mask::`, `::error::`, `::set-output`, the older `##[…]` anywhere in a line) reach no
 * line of stdout, stderr, the step summary or `--summary` where the runner would execute them. `--json` keeps the
 * exact values. The same run outside GitHub Actions prints them as they are.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '@ledgerbook/sandbox/testing';
import { cli, events, tempDir, writePlaybook } from './cli.js';

/** A line a GitHub Actions runner takes for a workflow command (ActionCommand.TryParseV2 and TryParse). */
function commandLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => /^[\s\ufeff]*::/.test(line) || line.includes('##['));
}

const HOSTILE =
  'checked\n::add-mask::leak-1\n  ::error file=x.yaml::forged\n::set-output name=ok::x ##[add-mask]leak-2';

let world: World;
let dir: string;
let target: string;
beforeAll(async () => {
  world = await startWorld();
  dir = await tempDir('lb-ci-output-');
  target = join(dir, 'target.yaml');
  await writeFile(target, world.sandbox.targetYaml());
});
afterAll(async () => {
  await world?.stop();
});

describe('output under GitHub Actions', () => {
  it('a core.log message with newlines and workflow commands: no line of stdout or stderr, plain or --json, is one', async () => {
    await writePlaybook(
      dir,
      'log.yaml',
      `name: ci-log
inputs:
  note: { default: "" }
steps:
  - id: say
    uses: core.log
    with: { message: "\${{ inputs.note }}", level: warn }
`,
    );
    const args = ['run', 'log.yaml', '--input', `note=${HOSTILE}`, '--state-dir', join(dir, 'state')];
    const env = { GITHUB_ACTIONS: 'true' };

    // with --json, the NDJSON on stdout and the plain lines on stderr: both streams at once
    const json = await cli([...args, '--json'], { cwd: dir, env });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toContain(':\\u003aadd-mask::leak-1');
    expect(json.stderr).toContain('##\\u005badd-mask]leak-2');
    expect(commandLines(json.stdout + json.stderr)).toEqual([]);
    // the NDJSON is the same JSON: the message as the playbook gave it
    const log = events(json.stdout).find((e) => e.type === 'log' && e['step'] === 'say');
    expect(log?.['message']).toBe(HOSTILE);

    // a value that reaches an error: an --input the playbook does not declare
    const refused = await cli([...args.slice(0, 2), '--input', `other=x\n::error::forged`], {
      cwd: dir,
      env,
    });
    expect(refused.code).toBe(65);
    expect(commandLines(refused.stdout + refused.stderr)).toEqual([]);

    // outside GitHub Actions the same run prints the text as it is
    const local = await cli(args, { cwd: dir, env: { GITHUB_ACTIONS: undefined, TF_BUILD: undefined } });
    expect(commandLines(local.stdout)).toContain('::add-mask::leak-1');
  });

  it('under Azure Pipelines (TF_BUILD): no line holds a ##vso[ logging command, in any letter case; outside, as it is', async () => {
    await writePlaybook(
      dir,
      'azure.yaml',
      `name: ci-azure
inputs:
  note: { default: "" }
steps:
  - id: say
    uses: core.log
    with: { message: "\${{ inputs.note }}" }
`,
    );
    const note =
      'ok\n##vso[task.setvariable variable=LEDGERBOOK_STATE]postgres://evil\nx ##VSO[task.setsecret]s';
    const args = ['run', 'azure.yaml', '--input', `note=${note}`, '--state-dir', join(dir, 'azure-state')];
    const azureLines = (text: string): string[] => text.split(/\r\n|\r|\n/).filter((l) => /##vso\[/i.test(l));
    const azure = await cli([...args, '--json'], {
      cwd: dir,
      env: { TF_BUILD: 'True', GITHUB_ACTIONS: undefined },
    });
    expect(azure.code, azure.stderr).toBe(0);
    expect(azureLines(azure.stdout + azure.stderr)).toEqual([]);
    expect(azure.stderr).toContain('##vso\\u005btask.setvariable');
    expect(events(azure.stdout).find((e) => e.type === 'log' && e['step'] === 'say')?.['message']).toBe(note);
    const local = await cli(args, { cwd: dir, env: { TF_BUILD: undefined, GITHUB_ACTIONS: undefined } });
    expect(azureLines(local.stdout).length).toBe(2);
  });

  it("a service's error text carrying a workflow command: escaped in the output, the step summary and --summary", async () => {
    await writePlaybook(
      dir,
      'rewards.yaml',
      `name: ci-rewards
steps:
  - id: report
    uses: rewards.report
    retry: { attempts: 1 }
    with: { parties: [minter], days: 1, csv: out/rewards.csv, svg: out/rewards.svg }
`,
    );
    const fault = await world.admin.post('/faults', {
      kind: 'service-refuses',
      service: 'rewards',
      message: `quota exceeded\n::add-mask::leak-3\n::stop-commands::t0ken`,
      count: 100,
    });
    expect(fault.status).toBe(201);
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, '');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const args = ['run', 'rewards.yaml', '--target', target, '--state-dir', join(dir, 'state')];
    const result = await cli([...args, '--json', '--summary', 'summary.md'], { cwd: dir, env });
    expect(result.code).toBe(1);
    const output = result.stdout + result.stderr;
    expect(result.stderr).toContain('quota exceeded');
    expect(result.stderr).toContain(':\\u003aadd-mask::leak-3');
    expect(commandLines(output)).toEqual([]);
    for (const file of [summary, join(dir, 'summary.md')]) {
      const markdown = await readFile(file, 'utf8');
      expect(markdown).toContain('leak-3');
      expect(commandLines(markdown), file).toEqual([]);
    }
    await world.admin.call('DELETE', '/faults');
  });
});
