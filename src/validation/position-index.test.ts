import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { stringify, type ToStringOptions } from 'yaml';
import { FAST_SCHEMA, parseSource, parseWithPositions } from './load.js';
import { childPointer } from '../playbook/pointer.js';
import { LineTable, PositionIndex, UnsupportedYaml } from './position-index.js';

/** Every pointer of `data`, and beside each collection's entries one that does not exist. */
function pointers(data: unknown, pointer = '', out: string[] = []): string[] {
  out.push(pointer);
  if (Array.isArray(data)) {
    data.forEach((item, i) => pointers(item, childPointer(pointer, i), out));
    out.push(childPointer(pointer, data.length), childPointer(pointer, 'x'));
  } else if (typeof data === 'object' && data !== null) {
    for (const [key, value] of Object.entries(data)) pointers(value, childPointer(pointer, key), out);
    out.push(childPointer(pointer, 'no such key'));
  } else {
    out.push(childPointer(pointer, '0'));
  }
  return out;
}

/** `positionOf` of the fast path against the `yaml` Document's, for every pointer, key and value. */
function differences(text: string): string[] {
  const fast = parseSource('f.yaml', text).doc;
  const reference = parseWithPositions('f.yaml', text).doc;
  const found: string[] = [];
  for (const pointer of pointers(fast.data)) {
    for (const which of ['key', 'value'] as const) {
      const a = fast.positionOf(pointer, which);
      const b = reference.positionOf(pointer, which);
      if (a.line !== b.line || a.col !== b.col)
        found.push(`${pointer} (${which}): ${a.line}:${a.col}, yaml says ${b.line}:${b.col}`);
    }
  }
  return found;
}

/** Whether the index covers `text` (and agrees with its data at every pointer). */
function indexed(text: string): boolean {
  const data: unknown = jsYaml.load(text, { schema: FAST_SCHEMA }) ?? null;
  try {
    const index = PositionIndex.build(text);
    for (const pointer of pointers(data)) index.positionOf(pointer, 'value', data);
    return true;
  } catch (error) {
    if (error instanceof UnsupportedYaml) return false;
    throw error;
  }
}

describe('PositionIndex', () => {
  it.each([
    ['block mappings and sequences', 'name: x\nsteps:\n  - id: a\n    with:\n      run: echo\n  - id: b\n'],
    ['a sequence at its key’s indentation', 'a:\n- x\n- y: 1\n  z: 2\nb: 1\n'],
    ['compact nested sequences', '- - x\n  - y\n- - - z\n'],
    ['empty values', 'a:\nb: ~\nc:\n  -\n  - \n  - x\nd: ""\ne: \n'],
    [
      'comments everywhere',
      '# head\na: # after a key\n  # before the value\n  b: 1 # after\n\n# between\nc: [1, # in a flow\n  2]\n',
    ],
    ['a leading --- and a closing ...', '--- # doc\nname: x\n...\n# trailer\n'],
    [
      'flow collections',
      'a: [1, {b: c, d}, e: f, [g], "h": i, {j: [k, l]}]\nm: {n: , o: p, "q":r}\nu: []\nv: {}\n',
    ],
    ['flow over lines', 'a: [\n  one,\n  two # c\n  ,\n  {x: 1,\n   y: 2}\n]\nb: 1\n'],
    [
      'plain scalars over lines',
      'a: one\n  two\n\n  three\nb:\n  - four\n    five\nc:\n  - x: six\n      seven\n',
    ],
    ['quoted scalars over lines', 'a: "one\n  two \\" three"\nb: \'four\n  \'\' five\'\nc: "x"\n'],
    [
      'block scalars',
      'a: |\n  one\n\n  two\nb: >-\n    three\n  # a comment\nc: |2\n   four\nd:\n  - |\n    five\n  - x\ne: |+\n\nf: 1\n',
    ],
    ['quoted keys', '"a/b": 1\n\'t~x\': 2\n"esc\\u0041": 3\n"": 4\n\'it\'\'s\': 5\n'],
    ['keys the core schema reads as other types', '1: a\n0x1F: b\ntrue: c\n~: d\n-2: e\n.inf: f\n1.50: g\n'],
    [
      'multi-byte characters',
      'name: "日本語"\nsteps:\n  - id: café\n    with: { message: "😀 ${{ inputs.x }}", é: ü }\n  - 😀: 😀\n',
    ],
    [
      'CRLF line ends',
      'name: x\r\nsteps:\r\n  - id: a\r\n    run: |\r\n      echo\r\n    x: [1,\r\n      2]\r\n',
    ],
    ['tabs between tokens', 'a:\tb\nc: [1,\t2]\nd:\t# c\n  e: 1\nf:\n  -\tx\n'],
    ['a root scalar', 'just text\n  over lines\n'],
    ['a root sequence', '- a\n- b: c\n'],
    ['a root flow mapping', '{a: 1, b: [2]}\n'],
    ['only comments', '# nothing\n'],
    ['an empty text', ''],
    ['plain text with indicators inside', 'a: http://x:80/#frag\nb: x#y\nc: -1\nd: "a: b"\n'],
  ])('gives yaml’s positions: %s', (_what, text) => {
    expect(indexed(text), 'the index covers it').toBe(true);
    expect(differences(text)).toEqual([]);
  });

  it.each([
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a merge key', 'a:\n  <<: {b: 1}\n  c: 2\n'],
    ['an explicit key', '? a\n: 1\n'],
    ['a tab in indentation', 'a:\n  b:\n  \tc: 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
  ])('gives up on what it does not cover, and yaml answers instead: %s', (_what, text) => {
    expect(() => {
      const index = PositionIndex.build(text);
      const data: unknown = jsYaml.load(text);
      for (const pointer of pointers(data)) index.positionOf(pointer, 'value', data);
    }).toThrow(UnsupportedYaml);
    expect(differences(text)).toEqual([]);
  });

  it('gives up when the data has another shape than the text (the parsers disagree)', () => {
    const at = (data: unknown, pointer = '/a/0'): unknown =>
      PositionIndex.build('a:\n  - x\n').positionOf(pointer, 'value', data);
    expect(at({ a: ['x'] })).toEqual({ line: 2, col: 5 });
    expect(() => at({ a: 'x' })).toThrow(UnsupportedYaml);
    expect(() => at({ a: ['x', 'y'] })).toThrow(UnsupportedYaml);
    expect(() => at({ b: ['x'] }, '/a')).toThrow(UnsupportedYaml);
    expect(() => at({ a: ['x'], b: 1 }, '/a')).toThrow(UnsupportedYaml);
  });

  it('agrees with yaml on every YAML file of the repository', () => {
    const repo = join(import.meta.dirname, '..', '..');
    const files = ['playbooks', 'test/fixtures'].flatMap((folder) =>
      readdirSync(join(repo, folder), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(repo, folder, f)),
    );
    let covered = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (parseSource(file, text).diagnostics.length > 0) continue;
      if (indexed(text)) covered++;
      expect(differences(text), file).toEqual([]);
    }
    expect(covered).toBeGreaterThan(40);
  });

  // LB_FUZZ_RUNS and LB_FUZZ_SEED search further than the default.
  const runs = Number(process.env['LB_FUZZ_RUNS'] ?? 1500);
  const seed = Number(process.env['LB_FUZZ_SEED'] ?? 20_251_124);

  /** Compares every text the fast parser accepts; returns how many it compared and the index covered. */
  function compareAll(texts: Iterable<string>): { compared: number; covered: number } {
    let compared = 0;
    let covered = 0;
    for (const text of texts) {
      if (!fastParserAccepts(text)) continue; // the yaml parser reads it, positions and all
      compared++;
      if (indexed(text)) covered++;
      expect(differences(text), JSON.stringify(text)).toEqual([]);
    }
    return { compared, covered };
  }

  it('agrees with yaml on generated documents in every style yaml writes', () => {
    const random = seeded(seed);
    const texts = Array.from({ length: runs }, () =>
      variant(stringify(randomData(random, 0), randomOptions(random)), random),
    );
    const { compared, covered } = compareAll(texts);
    expect(compared).toBeGreaterThan(runs * 0.8);
    expect(covered / compared).toBeGreaterThan(0.95);
  });

  it('agrees with yaml on texts edited at random (what js-yaml accepts, yaml may not)', () => {
    const random = seeded(seed + 1);
    const texts = Array.from({ length: runs * 2 }, () => edited(pick(random, EDITED), random));
    const { compared, covered } = compareAll(texts);
    expect(compared).toBeGreaterThan(runs / 2);
    expect(covered / compared).toBeGreaterThan(0.5);
  });
});

describe('LineTable', () => {
  it('maps offsets to lines and columns, and gives a line’s text without its line end', () => {
    const lines = new LineTable('ab\r\ncd\n\nü');
    expect(lines.position(0)).toEqual({ line: 1, col: 1 });
    expect(lines.position(4)).toEqual({ line: 2, col: 1 });
    expect(lines.position(8)).toEqual({ line: 4, col: 1 });
    expect(lines.position(99)).toEqual({ line: 4, col: 2 });
    expect([1, 2, 3, 4, 5].map((line) => lines.lineText(line))).toEqual(['ab', 'cd', '', 'ü', undefined]);
  });
});

// --- generated documents -------------------------------------------------------------------------------

function fastParserAccepts(text: string): boolean {
  try {
    jsYaml.load(text, { schema: FAST_SCHEMA });
    return !/[&*][A-Za-z0-9_-]/.test(text); // anchors and aliases go to the yaml parser
  } catch (error) {
    if (error instanceof jsYaml.YAMLException) return false;
    throw error;
  }
}

type Random = () => number;

function seeded(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const KEYS = [
  'a',
  'id',
  'with',
  'run',
  'a b',
  'a/b',
  't~x',
  '1',
  '0x1F',
  'true',
  'é',
  '日本',
  '😀',
  'k: v',
  '#k',
  '- k',
  "it's",
  'say "x"',
  ' lead',
  'colon:',
  '[k]',
  'x'.repeat(30),
];
const STRINGS = [
  'x',
  'echo hi',
  '',
  ' ',
  'a: b',
  'a #b',
  '#c',
  '- d',
  '${{ inputs.n }}',
  'step ${{ steps.a.outputs.x }} of ${{ vars.v }}',
  'line one\nline two',
  'trailing\n',
  'tab\there',
  'quote " and \' both',
  'ünïcödé 😀',
  'null',
  'true',
  '12',
  'http://x:80/#f',
  'word '.repeat(20).trim(),
  '[x]',
  '{y}',
  '*z',
  '&w',
  '!t',
  '|',
  '>',
  '%p',
  '@q',
];

function randomData(random: Random, depth: number): unknown {
  const roll = random();
  if (depth < 4 && roll < 0.3) {
    const map: Record<string, unknown> = {};
    const size = Math.floor(random() * 4);
    for (let i = 0; i < size; i++) map[pick(random, KEYS)] = randomData(random, depth + 1);
    return map;
  }
  if (depth < 4 && roll < 0.5)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomData(random, depth + 1));
  if (roll < 0.85) return pick(random, STRINGS);
  return pick(random, [0, -1, 1.5, true, false, null]);
}

function randomOptions(random: Random): ToStringOptions {
  return {
    indent: pick(random, [2, 2, 4]),
    indentSeq: random() < 0.5,
    lineWidth: pick(random, [0, 16, 40, 80]),
    minContentWidth: pick(random, [0, 8, 20]),
    defaultStringType: pick(random, [
      'PLAIN',
      'PLAIN',
      'QUOTE_DOUBLE',
      'QUOTE_SINGLE',
      'BLOCK_LITERAL',
      'BLOCK_FOLDED',
    ] as const),
    defaultKeyType: pick(random, [null, null, 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'] as const),
    collectionStyle: pick(random, ['any', 'any', 'block', 'flow'] as const),
    flowCollectionPadding: random() < 0.5,
    nullStr: pick(random, ['null', '~', '']),
  };
}

/** The same document written differently: comments, blank lines, trailing spaces, CRLF, tabs, a leading ---. */
function variant(text: string, random: Random): string {
  let lines = text.split('\n');
  if (random() < 0.5) {
    lines = lines.flatMap((line) => {
      const indent = /^ */.exec(line)?.[0] ?? '';
      const r = random();
      if (r < 0.08) return [`${indent}# a comment`, line];
      if (r < 0.12) return [`${' '.repeat(Math.floor(random() * 8))}# a comment`, line];
      if (r < 0.16) return [' '.repeat(Math.floor(random() * 4)), line];
      if (r < 0.24 && line.trim() !== '' && !/[|>][-+0-9]*$/.test(line)) return [`${line} # trailing`];
      if (r < 0.28) return [`${line}  `];
      return [line];
    });
  }
  let out = lines.join('\n');
  if (random() < 0.15) out = out.replace(/: /g, ':\t');
  if (random() < 0.1) out = out.replace(/- /g, '-\t');
  if (random() < 0.15) out = `---\n${out}`;
  if (random() < 0.25) out = out.replace(/\n/g, '\r\n');
  return out;
}

/** Texts to edit: a playbook and the shapes of the cases above. */
const EDITED = [
  'name: x\nsteps:\n  - id: a\n    uses: core.log\n    with:\n      message: "hi ${{ inputs.x }}"\n      level: info\n  - id: b\n    with: { run: [a, b], env: {X: "1"} }\n    timeout: 5m\n',
  "a:\n- x\n- y: 1\n  z: |\n    text\n    more\nb: [1, 2, {c: d}]\nc: 'q'\n# end\n",
  '- - a\n  - b\n- k: v\n  l:\n    - m\n    -\n- "s"\n',
  '# head\na: # after a key\n  # before the value\n  b: 1 # after\n\n# between\nc: [1, # in a flow\n  2]\n',
  'a: [\n  one,\n  two # c\n  ,\n  {x: 1,\n   y: 2}\n]\nb: 1\n',
  'a: one\n  two\n\n  three\nb:\n  - four\n    five\nc:\n  - x: six\n      seven\n',
  'a: "one\n  two \\" three"\nb: \'four\n  \'\' five\'\nc: "x"\n',
  'a: |\n  one\n\n  two\nb: >-\n    three\n  # a comment\nc: |2\n   four\nd:\n  - |\n    five\n  - x\ne: |+\n\nf: 1\n',
  '"a/b": 1\n\'t~x\': 2\n"esc\\u0041": 3\n"": 4\n\'it\'\'s\': 5\n1: a\n0x1F: b\ntrue: c\n',
  'name: "日本語"\nsteps:\n  - id: café\n    with: { message: "😀 ${{ inputs.x }}", é: ü }\n  - 😀: 😀\n',
  'a:\n- x\n- y: 1\n  z: 2\nb: 1\nc:\n  -\n  - \n  - x\nd: ""\ne: \n',
];

const INSERTS = [
  ' ',
  '\n',
  '- ',
  ': ',
  '#',
  '  ',
  '\t',
  '"',
  "'",
  '[',
  ']',
  '{',
  '}',
  ',',
  'x',
  '|\n',
  '\n  ',
];

/** One to five characters' worth of edits: deletions, and insertions of what changes YAML's structure. */
function edited(text: string, random: Random): string {
  let out = text;
  const edits = 1 + Math.floor(random() * 5);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * out.length);
    out =
      random() < 0.3
        ? out.slice(0, at) + out.slice(at + 1)
        : out.slice(0, at) + pick(random, INSERTS) + out.slice(at);
  }
  return out;
}
