import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeDeep } from './terminal-text.js';

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
