/**
 * Saved plans through the CLI: `plan --out` writes one (no secret in it), `show` renders it, `run plan.json`
 * applies exactly it, and refuses (exit 1, nothing applied) when the state, the live state, the playbook or
 * the inputs changed since it was made. Steps are core.shell with `creates:` guards: their live state is files
 * this test owns, so "the live state changed" is a file created by hand.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SavedPlan } from '../../src/engine/saved-plan.js';
import { CLI, cli, events, tempDir } from './cli.js';

const SECRET = 'plan-secret-value-0123';
const env = { LB_PLAN_TOKEN: SECRET };
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const PLAYBOOK = `name: saved
inputs:
  who: { default: world }
steps:
  - id: hello
    uses: core.shell
    with:
      run: "echo hello \${{ inputs.who }} > hello.txt"
      creates: hello.txt
  - id: greet
    uses: core.shell
    with:
      run: "echo 'hello exited \${{ steps.hello.outputs.exit_code }}' > greet.txt"
      creates: greet.txt
  - id: never
    uses: core.log
    if: \${{ inputs.who == 'nobody' }}
    with: { message: hi }
  - id: token
    uses: core.shell
    with:
      run: "echo \${{ secrets.LB_PLAN_TOKEN }} > token.txt"
      creates: token.txt
`;

async function project(): Promise<string> {
  const dir = await tempDir('lb-plan-e2e-');
  dirs.push(dir);
  await writeFile(join(dir, 'p.yaml'), PLAYBOOK);
  return dir;
}

describe('saved plans', () => {
  it('plan --out, show, run plan.json: exactly the plan is applied, and a second run of it is refused', async () => {
    const dir = await project();
    const planned = await cli(['plan', 'p.yaml', '--out', 'plan.json', '--input', 'who=operators'], {
      cwd: dir,
      env,
    });
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Saved the plan to plan.json');
    const text = await readFile(join(dir, 'plan.json'), 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString('base64'));
    const plan = JSON.parse(text) as Record<string, unknown> & { steps: Array<Record<string, unknown>> };
    expect(plan).toMatchObject({
      format: 'ledgerbook-plan',
      playbook: { name: 'saved', file: 'p.yaml' },
      inputs: { given: ['who=operators'] },
      target: { name: 'sandbox', spec: 'sandbox' },
      changes: 2,
    });
    expect(plan.steps.map((s) => [s['id'], s['status']])).toEqual([
      ['hello', 'changes'],
      ['greet', 'known-after-apply'],
      ['never', 'skipped'],
      ['token', 'changes'],
    ]);
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);

    const shown = await cli(['show', 'plan.json'], { cwd: dir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('## ledgerbook plan: `saved` on `sandbox`');
    expect(shown.stdout).toContain(
      '| `greet` | `core.shell` | known after apply (reads outputs of `hello`) |',
    );
    expect(shown.stdout).toContain('`run `echo hello operators > hello.txt` (hello.txt does not exist)`');
    expect(shown.stdout).not.toContain(SECRET);

    const applied = await cli(['run', 'plan.json'], { cwd: dir, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('the saved plan plan.json still holds (2 planned changes): applying it');
    expect(applied.stdout).toContain('known after apply in the saved plan: planned now');
    // the inputs came from the plan
    expect(await readFile(join(dir, 'hello.txt'), 'utf8')).toBe('hello operators\n');
    expect(await readFile(join(dir, 'greet.txt'), 'utf8')).toBe('hello exited 0\n');
    expect(await readFile(join(dir, 'token.txt'), 'utf8')).toBe(`${SECRET}\n`);

    const again = await cli(['run', 'plan.json'], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the saved plan plan.json no longer holds; nothing was applied');
    expect(again.stderr).toMatch(/the state changed: run \S+ by \S+ \(.*\) ran after the plan was made/);
    expect(again.stderr).toContain("step 'hello': was 1 change, now in-sync");
    // the command to make it again, with its inputs, ready to paste
    expect(again.stderr).toContain(
      'make a new plan (ledgerbook plan p.yaml --input who=operators --out plan.json)',
    );
  });

  it('refuses when the live state changed since the plan, naming the step, and applies nothing', async () => {
    const dir = await project();
    expect((await cli(['plan', 'p.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    await writeFile(join(dir, 'token.txt'), 'made by hand\n');
    const refused = await cli(['run', 'plan.json'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nothing was applied');
    expect(refused.stderr).toContain("step 'token': was 1 change, now in-sync");
    expect(refused.stderr).not.toContain("step 'hello'");
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  });

  it('refuses when the playbook changed, and takes no --input, --target or --fresh of its own', async () => {
    const dir = await project();
    expect((await cli(['plan', 'p.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    for (const flag of [['--input', 'who=x'], ['--target', 'sandbox'], ['--fresh']]) {
      const usage = await cli(['run', 'plan.json', ...flag], { cwd: dir, env });
      expect(usage.code).toBe(64);
      expect(usage.stderr).toContain(`${flag[0]} cannot be given with a saved plan (plan.json)`);
    }
    await writeFile(join(dir, 'p.yaml'), `${PLAYBOOK}# reviewed\n`);
    const refused = await cli(['run', 'plan.json'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the playbook p\.yaml changed \(sha256 [0-9a-f]{12} → [0-9a-f]{12}\)/);
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  });

  it('an edited or damaged plan file, or an --out that cannot be written, is refused with what is wrong (exit 65)', async () => {
    const dir = await project();
    expect((await cli(['plan', 'p.yaml', '--out', 'plan.json'], { cwd: dir, env })).code).toBe(0);
    const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { changes: unknown };
    plan.changes = 'many';
    await writeFile(join(dir, 'edited.json'), JSON.stringify(plan));
    const edited = await cli(['run', 'edited.json'], { cwd: dir, env });
    expect(edited.code).toBe(65);
    expect(edited.stderr).toContain('edited.json is not a ledgerbook saved plan (edited or damaged)');
    expect(edited.stderr).toContain('/changes');
    const shown = await cli(['show', 'p.yaml'], { cwd: dir });
    expect(shown.code).toBe(65);
    expect(shown.stderr).toContain('p.yaml: cannot read the saved plan (not valid JSON)');
    const unwritable = await cli(['plan', 'p.yaml', '--out', 'missing/plan.json'], { cwd: dir, env });
    expect(unwritable.code).toBe(65);
    expect(unwritable.stderr).toContain('--out missing/plan.json: the folder');

    // the playbook it carries edited, its digest not: refused before anything is read or run
    const carried = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as SavedPlan;
    carried.playbook.text = carried.playbook.text.replace('hello.txt', 'elsewhere.txt');
    await writeFile(join(dir, 'text.json'), JSON.stringify(carried));
    const text = await cli(['run', 'text.json'], { cwd: dir, env });
    expect(text.code).toBe(65);
    expect(text.stderr).toContain('/playbook/text: its sha256 is not /playbook/digest');

    // a plan of the first format names its files instead of carrying them: refused, with what to do
    await writeFile(join(dir, 'v1.json'), JSON.stringify({ ...carried, version: 1 }));
    const old = await cli(['run', 'v1.json'], { cwd: dir, env });
    expect(old.code).toBe(65);
    expect(old.stderr).toContain('v1.json: a saved plan of format version 1, made by an older ledgerbook');
    expect(old.stderr).toContain('hint: make a new plan with this ledgerbook');
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  });

  it('plan --out refuses an input that holds a secret’s value (exit 65): such a plan could never be applied', async () => {
    const dir = await project();
    const refused = await cli(['plan', 'p.yaml', '--out', 'plan.json', '--input', `who=${SECRET}`], {
      cwd: dir,
      env,
    });
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain(
      "--input who=…:1:1 error: input 'who' holds the value of a secret: a saved plan records it as *** and could never be applied",
    );
    expect(refused.stderr).toContain('hint: read the secret in the playbook as ${{ secrets.NAME }}');
    expect(refused.stderr).not.toContain(SECRET);
    expect(existsSync(join(dir, 'plan.json'))).toBe(false);
  });

  it('a command of the playbook does not inherit the plan key: the engine’s credentials are not the playbook’s', async () => {
    const dir = await project();
    await writeFile(
      join(dir, 'env.yaml'),
      'name: env\nsteps:\n  - id: dump\n    uses: core.shell\n    with: { run: "env > run.env", unless: "env > unless.env; false" }\n',
    );
    const key = 'k'.repeat(40);
    const result = await cli(['run', 'env.yaml'], {
      cwd: dir,
      env: { LEDGERBOOK_PLAN_KEY: key, LB_OWN: 'kept' },
    });
    expect(result.code, result.stderr).toBe(0);
    for (const file of ['run.env', 'unless.env']) {
      const seen = await readFile(join(dir, file), 'utf8');
      expect(seen).toContain('LB_OWN=kept');
      expect(seen).not.toContain('LEDGERBOOK_PLAN_KEY');
    }
    // where plans are signed, a key that is set but empty (a CI secret that does not exist) is refused
    const empty = await cli(['plan', 'env.yaml', '--out', 'plan.json'], {
      cwd: dir,
      env: { LEDGERBOOK_PLAN_KEY: '' },
    });
    expect(empty.code).toBe(65);
    expect(empty.stderr).toContain('LEDGERBOOK_PLAN_KEY is set but empty');
  });

  it('a playbook given as a pipe (`<(…)`) is read once: run reads it, not an empty pipe', async () => {
    const dir = await project();
    await writeFile(
      join(dir, 'log.yaml'),
      'name: piped\nsteps:\n  - id: say\n    uses: core.log\n    with: { message: from a pipe }\n',
    );
    const piped = await new Promise<{ code: number | null; out: string }>((done) => {
      const child = spawn('bash', ['-c', `"$0" "$1" run <(cat log.yaml)`, process.execPath, CLI], {
        cwd: dir,
        env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => done({ code, out }));
    });
    expect(piped.code, piped.out).toBe(0);
    expect(piped.out).toContain('from a pipe');
  });
});

describe('steps known after apply', () => {
  it('say how many items they will have when those do not depend on what is unknown, in the plan, --json and the saved plan', async () => {
    const dir = await tempDir('lb-plan-e2e-');
    dirs.push(dir);
    await writeFile(
      join(dir, 'p.yaml'),
      `name: counted
steps:
  - id: make
    uses: core.shell
    with: { run: "echo '[1, 2]' > made.txt; cat made.txt", creates: made.txt }
  - id: each
    uses: core.shell
    for_each: [a, b, c]
    with: { run: "echo \${{ item }} \${{ steps.make.outputs.exit_code }} >> each.txt" }
  - id: unknown
    uses: core.log
    for_each: \${{ fromJSON(steps.make.outputs.stdout) }}
    with: { message: "\${{ item }}" }
  - id: gated
    uses: core.log
    if: \${{ steps.make.outputs.exit_code == 0 }}
    for_each: [x]
    with: { message: hi }
  - id: off
    uses: core.log
    if: \${{ false }}
    with: { message: "\${{ steps.make.outputs.stdout }}" }
`,
    );
    const planned = await cli(['plan', 'p.yaml', '--out', 'plan.json'], { cwd: dir });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(
      "known after apply: 3 items (a, b, c); their changes depend on the outputs of 'make'",
    );
    expect(planned.stdout).toContain('✔ each: 3 items; changes known after apply');
    expect(planned.stdout).toContain('✔ unknown: known after apply');
    expect(planned.stdout).toContain('✔ gated: known after apply');
    expect(planned.stdout).toContain('✔ off: skipped');

    const json = await cli(['plan', 'p.yaml', '--json'], { cwd: dir });
    const done = events(json.stdout).filter((e) => e.type === 'step.done');
    expect(done.map((e) => [e['step'], e['status'], e['items']])).toEqual([
      ['make', 'planned', undefined],
      ['each', 'planned', 3],
      ['unknown', 'planned', undefined],
      ['gated', 'planned', undefined],
      ['off', 'skipped', undefined],
    ]);

    const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as {
      steps: Array<Record<string, unknown>>;
    };
    expect(plan.steps.map((s) => [s['id'], s['status'], s['itemKeys']])).toEqual([
      ['make', 'changes', undefined],
      ['each', 'known-after-apply', ['a', 'b', 'c']],
      ['unknown', 'known-after-apply', undefined],
      ['gated', 'known-after-apply', undefined],
      ['off', 'skipped', undefined],
    ]);
    const shown = await cli(['show', 'plan.json'], { cwd: dir });
    expect(shown.stdout).toContain(
      '| `each` | `core.shell` | 3 items: `a`, `b`, `c`; changes known after apply (reads outputs of `make`) |',
    );
  });

  it('onboard-party on a fresh sandbox: its credentials step will configure 3 nodes, and the saved plan applies', async () => {
    const dir = await tempDir('lb-plan-e2e-');
    dirs.push(dir);
    const playbook = join(import.meta.dirname, '../../playbooks/onboard-party.yaml');
    const planned = await cli(['plan', playbook, '--out', 'plan.json', '--json'], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(planned.code, planned.stderr).toBe(0);
    const done = events(planned.stdout).filter((e) => e.type === 'step.done');
    expect(done.find((e) => e['step'] === 'credentials')).toMatchObject({
      status: 'planned',
      changes: 0,
      items: 3,
    });
    // the onboarding declares its nodes and threshold, not its party id or members' ids
    expect(done.find((e) => e['step'] === 'onboard')).toMatchObject({
      outputs: { nodes: ['node1', 'node2', 'node3'], threshold: 2 },
    });
    expect(done.find((e) => e['step'] === 'done')).not.toHaveProperty('items');
    const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as {
      steps: Array<Record<string, unknown>>;
    };
    expect(plan.steps.find((s) => s['id'] === 'credentials')).toMatchObject({
      status: 'known-after-apply',
      dependsOn: ['onboard'],
      itemKeys: ['node1', 'node2', 'node3'],
    });
    const applied = await cli(['run', 'plan.json'], { cwd: dir, timeoutMs: 120_000 });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('✔ credentials: applied 3 changes');
  });
});
