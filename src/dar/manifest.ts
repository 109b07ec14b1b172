/**
 * The JAR manifest (`META-INF/MANIFEST.MF`) of a DAR: `Key: value` lines of at most 72 bytes, a longer value
 * continued on lines that start with exactly one space. Sections after the first blank line are ignored (a DAR
 * has only the main section).
 */

export interface ManifestProblem {
  line: number;
  message: string;
}

export type ManifestResult =
  { ok: true; fields: Map<string, string> } | { ok: false; problem: ManifestProblem };

export function parseManifest(text: string): ManifestResult {
  const fields = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let lastKey: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const lineNumber = index + 1;
    if (line === '') {
      if (fields.size > 0) break;
      continue;
    }
    if (line.startsWith(' ')) {
      if (lastKey === undefined) {
        return {
          ok: false,
          problem: { line: lineNumber, message: 'continuation line without a preceding field' },
        };
      }
      fields.set(lastKey, (fields.get(lastKey) ?? '') + line.slice(1));
      continue;
    }
    const colon = line.indexOf(': ');
    if (colon <= 0) {
      return {
        ok: false,
        problem: { line: lineNumber, message: `expected "Name: value", got "${truncate(line)}"` },
      };
    }
    lastKey = line.slice(0, colon);
    fields.set(lastKey, line.slice(colon + 2));
  }
  return { ok: true, fields };
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
