/** ANSI styling, off when colour is off. */
export interface Style {
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function style(color: boolean): Style {
  if (!color) {
    const same = (text: string): string => text;
    return { ok: same, bad: same, warn: same, dim: same, bold: same };
  }
  return { ok: wrap(32, 39), bad: wrap(31, 39), warn: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
