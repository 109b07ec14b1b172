import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import { ExpressionSyntaxError } from './errors.js';
import { parseExpression } from './parser.js';

/** The tree as a compact S-expression, to assert precedence. */
function show(e: Expr): string {
  switch (e.type) {
    case 'literal':
      return JSON.stringify(e.value);
    case 'root':
      return e.name;
    case 'member':
      return `${show(e.object)}.${e.property}`;
    case 'index':
      return `${show(e.object)}[${show(e.index)}]`;
    case 'call':
      return `${e.name}(${e.args.map(show).join(', ')})`;
    case 'not':
      return `(! ${show(e.operand)})`;
    case 'compare':
    case 'logical':
      return `(${e.operator} ${show(e.left)} ${show(e.right)})`;
  }
}

const tree = (text: string): string => show(parseExpression(text));

function syntaxError(text: string): ExpressionSyntaxError {
  try {
    parseExpression(text);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return error;
    throw error;
  }
  throw new Error(`no syntax error in ${text}`);
}

describe('parseExpression', () => {
  it('binds || loosest, then &&, equality, comparison, !', () => {
    expect(tree('a || b && c')).toBe('(|| a (&& b c))');
    expect(tree('a && b == c')).toBe('(&& a (== b c))');
    expect(tree('a == b < c')).toBe('(== a (< b c))');
    expect(tree('!a == b')).toBe('(== (! a) b)');
    expect(tree('(a || b) && c')).toBe('(&& (|| a b) c)');
    expect(tree('!!a')).toBe('(! (! a))');
  });

  it('parses property access, indexes and calls', () => {
    expect(tree("steps.up.outputs['pkg-id'][0]")).toBe('steps.up.outputs.pkg-id[0]');
    expect(tree('inputs.list[inputs.i]')).toBe('inputs.list[inputs.i]');
    expect(tree("format('{0}', inputs.a, 1)")).toBe('format("{0}", inputs.a, 1)');
    expect(tree('fromJSON(inputs.j).a')).toBe('fromJSON(inputs.j).a');
    expect(tree('true != null')).toBe('(!= true null)');
  });

  it('allows keywords as property names', () => {
    expect(tree('inputs.true')).toBe('inputs.true');
  });

  it('reports unknown functions with the closest one', () => {
    const error = syntaxError("contians(inputs.a, 'x')");
    expect(error.message).toBe("unknown function 'contians'");
    expect(error.hint).toBe("did you mean 'contains'?");
    expect(error.offset).toBe(0);
  });

  it('checks the number of arguments', () => {
    expect(syntaxError('contains(a)').message).toBe('contains() takes 2 arguments, got 1');
    expect(syntaxError('join()').message).toBe('join() takes 1 or 2 arguments, got 0');
    expect(syntaxError('format()').message).toBe('format() takes at least 1 argument, got 0');
  });

  it.each([
    ['', 'empty expression', 0],
    ['a.', 'unexpected end of expression, expected a property name after .', 2],
    ['a b', "unexpected 'b', expected an operator or the end of the expression", 2],
    ['(a', "unexpected end of expression, expected ')'", 2],
    ['a[1', "unexpected end of expression, expected ']'", 3],
    ['== a', "unexpected '==', expected a value", 0],
    ['a.0', "unexpected '0', expected a property name after .", 2],
    ['length(a', "unexpected end of expression, expected ',' or ')'", 8],
  ])('refuses %j', (text, message, offset) => {
    const error = syntaxError(text);
    expect(error.message).toBe(message);
    expect(error.offset).toBe(offset);
  });
});

describe('paths (read without tokens)', () => {
  // A path in parentheses goes through the full parser; one after a space is read as a path: the two trees,
  // offsets included, must be the same.
  it.each([
    'inputs',
    'inputs.env',
    'steps.build-2.outputs.digest',
    'steps.s9979.outputs.exit_code',
    'inputs.nodes[2]',
    'inputs.nodes[0].name',
    'a[10][0]._x',
    'vars.A_b-c',
  ])('%s', (path) => {
    expect(parseExpression(` ${path}\t`)).toEqual(parseExpression(`(${path})`));
  });

  it.each([
    ['true', 'true'],
    ['null.x', 'null.x'],
    ['a[007]', 'a[7]'],
    ["a['b']", 'a.b'],
    ['a[1.5]', 'a[1.5]'],
    ['a . b', 'a.b'],
    ['a.b(1)', ''],
  ])('leaves other shapes to the parser: %s', (text, expected) => {
    if (expected === '') expect(() => parseExpression(text)).toThrow(ExpressionSyntaxError);
    else expect(tree(text)).toBe(expected);
  });
});
