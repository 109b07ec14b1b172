import { describe, expect, it } from 'vitest';
import { MAX_NESTING, decodeUtf8, structureProblems } from './input-limits.js';

describe('structureProblems', () => {
  it('ignores brackets, quotes and dashes inside block scalars, quoted strings and comments', () => {
    const text = [
      'steps:',
      '  - id: a',
      '    with:',
      '      run: |',
      `        ${'[ { ('.repeat(100)} don't`,
      "        echo '[[[[['",
      `      note: "${'['.repeat(200)}" # ${'{'.repeat(200)}`,
      `      other: '${'{'.repeat(200)}'`,
    ].join('\n');
    expect(structureProblems('f.yaml', text)).toEqual([]);
  });

  it('counts block nesting by indentation and by dashes on one line', () => {
    const ok = Array.from({ length: MAX_NESTING }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    expect(structureProblems('f.yaml', ok)).toEqual([]);
    const dashes = `x:\n  ${'- '.repeat(MAX_NESTING + 1)}v`;
    expect(structureProblems('f.yaml', dashes)[0]).toMatchObject({ line: 2, rule: 'limits' });
  });
});

describe('decodeUtf8', () => {
  it('finds the first bad byte: lone continuation, overlong, surrogate, truncated', () => {
    for (const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const bytes = Buffer.concat([Buffer.from('ok\nab'), Buffer.from(bad)]);
      expect(decodeUtf8('f', bytes).diagnostics[0]).toMatchObject({ line: 2, col: 3, rule: 'encoding' });
    }
    expect(decodeUtf8('f', Buffer.from('\uFEFFé€😀')).text).toBe('é€😀');
  });
});
