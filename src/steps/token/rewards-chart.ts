/**
 * The daily-rewards chart of rewards.report, as a standalone SVG: grouped bars of the total and the client
 * reward per day, labelled axes with round ticks, dates under the bars (thinned when there are many; the first,
 * the last and the days with figures first), a legend, a title saying whose rewards and which dates, and days
 * without figures marked "no data". 720 × 360 by default, so it reads as is in a pull-request comment. Pure: the same figures always give the same text.
 */

export interface ChartDay {
  date: string;
  /** decimal strings, or null when the service has no figure for the day */
  total: string | null;
  client: string | null;
}

export interface ChartOptions {
  title: string;
  subtitle?: string;
  width?: number;
  height?: number;
}

const COLORS = {
  total: '#1f5fa8',
  client: '#e08a1e',
  axis: '#444',
  grid: '#e3e3e3',
  text: '#222',
  muted: '#888',
};
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Round tick values covering [0, max]: 1, 2 or 5 × a power of ten, about five of them. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function tickLabel(value: number): string {
  if (value === 0) return '0';
  if (Math.abs(value) >= 1000) return value.toLocaleString('en-US', { maximumFractionDigits: 0 });
  return String(Number(value.toPrecision(6)));
}

/** `2026-03-21` → `Mar 21` */
function dayLabel(date: string): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const [, , m, d] = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date) ?? [];
  return m && d ? `${months[Number(m) - 1] ?? m} ${Number(d)}` : date;
}

/** The room one date label takes along the x axis (`Mar 21` at 11 px, and a gap). */
const LABEL_WIDTH = 56;

/**
 * Which days get a date under their bars: every day with a figure, the first and the last, then the days of a
 * regular spacing, each only where it leaves a label's width to those already placed (so a period of 90 days with
 * figures on all of them is thinned, and the one day with figures in a quiet fortnight is never left unnamed).
 */
function labelledDays(days: readonly ChartDay[], slot: number): Set<number> {
  const last = days.length - 1;
  const every = Math.max(1, Math.ceil(LABEL_WIDTH / slot));
  const withData = days.flatMap((d, i) => (d.total !== null || d.client !== null ? [i] : []));
  const regular = days.flatMap((_, i) => (i % every === 0 ? [i] : []));
  const wanted = [...withData, 0, last, ...regular].filter((i) => i >= 0);
  const placed = new Set<number>();
  const minGap = LABEL_WIDTH / slot;
  for (const i of wanted) {
    if (placed.has(i)) continue;
    if ([...placed].every((j) => Math.abs(i - j) >= minGap)) placed.add(i);
  }
  return placed;
}

export function rewardsChartSvg(days: readonly ChartDay[], options: ChartOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 360;
  const margin = { top: 64, right: 24, bottom: 64, left: 72 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const values = days.flatMap((d) => [d.total, d.client]).filter((v): v is string => v !== null);
  const max = Math.max(0, ...values.map(Number));
  const ticks = niceTicks(max);
  const top = ticks.at(-1) ?? 1;
  const y = (v: number): number => margin.top + plotH - (v / top) * plotH;
  const slot = days.length > 0 ? plotW / days.length : plotW;
  const barW = Math.max(1, Math.min(28, (slot * 0.8) / 2));
  const labelled = labelledDays(days, slot);
  const out: string[] = [];
  const n = (v: number): string => String(Math.round(v * 10) / 10);

  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="title desc" ${FONT}>`,
  );
  out.push(`<title id="title">${escapeXml(options.title)}</title>`);
  out.push(
    `<desc id="desc">Daily total and client rewards, ${days.length} day${days.length === 1 ? '' : 's'}${days[0] ? ` from ${days[0].date} to ${days.at(-1)?.date ?? ''}` : ''}.</desc>`,
  );
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text class="title" x="${margin.left}" y="26" font-size="16" font-weight="600" fill="${COLORS.text}">${escapeXml(options.title)}</text>`,
  );
  if (options.subtitle) {
    out.push(
      `<text class="subtitle" x="${margin.left}" y="45" font-size="12" fill="${COLORS.muted}">${escapeXml(options.subtitle)}</text>`,
    );
  }

  // legend, top right
  const legendX = width - margin.right - 230;
  out.push(`<g class="legend" font-size="12" fill="${COLORS.text}">`);
  out.push(`<rect x="${legendX}" y="16" width="12" height="12" fill="${COLORS.total}"/>`);
  out.push(`<text x="${legendX + 18}" y="26">Total reward</text>`);
  out.push(`<rect x="${legendX + 110}" y="16" width="12" height="12" fill="${COLORS.client}"/>`);
  out.push(`<text x="${legendX + 128}" y="26">Client reward</text>`);
  out.push('</g>');

  // y axis: grid lines and tick labels
  out.push(`<g class="y-axis" font-size="11" fill="${COLORS.axis}" text-anchor="end">`);
  for (const t of ticks) {
    out.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${n(y(t))}" y2="${n(y(t))}" stroke="${COLORS.grid}"/>`,
    );
    out.push(`<text x="${margin.left - 8}" y="${n(y(t) + 4)}">${tickLabel(t)}</text>`);
  }
  out.push('</g>');
  out.push(
    `<text class="y-label" transform="translate(18 ${n(margin.top + plotH / 2)}) rotate(-90)" text-anchor="middle" font-size="12" fill="${COLORS.text}">Reward per day</text>`,
  );

  // bars
  out.push('<g class="bars">');
  days.forEach((day, i) => {
    const center = margin.left + slot * i + slot / 2;
    const bar = (value: string | null, x: number, series: 'total' | 'client'): void => {
      if (value === null) return;
      const top = y(Number(value));
      out.push(
        `<rect class="${series}" data-date="${escapeXml(day.date)}" x="${n(x)}" y="${n(top)}" width="${n(barW)}" height="${n(margin.top + plotH - top)}" fill="${COLORS[series]}"><title>${escapeXml(day.date)} ${series} reward: ${escapeXml(value)}</title></rect>`,
      );
    };
    bar(day.total, center - barW, 'total');
    bar(day.client, center, 'client');
    if (day.total === null && day.client === null) {
      out.push(
        `<text class="no-data" x="${n(center)}" y="${n(margin.top + plotH - 6)}" text-anchor="middle" font-size="10" fill="${COLORS.muted}">no data</text>`,
      );
    }
  });
  out.push('</g>');

  // x axis: baseline and dates
  out.push(
    `<line class="x-axis-line" x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="${COLORS.axis}"/>`,
  );
  out.push(`<g class="x-axis" font-size="11" fill="${COLORS.axis}" text-anchor="middle">`);
  days.forEach((day, i) => {
    if (!labelled.has(i)) return;
    const center = margin.left + slot * i + slot / 2;
    out.push(`<text x="${n(center)}" y="${margin.top + plotH + 18}">${dayLabel(day.date)}</text>`);
  });
  out.push('</g>');
  out.push(
    `<text class="x-label" x="${n(margin.left + plotW / 2)}" y="${height - 14}" text-anchor="middle" font-size="12" fill="${COLORS.text}">Date (UTC)</text>`,
  );
  if (days.length === 0) {
    out.push(
      `<text x="${n(margin.left + plotW / 2)}" y="${n(margin.top + plotH / 2)}" text-anchor="middle" font-size="13" fill="${COLORS.muted}">no rewards in this period</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
