/**
 * A `core.shell` script with `${{ … }}` expressions turned into environment variables, so that no value — an
 * input, an output, a secret — can change the command (DESIGN principle 9). Each expression becomes
 * `LB_EXPR_<n>` in the child's environment and a reference to it in the script, written for the quoting
 * context the expression stands in:
 *
 * | context                          | written as            |
 * | -------------------------------- | --------------------- |
 * | unquoted, `$( … )`, backticks    | `"${LB_EXPR_1}"`      |
 * | inside double quotes, a heredoc  | `${LB_EXPR_1}`        |
 * | inside single quotes             | `'"${LB_EXPR_1}"'`    |
 *
 * The shell expands a variable without parsing its value again, so quotes, `;`, `$()`, backticks, `&&` and
 * newlines in a value stay data. The script text itself (what the playbook wrote) is the only code.
 */
import { parseTemplate } from '../../playbook/expressions/index.js';
import { StepError } from '../../errors.js';

export const EXPRESSION_VARIABLE_PREFIX = 'LB_EXPR_';

export interface SafeScript {
  /** the script, each expression replaced by a reference to its variable */
  script: string;
  /** the variables, by name, with each expression's value as text */
  env: Record<string, string>;
}

type Context =
  | { kind: 'plain' }
  | { kind: 'single' }
  | { kind: 'double' }
  | { kind: 'backtick' }
  | { kind: 'subshell'; depth: number }
  | { kind: 'heredoc'; delimiter: string; expands: boolean; stripTabs: boolean; atLineStart: boolean };

interface PendingHeredoc {
  delimiter: string;
  expands: boolean;
  stripTabs: boolean;
}

/** Tracks the shell's quoting context over the literal text of a script, a piece at a time. */
class QuotingScanner {
  private readonly stack: Context[] = [{ kind: 'plain' }];
  private pending: PendingHeredoc[] = [];
  private line = '';
  /** the character before the current one in code, to tell a comment's `#` from one inside a word */
  private previous = '\n';

  get context(): Context {
    return this.stack[this.stack.length - 1] ?? { kind: 'plain' };
  }

  scan(text: string): void {
    for (let i = 0; i < text.length; i++) i = this.step(text, i);
  }

  /** Consumes the character at `i` (and any it escapes); returns the index of the last one consumed. */
  private step(text: string, i: number): number {
    const c = text[i] ?? '';
    const next = text[i + 1];
    const top = this.context;
    switch (top.kind) {
      case 'single':
        if (c === "'") this.stack.pop();
        return i;
      case 'heredoc':
        return this.heredocChar(top, text, i);
      case 'double':
        if (c === '\\') return i + 1;
        if (c === '"') this.stack.pop();
        else if (c === '$' && next === '(') {
          this.stack.push({ kind: 'subshell', depth: 0 });
          return i + 1;
        } else if (c === '`') this.stack.push({ kind: 'backtick' });
        return i;
      default:
        return this.codeChar(top, text, i);
    }
  }

  private codeChar(top: Context, text: string, i: number): number {
    const c = text[i] ?? '';
    const next = text[i + 1];
    const previous = this.previous;
    this.previous = c;
    if (c === '#' && /[\s;&|()]/.test(previous)) {
      // a comment: nothing in it opens a quote, up to the end of the line
      const end = text.indexOf('\n', i);
      if (end < 0) {
        this.previous = '#';
        return text.length - 1;
      }
      return end - 1;
    }
    if (c === '\\') return i + 1;
    if (c === "'") this.stack.push({ kind: 'single' });
    else if (c === '"') this.stack.push({ kind: 'double' });
    else if (c === '$' && next === '(') {
      this.stack.push({ kind: 'subshell', depth: 0 });
      return i + 1;
    } else if (c === '`') {
      if (top.kind === 'backtick') this.stack.pop();
      else this.stack.push({ kind: 'backtick' });
    } else if (top.kind === 'subshell' && c === '(') top.depth++;
    else if (top.kind === 'subshell' && c === ')') {
      if (top.depth === 0) this.stack.pop();
      else top.depth--;
    } else if (c === '<' && next === '<' && text[i + 2] !== '<') {
      return this.heredocStart(text, i + 2);
    } else if (c === '\n' && this.pending.length > 0) {
      const first = this.pending.shift();
      if (first) this.stack.push({ kind: 'heredoc', ...first, atLineStart: true });
      this.line = '';
    }
    return i;
  }

  /** `<<[-] WORD`: the body starts after the end of this line; a quoted WORD turns expansion off. */
  private heredocStart(text: string, from: number): number {
    let i = from;
    const stripTabs = text[i] === '-';
    if (stripTabs) i++;
    while (text[i] === ' ' || text[i] === '\t') i++;
    let delimiter = '';
    let quoted = false;
    while (i < text.length && !/[\s;&|<>()]/.test(text[i] ?? '')) {
      const c = text[i] ?? '';
      if (c === "'" || c === '"') {
        quoted = true;
        const end = text.indexOf(c, i + 1);
        const stop = end < 0 ? text.length : end;
        delimiter += text.slice(i + 1, stop);
        i = stop + 1;
        continue;
      }
      if (c === '\\') {
        quoted = true;
        delimiter += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      delimiter += c;
      i++;
    }
    if (delimiter !== '') this.pending.push({ delimiter, expands: !quoted, stripTabs });
    return i - 1;
  }

  private heredocChar(top: Extract<Context, { kind: 'heredoc' }>, text: string, i: number): number {
    const c = text[i] ?? '';
    if (c === '\n') {
      const line = top.stripTabs ? this.line.replace(/^\t+/, '') : this.line;
      this.line = '';
      if (line === top.delimiter) {
        this.stack.pop();
        const nextDoc = this.pending.shift();
        if (nextDoc) this.stack.push({ kind: 'heredoc', ...nextDoc, atLineStart: true });
      }
      return i;
    }
    this.line += c;
    if (top.expands && c === '\\') {
      this.line += text[i + 1] ?? '';
      return i + 1;
    }
    return i;
  }

  /** An expression stands here: its text counts as part of the current heredoc line, if any. */
  noteValue(): void {
    this.line += '\u0000';
  }
}

function reference(name: string, context: Context, where: string): string {
  switch (context.kind) {
    case 'single':
      return `'"\${${name}}"'`;
    case 'double':
      return `\${${name}}`;
    case 'heredoc':
      if (!context.expands)
        throw new StepError(
          `${where}: an expression inside a quoted heredoc (<<'${context.delimiter}') cannot be passed to the shell safely`,
          {
            hint: `unquote the heredoc delimiter (<<${context.delimiter}) so the shell expands the value, or pass it through \`env:\``,
          },
        );
      return `\${${name}}`;
    default:
      return `"\${${name}}"`;
  }
}

/**
 * `template` (a script as written in the playbook) with each expression replaced by a variable reference;
 * `valueOf` gives an expression's value as text (it is called with the expression's own `${{ … }}` text).
 * Variables are numbered from `first`, so that `run` and `unless` of one step can share an environment.
 */
export function safeScript(
  template: string,
  valueOf: (expression: string) => string,
  where: string,
  first = 1,
): SafeScript {
  const parsed = parseTemplate(template);
  const scanner = new QuotingScanner();
  const env: Record<string, string> = {};
  let script = '';
  let from = 0;
  let n = first;
  for (const part of parsed.parts) {
    const literal = template.slice(from, part.start);
    scanner.scan(literal);
    const name = `${EXPRESSION_VARIABLE_PREFIX}${n++}`;
    script += literal + reference(name, scanner.context, where);
    scanner.noteValue();
    env[name] = valueOf(template.slice(part.start, part.end));
    from = part.end;
  }
  return { script: script + template.slice(from), env };
}
