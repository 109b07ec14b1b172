import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { safeScript } from './shell-script.js';

/** Runs `template` through sh with every expression's value taken from `values` in order. */
function runScript(template: string, values: string[]): string {
  let n = 0;
  const { script, env } = safeScript(template, () => values[n++] ?? '', 'with.run');
  return execFileSync('sh', ['-c', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
}

const PAYLOADS = [
  `'; echo INJECTED; '`,
  `"; echo INJECTED; "`,
  '$(echo INJECTED)',
  '`echo INJECTED`',
  'x && echo INJECTED',
  'x; echo INJECTED',
  'x\necho INJECTED',
  'x | echo INJECTED',
  '${HOME} $((1+1)) *',
  'it\'s \\ a "quote"',
];

describe('safeScript', () => {
  for (const payload of PAYLOADS) {
    for (const [where, template] of [
      ['unquoted', 'printf %s ${{ inputs.x }}'],
      ['double quotes', 'printf %s "${{ inputs.x }}"'],
      ['single quotes', "printf %s '${{ inputs.x }}'"],
      ['command substitution', 'printf %s "$(printf %s ${{ inputs.x }})"'],
      ['backticks', 'printf %s "`printf %s \'${{ inputs.x }}\'`"'],
      ['heredoc', 'cat <<EOF\n${{ inputs.x }}\nEOF'],
    ] as const) {
      it(`${where}: ${JSON.stringify(payload)} stays data`, () => {
        const out = runScript(template, [payload]);
        expect(out).not.toMatch(/^INJECTED$/m);
        const expected =
          where === 'heredoc'
            ? `${payload}\n`
            : where === 'command substitution'
              ? payload.replace(/\n+$/, '')
              : payload;
        expect(out).toBe(expected);
      });
    }
  }

  it('keeps the text around expressions, numbers variables and leaves scripts without expressions alone', () => {
    const { script, env } = safeScript('echo "a ${{ x }}" b${{ y }} \'c ${{ z }}\'', (e) => e, 'with.run', 3);
    expect(script).toBe('echo "a ${LB_EXPR_3}" b"${LB_EXPR_4}" \'c \'"${LB_EXPR_5}"\'\'');
    expect(Object.keys(env)).toEqual(['LB_EXPR_3', 'LB_EXPR_4', 'LB_EXPR_5']);
    expect(safeScript('echo plain', () => 'never', 'with.run')).toEqual({ script: 'echo plain', env: {} });
  });

  it('a quote inside a comment does not change the context of what follows', () => {
    expect(runScript("# don't worry\nprintf %s '${{ x }}'", ['a b'])).toBe('a b');
  });

  it('refuses an expression inside a quoted heredoc, where the shell would not expand it', () => {
    expect(() => safeScript("cat <<'EOF'\n${{ x }}\nEOF", () => 'v', 'with.run')).toThrow(/quoted heredoc/);
  });
});
