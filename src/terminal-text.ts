/**
 * Text from playbooks, inputs, files and services, made safe to show on a terminal: control characters (ESC,
 * CR, backspace, C1 codes) and the invisible bidirectional overrides are shown as `\u001b`-style escapes, so a
 * value cannot recolour, retitle or clear the terminal, overwrite a line, or reorder what is read. Newlines and
 * tabs stay. JSON output needs none of this: JSON.stringify escapes control characters itself. Under GitHub
 * Actions, everything written is also made safe for the runner, which reads commands from a step's output
 * (workflowCommandEscaper, below).
 */
const UNSAFE_CHARS =
  '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';
const UNSAFE = new RegExp(UNSAFE_CHARS, 'g');
const HAS_UNSAFE = new RegExp(UNSAFE_CHARS);

const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** The value (an event) with every string terminal-safe: a copy where one needed it, else the value itself. */
export function terminalSafeDeep<T>(value: T): T {
  if (typeof value === 'string') return (HAS_UNSAFE.test(value) ? terminalSafe(value) : value) as T;
  if (Array.isArray(value)) {
    const safe = value.map((v: unknown) => terminalSafeDeep(v));
    return (safe.some((v, i) => v !== value[i]) ? safe : value) as T;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const safe = entries.map(([k, v]) => [k, terminalSafeDeep(v)] as const);
    return (safe.some(([, v], i) => v !== entries[i]?.[1]) ? Object.fromEntries(safe) : value) as T;
  }
  return value;
}

/**
 * Blanks a GitHub Actions runner trims before it looks for `::` at the start of a line (what .NET counts as white
 * space), and the byte-order mark.
 */
const RUNNER_BLANK = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * A GitHub Actions runner executes a line of a step's output (stdout or stderr) as a workflow command when, after
 * leading blanks, it starts with `::` (`::add-mask::`, `::error::`, `::set-output`, `::stop-commands::`), or when
 * it holds `##[` anywhere (the older form); an Azure Pipelines agent executes a line that holds `##vso[` anywhere (in
 * any letter case) as a logging command. The escaper this returns rewrites a text written in chunks (it keeps its
 * place in the line from one chunk to the next) so that no line is any of them: the second `:` of a leading `::`
 * is written `\u003a` and the `[` of `##[` or `##vso[` `\u005b` — escapes as terminalSafe writes control
 * characters, and JSON's own, so an NDJSON line stays the same JSON. Nothing else changes.
 */
export function workflowCommandEscaper(): (chunk: string) => string {
  /** only blanks since the line began */
  let leading = true;
  /** the last character was the line's first non-blank, a ':' */
  let leadColon = false;
  /** the line's last five characters: `##` or `##vso` before a `[` makes it a command */
  let recent = '';
  return (chunk) => {
    let out = '';
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i] as string;
      if (c === '\n' || c === '\r') {
        leading = true;
        leadColon = false;
        recent = '';
        continue;
      }
      const escape = (c === ':' && leadColon) || (c === '[' && /##(vso)?$/i.test(recent));
      if (escape) {
        out += `${chunk.slice(from, i)}\\u00${c === ':' ? '3a' : '5b'}`;
        from = i + 1;
      }
      if (leading && !escape && RUNNER_BLANK.test(c)) continue;
      leadColon = leading && c === ':' && !escape;
      leading = false;
      recent = (recent + (escape ? '' : c)).slice(-5);
    }
    return from === 0 ? chunk : out + chunk.slice(from);
  };
}

/** `text`, written whole, escaped as workflowCommandEscaper does. */
export function workflowCommandSafe(text: string): string {
  return workflowCommandEscaper()(text);
}
