import { describe, expect, it } from 'vitest';
import { niceTicks, rewardsChartSvg, type ChartDay } from './rewards-chart.js';

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

/** A small XML reader for the test: fails on unbalanced or unclosed tags, as an SVG viewer would. */
function parseXml(xml: string): Element {
  const root: Element = { name: '#root', attributes: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  let consumed = 0;
  for (const m of xml.matchAll(tag)) {
    expect(m.index, `unparsed text at ${consumed}`).toBe(consumed);
    consumed = (m.index ?? 0) + m[0].length;
    const top = stack.at(-1) as Element;
    if (m[5] !== undefined) {
      top.text += m[5];
      continue;
    }
    const [, closing, name = '', attrs = '', selfClosing] = m;
    if (closing) {
      expect(stack.pop()?.name, `closing </${name}>`).toBe(name);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const a of attrs.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[a[1] ?? ''] = a[2] ?? '';
    const element: Element = { name, attributes, children: [], text: '' };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  expect(consumed).toBe(xml.length);
  expect(stack).toHaveLength(1);
  expect(root.children).toHaveLength(1);
  return root.children[0] as Element;
}

function all(element: Element, predicate: (e: Element) => boolean): Element[] {
  return [...(predicate(element) ? [element] : []), ...element.children.flatMap((c) => all(c, predicate))];
}

const byClass = (svg: Element, cls: string): Element[] => all(svg, (e) => e.attributes['class'] === cls);
const texts = (e: Element): string[] => all(e, (x) => x.name === 'text').map((t) => t.text.trim());

const week: ChartDay[] = [
  { date: '2026-03-20', total: '10.5', client: '4.2' },
  { date: '2026-03-21', total: '47.03', client: '18.81' },
  { date: '2026-03-22', total: null, client: null },
  { date: '2026-03-23', total: '0', client: '0' },
];

describe('rewardsChartSvg', () => {
  const xml = rewardsChartSvg(week, {
    title: 'Daily rewards <minter>',
    subtitle: 'minter · 2026-03-20 to 2026-03-23',
  });
  const svg = parseXml(xml);

  it('is a well-formed, self-describing SVG of a size a pull-request comment shows whole', () => {
    expect(svg.name).toBe('svg');
    expect(svg.attributes['xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(svg.attributes['viewBox']).toBe('0 0 720 360');
    expect(svg.attributes['role']).toBe('img');
    expect(all(svg, (e) => e.name === 'title')[0]?.text).toBe('Daily rewards &#60;minter&#62;');
    expect(all(svg, (e) => e.name === 'desc')[0]?.text).toContain('from 2026-03-20 to 2026-03-23');
  });

  it('has a bar per series and day with figures, tall in proportion, and marks the day without figures', () => {
    const totals = byClass(svg, 'total');
    const clients = byClass(svg, 'client');
    expect(totals.map((r) => r.attributes['data-date'])).toEqual(['2026-03-20', '2026-03-21', '2026-03-23']);
    expect(clients).toHaveLength(3);
    const height = (r: Element | undefined): number => Number(r?.attributes['height']);
    expect(height(totals[1])).toBeGreaterThan(height(totals[0]));
    expect(height(totals[1]) / height(clients[1])).toBeCloseTo(47.03 / 18.81, 1);
    expect(height(totals[2])).toBe(0);
    const bars = byClass(svg, 'bars')[0] as Element;
    expect(texts(bars)).toEqual(['no data']);
    expect(all(bars, (e) => e.name === 'title').map((t) => t.text)).toEqual([
      '2026-03-20 total reward: 10.5',
      '2026-03-20 client reward: 4.2',
      '2026-03-21 total reward: 47.03',
      '2026-03-21 client reward: 18.81',
      '2026-03-23 total reward: 0',
      '2026-03-23 client reward: 0',
    ]);
  });

  it('labels both axes, the dates and the legend', () => {
    expect(texts(byClass(svg, 'x-axis')[0] as Element)).toEqual(['Mar 20', 'Mar 21', 'Mar 22', 'Mar 23']);
    expect(byClass(svg, 'x-label')[0]?.text).toBe('Date (UTC)');
    expect(byClass(svg, 'y-label')[0]?.text).toBe('Reward per day');
    expect(texts(byClass(svg, 'y-axis')[0] as Element)).toEqual(['0', '10', '20', '30', '40', '50']);
    expect(texts(byClass(svg, 'legend')[0] as Element)).toEqual(['Total reward', 'Client reward']);
    expect(byClass(svg, 'subtitle')[0]?.text).toBe('minter · 2026-03-20 to 2026-03-23');
  });

  it('thins the date labels of a long period so they do not overlap', () => {
    const days: ChartDay[] = Array.from({ length: 90 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10),
      total: String(i),
      client: String(i / 2),
    }));
    const labels = texts(byClass(parseXml(rewardsChartSvg(days, { title: 't' })), 'x-axis')[0] as Element);
    expect(labels.length).toBeLessThanOrEqual(11);
    expect(labels[0]).toBe('Jan 1');
  });

  const fortnight = (withData: (i: number) => boolean): ChartDay[] =>
    Array.from({ length: 14 }, (_, i) => ({
      date: new Date(Date.UTC(2026, 2, 10 + i)).toISOString().slice(0, 10),
      total: withData(i) ? '1.5' : null,
      client: withData(i) ? '0.6' : null,
    }));
  const dateLabels = (days: ChartDay[], width?: number): string[] =>
    texts(
      byClass(
        parseXml(rewardsChartSvg(days, { title: 't', ...(width ? { width } : {}) })),
        'x-axis',
      )[0] as Element,
    );

  it('labels the only day with figures when it thins the dates: today, the last of a fortnight', () => {
    // 14 days in 624 px: every other date fits, and the 14th was left out
    const labels = dateLabels(fortnight((i) => i === 13));
    expect(labels[0]).toBe('Mar 10');
    expect(labels.at(-1)).toBe('Mar 23');
    expect(labels).toHaveLength(7);
  });

  it('labels a day with figures before its neighbours, and the first and last day where they fit', () => {
    const labels = dateLabels(fortnight((i) => i === 12));
    expect(labels).toContain('Mar 22');
    expect(labels).not.toContain('Mar 23');
    expect(labels[0]).toBe('Mar 10');
    expect(dateLabels(fortnight((i) => i === 11))).toEqual(expect.arrayContaining(['Mar 21', 'Mar 23']));
  });

  it('labels every day with figures where they fit, the first and the last always', () => {
    const labels = dateLabels(
      fortnight((i) => i === 3 || i === 8),
      400,
    );
    expect(labels).toEqual(expect.arrayContaining(['Mar 10', 'Mar 13', 'Mar 18', 'Mar 23']));
  });

  it('says so when there is nothing to show', () => {
    const empty = parseXml(rewardsChartSvg([], { title: 't' }));
    expect(texts(empty)).toContain('no rewards in this period');
  });
});

describe('niceTicks', () => {
  it.each([
    [47.03, [0, 10, 20, 30, 40, 50]],
    [0.0042, [0, 0.001, 0.002, 0.003, 0.004, 0.005]],
    [1234, [0, 500, 1000, 1500]],
    [0, [0, 1]],
  ])('covers %s with round steps', (max, ticks) => {
    expect(niceTicks(max)).toEqual(ticks);
  });
});
