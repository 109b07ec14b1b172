/**
 * Text from playbooks, inputs, files and services, made safe to show on a terminal: control characters (ESC,
 * CR, backspace, C1 codes) and the invisible bidirectional overrides are shown as `\u001b`-style escapes, so a
 * value cannot recolour, retitle or clear the terminal, overwrite a line, or reorder what is read. Newlines and
 * tabs stay. JSON output needs none of this: JSON.stringify escapes control characters itself.
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
