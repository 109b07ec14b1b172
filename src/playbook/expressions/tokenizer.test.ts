import { describe, expect, it } from 'vitest';
import { ExpressionSyntaxError } from './errors.js';
import { tokenize } from './tokenizer.js';

const kinds = (text: string): string[] => tokenize(text).map((t) => `${t.kind}:${String(t.value)}`);

describe('tokenize', () => {
  it('reads operators longest first', () => {
    expect(kinds('a<=b>=c==d!=e<f>g&&h||!i')).toEqual([
      'ident:a',
      'op:<=',
      'ident:b',
      'op:>=',
      'ident:c',
      'op:==',
      'ident:d',
      'op:!=',
      'ident:e',
      'op:<',
      'ident:f',
      'op:>',
      'ident:g',
      'op:&&',
      'ident:h',
      'op:||',
      'op:!',
      'ident:i',
      'eof:',
    ]);
  });

  it('keeps dashes inside identifiers (step ids) and reads negative numbers', () => {
    expect(kinds('steps.my-step.outputs')).toEqual([
      'ident:steps',
      'punct:.',
      'ident:my-step',
      'punct:.',
      'ident:outputs',
      'eof:',
    ]);
    expect(kinds('-1.5 2e3 0x1F')).toEqual(['number:-1.5', 'number:2000', 'number:31', 'eof:']);
  });

  it('reads single-quoted strings with doubled quotes and double-quoted strings with escapes', () => {
    expect(tokenize("'it''s'")[0]).toMatchObject({ kind: 'string', value: "it's", start: 0, end: 7 });
    expect(tokenize('"a\\"b\\n\\u0041"')[0]).toMatchObject({ kind: 'string', value: 'a"b\nA' });
  });

  it('gives offsets in the whole text when tokenizing a slice', () => {
    const text = '${{ inputs.x }}';
    expect(tokenize(text, 3, 13).map((t) => t.start)).toEqual([4, 10, 11, 13]);
  });

  it.each([
    ["'abc", 'unclosed string', 0],
    ['a = b', "unexpected character '='", 2],
    ['a & b', "unexpected character '&'", 2],
    ['1 + 2', "unexpected character '+'", 2],
    ['12abc', "malformed number '12a'", 0],
    ['"\\q"', "unknown escape '\\q'", 1],
  ])('refuses %j: %s at %i', (text, message, offset) => {
    let error: unknown;
    try {
      tokenize(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpressionSyntaxError);
    expect((error as ExpressionSyntaxError).message).toContain(message);
    expect((error as ExpressionSyntaxError).offset).toBe(offset);
  });

  it('suggests == for a single =', () => {
    expect(() => tokenize('a = 1')).toThrowError(
      expect.objectContaining({ hint: "compare with '=='" }) as Error,
    );
  });
});
