import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../diagnostics.js';
import { formatDiagnostics } from './format.js';

const diagnostics: Diagnostic[] = [
  {
    file: 'playbooks/x.yaml',
    line: 12,
    col: 7,
    pointer: '/steps/1/with/thresold',
    message: "unknown key 'thresold' in dpm.onboard-party `with`",
    expected: 'one of coordinator, peers, prefix, threshold',
    hint: "did you mean 'threshold'?",
    rule: 'schema',
  },
  { file: 'playbooks/x.yaml', line: 1, col: 1, pointer: '', message: 'the file is empty', rule: 'schema' },
];

describe('formatDiagnostics', () => {
  it('prints position, message, pointer, expected and hint, then the count', () => {
    expect(formatDiagnostics(diagnostics, { color: false })).toBe(
      [
        "playbooks/x.yaml:12:7 error: unknown key 'thresold' in dpm.onboard-party `with`",
        '  at /steps/1/with/thresold',
        '  expected: one of coordinator, peers, prefix, threshold',
        "  hint: did you mean 'threshold'?",
        'playbooks/x.yaml:1:1 error: the file is empty',
        '2 problems found; nothing was run',
        '',
      ].join('\n'),
    );
  });

  it('says one problem in the singular', () => {
    expect(formatDiagnostics(diagnostics.slice(1), { color: false })).toMatch(
      /\n1 problem found; nothing was run\n$/,
    );
  });

  it('colours only when asked', () => {
    const coloured = formatDiagnostics(diagnostics, { color: true });
    expect(coloured).toContain('\u001b[31merror:\u001b[0m');
    const escape = String.fromCharCode(27);
    expect(
      coloured
        .split(escape)
        .map((part, i) => (i === 0 ? part : part.replace(/^\[\d+m/, '')))
        .join(''),
    ).toBe(formatDiagnostics(diagnostics, { color: false }));
    expect(formatDiagnostics(diagnostics, { color: false })).not.toContain('\u001b');
  });

  it('prints warnings without "nothing was run"', () => {
    expect(formatDiagnostics(diagnostics.slice(1), { color: false, severity: 'warning' })).toBe(
      'playbooks/x.yaml:1:1 warning: the file is empty\n1 warning\n',
    );
  });
});
