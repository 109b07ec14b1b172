import { describe, expect, it } from 'vitest';
import {
  terminalSafe,
  terminalSafeDeep,
  workflowCommandEscaper,
  workflowCommandSafe,
} from './terminal-text.js';

describe('terminalSafe', () => {
  it('shows control characters and bidirectional overrides as escapes, keeps newlines, tabs and other text', () => {
    expect(terminalSafe('a\u001b[31mb\rc\u0007\u009b\u202ed\u2066')).toBe(
      'a\\u001b[31mb\\u000dc\\u0007\\u009b\\u202ed\\u2066',
    );
    expect(terminalSafe('line 1\n\tline 2 — café ✔')).toBe('line 1\n\tline 2 — café ✔');
  });

  it('copies an event with every string made safe, and leaves the others as they are', () => {
    const event = { type: 'log', message: 'x\u001b', n: 3, list: ['\r', { deep: '\u0000' }], ok: null };
    expect(terminalSafeDeep(event)).toEqual({
      type: 'log',
      message: 'x\\u001b',
      n: 3,
      list: ['\\u000d', { deep: '\\u0000' }],
      ok: null,
    });
    // repeated calls give the same answer (no regex state carried between them)
    expect(terminalSafeDeep('a\u001b')).toBe('a\\u001b');
    expect(terminalSafeDeep('a\u001b')).toBe('a\\u001b');
  });
});

describe('workflowCommandEscaper', () => {
  it('breaks a leading :: (after any blanks) and ##[ anywhere, and nothing else', () => {
    const safe = workflowCommandSafe;
    expect(safe('::add-mask::hunter2')).toBe(':\\u003aadd-mask::hunter2');
    expect(safe('ok\n  \t::error file=x::boom\n::set-output name=a::b')).toBe(
      'ok\n  \t:\\u003aerror file=x::boom\n:\\u003aset-output name=a::b',
    );
    expect(safe('x\r::stop-commands::t')).toBe('x\r:\\u003astop-commands::t');
    expect(safe('\u00a0\u2003\ufeff::warning::w')).toBe('\u00a0\u2003\ufeff:\\u003awarning::w');
    expect(safe('log ##[add-mask]s3cret and ###[set-output name=x;]y')).toBe(
      'log ##\\u005badd-mask]s3cret and ###\\u005bset-output name=x;]y',
    );
    // Azure Pipelines' logging commands, in any letter case
    expect(safe('x ##vso[task.setvariable variable=a]b\n##VSO[task.complete result=Failed]')).toBe(
      'x ##vso\\u005btask.setvariable variable=a]b\n##VSO\\u005btask.complete result=Failed]',
    );
    // a :: not at the start of its line, a lone leading colon, a party id, markdown headings: as they are
    for (const text of ['a ::error::x', ': x', 'alice::1220ab', '## Plan\n### Step', 'a: b:: c'])
      expect(safe(text)).toBe(text);
  });

  it('keeps its place in the line across chunks', () => {
    const escape = workflowCommandEscaper();
    const chunks = ['hello\n  ', ':', ':add-mask::x\nlog #', '#', '[error]y\n', '::', 'ok'];
    expect(chunks.map(escape).join('')).toBe(
      'hello\n  :\\u003aadd-mask::x\nlog ##\\u005berror]y\n:\\u003aok',
    );
    const azure = workflowCommandEscaper();
    expect(['log #', '#v', 'so', '[task.setvariable]x'].map(azure).join('')).toBe(
      'log ##vso\\u005btask.setvariable]x',
    );
    // a line that did not start at a chunk's start is not taken for one that did
    const other = workflowCommandEscaper();
    expect(['abc', '::x::y'].map(other).join('')).toBe('abc::x::y');
  });

  it('leaves an NDJSON line the same JSON', () => {
    const line = JSON.stringify({
      type: 'log',
      message: 'a\n::add-mask::x ##[add-mask]y ##vso[task.setsecret]z',
    });
    expect(JSON.parse(workflowCommandSafe(line))).toEqual(JSON.parse(line));
  });
});
