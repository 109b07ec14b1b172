/**
 * A command's output (a `log` event with a `stream`, from core.shell) for people: all of it when it is short, else
 * its first and last lines around a line that says how many were left out. `--json` keeps every line.
 */
export function foldedLines(text: string, max: number, left: (n: number) => string): string[] {
  const lines = text.split('\n');
  if (lines.length <= max) return lines;
  const head = Math.ceil(max / 4);
  const tail = max - head;
  return [...lines.slice(0, head), left(lines.length - max), ...lines.slice(lines.length - tail)];
}

/** Lines of output the plain reporter shows per command and stream; the summary shows more. */
export const PLAIN_OUTPUT_LINES = 20;
export const SUMMARY_OUTPUT_LINES = 200;

/** How many items of a fan-out have their output shown before the rest is left to --json and the summary. */
export const ITEMS_WITH_OUTPUT = 5;
