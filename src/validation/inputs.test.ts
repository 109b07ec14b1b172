import { describe, expect, it } from 'vitest';
import { UsageError, ValidationError } from '../errors.js';
import { convertInput, parseInputFlags, resolveInputs } from './inputs.js';
import { parseSource } from './load.js';
import { validatePlaybook } from './validate.js';
import { fixedStepKinds } from '../steps/index.js';

describe('parseInputFlags', () => {
  it('splits at the first =', () => {
    expect(parseInputFlags(['a=1', 'b=x=y', 'c='])).toEqual({ a: '1', b: 'x=y', c: '' });
  });

  it('refuses a flag without a name or a =, and a name given twice', () => {
    expect(() => parseInputFlags(['threshold'])).toThrow(UsageError);
    expect(() => parseInputFlags(['=3'])).toThrow("--input '=3' is not name=value");
    expect(() => parseInputFlags(['a=1', 'a=2'])).toThrow('--input a is given twice');
  });

  it('keeps a name like __proto__ as data', () => {
    const flags = parseInputFlags(['__proto__=x']);
    expect(Object.getPrototypeOf(flags)).toBe(Object.prototype);
    expect(Object.keys(flags)).toEqual(['__proto__']);
  });
});

describe('convertInput', () => {
  it.each([
    [{}, 'text', 'text'],
    [{ type: 'string' as const }, '3', '3'],
    [{ type: 'integer' as const }, '-42', -42],
    [{ type: 'number' as const }, '2.5', 2.5],
    [{ type: 'boolean' as const }, 'true', true],
    [{ type: 'boolean' as const }, 'false', false],
    [{ type: 'array' as const }, '[node1, node2]', ['node1', 'node2']],
    [{ type: 'array' as const }, '["a", 1]', ['a', 1]],
    [{ type: 'object' as const }, '{max: 3, name: "x"}', { max: 3, name: 'x' }],
    [{ type: 'integer' as const, enum: [1, 2] }, '2', 2],
  ])('%j %j', (declaration, text, value) => {
    expect(convertInput(declaration, text)).toEqual({ value });
  });

  it.each([
    [{ type: 'integer' as const }, '2.5', "'2.5' is not an integer"],
    [
      { type: 'integer' as const },
      '99999999999999999999',
      "'99999999999999999999' is not an integer JavaScript can hold exactly",
    ],
    [{ type: 'number' as const }, 'ten', "'ten' is not a number"],
    [{ type: 'number' as const }, '', "'' is not a number"],
    [{ type: 'boolean' as const }, 'yes', "'yes' is not a boolean"],
    [{ type: 'array' as const }, '{a: 1}', "'{a: 1}' is not a list"],
    [{ type: 'array' as const }, '[a, b', "'[a, b' is not a list in JSON or YAML flow style"],
    [{ type: 'object' as const }, '[1]', "'[1]' is not an object"],
    [{ enum: ['fast', 'safe'] }, 'fats', "'fats' is not an allowed value"],
  ])('refuses %j %j', (declaration, text, message) => {
    const result = convertInput(declaration, text);
    expect('problem' in result && result.problem.message).toBe(message);
  });

  it('suggests the closest allowed value', () => {
    expect(convertInput({ enum: ['fast', 'safe'] }, 'fats')).toEqual({
      problem: {
        message: "'fats' is not an allowed value",
        expected: 'one of fast, safe',
        hint: "did you mean 'fast'?",
      },
    });
  });
});

describe('resolveInputs', () => {
  const text = [
    'name: x',
    'inputs:',
    '  threshold: { type: integer, default: 2 }',
    '  nodes: { type: array, description: the peer nodes }',
    '  mode: { enum: [fast, safe], default: safe }',
    'steps:',
    '  - { id: a, uses: core.log, with: { message: "${{ inputs.nodes }}" } }',
    '',
  ].join('\n');
  const { playbook } = validatePlaybook(parseSource('pb.yaml', text).doc, {
    registry: fixedStepKinds([
      {
        kind: 'core.log',
        summary: 'Print.',
        withSchema: { type: 'object' },
        outputs: {},
        needsTarget: false,
        observe: () => Promise.resolve(null),
        plan: () => ({ changes: [] }),
        apply: () => Promise.resolve({}),
        reconcile: () => Promise.resolve({ status: 'not-done' as const }),
      },
    ]),
  });
  if (!playbook) throw new Error('the test playbook is invalid');

  it('converts given values and applies defaults', () => {
    expect(resolveInputs(playbook, { nodes: '[n1, n2]', threshold: '3' })).toEqual({
      nodes: ['n1', 'n2'],
      threshold: 3,
      mode: 'safe',
    });
  });

  it('reports every problem at once: unknown, invalid, missing', () => {
    let error: unknown;
    try {
      resolveInputs(playbook, { treshold: '3', mode: 'fats' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('LB_INPUT_INVALID');
    expect((error as ValidationError).diagnostics).toEqual([
      {
        file: '--input treshold=…',
        line: 1,
        col: 1,
        pointer: '/inputs/treshold',
        rule: 'unknown-input',
        message: "unknown input 'treshold'",
        expected: 'one of threshold, nodes, mode',
        hint: "did you mean 'threshold'?",
      },
      {
        file: '--input mode=…',
        line: 1,
        col: 1,
        pointer: '/inputs/mode',
        rule: 'input',
        message: "'fats' is not an allowed value",
        expected: 'one of fast, safe',
        hint: "did you mean 'fast'?",
      },
      {
        file: 'pb.yaml',
        line: 4,
        col: 3,
        pointer: '/inputs/nodes',
        rule: 'missing-input',
        message: "missing input 'nodes': it has no default",
        expected: 'array',
        hint: 'give it with --input nodes=… (the peer nodes)',
      },
    ]);
  });
});
