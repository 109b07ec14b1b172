import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { parseSource, parseWithPositions, readSource } from './load.js';

const text = [
  'name: demo', //                         1
  'base: &defaults', //                    2
  '  retry: { attempts: 2 }', //           3
  'steps:', //                             4
  '  - id: first', //                      5
  '    uses: core.shell', //               6
  '    with:', //                          7
  '      run: "echo hi"', //               8
  '      "a/b": 1', //                     9
  '      "t~x": 2', //                     10
  '  - <<: *defaults', //                  11
  '    id: second', //                     12
  '    with: *w', //                       13
  '  - &w', //                             14
  '    id: third', //                      15
  '    with:', //                          16
  '',
].join('\n');

describe('parseSource', () => {
  it('reports anchors that are missing as YAML errors', () => {
    const { diagnostics } = parseSource('p.yaml', text);
    expect(diagnostics).toEqual([
      expect.objectContaining({ line: 13, col: 11, rule: 'yaml', message: "alias '*w' refers to no anchor" }),
    ]);
  });

  const good = parseSource('p.yaml', text.replace('with: *w', 'name: Second'));

  it('gives the plain data, with merge keys applied', () => {
    expect(good.diagnostics).toEqual([]);
    expect(good.doc.file).toBe('p.yaml');
    const data = good.doc.data as { steps: Record<string, unknown>[] };
    expect(data.steps[1]).toEqual({ retry: { attempts: 2 }, id: 'second', name: 'Second' });
  });

  it.each([
    ['', 'value', 1, 1],
    ['/name', 'value', 1, 7],
    ['/name', 'key', 1, 1],
    ['/steps/0', 'value', 5, 5],
    ['/steps/0', 'key', 5, 5],
    ['/steps/0/uses', 'value', 6, 11],
    ['/steps/0/uses', 'key', 6, 5],
    ['/steps/0/with/run', 'value', 8, 12],
    ['/steps/0/with/a~1b', 'key', 9, 7],
    ['/steps/0/with/t~0x', 'value', 10, 14],
    // through a merge key, to where the merged value is written
    ['/steps/1/retry/attempts', 'value', 3, 22],
    ['/steps/1/id', 'value', 12, 9],
    // a key with an empty value points at the key
    ['/steps/2/with', 'value', 16, 5],
    // missing nodes: the nearest ancestor
    ['/steps/0/with/nope', 'value', 7, 5],
    ['/steps/0/timeout', 'value', 5, 5],
    ['/steps/9', 'value', 4, 1],
    ['/steps/x', 'value', 4, 1],
    ['/nothing/here', 'value', 1, 1],
  ] as const)('positionOf(%j, %s) is %i:%i', (pointer, which, line, col) => {
    expect(good.doc.positionOf(pointer, which)).toEqual({ line, col });
  });

  it('resolves aliases when walking a pointer', () => {
    const { doc } = parseSource('a.yaml', 'shared: &s\n  x: 1\n  y: [a, b]\nuse: *s\n');
    expect(doc.positionOf('/use/y/1')).toEqual({ line: 3, col: 10 });
    expect(doc.positionOf('/use')).toEqual({ line: 4, col: 6 });
  });

  it.each([
    ['name: a\nname: b\n', 2, 1, "duplicate key 'name'", '/name', 'remove one of the two'],
    ['steps:\n\t- id: a\n', 2, 1, 'tab character used for indentation', '', 'spaces'],
    ['a:\n  b: [x, y\n  c: 1\n', 2, 6, 'this [ list has no closing ]', '/a/b', 'close it with ]'],
    ['a: {b: 1\nc: 2\n', 1, 4, 'this { mapping has no closing }', '/a', 'close it with }'],
    ['a: "open\nb: 1\n', 1, 4, 'this string has no closing quote', '/a', 'close the quote'],
    ['a: 1\n---\nb: 2\n', 2, 1, 'more than one YAML document in the file', '', 'remove the `---` line'],
    ['a: !vault x\n', 1, 4, "unknown YAML tag '!vault'", '/a', 'no YAML tags'],
    [
      'steps:\n  - id: a\n    with:\n      run: x\n      run: y\n',
      5,
      7,
      "duplicate key 'run'",
      '/steps/0/with/run',
      'remove one',
    ],
  ])('reports YAML problems with their position: %j', (source, line, col, message, pointer, hint) => {
    const { doc, diagnostics } = parseSource('bad.yaml', source);
    expect(doc.data).toBeNull();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ file: 'bad.yaml', line, col, rule: 'yaml', message, pointer });
    expect(diagnostics[0]?.hint).toContain(hint);
  });

  it('reports the first syntax error, not the echoes of yaml’s recovery', () => {
    const { diagnostics } = parseSource(
      'bad.yaml',
      'steps:\n  - id: a\n    with: [x\n  - id: b\n    uses: c\n',
    );
    expect(diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([
      '3:11 this [ list has no closing ]',
    ]);
  });

  it('refuses alias bombs', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const { diagnostics } = parseSource('bomb.yaml', lines.join('\n'));
    expect(diagnostics[0]).toMatchObject({ line: 2, col: 10 });
    expect(diagnostics[0]?.message).toMatch(/alias bomb/);
  });

  it('gives an empty document as null data', () => {
    const { doc, diagnostics } = parseSource('empty.yaml', '# nothing\n');
    expect(diagnostics).toEqual([]);
    expect(doc.data).toBeNull();
    expect(doc.positionOf('/steps')).toEqual({ line: 1, col: 1 });
  });
});

describe('merge keys', () => {
  // `<<` merges whether or not the file has an anchor: both parsers give the same data, and a finding inside a
  // merged map is reported where its text is written
  it.each([
    ['an inline map', 'a:\n  <<: {b: 1, c: 1}\n  c: 2\n', { a: { b: 1, c: 2 } }],
    ['a list of maps (the first wins)', 'a:\n  <<: [{b: 1}, {b: 2, d: 3}]\n', { a: { b: 1, d: 3 } }],
    ['a block map', 'a:\n  <<:\n    b: 1\n  c: 2\n', { a: { b: 1, c: 2 } }],
    ['an alias', 'x: &x {b: 1}\na:\n  <<: *x\n  c: 2\n', { x: { b: 1 }, a: { b: 1, c: 2 } }],
    ['a quoted key (not a merge)', 'a:\n  "<<": {b: 1}\n', { a: { '<<': { b: 1 } } }],
  ])('merges %s like the positions parser', (_what, source, data) => {
    const fast = parseSource('m.yaml', source);
    const located = parseWithPositions('m.yaml', source);
    expect(fast.diagnostics).toEqual([]);
    expect(fast.doc.data).toEqual(data);
    expect(located.doc.data).toEqual(data);
  });

  it('points into the merged map, with or without an anchor', () => {
    const inline = parseSource(
      'm.yaml',
      'steps:\n  - id: a\n    <<: { uses: core.shell, timeout: 5 }\n    with: { run: x }\n',
    ).doc;
    expect(inline.positionOf('/steps/0/timeout')).toEqual({ line: 3, col: 38 });
    expect(inline.positionOf('/steps/0/timeout', 'key')).toEqual({ line: 3, col: 29 });
    expect(inline.positionOf('/steps/0/with/run')).toEqual({ line: 4, col: 18 });
    const anchored = parseSource(
      'm.yaml',
      'vars:\n  shell: &shell\n    uses: core.shell\n    timeout: 5\nsteps:\n  - <<: *shell\n    id: a\n',
    ).doc;
    expect(anchored.positionOf('/steps/0/timeout')).toEqual({ line: 4, col: 14 });
    expect(anchored.positionOf('/steps/0/id')).toEqual({ line: 7, col: 9 });
  });

  it.each([
    ['a scalar', 'a:\n  <<: 1\n', 2, 7],
    ['a list with a scalar', 'a:\n  <<: [{b: 1}, x]\n', 2, 7],
    ['an alias of a scalar', 'x: &x 1\na:\n  <<: *x\n', 3, 7],
  ])('refuses a merge of %s, at its place, with a hint', (_what, source, line, col) => {
    const { doc, diagnostics } = parseSource('m.yaml', source);
    expect(doc.data).toBeNull();
    expect(diagnostics).toEqual([
      expect.objectContaining({
        line,
        col,
        rule: 'yaml',
        pointer: '/a/<<',
        message: '`<<` (a merge key) merges a mapping or a list of mappings, not anything else',
      }),
    ]);
    expect(diagnostics[0]?.hint).toContain('<<: *base');
  });
});

/** what `read` throws (it must throw) */
function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('readSource', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lb-load-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads and parses a file', async () => {
    const file = join(dir, 'ok.yaml');
    await writeFile(file, 'name: x\n');
    const { doc, diagnostics } = readSource(file);
    expect(diagnostics).toEqual([]);
    expect(doc).toMatchObject({ file, text: 'name: x\n', data: { name: 'x' } });
  });

  it('turns an unreadable file into one diagnostic at 1:1, with the code asked for', () => {
    const missing = join(dir, 'missing.yaml');
    const error = thrown(() => readSource(missing, 'LB_TARGET_INVALID'));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('LB_TARGET_INVALID');
    expect((error as ValidationError).diagnostics).toEqual([
      expect.objectContaining({
        file: missing,
        line: 1,
        col: 1,
        rule: 'file',
        message: 'cannot read the file: no such file',
      }),
    ]);
    const directory = thrown(() => readSource(dir));
    expect((directory as ValidationError).code).toBe('LB_PLAYBOOK_INVALID');
    expect((directory as ValidationError).diagnostics[0]?.message).toBe(
      'cannot read the file: it is a folder, not a file',
    );
  });
});

describe('the fast path', () => {
  const repo = join(import.meta.dirname, '..', '..');
  const yamlFiles = (folder: string): string[] =>
    readdirSync(join(repo, folder), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(repo, folder, f));

  it('gives the same data as the positions parser for every YAML file of the repository it accepts', () => {
    const files = [...yamlFiles('playbooks'), ...yamlFiles('test/fixtures')];
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const fast = parseSource(file, source);
      const located = parseWithPositions(file, source);
      if (located.diagnostics.length === 0) expect(fast.doc.data, file).toEqual(located.doc.data);
      else expect(fast.diagnostics, file).toEqual(located.diagnostics);
    }
  });

  it('maps pointers to positions on demand, like the positions parser', () => {
    const source = 'name: x\nsteps:\n  - id: a\n    uses: core.log\n    with: { message: hi }\n';
    const fast = parseSource('f.yaml', source).doc;
    const located = parseWithPositions('f.yaml', source).doc;
    for (const pointer of ['', '/steps/0/uses', '/steps/0/with/message', '/steps/0/missing']) {
      expect(fast.positionOf(pointer, 'key')).toEqual(located.positionOf(pointer, 'key'));
      expect(fast.positionOf(pointer)).toEqual(located.positionOf(pointer));
    }
  });
});
