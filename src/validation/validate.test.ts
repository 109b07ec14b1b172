import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StaticFinding } from '../playbook/step-declaration.js';
import type { AnyStepKind } from '../steps/contract.js';
import { fixedStepKinds } from '../steps/index.js';
import { ValidationError } from '../errors.js';
import type { Diagnostic } from '../diagnostics.js';
import { parseSource } from './load.js';
import { durationSchema } from '../playbook/playbook-schema.js';
import type { Target } from '../playbook/target.js';
import { checkResolvedWith } from '../playbook/schema-check.js';
import { loadPlaybook, referencedNames, validatePlaybook } from './validate.js';

const inert = {
  observe: () => Promise.resolve(null),
  plan: () => ({ changes: [] }),
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' as const }),
};

const checkCalls: { with: unknown; target: unknown; baseDir: string }[] = [];

const onboardKind: AnyStepKind = {
  kind: 'dpm.onboard-party',
  summary: 'Create a decentralized party across operator nodes.',
  withSchema: {
    type: 'object',
    properties: {
      coordinator: { type: 'string', pattern: '^[a-z][a-z0-9_-]*$', description: 'The coordinating node.' },
      peers: { type: 'array', items: { type: 'string' }, minItems: 1 },
      prefix: { type: 'string', minLength: 1 },
      threshold: { type: 'integer', minimum: 1 },
      password: { type: 'string', 'x-secret': true },
      mode: { enum: ['fast', 'safe'] },
      wait: { ...durationSchema },
      options: { $ref: '#/$defs/options' },
      members: {
        anyOf: [
          { type: 'array', items: { type: 'string' } },
          { type: 'string', pattern: '^all$' },
        ],
      },
    },
    $defs: {
      options: {
        type: 'object',
        properties: { retries: { type: 'integer' }, token: { type: 'string', 'x-secret': true } },
        additionalProperties: false,
      },
    },
    required: ['coordinator', 'threshold'],
    additionalProperties: false,
  },
  outputs: { party: 'the party id', members: 'participant ids' },
  needsTarget: true,
  check(w: { coordinator?: string }, target, baseDir): StaticFinding[] {
    checkCalls.push({ with: w, target, baseDir });
    return w.coordinator === 'ghost'
      ? [
          {
            pointer: '/coordinator',
            message: "no node 'ghost' in the target",
            expected: 'node1',
            hint: 'add it',
          },
        ]
      : [];
  },
  ...inert,
};

const shellKind: AnyStepKind = {
  kind: 'core.shell',
  summary: 'Run a command.',
  withSchema: {
    type: 'object',
    properties: {
      run: {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', items: { type: 'string' }, minItems: 1 },
        ],
      },
      env: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['run'],
    additionalProperties: false,
  },
  outputs: { stdout: 'out', stderr: 'err', exit_code: 'code' },
  needsTarget: false,
  ...inert,
};

const waitKind: AnyStepKind = {
  kind: 'core.wait',
  summary: 'Wait.',
  withSchema: {
    type: 'object',
    properties: {
      until: { type: 'string', 'x-lazy-expression': true },
      http: {
        type: 'object',
        properties: { url: { type: 'string' } },
        required: ['url'],
        additionalProperties: false,
      },
      interval: { ...durationSchema },
    },
    anyOf: [{ required: ['until'] }, { required: ['http'] }],
    additionalProperties: false,
  },
  outputs: { response: 'last response', attempts: 'polls' },
  needsTarget: false,
  ...inert,
};

const logKind: AnyStepKind = {
  kind: 'core.log',
  summary: 'Print.',
  withSchema: {
    type: 'object',
    properties: { message: { type: 'string' }, level: { enum: ['info', 'warn', 'error'] } },
    required: ['message'],
    additionalProperties: false,
  },
  outputs: {},
  needsTarget: false,
  ...inert,
};

const registry = fixedStepKinds([onboardKind, shellKind, waitKind, logKind]);

/** The playbook text from lines, so that tests can state exact line:col. */
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

function validate(
  text: string,
  target?: Target,
): { diagnostics: Diagnostic[]; playbook?: ReturnType<typeof validatePlaybook>['playbook'] } {
  const { doc, diagnostics } = parseSource('pb.yaml', text);
  expect(diagnostics).toEqual([]);
  return validatePlaybook(doc, { registry, target });
}

/** `line:col pointer [rule] message` per diagnostic: compact to compare. */
function summary(text: string, target?: Target): string[] {
  return validate(text, target).diagnostics.map(
    (d) => `${d.line}:${d.col} ${d.pointer} [${d.rule}] ${d.message}`,
  );
}

function only(text: string): Diagnostic {
  const { diagnostics } = validate(text);
  expect(diagnostics).toHaveLength(1);
  return diagnostics[0] as Diagnostic;
}

describe('a valid playbook', () => {
  const text = yaml(
    'name: onboard',
    'description: Make the party',
    'inputs:',
    '  threshold: { type: integer, default: 2 }',
    '  nodes: { type: array }',
    'vars:',
    '  prefix: "dp-${{ inputs.threshold }}"',
    '  label: "${{ vars.prefix }}-x"',
    'steps:',
    '  - id: onboard',
    '    uses: dpm.onboard-party',
    '    with:',
    '      coordinator: node1',
    '      threshold: "${{ inputs.threshold }}"',
    '      password: "${{ secrets.DPM_PASSWORD }}"',
    '      wait: 1m30s',
    '    timeout: 10m',
    '    retry: { attempts: 5, delay: 2s }',
    '  - id: each',
    '    name: Say hello',
    '    uses: core.shell',
    '    for_each: "${{ inputs.nodes }}"',
    '    key: "${{ item }}"',
    '    if: "steps.onboard.outputs.party != null"',
    '    concurrency: 4',
    '    with:',
    '      run: [echo, "${{ item }} in ${{ steps.onboard.outputs.party }}", "${{ env.USER }}"]',
    '  - id: wait',
    '    uses: core.wait',
    '    with:',
    '      until: "${{ response.status == 200 && attempt < 3 }}"',
  );

  it('gives the Playbook with defaults filled', () => {
    const { diagnostics, playbook } = validate(text);
    expect(diagnostics).toEqual([]);
    expect(playbook).toBeDefined();
    expect(playbook?.name).toBe('onboard');
    expect(playbook?.description).toBe('Make the party');
    expect(playbook?.file).toBe('pb.yaml');
    expect(playbook?.baseDir).toBe(dirname(resolve('pb.yaml')));
    expect(playbook?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(playbook?.vars).toEqual({ prefix: 'dp-${{ inputs.threshold }}', label: '${{ vars.prefix }}-x' });
    expect(playbook?.inputs['threshold']).toEqual({ type: 'integer', default: 2 });
    const [onboard, each, wait] = playbook?.steps ?? [];
    expect(onboard).toEqual({
      id: 'onboard',
      name: 'onboard',
      uses: 'dpm.onboard-party',
      with: {
        coordinator: 'node1',
        threshold: '${{ inputs.threshold }}',
        password: '${{ secrets.DPM_PASSWORD }}',
        wait: '1m30s',
      },
      if: undefined,
      forEach: undefined,
      key: undefined,
      concurrency: undefined,
      retry: { attempts: 5, delayMs: 2000, factor: 2, maxDelayMs: 30_000, jitter: true },
      timeoutMs: 600_000,
      pointer: '/steps/0',
    });
    expect(each).toMatchObject({
      name: 'Say hello',
      forEach: '${{ inputs.nodes }}',
      key: '${{ item }}',
      if: 'steps.onboard.outputs.party != null',
      concurrency: 4,
      retry: { attempts: 3, delayMs: 1000, factor: 2, maxDelayMs: 30_000, jitter: true },
      timeoutMs: undefined,
      pointer: '/steps/1',
    });
    expect(wait?.with).toEqual({ until: '${{ response.status == 200 && attempt < 3 }}' });
  });

  it('names the secrets and environment variables it reads', () => {
    const { playbook } = validate(text);
    if (!playbook) throw new Error('invalid');
    const names = referencedNames(playbook);
    expect([...names.secrets.keys()]).toEqual(['DPM_PASSWORD']);
    expect([...names.env.keys()]).toEqual(['USER']);
  });

  it('finds names in vars, if: and bare conditions too', () => {
    const { playbook } = validate(
      yaml(
        'name: x',
        'vars:',
        '  token: "${{ secrets.A }}"',
        'steps:',
        '  - id: a',
        '    uses: core.log',
        "    if: env.MODE == 'x' && secrets.B != ''",
        '    with: { message: "${{ env.C }}" }',
      ),
    );
    if (!playbook) throw new Error('invalid');
    const names = referencedNames(playbook);
    expect([...names.secrets.keys()].sort()).toEqual(['A', 'B']);
    expect([...names.env.keys()].sort()).toEqual(['C', 'MODE']);
    // each with the place of its first use: the string's pointer and the reference's offset in it
    expect(names.secrets.get('B')).toEqual({
      pointer: '/steps/0/if',
      value: "env.MODE == 'x' && secrets.B != ''",
      offset: 19,
    });
    expect(names.env.get('C')).toMatchObject({ pointer: '/steps/0/with/message', offset: 4 });
  });
});

describe('pass 1: the playbook schema', () => {
  it('reports an unknown key at the key, with the allowed keys and the closest', () => {
    const d = only(
      yaml('name: x', 'stepz: []', 'steps:', '  - { id: a, uses: core.log, with: { message: hi } }'),
    );
    expect(d).toEqual({
      file: 'pb.yaml',
      line: 2,
      col: 1,
      pointer: '/stepz',
      message: "unknown key 'stepz' at the top level",
      expected: 'one of $schema, description, inputs, name, steps, vars',
      hint: "did you mean 'steps'?",
      rule: 'schema',
    });
  });

  it('names the step an unknown key is in', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    with: { message: hi }',
          '    timout: 5s',
        ),
      ),
    ).toEqual(["6:5 /steps/0/timout [schema] unknown key 'timout' in step 'a'"]);
    expect(
      only(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    with: { message: hi }',
          '    timout: 5s',
        ),
      ).hint,
    ).toBe("did you mean 'timeout'?");
  });

  it('reports a missing key at its parent', () => {
    const d = only(yaml('name: x', 'steps:', '  - id: a', '    with: { message: hi }'));
    expect(d).toMatchObject({
      line: 3,
      col: 5,
      pointer: '/steps/0',
      message: "missing key 'uses' in step 'a'",
    });
    expect(d.hint).toContain('uses: The step kind');
  });

  it('reports types, empty lists and patterns in words', () => {
    expect(summary(yaml('name: x', 'steps: []'))).toEqual([
      '2:8 /steps [schema] expected at least 1 item, got 0',
    ]);
    expect(
      summary(
        yaml('name: x', 'steps:', '  - id: Deploy_1', '    uses: core.log', '    with: { message: hi }'),
      ),
    ).toEqual(["3:9 /steps/0/id [schema] 'Deploy_1' is not a valid step id"]);
    const pattern = only(
      yaml('name: x', 'steps:', '  - id: Deploy_1', '    uses: core.log', '    with: { message: hi }'),
    );
    expect(pattern.expected).toBe('a step id: lower-case letters, digits, - and _, starting with a letter');
    expect(pattern.hint).toBe('for example deploy-contracts');
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    concurrency: "4"',
          '    with: { message: hi }',
        ),
      ),
    ).toEqual(['5:18 /steps/0/concurrency [schema] expected integer, got string']);
  });

  it('reports one finding for a value that fits no alternative', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    timeout: true',
          '    with: { message: hi }',
        ),
      ),
    ).toEqual([
      '5:14 /steps/0/timeout [schema] expected a duration (numbers with a unit (ms, s, m, h), largest unit first) or number, got boolean',
    ]);
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    timeout: 5 min',
          '    with: { message: hi }',
        ),
      ),
    ).toEqual(["5:14 /steps/0/timeout [schema] '5 min' is not a valid duration"]);
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    for_each: { a: 1 }',
          '    with: { message: hi }',
        ),
      ),
    ).toEqual([
      '5:15 /steps/0/for_each [schema] expected array or an expression (a whole ${{ … }} expression), got object',
    ]);
  });

  it('reports enum values with the closest one', () => {
    const d = only(
      yaml(
        'name: x',
        'inputs:',
        '  n: { type: integr }',
        'steps:',
        '  - { id: a, uses: core.log, with: { message: hi } }',
      ),
    );
    expect(d).toMatchObject({
      line: 3,
      col: 14,
      pointer: '/inputs/n/type',
      message: "'integr' is not an allowed value",
    });
    expect(d.expected).toBe('one of string, integer, number, boolean, array, object');
    expect(d.hint).toBe("did you mean 'integer'?");
  });

  it('reports an invalid input name at its key', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'inputs:',
          '  Node-Count: {}',
          'steps:',
          '  - { id: a, uses: core.log, with: { message: hi } }',
        ),
      ),
    ).toEqual(["3:3 /inputs/Node-Count [schema] invalid key 'Node-Count' in `inputs`"]);
  });

  it('says so for an empty file', () => {
    const { doc } = parseSource('pb.yaml', '# nothing yet\n');
    expect(validatePlaybook(doc, { registry }).diagnostics).toEqual([
      expect.objectContaining({ line: 1, col: 1, message: 'the file is empty' }),
    ]);
  });
});

describe('pass 2: each step’s with', () => {
  const step = (...withLines: string[]): string =>
    yaml(
      'name: x',
      'steps:',
      '  - id: party',
      '    uses: dpm.onboard-party',
      '    with:',
      ...withLines.map((l) => `      ${l}`),
    );

  it('reports an unknown kind with the closest kind and the list', () => {
    const d = only(yaml('name: x', 'steps:', '  - id: a', '    uses: dpm.onbaord-party', '    with: {}'));
    expect(d).toEqual({
      file: 'pb.yaml',
      line: 4,
      col: 11,
      pointer: '/steps/0/uses',
      message: "unknown step kind 'dpm.onbaord-party'",
      expected: 'one of core.log, core.shell, core.wait, dpm.onboard-party',
      hint: "did you mean 'dpm.onboard-party'?",
      rule: 'unknown-step-kind',
    });
  });

  it('reports an unknown with key at the key, with the kind’s keys', () => {
    const d = only(step('coordinator: node1', 'threshold: 1', 'thresold: 2'));
    expect(d).toEqual({
      file: 'pb.yaml',
      line: 8,
      col: 7,
      pointer: '/steps/0/with/thresold',
      message: "unknown key 'thresold' in dpm.onboard-party `with`",
      expected: 'one of coordinator, members, mode, options, password, peers, prefix, threshold, wait',
      hint: "did you mean 'threshold'?",
      rule: 'schema',
    });
  });

  it('checks with: missing entirely against the kind’s required keys', () => {
    expect(summary(yaml('name: x', 'steps:', '  - id: a', '    uses: core.log'))).toEqual([
      "3:5 /steps/0/with [schema] missing key 'message' in core.log `with`",
    ]);
  });

  it('reports types, enums, nested keys behind $ref, and words for patterns', () => {
    expect(
      summary(
        step(
          'coordinator: Node 1',
          'threshold: two',
          'mode: fats',
          'options: { retries: x, retires: 2 }',
          'peers: []',
          'members: 3',
        ),
      ),
    ).toEqual([
      "6:20 /steps/0/with/coordinator [schema] 'Node 1' is not a valid name",
      '7:18 /steps/0/with/threshold [schema] expected integer, got string',
      "8:13 /steps/0/with/mode [schema] 'fats' is not an allowed value",
      '9:27 /steps/0/with/options/retries [schema] expected integer, got string',
      "9:30 /steps/0/with/options/retires [schema] unknown key 'retires' in dpm.onboard-party `with.options`",
      '10:14 /steps/0/with/peers [schema] expected at least 1 item, got 0',
      '11:16 /steps/0/with/members [schema] expected array or string, got number',
    ]);
  });

  it('drops what only a whole ${{ … }} value breaks: its type is known at run time', () => {
    expect(
      summary(
        step(
          'coordinator: "${{ inputs.node }}"',
          'threshold: "${{ inputs.t }}"',
          'mode: "${{ inputs.mode }}"',
          'peers: "${{ inputs.peers }}"',
          'members: "${{ inputs.members }}"',
          'options: { retries: "${{ inputs.r }}" }',
        ).replace('name: x', 'name: x\ninputs: { node: {}, t: {}, mode: {}, peers: {}, members: {}, r: {} }'),
      ),
    ).toEqual([]);
  });

  it('checks that a value mixing text with an expression is a string, not what the string says', () => {
    expect(summary(step('coordinator: n1', 'threshold: "${{ 1 }}x"'))).toEqual([
      '7:18 /steps/0/with/threshold [schema] expected integer, got string',
    ]);
    expect(
      summary(
        step('coordinator: "Node ${{ 1 }}"', 'threshold: 1', 'mode: "${{ 1 }}x"', 'prefix: "${{ 1 }}"'),
      ),
    ).toEqual([]);
  });

  it('never shows the value of a secret field', () => {
    const { diagnostics } = validate(step('coordinator: n1', 'threshold: 1', 'password: 12345678'));
    expect(diagnostics.map((d) => d.message)).toEqual([
      'expected string, got number',
      'secret in a plain field: `with.password` of dpm.onboard-party must be ${{ secrets.NAME }}',
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('12345678');
  });

  it('says which of two required keys is missing', () => {
    expect(
      summary(yaml('name: x', 'steps:', '  - id: w', '    uses: core.wait', '    with: { interval: 5s }')),
    ).toEqual(["5:5 /steps/0/with [schema] missing key 'until' or 'http' in core.wait `with`"]);
  });

  it('picks the alternative of the same type for a value that fits none', () => {
    expect(
      summary(yaml('name: x', 'steps:', '  - id: s', '    uses: core.shell', '    with: { run: [echo, 3] }')),
    ).toEqual(['5:25 /steps/0/with/run/1 [schema] expected string, got number']);
    expect(
      summary(yaml('name: x', 'steps:', '  - id: s', '    uses: core.shell', '    with: { run: 3 }')),
    ).toEqual(['5:18 /steps/0/with/run [schema] expected string or array, got number']);
  });
});

describe('pass 3: rules', () => {
  it('refuses duplicate step ids', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - { id: a, uses: core.log, with: { message: one } }',
          '  - { id: a, uses: core.log, with: { message: two } }',
        ),
      ),
    ).toEqual(["4:11 /steps/1/id [duplicate-step-id] duplicate step id 'a' (also the id of step 1, line 3)"]);
  });

  it('points at the part of a string where an expression is wrong', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    with: { message: "n=${{ inputs.n = 1 }}" }',
        ),
      ),
    ).toEqual([
      "5:38 /steps/0/with/message [expression-syntax] invalid expression: unexpected character '='",
    ]);
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          "    with: { message: 'it''s ${{ lenght(inputs) }}' }",
        ),
      ),
    ).toEqual([
      "5:33 /steps/0/with/message [expression-syntax] invalid expression: unknown function 'lenght'",
    ]);
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    with:',
          '      message: |',
          '        ${{ inputs.x',
          '      level: info',
        ),
      ),
    ).toEqual([
      "6:16 /steps/0/with/message [expression-syntax] invalid expression: unclosed expression: '${{' without '}}'",
    ]);
  });

  it('checks what references read', () => {
    const text = yaml(
      'name: x',
      'inputs: { count: { type: integer } }',
      'vars:',
      '  a: "${{ vars.b }}"',
      '  b: "${{ vars.b }} ${{ vars.zz }} ${{ steps.one.outputs.stdout }} ${{ item }}"',
      'steps:',
      '  - id: one',
      '    uses: core.shell',
      '    with:',
      '      run: "${{ inputs.cuont }} ${{ steps.one.outputs.stdout }} ${{ steps.two.outputs.stdout }}"',
      '  - id: two',
      '    uses: core.shell',
      '    with:',
      '      run: "${{ steps.one.outputs.stdot }} ${{ steps.one.output }} ${{ stepz.one }} ${{ secret.X }} ${{ steps.nope.outputs.x }}"',
      '  - id: three',
      '    uses: core.log',
      '    for_each: [a, "${{ item }}"]',
      '    with: { message: "${{ steps.two.outputs.exit_code }} ${{ secrets }} ${{ env }} ${{ target.nodes }}" }',
    );
    expect(summary(text)).toEqual([
      "4:11 /vars/a [var-order] var 'a' refers to var 'b', which is defined after it",
      "5:11 /vars/b [var-order] var 'b' refers to itself",
      "5:25 /vars/b [unknown-var] unknown var 'zz'",
      '5:40 /vars/b [vars-step-reference] vars cannot refer to steps: vars are computed before the first step runs',
      '5:72 /vars/b [item-outside-for-each] `item` is only defined in a step with for_each',
      "10:17 /steps/0/with/run [unknown-input] unknown input 'cuont'",
      "10:37 /steps/0/with/run [self-reference] step 'one' refers to its own outputs",
      "10:69 /steps/0/with/run [forward-reference] step 'two' runs after step 'one': its outputs are not known yet",
      "14:17 /steps/1/with/run [unknown-output] step 'one' (core.shell) has no output 'stdot'",
      "14:48 /steps/1/with/run [unknown-output] steps.one.output: a step exposes only 'outputs'",
      "14:72 /steps/1/with/run [unknown-name] unknown name 'stepz'",
      "14:89 /steps/1/with/run [unknown-name] unknown name 'secret'",
      "14:105 /steps/1/with/run [unknown-step] unknown step 'nope'",
      '17:24 /steps/2/for_each/1 [item-outside-for-each] `item` is not defined in for_each itself',
      '18:62 /steps/2/with/message [unnamed-reference] name the secret: secrets.NAME',
      '18:77 /steps/2/with/message [unnamed-reference] name the environment variable: env.NAME',
    ]);
    const d = validate(text).diagnostics;
    expect(d.find((x) => x.rule === 'unknown-input')).toMatchObject({
      expected: 'one of count',
      hint: "did you mean 'count'?",
    });
    expect(d.find((x) => x.message.includes('stdot'))).toMatchObject({
      expected: 'one of stdout, stderr, exit_code',
      hint: "did you mean 'stdout'?",
    });
    expect(d.find((x) => x.message.includes("'secret'"))).toMatchObject({ hint: "did you mean 'secrets'?" });
  });

  it('lets a lazy field use the names its step adds, and still checks the others', () => {
    const text = yaml(
      'name: x',
      'steps:',
      '  - id: w',
      '    uses: core.wait',
      '    with:',
      '      until: "${{ response.status == 200 && inputs.nope }}"',
    );
    expect(summary(text)).toEqual(["6:45 /steps/0/with/until [unknown-input] unknown input 'nope'"]);
  });

  it('checks if: conditions', () => {
    const step = (condition: string): string =>
      yaml(
        'name: x',
        'inputs: { mode: {} }',
        'steps:',
        '  - id: a',
        '    uses: core.log',
        `    if: ${condition}`,
        '    with: { message: hi }',
      );
    expect(summary(step('true'))).toEqual([]);
    expect(summary(step("inputs.mode == 'full'"))).toEqual([]);
    expect(summary(step('"${{ inputs.mode }}"'))).toEqual([]);
    expect(summary(step('"mode is ${{ inputs.mode }}"'))).toEqual([
      '6:9 /steps/0/if [if-expression] if: mixes text with ${{ … }}: the result is a non-empty string, so the condition is always true',
    ]);
    expect(summary(step('yes'))).toEqual([
      "6:9 /steps/0/if [if-expression] if: 'yes' is a string in YAML 1.2, not a boolean",
    ]);
    expect(summary(step('inputs.mode = full'))).toEqual([
      "6:21 /steps/0/if [if-expression] if: is neither ${{ … }} nor a valid expression: unexpected character '='",
    ]);
    expect(summary(step('inputs.mood'))).toEqual(["6:9 /steps/0/if [unknown-input] unknown input 'mood'"]);
  });

  it('refuses key: without for_each', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    key: k',
          '    with: { message: hi }',
        ),
      ),
    ).toEqual(["5:5 /steps/0/key [key-without-for-each] key: without for_each in step 'a'"]);
  });

  it('wants x-secret fields to be exactly ${{ secrets.NAME }}', () => {
    const step = (value: string): string[] =>
      summary(
        yaml(
          'name: x',
          'inputs: { pw: {} }',
          'steps:',
          '  - id: a',
          '    uses: dpm.onboard-party',
          '    with:',
          '      coordinator: n1',
          '      threshold: 1',
          `      password: ${value}`,
          `      options: { token: ${value} }`,
        ),
      );
    expect(step('"${{ secrets.DPM_PASSWORD }}"')).toEqual([]);
    expect(step('hunter2')).toEqual([
      '9:17 /steps/0/with/password [secret-in-plain-field] secret in a plain field: `with.password` of dpm.onboard-party must be ${{ secrets.NAME }}',
      '10:25 /steps/0/with/options/token [secret-in-plain-field] secret in a plain field: `with.options.token` of dpm.onboard-party must be ${{ secrets.NAME }}',
    ]);
    expect(step('"${{ inputs.pw }}"')).toHaveLength(2);
    expect(step('"pw-${{ secrets.X }}"')).toHaveLength(2);
  });

  it('refuses durations the schema lets through but that cannot be used', () => {
    const text = yaml(
      'name: x',
      'steps:',
      '  - id: a',
      '    uses: dpm.onboard-party',
      '    timeout: 0',
      '    retry: { delay: 1m, max_delay: 10s }',
      '    with: { coordinator: n1, threshold: 1, wait: 30s1m }',
      '  - id: b',
      '    uses: core.log',
      '    retry: { delay: 45s }',
      '    timeout: 1000h',
      '    with: { message: hi }',
    );
    expect(summary(text)).toEqual([
      '5:14 /steps/0/timeout [duration] timeout: 0 would fail every attempt at once',
      '6:21 /steps/0/retry/delay [duration] retry delay is longer than max_delay (10s)',
      "7:50 /steps/0/with/wait [duration] '30s1m' is not a duration: units must go from largest to smallest, each once",
      '10:21 /steps/1/retry/delay [duration] retry delay is longer than max_delay (30s by default)',
      "11:14 /steps/1/timeout [duration] '1000h' is longer than the longest supported duration (24 days)",
    ]);
  });

  it('checks input defaults against their type and enum', () => {
    const text = yaml(
      'name: x',
      'inputs:',
      '  n: { type: integer, default: "3" }',
      '  mode: { enum: [fast, safe], default: fats }',
      '  ok: { type: number, default: 1.5 }',
      'steps:',
      '  - { id: a, uses: core.log, with: { message: hi } }',
    );
    expect(summary(text)).toEqual([
      "3:32 /inputs/n/default [input-default] default of input 'n': expected integer, got string",
      "4:40 /inputs/mode/default [input-default] default of input 'mode': 'fats' is not an allowed value",
    ]);
  });
});

describe('step checks', () => {
  const target = { name: 't', network: 'devnet', file: 't.yaml' } as Target;
  const text = (coordinator: string, threshold = '1'): string =>
    yaml(
      'name: x',
      'steps:',
      '  - id: a',
      '    uses: dpm.onboard-party',
      '    with:',
      `      coordinator: ${coordinator}`,
      `      threshold: ${threshold}`,
    );

  beforeEach(() => {
    checkCalls.length = 0;
  });

  it('runs a kind’s check() with the target and maps its findings into the playbook', () => {
    expect(validate(text('ghost'), target).diagnostics).toEqual([
      {
        file: 'pb.yaml',
        line: 6,
        col: 20,
        pointer: '/steps/0/with/coordinator',
        message: "no node 'ghost' in the target",
        expected: 'node1',
        hint: 'add it',
        rule: 'step-check',
      },
    ]);
    expect(checkCalls).toEqual([
      { with: { coordinator: 'ghost', threshold: 1 }, target, baseDir: dirname(resolve('pb.yaml')) },
    ]);
  });

  it('runs check() without a target too (files need none), with the target undefined', () => {
    validate(text('fine'));
    expect(checkCalls).toEqual([
      {
        with: { coordinator: 'fine', threshold: 1 },
        target: undefined,
        baseDir: dirname(resolve('pb.yaml')),
      },
    ]);
  });

  it('does not run check() on a with that failed its schema', () => {
    expect(summary(text('ghost', 'x'), target)).toEqual([
      '7:18 /steps/0/with/threshold [schema] expected integer, got string',
    ]);
    expect(checkCalls).toEqual([]);
  });
});

describe('all problems at once', () => {
  it('reports every problem of the file, sorted by position', () => {
    const text = yaml(
      'name: Bad Name',
      'steps:',
      '  - id: a',
      '    uses: core.logg',
      '  - id: a',
      '    uses: core.log',
      '    with: { message: "${{ inputs.x }}", levl: warn }',
    );
    const lines = summary(text);
    expect(lines).toEqual([
      "1:7 /name [schema] 'Bad Name' is not a valid name",
      "4:11 /steps/0/uses [unknown-step-kind] unknown step kind 'core.logg'",
      "5:9 /steps/1/id [duplicate-step-id] duplicate step id 'a' (also the id of step 1, line 3)",
      "7:27 /steps/1/with/message [unknown-input] unknown input 'x'",
      "7:41 /steps/1/with/levl [schema] unknown key 'levl' in core.log `with`",
    ]);
  });
});

describe('loadPlaybook', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lb-validate-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the playbook of a valid file', async () => {
    const file = join(dir, 'ok.yaml');
    await writeFile(file, yaml('name: ok', 'steps:', '  - { id: a, uses: core.log, with: { message: hi } }'));
    const playbook = await loadPlaybook(file, { registry });
    expect(playbook.baseDir).toBe(dir);
    expect(playbook.steps.map((s) => s.id)).toEqual(['a']);
  });

  it('throws LB_PLAYBOOK_INVALID with every diagnostic, YAML errors first', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      yaml('name: ok', 'steps:', '  - { id: a, uses: core.log, with: { message: hi, message: ho } }'),
    );
    const yamlError = await loadPlaybook(bad, { registry }).catch((e: unknown) => e);
    expect(yamlError).toBeInstanceOf(ValidationError);
    expect((yamlError as ValidationError).code).toBe('LB_PLAYBOOK_INVALID');
    expect((yamlError as ValidationError).diagnostics.map((d) => d.rule)).toEqual(['yaml']);

    await writeFile(
      bad,
      yaml('name: ok', 'steps:', '  - { id: a, uses: core.lg }', '  - { id: b, uses: core.log }'),
    );
    const invalid = (await loadPlaybook(bad, { registry }).catch((e: unknown) => e)) as ValidationError;
    expect(invalid.message).toBe('2 problems found; nothing was run');
    expect(invalid.diagnostics.map((d) => `${d.line}:${d.col}`)).toEqual(['3:20', '4:5']);
  });
});

describe('checkResolvedWith', () => {
  it('checks a resolved with strictly, in the same words', () => {
    expect(
      checkResolvedWith(onboardKind, { coordinator: 'n1', threshold: '2', mode: 'fats', password: 42 }),
    ).toEqual([
      { pointer: '/threshold', message: 'expected integer, got string', expected: 'integer' },
      { pointer: '/password', message: 'expected string, got number', expected: 'string' },
      {
        pointer: '/mode',
        message: "'fats' is not an allowed value",
        expected: 'one of fast, safe',
        hint: "did you mean 'fast'?",
      },
    ]);
    expect(checkResolvedWith(onboardKind, { coordinator: 'n1', threshold: 2 })).toEqual([]);
    expect(
      checkResolvedWith(onboardKind, {
        coordinator: 'n1',
        threshold: 2,
        options: { token: 'abc', retries: 'x' },
      }),
    ).toEqual([
      { pointer: '/options/retries', message: 'expected integer, got string', expected: 'integer' },
    ]);
  });

  it('never quotes a secret field', () => {
    const findings = checkResolvedWith(
      {
        ...onboardKind,
        withSchema: { type: 'object', properties: { pw: { enum: ['a'], 'x-secret': true } } },
      },
      { pw: 'hunter2' },
    );
    expect(findings).toEqual([
      { pointer: '/pw', message: 'the value is not an allowed value', expected: 'one of a' },
    ]);
  });
});

describe('what validate can know before the run', () => {
  it('refuses for_each over an input that is not declared as a list, at the reference', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'inputs:',
          '  who: { default: alice }',
          '  many: { type: array, default: [a, b] }',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          '    for_each: "${{ inputs.who }}"',
          '    with: { message: "${{ item }}" }',
          '  - id: b',
          '    uses: core.log',
          '    for_each: "${{ inputs.many }}"',
          '    with: { message: "${{ item }}" }',
        ),
      ),
    ).toEqual([
      "8:20 /steps/0/for_each [for-each-type] for_each must give a list, but input 'who' is declared as string",
    ]);
  });

  it('refuses a literal format() template with more placeholders than values, and a bad placeholder', () => {
    expect(
      summary(
        yaml(
          'name: x',
          'steps:',
          '  - id: a',
          '    uses: core.log',
          `    with: { message: "\${{ format('{0} and {1}', 'one') }}" }`,
          '  - id: b',
          '    uses: core.log',
          `    with: { message: "\${{ format('{x}', 'one') }}" }`,
          '  - id: c',
          '    uses: core.log',
          `    with: { message: "\${{ format('{0}{{}}', 'one') }}" }`,
        ),
      ),
    ).toEqual([
      '5:34 /steps/0/with/message [expression-syntax] invalid expression: format(): placeholder {1} but only 1 value(s) given',
      '8:34 /steps/1/with/message [expression-syntax] invalid expression: format(): bad placeholder at character 1',
    ]);
  });
});
