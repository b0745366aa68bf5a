/**
 * The benchmark report (scripts/bench/report.ts) from fixed figures: docs/benchmarks.md's tables
 * carry every figure with its baseline, ratio, target and verdict, and the SVG is well-formed and
 * draws each bar in proportion. No timing is measured here (docs/architecture.md §9).
 */
import { describe, expect, it } from 'vitest';
import { type BenchReport, meets, renderMarkdown, renderSvg } from '../../scripts/bench/report.js';

const report: BenchReport = {
  generatedAt: '2025-01-02T03:04:05Z',
  machine: { os: 'Linux 6.1', cpus: 2, cpuModel: 'Test CPU', memoryGiB: 8, loadAverage: [1, 0.5, 0.25] },
  node: '20.20.2',
  functionNode: '22.23.2',
  figures: [
    { name: 'cold start', unit: 'ms', value: 120, baseline: 100, ratio: 1.2, note: 'median of 7', target: { kind: 'ratio', max: 1.3 }, beforeRatio: 2.5 },
    { name: 'normal turn latency', unit: 'ms', value: 30, baseline: 10, ratio: 3, note: 'a | pipe', target: { kind: 'ratio', max: 2 } },
    { name: 'latency per event, p99', unit: 'ms', value: 2.5, baseline: 2, ratio: 1.25, note: 'paced', target: { kind: 'excess', max: 1 } },
    { name: 'RSS per idle live stream', unit: 'KB', value: 150, baseline: 20, ratio: 7.5, note: '1,000 streams', target: { kind: 'value', max: 100 } },
    { name: 'translate <20k> & more', unit: 'ms', value: 40, baseline: 50, ratio: 0.8, note: 'no target' },
  ],
  sizes: [{ name: 'function JavaScript, minified', bytes: 650_000, beforeBytes: 1_787_012, targetBytes: 700_000 }],
  oss: [
    { operation: 'normal turn, existing thread (hello)', requests: 3, beforeRequests: 8, roundTrips: 3, beforeRoundTrips: 8, targetRequests: 5 },
    { operation: 'admission, existing thread', requests: 1, beforeRequests: 4, roundTrips: 1, beforeRoundTrips: 4, targetRoundTrips: 2 },
    { operation: 'one load', requests: 2 },
  ],
  notes: ['A note with <angle brackets> & an ampersand.'],
};

/** Rows of the Markdown table that starts with `header`. */
function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** Every tag closed in order, and nothing outside the root element: enough for a hand-written SVG. */
function wellFormed(svg: string): boolean {
  const stack: string[] = [];
  for (const match of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = match;
    if (selfClosing) continue;
    if (closing) {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0 && svg.trimStart().startsWith('<svg') && svg.trimEnd().endsWith('</svg>');
}

describe('the benchmark report', () => {
  it('tells met from missed targets by ratio, by value and by excess over the baseline', () => {
    expect(report.figures.map(meets)).toEqual([true, false, true, false, undefined]);
  });

  it('writes one table row per figure with its baseline, ratio, ratio before, target and verdict', () => {
    const markdown = renderMarkdown(report);
    const rows = tableRows(markdown, '| Figure |');
    expect(rows).toHaveLength(report.figures.length);
    expect(rows[0]).toEqual(['cold start', '120 ms', '100 ms', '1.2×', '2.5×', '≤ 1.3×', 'yes', 'median of 7']);
    expect(rows[1]?.slice(3, 7)).toEqual(['3×', '—', '≤ 2×', '**no**']);
    expect(rows[1]?.[7]).toBe('a \\| pipe');
    expect(rows[2]?.[5]).toBe('≤ +1 ms');
    expect(rows[3]?.slice(5, 7)).toEqual(['≤ 100 KB', '**no**']);
    expect(rows[4]?.slice(5, 7)).toEqual(['—', '']);
    expect(markdown).toContain('Node 20.20.2');
    expect(markdown).toContain('Node 22.23.2');
    expect(markdown).toContain('2 × Test CPU');
    expect(markdown).toContain('![Adapter against baseline, bundle size and OSS requests](images/benchmarks.svg)');
  });

  it('writes the bundle and OSS tables with before, now and targets', () => {
    const markdown = renderMarkdown(report);
    expect(tableRows(markdown, '| Part |')).toEqual([['function JavaScript, minified', '1787 KB', '650 KB', '≤ 700 KB', 'yes']]);
    expect(tableRows(markdown, '| Operation |')).toEqual([
      ['normal turn, existing thread (hello)', '8', '3', '8', '3', '≤ 5 requests', 'yes'],
      ['admission, existing thread', '4', '1', '4', '1', '≤ 2 round trips', 'yes'],
      ['one load', '—', '2', '—', '—', '—', ''],
    ]);
  });

  it('draws a well-formed SVG with a pair of bars per figure, bundle part and operation, each in proportion', () => {
    const svg = renderSvg(report);
    expect(wellFormed(svg)).toBe(true);
    expect(svg).toContain('translate &lt;20k&gt; &amp; more');
    const bars = [...svg.matchAll(/<rect x="\d+" y="\d+" width="(\d+)" height="16" fill="([^"]+)"\/>/g)].map((match) => ({ width: Number(match[1]), fill: match[2] }));
    expect(bars).toHaveLength(2 * (report.figures.length + report.sizes.length + report.oss.length));
    // normal turn latency: adapter 30 ms against baseline 10 ms — three times as long.
    const [adapter, baseline] = [bars[2], bars[3]];
    expect(adapter!.width / baseline!.width).toBeCloseTo(3, 1);
    // OSS requests share one scale: 8 before is the longest bar, 3 now is 3/8 of it.
    const [before, now] = bars.slice(-6, -4);
    expect(now!.width / before!.width).toBeCloseTo(3 / 8, 1);
    for (const figure of report.figures.slice(0, -1)) expect(svg).toContain(figure.name);
    // A target is a dashed line.
    expect(svg.match(/stroke-dasharray/g)?.length).toBe(4 + 1 + 1);
  });
});
