/**
 * Every playbook under test/fixtures/invalid/ is refused with exactly the diagnostics its header announces:
 *
 *     # expect: 7:11 /steps/0/uses unknown step kind 'core.shel'
 *
 * (line:col exact, the JSON pointer exact — `""` for the root — and a part of the message).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStepKind } from '../src/steps/contract.js';
import { ValidationError } from '../src/errors.js';
import type { Diagnostic } from '../src/diagnostics.js';
import { formatDiagnostics } from '../src/playbook/format.js';
import { parseSource, parseWithPositions } from '../src/validation/load.js';
import { loadPlaybook, validatePlaybook } from '../src/validation/validate.js';
import { fixedStepKinds, loadAllStepKinds } from '../src/steps/index.js';

const dir = join(import.meta.dirname, 'fixtures', 'invalid');

/**
 * No core step kind has a field marked `x-secret`; this one exists so that the secret-in-a-plain-field rule
 * has a fixture too.
 */
const fixtureLogin: AnyStepKind = {
  kind: 'fixture.login',
  summary: 'Log in (fixture only).',
  withSchema: {
    type: 'object',
    properties: { username: { type: 'string' }, password: { type: 'string', 'x-secret': true } },
    required: ['username', 'password'],
    additionalProperties: false,
  },
  outputs: {},
  needsTarget: false,
  observe: () => Promise.reject(new Error('fixture kind: never run')),
  plan: () => ({ changes: [] }),
  apply: () => Promise.reject(new Error('fixture kind: never run')),
  reconcile: () => Promise.reject(new Error('fixture kind: never run')),
};
const registry = fixedStepKinds([...(await loadAllStepKinds()).values(), fixtureLogin]);

interface Expected {
  line: number;
  col: number;
  pointer: string;
  message: string;
}

function expectations(text: string): Expected[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('# expect:'))
    .map((line) => {
      const match = /^# expect: (\d+):(\d+) (\S+) (.+)$/.exec(line);
      if (!match) throw new Error(`malformed expectation: ${line}`);
      const [, l, c, pointer, message] = match as unknown as [string, string, string, string, string];
      return { line: Number(l), col: Number(c), pointer: pointer === '""' ? '' : pointer, message };
    });
}

const fixtures = readdirSync(dir)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

describe('invalid playbooks', () => {
  it('has a fixture for every kind of mistake we promise to catch', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(36);
  });

  it.each(fixtures)('%s is refused with the announced diagnostics', async (name) => {
    const file = join(dir, name);
    const expected = expectations(readFileSync(file, 'utf8'));
    expect(expected.length, `${name} announces no diagnostics`).toBeGreaterThan(0);

    const error = await loadPlaybook(file, { registry }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, `${name} was accepted`).toBeInstanceOf(ValidationError);
    const { code, diagnostics } = error as ValidationError;
    expect(code).toBe('LB_PLAYBOOK_INVALID');

    const show = (d: Diagnostic | Expected): string => `${d.line}:${d.col} ${d.pointer} ${d.message}`;
    const unmatched = [...diagnostics];
    for (const want of expected) {
      const index = unmatched.findIndex(
        (d) =>
          d.line === want.line &&
          d.col === want.col &&
          d.pointer === want.pointer &&
          d.message.includes(want.message),
      );
      expect(
        index,
        `missing: ${show(want)}\nactual:\n${diagnostics.map(show).join('\n')}`,
      ).toBeGreaterThanOrEqual(0);
      unmatched.splice(index, 1);
    }
    expect(unmatched.map(show), 'unexpected diagnostics').toEqual([]);
    for (const d of diagnostics) expect(d.file).toBe(file);
  });

  // Positions come from a position index built from the text (or, for what it does not cover, from the yaml
  // Document): every finding must be where the yaml Document puts it, in each fixture as written and with CRLF
  // line ends, tabs after the colons, a leading --- and an indented copy.
  const variants: [string, (text: string) => string][] = [
    ['as written', (text) => text],
    ['CRLF', (text) => text.replace(/\n/g, '\r\n')],
    ['tabs after colons', (text) => text.replace(/: /g, ':\t')],
    ['a leading ---', (text) => `---\n${text}`],
  ];
  it.each(fixtures)('%s: findings at the same line:col as the yaml Document gives', (name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const [variant, write] of variants) {
      const source = write(text);
      const findings = (parse: typeof parseSource): string[] => {
        const { doc, diagnostics } = parse(name, source);
        const all = diagnostics.length > 0 ? diagnostics : validatePlaybook(doc, { registry }).diagnostics;
        return all.map((d) => `${d.line}:${d.col} ${d.pointer} ${d.message}`);
      };
      expect(findings(parseSource), `${name}, ${variant}`).toEqual(findings(parseWithPositions));
    }
  });

  it('never prints the value written into a secret field', async () => {
    const error = (await loadPlaybook(join(dir, 'secret-literal-in-secret-field.yaml'), { registry }).catch(
      (e: unknown) => e,
    )) as ValidationError;
    const text = formatDiagnostics(error.diagnostics, { color: false });
    expect(text).toContain('secret in a plain field');
    expect(text).not.toContain('hunter2');
  });
});
