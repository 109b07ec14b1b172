import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepKinds } from '../steps/index.js';
import { checkResolvedSteps } from './resolved-check.js';
import { loadPlaybook } from '../validation/validate.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-resolved-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function problems(
  text: string,
  inputs: Record<string, unknown>,
  env: Record<string, string | undefined> = {},
): Promise<string[]> {
  const file = join(dir, 'p.yaml');
  await writeFile(file, text);
  const playbook = await loadPlaybook(file, { registry: stepKinds });
  return checkResolvedSteps(playbook, { registry: stepKinds, inputs, env, target: undefined }).map(
    (d) => `${d.line}:${d.col} ${d.message}`,
  );
}

const waitFor = (interval: string, extra = ''): string => `name: p
inputs:
  every: {default: 1s}
vars:
  doubled: \${{ inputs.every }}
steps:
  - id: first
    uses: core.log
    with: {message: hello}
  - id: pause
    uses: core.wait
${extra}    with:
      until: \${{ true }}
      interval: ${interval}
`;

describe('checkResolvedSteps', () => {
  it('checks a field read from an input, at its line, and says where the value came from', async () => {
    expect(await problems(waitFor('${{ inputs.every }}'), { every: 'soon' })).toEqual([
      expect.stringMatching(/^14:17 step 'pause' with\.interval \(from \$\{\{ inputs\.every \}\}\): 'soon'/),
    ]);
    expect(await problems(waitFor('${{ inputs.every }}'), { every: '5s' })).toEqual([]);
  });

  it('reads vars resolved from the inputs', async () => {
    expect(await problems(waitFor('${{ vars.doubled }}'), { every: 'x' })).toHaveLength(1);
  });

  it('passes over a step whose `if` is false, and checks it when true', async () => {
    const text = waitFor('${{ inputs.every }}', "    if: ${{ inputs.every != 'never' }}\n");
    expect(await problems(text, { every: 'never' })).toEqual([]);
    expect(await problems(text, { every: 'sometimes' })).toHaveLength(1);
  });

  it('checks each element of a for_each over inputs, reporting the first bad one', async () => {
    const text = `name: p
inputs:
  intervals: {type: array}
steps:
  - id: pause
    uses: core.wait
    for_each: \${{ inputs.intervals }}
    with:
      until: \${{ true }}
      interval: \${{ item }}
`;
    expect(await problems(text, { intervals: ['1s', '2s'] })).toEqual([]);
    expect(await problems(text, { intervals: ['1s', 'later', 'never'] })).toEqual([
      expect.stringMatching(/with\.interval .*'later'/),
    ]);
  });

  it('leaves what is not known before the run to the step: outputs, secrets, inputs not given', async () => {
    const text = `name: p
inputs:
  missing: {description: not given}
steps:
  - id: first
    uses: core.shell
    with: {run: echo 5s}
  - id: a
    uses: core.wait
    with: {until: '\${{ true }}', interval: '\${{ steps.first.outputs.stdout }}'}
  - id: b
    uses: core.wait
    with: {until: '\${{ true }}', interval: '\${{ secrets.EVERY }}'}
  - id: c
    uses: core.wait
    with: {until: '\${{ true }}', interval: '\${{ inputs.missing }}'}
`;
    expect(await problems(text, {})).toEqual([]);
  });

  it('reads the environment the run was given', async () => {
    const text = `name: p
steps:
  - id: a
    uses: core.wait
    with: {until: '\${{ true }}', interval: '\${{ env.EVERY }}'}
`;
    expect(await problems(text, {}, { EVERY: 'fortnightly' })).toHaveLength(1);
    expect(await problems(text, {}, { EVERY: '3s' })).toEqual([]);
  });
});
