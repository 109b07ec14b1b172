/**
 * Where `${{ secrets.NAME }}` values come from: a `--secrets-file`, the target's `secrets:` sources, or the
 * environment. Values stay in memory; nothing here ever puts a value into an error message.
 */
import { extname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';
import { DataFileError, readDataFile } from '../data-file.js';
import { FileArgumentError, ValidationError } from '../errors.js';
import type { Diagnostic } from '../diagnostics.js';

export interface SecretSources {
  /** `--secrets-file`, as the user gave it */
  file?: string | undefined;
  /** its entries, when the caller read it already (readSecretsFile) */
  fileEntries?: Record<string, string> | undefined;
  env: NodeJS.ProcessEnv;
  /** the target's `secrets:` block */
  declared?: Record<string, { env: string } | { file: string }> | undefined;
  /** directory of the target file: relative `file:` sources resolve against it */
  baseDir: string;
}

export interface ResolvedSecrets {
  values: Record<string, string>;
  /** each secret found nowhere, with the places looked at, in order (for the error message) */
  missing: Array<{ name: string; tried: string[] }>;
}

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Looks each name up in order: the secrets file, the target's declared source (an environment variable or a
 * file, trailing newlines trimmed), then the environment variable of the same name. An empty value counts as
 * missing: an empty password is a mistake, not a secret.
 */
export async function resolveSecrets(
  names: Iterable<string>,
  sources: SecretSources,
): Promise<ResolvedSecrets> {
  const fromFile =
    sources.file === undefined ? undefined : (sources.fileEntries ?? (await readSecretsFile(sources.file)));
  const values: Record<string, string> = {};
  const missing: ResolvedSecrets['missing'] = [];
  for (const name of new Set(names)) {
    const tried: string[] = [];
    const declared = sources.declared?.[name];
    // a target that declares `NAME: { env: NAME }` names the variable the last look-up reads: read it once
    const envDeclared = declared !== undefined && 'env' in declared && declared.env === name;
    const value =
      lookUpFile(name, fromFile, sources.file, tried) ??
      (await lookUpDeclared(name, sources, tried)) ??
      (envDeclared ? undefined : lookUpEnv(name, sources.env, tried, 'environment variable'));
    if (value === undefined) missing.push({ name, tried });
    else values[name] = value;
  }
  return { values, missing };
}

function lookUpFile(
  name: string,
  entries: Record<string, string> | undefined,
  file: string | undefined,
  tried: string[],
): string | undefined {
  if (entries === undefined || file === undefined) return undefined;
  const value = Object.hasOwn(entries, name) ? entries[name] : undefined;
  tried.push(`--secrets-file ${file}${value === '' ? ' (empty)' : ''}`);
  return value ? value : undefined;
}

function lookUpEnv(
  variable: string,
  env: NodeJS.ProcessEnv,
  tried: string[],
  label: string,
): string | undefined {
  const value = env[variable];
  tried.push(`${label} ${variable}${value === '' ? ' (empty)' : ''}`);
  return value ? value : undefined;
}

async function lookUpDeclared(
  name: string,
  sources: SecretSources,
  tried: string[],
): Promise<string | undefined> {
  const source = sources.declared?.[name];
  if (source === undefined) return undefined;
  if ('env' in source)
    return lookUpEnv(source.env, sources.env, tried, `target secrets.${name}: environment variable`);
  const path = resolve(sources.baseDir, source.file);
  let text: string;
  try {
    text = await readDataFile(path, MAX_SECRET_FILE_BYTES, { pipes: true, secret: true });
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    tried.push(
      `target secrets.${name}: file ${path} (${error.code === 'ENOENT' ? 'not found' : error.message})`,
    );
    return undefined;
  }
  const value = text.replace(/[\r\n]+$/, '');
  tried.push(`target secrets.${name}: file ${path}${value === '' ? ' (empty)' : ''}`);
  return value ? value : undefined;
}

/** A secrets file holds a few names and values; a larger one is the wrong file. */
const MAX_SECRET_FILE_BYTES = 1024 * 1024;

/**
 * Reads a secrets file: a YAML mapping of names to strings when it ends in `.yaml`/`.yml`, otherwise dotenv
 * lines (`NAME=value`, `# comments`, optional `export ` prefix, optional single or double quotes). Every
 * problem is reported with its line, never with the text of the line.
 */
export async function readSecretsFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readDataFile(path, MAX_SECRET_FILE_BYTES, { pipes: true, secret: true });
  } catch (error) {
    if (!(error instanceof DataFileError)) throw error;
    const where = error.line === undefined ? '' : `:${error.line}:${error.col ?? 1}`;
    throw new FileArgumentError(
      `cannot read the secrets file ${path}${where}: ${error.message}`,
      error.code === 'ENOENT'
        ? 'check the path given to --secrets-file'
        : (error.hint ?? 'check the permissions of the file'),
    );
  }
  const ext = extname(path).toLowerCase();
  const { values, problems } =
    ext === '.yaml' || ext === '.yml' ? parseYaml(text, path) : parseDotenv(text, path);
  if (problems.length > 0) throw new ValidationError('LB_INPUT_INVALID', problems);
  return values;
}

interface Parsed {
  values: Record<string, string>;
  problems: Diagnostic[];
}

function problem(
  file: string,
  line: number,
  col: number,
  pointer: string,
  message: string,
  hint?: string,
): Diagnostic {
  return { file, line, col, pointer, message, hint, rule: 'secrets-file' };
}

const DOTENV_HINT = 'write one `NAME=value` per line; quote values that contain spaces or #';

function parseDotenv(text: string, file: string): Parsed {
  const values: Record<string, string> = {};
  const problems: Diagnostic[] = [];
  const definedAt = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const indent = raw.length - raw.trimStart().length;
    let rest = raw.trim();
    if (rest === '' || rest.startsWith('#')) return;
    let col = indent + 1;
    const exported = /^export\s+/.exec(rest);
    if (exported) {
      rest = rest.slice(exported[0].length);
      col += exported[0].length;
    }
    const eq = rest.indexOf('=');
    const name = (eq < 0 ? rest : rest.slice(0, eq)).trimEnd();
    if (eq < 0 || !NAME_PATTERN.test(name)) {
      problems.push(
        problem(
          file,
          line,
          col,
          '',
          eq < 0 ? 'not a `NAME=value` line' : 'not a valid secret name before `=`',
          eq < 0 ? DOTENV_HINT : 'names are letters, digits and _, not starting with a digit',
        ),
      );
      return;
    }
    const parsed = parseDotenvValue(rest.slice(eq + 1).trim());
    if ('error' in parsed) {
      problems.push(
        problem(file, line, col, `/${name}`, `the value of ${name} ${parsed.error}`, DOTENV_HINT),
      );
      return;
    }
    const earlier = definedAt.get(name);
    if (earlier !== undefined) {
      problems.push(
        problem(
          file,
          line,
          col,
          `/${name}`,
          `${name} is defined twice (lines ${earlier} and ${line})`,
          'keep one',
        ),
      );
      return;
    }
    definedAt.set(name, line);
    values[name] = parsed.value;
  });
  return { values, problems };
}

/** The value after `=`, unquoted, or what is wrong with it (never quoting it). */
function parseDotenvValue(raw: string): { value: string } | { error: string } {
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    const close = findClosingQuote(raw, quote);
    if (close < 0) return { error: 'has an unterminated quote (values span one line)' };
    const trailing = raw.slice(close + 1).trim();
    if (trailing !== '' && !trailing.startsWith('#')) return { error: 'has text after its closing quote' };
    const inner = raw.slice(1, close);
    return { value: quote === "'" ? inner : unescapeDoubleQuoted(inner) };
  }
  // Unquoted: a ` #` starts a comment.
  const comment = /\s#/.exec(raw);
  return { value: (comment ? raw.slice(0, comment.index) : raw).trimEnd() };
}

function findClosingQuote(raw: string, quote: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (quote === '"' && raw[i] === '\\') {
      i++;
      continue;
    }
    if (raw[i] === quote) return i;
  }
  return -1;
}

function unescapeDoubleQuoted(inner: string): string {
  return inner.replace(/\\(.)/g, (_, ch: string) => {
    if (ch === 'n') return '\n';
    if (ch === 'r') return '\r';
    if (ch === 't') return '\t';
    return ch;
  });
}

function parseYaml(text: string, file: string): Parsed {
  const values: Record<string, string> = {};
  const problems: Diagnostic[] = [];
  // loaded here: only a YAML secrets file needs it
  const yaml = createRequire(import.meta.url)('yaml') as typeof YamlModule;
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined): { line: number; col: number } =>
    offset === undefined ? { line: 1, col: 1 } : lineCounter.linePos(offset);
  // The parser's own messages may quote the offending text (a secret): report its code and position only.
  for (const error of doc.errors) {
    const { line, col } = at(error.pos[0]);
    problems.push(
      problem(file, line, col, '', `not valid YAML (${error.code})`, 'write a mapping of NAME: "value"'),
    );
  }
  if (problems.length > 0) return { values, problems };
  const root = doc.contents;
  if (root === null || (yaml.isScalar(root) && root.value === null)) return { values, problems };
  if (!yaml.isMap(root)) {
    const { line, col } = at(root.range?.[0]);
    problems.push(
      problem(
        file,
        line,
        col,
        '',
        'the file is not a mapping of names to values',
        'write NAME: "value" lines',
      ),
    );
    return { values, problems };
  }
  for (const pair of root.items) {
    const keyNode = pair.key;
    const position = at(yaml.isScalar(keyNode) ? keyNode.range?.[0] : undefined);
    const name = yaml.isScalar(keyNode) && typeof keyNode.value === 'string' ? keyNode.value : undefined;
    if (name === '<<' && yaml.isScalar(keyNode) && keyNode.type === 'PLAIN') {
      // playbooks and targets merge `<<` (src/validation/load.ts); a secrets file is flat NAME: value lines
      problems.push(
        problem(
          file,
          position.line,
          position.col,
          '',
          'a merge key (`<<`) has no place in a secrets file',
          'write each NAME: "value" once, at the top level',
        ),
      );
      continue;
    }
    if (name === undefined || !NAME_PATTERN.test(name)) {
      problems.push(
        problem(
          file,
          position.line,
          position.col,
          '',
          'not a valid secret name',
          'names are letters, digits and _, not starting with a digit',
        ),
      );
      continue;
    }
    const valueNode = pair.value;
    if (!yaml.isScalar(valueNode) || typeof valueNode.value !== 'string') {
      const where = yaml.isScalar(valueNode) && valueNode.range ? at(valueNode.range[0]) : position;
      const absent = valueNode === null || (yaml.isScalar(valueNode) && valueNode.value === null);
      problems.push(
        problem(
          file,
          where.line,
          where.col,
          `/${name}`,
          absent ? `${name} has no value` : `the value of ${name} is not a string`,
          'quote the value: NAME: "value"',
        ),
      );
      continue;
    }
    values[name] = valueNode.value;
  }
  return { values, problems };
}
