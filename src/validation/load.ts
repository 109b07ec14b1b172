/**
 * YAML files with source positions: the plain data of a document, and where any JSON pointer in it starts, so
 * that every finding can say `file:line:col`.
 */
import { createRequire } from 'node:module';
import jsYaml from 'js-yaml';
import type * as YamlModule from 'yaml';
import type { Document, LineCounter, Node, YAMLError } from 'yaml';
import { DataFileError, readDataBytesSync } from '../data-file.js';
import { ValidationError } from '../errors.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics.js';
import type { Position, SourceDoc } from '../playbook/model.js';
import { decodeUtf8, structureProblems } from '../input-limits.js';
import { childPointer, parsePointer } from '../playbook/pointer.js';
import { PositionIndex, UnsupportedYaml } from './position-index.js';

type Code = 'LB_PLAYBOOK_INVALID' | 'LB_TARGET_INVALID' | 'LB_INPUT_INVALID';

/**
 * js-yaml with the YAML 1.2 core schema plus merge keys: the same data as `yaml` below for every document both
 * accept, about ten times faster, but without source positions. The merge type must be an implicit one (a plain
 * `<<` resolves to it): added as an explicit type it applied only to `!!merge <<`, so a `<<` key of a file
 * without anchors (`<<: {uses: core.shell}`) reached validation as a key of its own.
 */
export const FAST_SCHEMA = jsYaml.CORE_SCHEMA.extend({
  // js-yaml exports its types, but its type declarations do not list them
  implicit: [(jsYaml as typeof jsYaml & { types: { merge: jsYaml.Type } }).types.merge],
});

/**
 * The `yaml` package, loaded the first time positions are needed: a well-formed file that validates never
 * pays for parsing it.
 */
let yamlPackage: typeof YamlModule | undefined;
function yaml(): typeof YamlModule {
  return (yamlPackage ??= createRequire(import.meta.url)('yaml') as typeof YamlModule);
}

/** Anchors and aliases: `yaml` bounds how far aliases expand (alias bombs), js-yaml does not. */
const ALIAS_OR_ANCHOR = /[&*][A-Za-z0-9_-]/;

/**
 * Parse YAML text. The document's data is `null` when the text has a YAML error (every error is reported).
 *
 * Positions are only needed when there is something to report, so a well-formed file is read by the fast
 * parser, and mapped to positions only on the first `positionOf` call (position-index.ts, or the `yaml` parser,
 * which keeps them, for what the index does not cover). Anything the fast parser refuses goes straight to
 * `yaml`, whose diagnostics say exactly where and why.
 */
export function parseSource(file: string, text: string): { doc: SourceDoc; diagnostics: Diagnostic[] } {
  const limits = structureProblems(file, text);
  if (limits.length > 0) return { doc: unparsed(file, text), diagnostics: limits };
  if (ALIAS_OR_ANCHOR.test(text)) return parseWithPositions(file, text);
  let data: unknown;
  try {
    data = jsYaml.load(text, { schema: FAST_SCHEMA, filename: file }) ?? null;
  } catch (error) {
    if (!(error instanceof jsYaml.YAMLException)) throw error;
    return parseWithPositions(file, text);
  }
  const doc: SourceDoc = { file, text, data, positionOf: indexedPositions(file, text, data) };
  return { doc, diagnostics: [] };
}

/**
 * Positions for a document the fast parser read: from a position index built by one pass over the text on the
 * first call; from the `yaml` Document when the text uses what the index does not cover.
 */
function indexedPositions(file: string, text: string, data: unknown): SourceDoc['positionOf'] {
  let index: PositionIndex | undefined;
  let located: SourceDoc | undefined;
  return (pointer, which = 'value') => {
    if (!located) {
      try {
        index ??= PositionIndex.build(text);
        return index.positionOf(pointer, which, data);
      } catch (error) {
        if (!(error instanceof UnsupportedYaml)) throw error;
        index = undefined;
        located = parseWithPositions(file, text).doc;
      }
    }
    return located.positionOf(pointer, which);
  };
}

/** The `yaml` parser: YAML diagnostics with positions, and a document that maps pointers to positions. */
export function parseWithPositions(
  file: string,
  text: string,
): { doc: SourceDoc; diagnostics: Diagnostic[] } {
  const lineCounter = new (yaml().LineCounter)();
  const document = yaml().parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    uniqueKeys: true,
  });
  const located = new LocatedDocument(file, text, document, lineCounter);
  // After the first syntax error, yaml's recovery guesses and reports more errors that are mostly echoes of the
  // first: report that one, and the problems that stand on their own (duplicate keys, warnings such as tags).
  const syntax = document.errors.filter((error) => !POINTED.has(error.code)).slice(0, 1);
  const standalone = [...document.errors.filter((error) => POINTED.has(error.code)), ...document.warnings];
  const diagnostics = [...syntax, ...standalone].map((error) => located.yamlDiagnostic(error));
  diagnostics.push(...located.unresolvedAliases());
  if (diagnostics.length === 0) diagnostics.push(...located.badMerges());
  let data: unknown = null;
  if (diagnostics.length === 0) {
    try {
      data = document.toJS();
    } catch (error) {
      // toJS refuses alias bombs (too many aliases) with a ReferenceError; anything else is a bug.
      if (!(error instanceof ReferenceError)) throw error;
      const firstAlias = /(^|[\s[{,:])\*[A-Za-z0-9_-]/m.exec(text);
      const offset = firstAlias ? firstAlias.index + (firstAlias[1] ?? '').length : 0;
      diagnostics.push(
        located.diagnostic(
          offset,
          'the aliases of this file expand to too many nodes (an alias bomb): it was not expanded',
          'write the repeated blocks out, or reuse fewer of them',
        ),
      );
    }
  }
  const doc: SourceDoc = {
    file,
    text,
    data,
    positionOf: (pointer, which = 'value') => located.positionOf(pointer, which),
  };
  return { doc, diagnostics: diagnostics.sort(compareDiagnostics) };
}

/** The largest playbook or target read (a 10,000-step playbook is about 3 MiB). */
export const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

/**
 * Read and parse a YAML file. A file that cannot be read throws a ValidationError (code `code`) with one
 * diagnostic at 1:1 saying why.
 */
export function readSource(
  file: string,
  code: Code = 'LB_PLAYBOOK_INVALID',
): { doc: SourceDoc; diagnostics: Diagnostic[] } {
  let bytes: Buffer;
  try {
    // read synchronously: nothing else runs while a command reads its playbook or target, and the promise API
    // of `fs` would load `fs/promises` (with readline and the watchers) into every `validate` for this one read
    bytes = readDataBytesSync(file, MAX_SOURCE_BYTES, { pipes: true });
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    throw new ValidationError(code, [unreadable(file, error, code)]);
  }
  const decoded = decodeUtf8(file, bytes);
  if (decoded.diagnostics.length > 0) return { doc: unparsed(file, ''), diagnostics: decoded.diagnostics };
  return parseSource(file, decoded.text);
}

/** A document that could not be parsed: no data, every pointer at 1:1. */
function unparsed(file: string, text: string): SourceDoc {
  return { file, text, data: null, positionOf: () => ({ line: 1, col: 1 }) };
}

/** A file named on the command line that cannot be read: exit 65, like every such file (src/cli/files.ts). */
function unreadable(file: string, error: DataFileError, code: Code): Diagnostic {
  const missing =
    code === 'LB_TARGET_INVALID'
      ? 'check the path (relative paths start from the current directory); `--target sandbox` is the built-in sandbox'
      : 'check the path (relative paths start from the current directory)';
  return {
    file,
    line: 1,
    col: 1,
    pointer: '',
    message: `cannot read the file: ${error.message}`,
    hint: error.code === 'ENOENT' ? missing : error.hint,
    rule: 'file',
  };
}

/** YAML problems found on a well-formed node, whose pointer means something. */
const POINTED: ReadonlySet<string> = new Set(['DUPLICATE_KEY', 'TAG_RESOLVE_FAILED']);

const YAML_HINTS: Partial<Record<string, string>> = {
  TAB_AS_INDENT: 'YAML indents with spaces only: replace the tab with spaces',
  DUPLICATE_KEY: 'remove one of the two, or merge them',
  MULTIPLE_DOCS: 'one document per file: remove the `---` line or split the file',
  TAG_RESOLVE_FAILED: 'ledgerbook files use no YAML tags: remove it',
  BAD_INDENT: 'check the indentation: items of one block start in the same column',
  MISSING_CHAR: 'close the quote or bracket that was opened',
};

class LocatedDocument {
  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly document: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  position(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(Math.max(0, Math.min(offset, this.text.length)));
    return { line, col };
  }

  diagnostic(offset: number, message: string, hint?: string): Diagnostic {
    return {
      file: this.file,
      ...this.position(offset),
      pointer: this.pointerAt(offset),
      message,
      hint,
      rule: 'yaml',
    };
  }

  yamlDiagnostic(error: YAMLError): Diagnostic {
    const offset = error.pos[0];
    if (error.code === 'MISSING_CHAR' && /quote/.test(error.message)) {
      // yaml reports an unclosed quote where the text ends; the opening quote is where to look.
      const start = this.unclosedQuoteBefore(offset);
      if (start !== undefined)
        return this.diagnostic(start, 'this string has no closing quote', YAML_HINTS[error.code]);
    }
    const flow = /^Flow (sequence|map) .* end with a ([\]}])/.exec(error.message);
    if (flow) {
      const start = this.unclosedFlowBefore(offset, flow[2] as ']' | '}');
      if (start !== undefined) {
        const what = flow[1] === 'sequence' ? 'this [ list' : 'this { mapping';
        return this.diagnostic(
          start,
          `${what} has no closing ${flow[2] as string}`,
          `close it with ${flow[2] as string}`,
        );
      }
    }
    const message = this.yamlMessage(error, offset);
    // After a syntax error the tree is a guess: only problems tied to a well-formed node get a pointer.
    const diagnostic = this.diagnostic(offset, message, YAML_HINTS[error.code]);
    return POINTED.has(error.code) ? diagnostic : { ...diagnostic, pointer: '' };
  }

  private unclosedFlowBefore(offset: number, close: ']' | '}'): number | undefined {
    let start: number | undefined;
    const check = (node: { flow?: boolean; range?: [number, number, number] | null }): void => {
      const range = node.range;
      if (!node.flow || !range || range[0] >= offset || range[1] > offset) return;
      if (this.text.slice(range[0], range[1]).trimEnd().endsWith(close)) return;
      if (start === undefined || range[0] > start) start = range[0];
    };
    yaml().visit(this.document, { Seq: (_key, seq) => check(seq), Map: (_key, map) => check(map) });
    return start;
  }

  private unclosedQuoteBefore(offset: number): number | undefined {
    let start: number | undefined;
    yaml().visit(this.document, {
      Scalar: (_key, scalar) => {
        const range = scalar.range;
        const quoted = scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE';
        if (quoted && range && range[0] < offset && offset <= range[1]) start = range[0];
      },
    });
    return start;
  }

  private yamlMessage(error: YAMLError, offset: number): string {
    switch (error.code) {
      case 'DUPLICATE_KEY': {
        const key = this.keyAt(offset);
        return key === undefined
          ? 'duplicate key: keys of a mapping must be unique'
          : `duplicate key '${key}'`;
      }
      case 'TAB_AS_INDENT':
        return 'tab character used for indentation';
      case 'MULTIPLE_DOCS':
        return 'more than one YAML document in the file';
      case 'TAG_RESOLVE_FAILED':
        return `unknown YAML tag '${this.text.slice(error.pos[0], error.pos[1])}'`;
      default: {
        // yaml's own wording is precise; make it one sentence in our style.
        const message = error.message.split('\n')[0] ?? error.message;
        return (message.charAt(0).toLowerCase() + message.slice(1)).replace(/[.:]\s*$/, '');
      }
    }
  }

  /** Aliases that name no anchor (yaml reports them only when converting). */
  unresolvedAliases(): Diagnostic[] {
    const found: Diagnostic[] = [];
    yaml().visit(this.document, {
      Alias: (_key, alias) => {
        if (alias.resolve(this.document) === undefined) {
          found.push(
            this.diagnostic(
              alias.range?.[0] ?? 0,
              `alias '*${alias.source}' refers to no anchor`,
              `define '&${alias.source}' before this line`,
            ),
          );
        }
      },
    });
    return found;
  }

  /**
   * Merge keys whose value is not a mapping or a list of mappings (`<<: 1`): yaml would throw converting them,
   * js-yaml refuses them with its own words.
   */
  badMerges(): Diagnostic[] {
    const found: Diagnostic[] = [];
    yaml().visit(this.document, {
      Pair: (_key, pair) => {
        if (!isMergeKey(pair.key)) return;
        const value = this.deref(pair.value);
        const mergeable =
          yaml().isMap(value) ||
          (yaml().isSeq(value) && value.items.every((item) => yaml().isMap(this.deref(item))));
        if (mergeable) return;
        found.push(
          this.diagnostic(
            (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node).range?.[0] ?? 0,
            '`<<` (a merge key) merges a mapping or a list of mappings, not anything else',
            'write `<<: *base` with `&base` on a mapping, `<<: { key: value }`, or `<<: [*a, *b]`; or quote "<<" for a key of that name',
          ),
        );
      },
    });
    return found;
  }

  private keyAt(offset: number): string | undefined {
    let key: string | undefined;
    yaml().visit(this.document, {
      Pair: (_key, pair) => {
        if (yaml().isScalar(pair.key) && pair.key.range?.[0] === offset) {
          key = String(pair.key.value);
          return yaml().visit.BREAK;
        }
        return undefined;
      },
    });
    return key;
  }

  /** The pointer of the innermost node that contains `offset`. */
  pointerAt(offset: number): string {
    let pointer = '';
    let node: unknown = this.document.contents;
    for (;;) {
      if (yaml().isMap(node)) {
        const pair = node.items.find((p) => {
          const start = (p.key as Node | null)?.range?.[0];
          const end = (p.value as Node | null)?.range?.[2] ?? (p.key as Node | null)?.range?.[2];
          return start !== undefined && end !== undefined && start <= offset && offset < end;
        });
        if (!pair || !yaml().isScalar(pair.key)) return pointer;
        pointer = childPointer(pointer, isMergeKey(pair.key) ? '<<' : String(pair.key.value));
        node = pair.value;
      } else if (yaml().isSeq(node)) {
        const index = node.items.findIndex((item) => {
          const range = (item as Node | null)?.range;
          return range !== undefined && range !== null && range[0] <= offset && offset < range[2];
        });
        if (index < 0) return pointer;
        pointer = childPointer(pointer, index);
        node = node.items[index];
      } else {
        return pointer;
      }
    }
  }

  positionOf(pointer: string, which: 'key' | 'value'): Position {
    let node: unknown = this.document.contents;
    let keyNode: Node | undefined;
    let complete = true;
    for (const segment of parsePointer(pointer)) {
      const container = this.deref(node);
      let next: { key: Node | undefined; value: unknown } | undefined;
      if (yaml().isMap(container)) {
        const pair = this.findPair(container, segment);
        if (pair) next = { key: pair.key as Node, value: pair.value };
      } else if (yaml().isSeq(container) && /^(0|[1-9]\d*)$/.test(segment)) {
        const index = Number(segment);
        if (index < container.items.length) next = { key: undefined, value: container.items[index] };
      }
      if (!next) {
        complete = false;
        break;
      }
      keyNode = next.key;
      node = next.value;
    }
    const range = (node as Node | null | undefined)?.range;
    // `key:` with nothing after it has an empty value node just after the colon: the key is the place to show.
    const valueStart = range && range[0] !== range[2] ? range[0] : undefined;
    const keyStart = keyNode?.range?.[0];
    const preferKey = which === 'key' || !complete;
    const offset = preferKey ? (keyStart ?? valueStart) : (valueStart ?? keyStart);
    return this.position(offset ?? 0);
  }

  private deref(node: unknown): unknown {
    let current = node;
    for (let hops = 0; yaml().isAlias(current) && hops < 100; hops++)
      current = current.resolve(this.document);
    return current;
  }

  /** The pair for `key`, looking through `<<` merge keys as the merged data does. */
  private findPair(map: unknown, key: string, depth = 0): { key: unknown; value: unknown } | undefined {
    if (!yaml().isMap(map) || depth > 20) return undefined;
    const direct = map.items.find(
      (pair) => !isMergeKey(pair.key) && yaml().isScalar(pair.key) && String(pair.key.value) === key,
    );
    if (direct) return direct;
    for (const pair of map.items) {
      if (!yaml().isPair(pair) || !isMergeKey(pair.key)) continue;
      const sources = this.deref(pair.value);
      const list = yaml().isSeq(sources) ? sources.items : [sources];
      for (const source of list) {
        const found = this.findPair(this.deref(source), key, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  }
}

/** With `merge: true`, yaml gives a `<<` key a symbol value. */
function isMergeKey(key: unknown): boolean {
  return yaml().isScalar(key) && typeof key.value === 'symbol';
}
