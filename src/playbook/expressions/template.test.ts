import { describe, expect, it } from 'vitest';
import { ExpressionEvaluationError, ExpressionSyntaxError } from './errors.js';
import { collectReferences } from './references.js';
import type { Scope } from './scope.js';
import { evaluateCondition, evaluateString, hasExpression, resolveDeep } from './template.js';

function scope(extra: Partial<Scope> = {}): Scope {
  return {
    inputs: {
      n: 3,
      name: 'node1',
      list: ['a', 'b'],
      flag: false,
      empty: '',
      obj: { k: 'v' },
      nothing: null,
      ratio: 1.5,
    },
    vars: { prefix: 'dp' },
    steps: { up: { outputs: { ids: ['p1', 'p2'], count: 2, json: '{"a":[1,2]}' } } },
    secrets: { TOKEN: 's3cr3t-value' },
    env: { HOME: '/home/op' },
    ...extra,
  };
}

const ev = (text: string, s: Scope = scope()): unknown => evaluateString(text, s);

function evaluationError(text: string, s: Scope = scope()): ExpressionEvaluationError {
  try {
    ev(text, s);
  } catch (error) {
    if (error instanceof ExpressionEvaluationError) return error;
    throw error;
  }
  throw new Error(`${text} evaluated without error`);
}

describe('evaluateString', () => {
  it('gives the raw value of a string that is exactly one expression', () => {
    expect(ev('${{ inputs.n }}')).toBe(3);
    expect(ev('  ${{ inputs.list }}  ')).toEqual(['a', 'b']);
    expect(ev('${{ inputs.obj }}')).toEqual({ k: 'v' });
    expect(ev('${{ inputs.nothing }}')).toBeNull();
    expect(ev('${{ steps.up.outputs.ids[1] }}')).toBe('p2');
  });

  it('interpolates text and expressions: objects as JSON, null as empty', () => {
    expect(ev('n=${{ inputs.n }} on ${{ inputs.name }}')).toBe('n=3 on node1');
    expect(ev('list=${{ inputs.list }} obj=${{ inputs.obj }} x${{ inputs.nothing }}x')).toBe(
      'list=["a","b"] obj={"k":"v"} xx',
    );
    expect(ev('${{ inputs.flag }}-${{ inputs.ratio }}')).toBe('false-1.5');
  });

  it('leaves strings without expressions alone', () => {
    expect(ev('plain $ { {text}} }}')).toBe('plain $ { {text}} }}');
    expect(hasExpression('a ${{ b }}')).toBe(true);
    expect(hasExpression('a ${ b }')).toBe(false);
  });

  it('finds the end of an expression outside string literals', () => {
    expect(ev("${{ format('{0}}}', inputs.n) }}")).toBe('3}');
    expect(ev('${{ "}}" }}')).toBe('}}');
  });

  it('compares strictly; numbers numerically', () => {
    expect(ev('${{ inputs.n == 3.0 }}')).toBe(true);
    expect(ev("${{ inputs.name == 'node1' }}")).toBe(true);
    expect(ev('${{ inputs.flag == false }}')).toBe(true);
    expect(ev('${{ inputs.nothing == null }}')).toBe(true);
    expect(ev('${{ inputs.flag == null }}')).toBe(false);
    expect(ev('${{ inputs.list == fromJSON(\'["a","b"]\') }}')).toBe(true);
    expect(ev('${{ inputs.n != 4 }}')).toBe(true);
    expect(ev('${{ inputs.n < 4 && inputs.n <= 3 && inputs.n > 2 && inputs.n >= 3 }}')).toBe(true);
    expect(ev("${{ 'abc' < 'abd' }}")).toBe(true);
  });

  it('refuses to compare a string with a number', () => {
    const error = evaluationError("${{ inputs.n == '3' }}");
    expect(error.message).toBe("`inputs.n == '3'`: cannot compare a number with a string using '=='");
    expect(error.hint).toContain('same type');
    expect(evaluationError('${{ inputs.name < 2 }}').message).toContain(
      "cannot compare a string with a number using '<'",
    );
    expect(evaluationError('${{ inputs.list < 2 }}').message).toContain(
      'cannot compare a array with a number',
    );
  });

  it('short-circuits && and || and returns operand values', () => {
    expect(ev("${{ inputs.empty || 'default' }}")).toBe('default');
    expect(ev("${{ inputs.name || 'default' }}")).toBe('node1');
    expect(ev('${{ inputs.flag && inputs.missing }}')).toBe(false);
    expect(ev('${{ inputs.n && inputs.list }}')).toEqual(['a', 'b']);
    expect(ev('${{ !inputs.empty }}')).toBe(true);
    expect(ev('${{ !inputs.obj }}')).toBe(false);
  });

  it('reads secrets and env by name', () => {
    expect(ev('Bearer ${{ secrets.TOKEN }}')).toBe('Bearer s3cr3t-value');
    expect(ev('${{ env.HOME }}')).toBe('/home/op');
  });

  it('reads item and target only when they are defined', () => {
    expect(ev('${{ item.key }}', scope({ item: { key: 'r1' } }))).toBe('r1');
    expect(evaluationError('${{ item }}').message).toBe('`item` is only defined in a step with for_each');
    expect(ev('${{ target.network }}', scope({ target: { network: 'devnet' } }))).toBe('devnet');
    expect(evaluationError('${{ target.network }}').message).toContain('this run has no target');
  });

  it('reads extra names a step puts in scope', () => {
    expect(ev('${{ response.status == 200 }}', scope({ response: { status: 200 } }))).toBe(true);
  });

  it('reports unknown names and properties with the closest one', () => {
    const root = evaluationError('${{ secret.TOKEN }}');
    expect(root.message).toBe("unknown name 'secret'");
    expect(root.hint).toBe("did you mean 'secrets'?");
    const property = evaluationError('${{ inputs.nme }}');
    expect(property.message).toBe("`inputs` has no property 'nme'");
    expect(property.hint).toBe("did you mean 'name'?");
    expect(evaluationError('${{ steps.up.outputs.cuont }}').message).toBe(
      "`steps.up.outputs` has no property 'cuont'",
    );
    expect(evaluationError('${{ inputs.nothing.x }}').message).toBe(
      "cannot read property 'x' of `inputs.nothing`: it is null",
    );
    expect(evaluationError('${{ inputs.name.length }}').message).toBe(
      "cannot read property 'length' of `inputs.name`: it is a string",
    );
    expect(evaluationError('${{ inputs.list[2] }}').message).toBe(
      'index 2 is out of range: `inputs.list` has 2 elements',
    );
    expect(evaluationError('${{ inputs.list[0.5] }}').message).toContain('is not a valid index');
  });

  it('reaches no prototype', () => {
    for (const text of [
      '${{ inputs.__proto__ }}',
      '${{ inputs.constructor }}',
      "${{ inputs['constructor'] }}",
      '${{ inputs.obj.toString }}',
      '${{ inputs.obj.hasOwnProperty }}',
      '${{ fromJSON(\'{"__proto__": {"x": 1}}\').__proto__ }}',
      '${{ inputs.list.constructor }}',
      "${{ inputs.name['constructor'] }}",
    ]) {
      expect(() => ev(text), text).toThrow(ExpressionEvaluationError);
    }
    expect(evaluationError('${{ inputs.obj.prototype }}').message).toBe(
      "`inputs.obj` has no property 'prototype'",
    );
    const bare: Scope = { ...scope(), inputs: Object.create({ inherited: 1 }) as Record<string, unknown> };
    expect(() => ev('${{ inputs.inherited }}', bare)).toThrow("has no property 'inherited'");
    expect(() => ev('${{ constructor }}')).toThrow("unknown name 'constructor'");
    expect(() => ev('${{ __proto__ }}')).toThrow("unknown name '__proto__'");
  });
});

describe('functions', () => {
  it.each([
    ["${{ contains('wrapped-btc', 'btc') }}", true],
    ["${{ contains(inputs.list, 'b') }}", true],
    ['${{ contains(inputs.list, 1) }}', false],
    ["${{ contains('n=3', inputs.n) }}", true],
    ["${{ startsWith(inputs.name, 'node') }}", true],
    ["${{ endsWith(inputs.name, '2') }}", false],
    ["${{ format('{0} of {1} ({0})', 1, inputs.n) }}", '1 of 3 (1)'],
    ["${{ format('{{literal}} {0}', inputs.list) }}", '{literal} ["a","b"]'],
    ['${{ join(inputs.list) }}', 'a,b'],
    ["${{ join(inputs.list, ' + ') }}", 'a + b'],
    ["${{ join('single', ',') }}", 'single'],
    ['${{ length(inputs.list) }}', 2],
    ['${{ length(inputs.name) }}', 5],
    ['${{ length(inputs.obj) }}', 1],
    ['${{ toJSON(inputs.obj) }}', '{"k":"v"}'],
    ['${{ toJSON(inputs.nothing) }}', 'null'],
    ['${{ fromJSON(steps.up.outputs.json).a[1] }}', 2],
    ['${{ keys(inputs.obj) }}', ['k']],
  ])('%s', (text, value) => {
    expect(ev(text)).toEqual(value);
  });

  it.each([
    [
      '${{ contains(inputs.n, 1) }}',
      'contains(haystack, needle): haystack must be a string or an array, got number',
    ],
    ["${{ contains('a', inputs.obj) }}", 'needle must be a string, number or boolean, got object'],
    ['${{ startsWith(inputs.n, 1) }}', 'startsWith(text, prefix): text must be a string, got number'],
    // a template known only at run time is checked when it is used
    ["${{ format(join(inputs.list, '{'), inputs.n) }}", 'format(): bad placeholder at character 2'],
    ['${{ join(inputs.obj) }}', 'join(array, separator): array must be an array, got object'],
    ['${{ length(inputs.n) }}', 'length(value): value must be a string, an array or an object, got number'],
    ["${{ fromJSON('{nope') }}", 'fromJSON(text): the text is not valid JSON'],
    ['${{ keys(inputs.list) }}', 'keys(object): object must be an object, got array'],
  ])('%s fails: %s', (text, message) => {
    expect(evaluationError(text).message).toContain(message);
  });

  it.each([
    ["${{ format('{1}', 'a') }}", 'format(): placeholder {1} but only 1 value(s) given'],
    ["${{ format('{x}', 'a') }}", 'format(): bad placeholder at character 1'],
    ["${{ format('a}', 'a') }}", "format(): lone '}' at character 2"],
  ])('%s is refused before the run, at the template: %s', (text, message) => {
    expect(() => collectReferences(text)).toThrow(ExpressionSyntaxError);
    expect(() => collectReferences(text)).toThrow(message);
  });

  it('does not quote the text of invalid JSON (it may be a secret)', () => {
    expect(evaluationError('${{ fromJSON(secrets.TOKEN) }}').message).not.toContain('s3cr3t');
  });
});

describe('evaluateCondition', () => {
  it('accepts booleans, ${{ }} and bare expressions', () => {
    expect(evaluateCondition(true, scope())).toBe(true);
    expect(evaluateCondition('${{ inputs.flag }}', scope())).toBe(false);
    expect(evaluateCondition("inputs.name == 'node1'", scope())).toBe(true);
    expect(evaluateCondition('inputs.n > 5', scope())).toBe(false);
    expect(evaluateCondition('false', scope())).toBe(false);
    expect(evaluateCondition('${{ inputs.list }}', scope())).toBe(true);
    expect(evaluateCondition('${{ inputs.empty }}', scope())).toBe(false);
  });

  it('refuses a bare expression that does not parse', () => {
    expect(() => evaluateCondition('inputs.x = 1', scope())).toThrow(ExpressionSyntaxError);
  });
});

describe('resolveDeep', () => {
  it('copies deeply, resolving every string and keeping other values', () => {
    const value = {
      run: ['echo', '${{ inputs.name }}'],
      count: '${{ inputs.n }}',
      nested: { list: '${{ inputs.list }}', keep: 5, flag: true, none: null },
    };
    const resolved = resolveDeep(value, scope()) as typeof value;
    expect(resolved).toEqual({
      run: ['echo', 'node1'],
      count: 3,
      nested: { list: ['a', 'b'], keep: 5, flag: true, none: null },
    });
    expect(value.run[1]).toBe('${{ inputs.name }}');
    expect(resolved.nested).not.toBe(value.nested);
  });

  it('leaves skipped subtrees unresolved', () => {
    const value = {
      until: '${{ response.status == 200 }}',
      lazy: { a: '${{ response.x }}' },
      now: '${{ inputs.n }}',
    };
    const skip = (pointer: string): boolean => pointer === '/until' || pointer === '/lazy';
    expect(resolveDeep(value, scope(), skip)).toEqual({ ...value, now: 3 });
  });

  it('says where an expression failed', () => {
    expect(() => resolveDeep({ env: { A: '${{ inputs.zzz }}' } }, scope())).toThrow(
      "at /env/A: `inputs` has no property 'zzz'",
    );
  });

  it('keeps a key named __proto__ as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": "${{ inputs.name }}"}}') as object;
    const resolved = resolveDeep(value, scope()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(resolved, '__proto__')?.value).toEqual({ polluted: 'node1' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('collectReferences', () => {
  it('gives each reference with its path and offset', () => {
    const text = "echo ${{ steps.up.outputs.ids[0] }} ${{ format('{0}', inputs.list[inputs.n]) }}";
    expect(collectReferences(text)).toEqual([
      { root: 'steps', path: ['up', 'outputs', 'ids', '0'], offset: 9 },
      { root: 'inputs', path: ['n'], offset: text.indexOf('inputs.n') },
      { root: 'inputs', path: ['list'], offset: text.indexOf('inputs.list') },
    ]);
  });

  it('reads bare expressions', () => {
    expect(collectReferences("vars.mode == 'x' && !item.ok", { bare: true })).toEqual([
      { root: 'vars', path: ['mode'], offset: 0 },
      { root: 'item', path: ['ok'], offset: 21 },
    ]);
  });

  it('throws syntax errors with the offset in the text', () => {
    let error: unknown;
    try {
      collectReferences('a ${{ inputs.x == }} b');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    expect((error as ExpressionSyntaxError).offset).toBe(18);
    expect(() => collectReferences('a ${{ inputs.x')).toThrow("unclosed expression: '${{' without '}}'");
  });
});
