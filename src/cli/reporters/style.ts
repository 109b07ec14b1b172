/**
 * Fan-outs of this many items or more show progress instead of every item's planned change (run mode): plain
 * output prints it at intervals, the terminal pins it above the items in flight.
 */
export const BIG_FANOUT = 20;

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

/** `120/500 · 38.5/s · ETA 12 s`: a fan-out's progress, with its rate and time left once they are known. */
export function progressText(event: { done: number; total: number; rate?: number; etaMs?: number }): string {
  const parts = [`${event.done}/${event.total}`];
  if (event.rate !== undefined) parts.push(`${event.rate}/s`);
  if (event.etaMs !== undefined && event.done < event.total) parts.push(`ETA ${duration(event.etaMs)}`);
  return parts.join(' · ');
}

/** `850 ms`, `12 s`, `4 min 05 s`, `2 h 03 min` */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * `recipients 200 · amount 9.93 · sent 200`: a step's `totals` output (a fan-out's counts and sums, such as a
 * distribution's), or undefined when it has none.
 */
export function totalsText(outputs: Record<string, unknown> | undefined): string | undefined {
  const totals = outputs?.['totals'];
  if (typeof totals !== 'object' || totals === null || Array.isArray(totals)) return undefined;
  const parts = Object.entries(totals as Record<string, unknown>)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`);
  return parts.length === 0 ? undefined : parts.join(' · ');
}
