import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerbookError, ValidationError } from '../errors.js';
import { readSecretsFile, resolveSecrets } from './secrets.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-secrets-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** The ValidationError a call throws, so its diagnostics can be inspected. */
async function problemsOf(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('readSecretsFile (dotenv)', () => {
  it('reads NAME=value lines with comments, export, quotes and inline comments', async () => {
    const path = await write(
      'secrets.env',
      [
        '# operator secrets',
        '',
        'IDP_PASSWORD=plain value # a comment',
        'export CLIENT_SECRET="quoted # not a comment"',
        "SINGLE='lit\\eral $x'",
        'ESCAPED="line1\\nline2 \\"q\\""',
        '  SPACED = padded  ',
        'HASH=a#b',
        'EMPTY=',
      ].join('\r\n'),
    );
    expect(await readSecretsFile(path)).toEqual({
      IDP_PASSWORD: 'plain value',
      CLIENT_SECRET: 'quoted # not a comment',
      SINGLE: 'lit\\eral $x',
      ESCAPED: 'line1\nline2 "q"',
      SPACED: 'padded',
      HASH: 'a#b',
      EMPTY: '',
    });
  });

  it('reports every bad line with its line number and never the value', async () => {
    const path = await write(
      'bad.env',
      [
        'GOOD=fine',
        'no equals sign topsecret1',
        '9BAD=topsecret2',
        'OPEN="topsecret3',
        'GOOD=topsecret4',
        'AFTER="x" topsecret5',
      ].join('\n'),
    );
    const error = await problemsOf(readSecretsFile(path));
    expect(error.code).toBe('LB_INPUT_INVALID');
    expect(error.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [2, 'not a `NAME=value` line'],
      [3, 'not a valid secret name before `=`'],
      [4, 'the value of OPEN has an unterminated quote (values span one line)'],
      [5, 'GOOD is defined twice (lines 1 and 5)'],
      [6, 'the value of AFTER has text after its closing quote'],
    ]);
    expect(error.diagnostics.every((d) => d.file === path)).toBe(true);
    expect(JSON.stringify(error.diagnostics) + error.message).not.toMatch(/topsecret/);
  });

  it('names the file when it cannot be read', async () => {
    const missing = join(dir, 'nope.env');
    await expect(readSecretsFile(missing)).rejects.toSatisfy(
      (e: unknown) =>
        e instanceof LedgerbookError && e.code === 'LB_INPUT_INVALID' && e.message.includes(missing),
    );
  });
});

describe('readSecretsFile (YAML)', () => {
  it('reads a mapping of names to strings', async () => {
    const path = await write('secrets.yaml', 'IDP_PASSWORD: "pa:ss"\nCLIENT_SECRET: plain\n');
    expect(await readSecretsFile(path)).toEqual({ IDP_PASSWORD: 'pa:ss', CLIENT_SECRET: 'plain' });
  });

  it('refuses non-string values and bad names with positions, without values', async () => {
    const path = await write('secrets.yml', 'A: 12345678\nB:\n"bad name": topsecret6\nC: [topsecret7]\n');
    const error = await problemsOf(readSecretsFile(path));
    expect(error.diagnostics.map((d) => [d.line, d.col, d.message])).toEqual([
      [1, 4, 'the value of A is not a string'],
      [2, 3, 'B has no value'],
      [3, 1, 'not a valid secret name'],
      [4, 1, 'the value of C is not a string'],
    ]);
    expect(JSON.stringify(error.diagnostics)).not.toMatch(/topsecret|12345678/);
  });

  it('reports YAML syntax errors by code and position, not with the parser message that quotes the text', async () => {
    const path = await write('secrets.yaml', 'OK: fine\nTOKEN: "topsecret8\\q"\nOK: twice\n');
    const error = await problemsOf(readSecretsFile(path));
    expect(error.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [2, 'not valid YAML (BAD_DQ_ESCAPE)'],
      [3, 'not valid YAML (DUPLICATE_KEY)'],
    ]);
    expect(JSON.stringify(error.diagnostics)).not.toMatch(/topsecret/);
  });

  it('refuses a merge key, with what to write instead; a quoted "<<" is only a bad name', async () => {
    const path = await write('merge.yaml', 'A: "topsecret9"\n<<: {B: "topsecret10"}\n');
    const error = await problemsOf(readSecretsFile(path));
    expect(error.diagnostics.map((d) => [d.line, d.col, d.message])).toEqual([
      [2, 1, 'a merge key (`<<`) has no place in a secrets file'],
    ]);
    expect(error.diagnostics[0]?.hint).toBe('write each NAME: "value" once, at the top level');
    const quoted = await problemsOf(readSecretsFile(await write('quoted.yaml', '"<<": x\n')));
    expect(quoted.diagnostics.map((d) => d.message)).toEqual(['not a valid secret name']);
  });

  it('refuses a file that is not a mapping', async () => {
    const path = await write('list.yaml', '- a\n- b\n');
    const error = await problemsOf(readSecretsFile(path));
    expect(error.diagnostics[0]?.message).toBe('the file is not a mapping of names to values');
  });
});

describe('resolveSecrets', () => {
  it('takes the secrets file first, then the declared source, then the environment', async () => {
    const file = await write('s.env', 'A=from-file\n');
    await write('b.txt', 'from-declared-file\n\n');
    const { values, missing } = await resolveSecrets(['A', 'B', 'C', 'D', 'A'], {
      file,
      env: { A: 'env-a', B: 'env-b', C_VAR: 'from-declared-env', C: 'env-c', D: 'from-env' },
      declared: { A: { env: 'A' }, B: { file: 'b.txt' }, C: { env: 'C_VAR' } },
      baseDir: dir,
    });
    expect(values).toEqual({
      A: 'from-file',
      B: 'from-declared-file',
      C: 'from-declared-env',
      D: 'from-env',
    });
    expect(missing).toEqual([]);
  });

  it('falls through a declared source that is missing, and lists every place tried', async () => {
    const file = await write('s.env', 'OTHER=x\n');
    const { values, missing } = await resolveSecrets(['X', 'Y'], {
      file,
      env: { X: 'env-x', Y_VAR: '' },
      declared: { X: { file: 'absent.txt' }, Y: { env: 'Y_VAR' } },
      baseDir: dir,
    });
    expect(values).toEqual({ X: 'env-x' });
    expect(missing).toEqual([
      {
        name: 'Y',
        tried: [
          `--secrets-file ${file}`,
          'target secrets.Y: environment variable Y_VAR (empty)',
          'environment variable Y',
        ],
      },
    ]);
  });

  it('names each place once: a target that declares NAME: { env: NAME } is not followed by the same variable', async () => {
    const { missing } = await resolveSecrets(['P'], {
      env: { P: '' },
      declared: { P: { env: 'P' } },
      baseDir: dir,
    });
    expect(missing).toEqual([{ name: 'P', tried: ['target secrets.P: environment variable P (empty)'] }]);
  });

  it('reports a declared file that is not there', async () => {
    const { missing } = await resolveSecrets(['K'], {
      env: {},
      declared: { K: { file: 'k.txt' } },
      baseDir: dir,
    });
    expect(missing).toEqual([
      {
        name: 'K',
        tried: [`target secrets.K: file ${join(dir, 'k.txt')} (not found)`, 'environment variable K'],
      },
    ]);
  });
});
