/**
 * Small inline SVG charts drawn by hand: horizontal bars on a 0..1 scale with optional 95%
 * whiskers, and a histogram. No library, no network; every label is escaped.
 */
import { wrapCell } from '../fit-table.js';
import { escapeHtml } from './escape.js';

export interface Bar {
  label: string;
  /** 0..1, or null for "no data". */
  value: number | null;
  ci?: [number, number] | null;
  /** Text after the bar, e.g. "0.812 (n = 30)". */
  note?: string;
  /** Optional second series drawn thinner under the bar (say, precision beside recall). */
  value2?: number | null;
}

const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

/** A generous average width of one character at 12 px, so a label is never drawn past its room. */
const CHAR_PX = 7.2;
/** Labels longer than this fold onto further lines (at a separator where one is near). */
const LABEL_CHARS = 40;

/** One bar: its label (lines already folded), the bar, the second value's thin bar, the whiskers and the note. */
function barRow(
  b: Bar,
  lines: string[],
  y: number,
  at: { labelW: number; plotW: number; lineH: number },
  opts: { legend?: [string, string] },
): string[] {
  const { labelW, plotW, lineH } = at;
  const x = (v: number) => labelW + clamp01(v) * plotW;
  const barH = opts.legend ? 14 : 16;
  const tspans = lines.map((l, k) => `<tspan x="${labelW - 8}" dy="${k === 0 ? 0 : lineH}">${escapeHtml(l)}</tspan>`);
  const parts = [`<text class="label" x="${labelW - 8}" y="${y + 12}" text-anchor="end">${tspans.join('')}</text>`];
  if (b.value !== null) {
    parts.push(
      `<rect class="bar" x="${labelW}" y="${y}" width="${(x(b.value) - labelW).toFixed(1)}" height="${barH}" fill="#3b7dd8" rx="2"/>`,
    );
  }
  if (b.value2 !== undefined && b.value2 !== null) {
    parts.push(
      `<rect x="${labelW}" y="${y + barH + 2}" width="${(x(b.value2) - labelW).toFixed(1)}" height="8" fill="#9cc1ef" rx="2"/>`,
    );
  }
  if (b.ci) {
    const [lo, hi] = [x(b.ci[0]), x(b.ci[1])];
    const cy = y + barH / 2;
    parts.push(
      `<g class="whisker" stroke="#1d2b3a" stroke-width="1.5"><line x1="${lo.toFixed(1)}" y1="${cy}" x2="${hi.toFixed(1)}" y2="${cy}"/><line x1="${lo.toFixed(1)}" y1="${cy - 5}" x2="${lo.toFixed(1)}" y2="${cy + 5}"/><line x1="${hi.toFixed(1)}" y1="${cy - 5}" x2="${hi.toFixed(1)}" y2="${cy + 5}"/></g>`,
    );
  }
  const note = b.note ?? (b.value === null ? 'no data' : b.value.toFixed(3));
  parts.push(`<text x="${labelW + plotW + 10}" y="${y + 12}" fill="#334">${escapeHtml(note)}</text>`);
  return parts;
}

/**
 * Horizontal bars on a 0..1 axis; whiskers show the interval where given. The label column
 * is as wide as the longest label line needs, and long labels fold rather than being cut,
 * so two runs whose names differ only at the end stay told apart.
 */
export function barChart(bars: Bar[], opts: { title: string; legend?: [string, string] }): string {
  const labels = bars.map((b) => wrapCell(b.label, LABEL_CHARS).split('\n'));
  const longest = Math.max(4, ...labels.flat().map((l) => [...l].length));
  const labelW = Math.ceil(longest * CHAR_PX) + 16;
  const plotW = 360;
  const noteW = 190;
  const lineH = 14;
  const rowHs = labels.map((ls) => Math.max(opts.legend ? 34 : 26, ls.length * lineH + 8));
  const rowTop = rowHs.map((_, i) => rowHs.slice(0, i).reduce((a, b) => a + b, 0));
  const top = 28;
  const width = Math.max(labelW + plotW + noteW, Math.ceil([...opts.title].length * CHAR_PX * 1.1));
  const height = top + rowHs.reduce((a, b) => a + b, 0) + 26;
  const x = (v: number) => labelW + clamp01(v) * plotW;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(opts.title)}" ${FONT}>`,
  );
  parts.push(`<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(opts.title)}</text>`);
  for (let t = 0; t <= 4; t++) {
    const gx = x(t / 4);
    parts.push(`<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${height - 22}" stroke="#e3e6ea"/>`);
    parts.push(`<text x="${gx}" y="${height - 8}" text-anchor="middle" fill="#667">${(t / 4).toFixed(2)}</text>`);
  }
  bars.forEach((b, i) => parts.push(...barRow(b, labels[i]!, top + rowTop[i]!, { labelW, plotW, lineH }, opts)));
  if (opts.legend) {
    const ly = 8;
    parts.push(
      `<rect x="${width - 230}" y="${ly}" width="12" height="10" fill="#3b7dd8"/><text x="${width - 214}" y="${ly + 9}">${escapeHtml(opts.legend[0])}</text>`,
    );
    parts.push(
      `<rect x="${width - 120}" y="${ly + 2}" width="12" height="6" fill="#9cc1ef"/><text x="${width - 104}" y="${ly + 9}">${escapeHtml(opts.legend[1])}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Vertical bars, one per bin, heights scaled to the largest count. */
export function histogramChart(bins: Array<{ lo: number; hi: number; count: number }>, title: string): string {
  const width = 560;
  const height = 220;
  const left = 44;
  const bottom = 34;
  const top = 28;
  const plotH = height - top - bottom;
  const bw = (width - left - 10) / Math.max(1, bins.length);
  const max = Math.max(1, ...bins.map((b) => b.count));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(title)}" ${FONT}>`,
  ];
  parts.push(`<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(title)}</text>`);
  parts.push(`<line x1="${left}" y1="${top + plotH}" x2="${width - 10}" y2="${top + plotH}" stroke="#99a"/>`);
  parts.push(
    `<text x="${left - 6}" y="${top + 10}" text-anchor="end" fill="#667">${max}</text><text x="${left - 6}" y="${top + plotH}" text-anchor="end" fill="#667">0</text>`,
  );
  bins.forEach((b, i) => {
    const h = (b.count / max) * plotH;
    const bx = left + i * bw;
    parts.push(
      `<rect class="bar" x="${(bx + 2).toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${(bw - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="#3b7dd8" rx="2"><title>${b.lo.toFixed(1)}–${b.hi.toFixed(1)}: ${b.count}</title></rect>`,
    );
    if (b.count)
      parts.push(
        `<text x="${(bx + bw / 2).toFixed(1)}" y="${(top + plotH - h - 4).toFixed(1)}" text-anchor="middle" fill="#334" font-size="11">${b.count}</text>`,
      );
    parts.push(
      `<text x="${(bx + bw / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle" fill="#667" font-size="11">${b.lo.toFixed(1)}</text>`,
    );
  });
  parts.push(
    `<text x="${width - 10}" y="${height - 4}" text-anchor="end" fill="#667" font-size="11">reward (bin start)</text>`,
  );
  parts.push('</svg>');
  return parts.join('');
}

/** One curve of a line chart: a name for the legend and its points (x, mean, 95% interval). */
export interface CurveSeries {
  name: string;
  points: Array<{ x: number; mean: number | null; ci: [number, number] | null; title?: string }>;
}

/**
 * How series are told apart, in colour (a palette safe for colour-blind readers) and, for
 * print in grey, by marker shape and dash pattern too: series i takes entry i of each list,
 * and no two of the first 30 series share both marker and dash (6 markers, 5 dashes).
 */
const CURVE_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];
const CURVE_MARKERS = ['circle', 'square', 'triangle', 'diamond', 'cross', 'down-triangle'] as const;
const CURVE_DASHES = ['', '7 4', '2 3', '9 3 2 3', '4 2 4 6'];

export interface CurveStyle {
  colour: string;
  marker: (typeof CURVE_MARKERS)[number];
  /** An SVG stroke-dasharray, '' for a solid line. */
  dash: string;
}

/** The look of series `i`. */
export function curveStyle(i: number): CurveStyle {
  return {
    colour: CURVE_COLOURS[i % CURVE_COLOURS.length]!,
    marker: CURVE_MARKERS[i % CURVE_MARKERS.length]!,
    dash: CURVE_DASHES[i % CURVE_DASHES.length]!,
  };
}

/** A marker centred on (x, y), about 8 px across; open shapes print better over bands. */
function marker(kind: CurveStyle['marker'], x: number, y: number, colour: string): string {
  const r = 4;
  const f = (v: number) => v.toFixed(1);
  const paint = `fill="#fff" stroke="${colour}" stroke-width="1.6"`;
  switch (kind) {
    case 'circle':
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${r}" ${paint}`;
    case 'square':
      return `<rect x="${f(x - r)}" y="${f(y - r)}" width="${2 * r}" height="${2 * r}" ${paint}`;
    case 'triangle':
      return `<path d="M${f(x)} ${f(y - r - 1)}L${f(x + r + 0.5)} ${f(y + r)}L${f(x - r - 0.5)} ${f(y + r)}Z" ${paint}`;
    case 'down-triangle':
      return `<path d="M${f(x)} ${f(y + r + 1)}L${f(x + r + 0.5)} ${f(y - r)}L${f(x - r - 0.5)} ${f(y - r)}Z" ${paint}`;
    case 'diamond':
      return `<path d="M${f(x)} ${f(y - r - 1)}L${f(x + r + 1)} ${f(y)}L${f(x)} ${f(y + r + 1)}L${f(x - r - 1)} ${f(y)}Z" ${paint}`;
    case 'cross':
      return `<path d="M${f(x - r)} ${f(y - r)}L${f(x + r)} ${f(y + r)}M${f(x - r)} ${f(y + r)}L${f(x + r)} ${f(y - r)}" fill="none" stroke="${colour}" stroke-width="2"`;
  }
}

/** Where a curve chart draws: its size, the plot's box and the two axes' maps. */
interface CurveFrame {
  w: number;
  left: number;
  right: number;
  top: number;
  plotW: number;
  plotH: number;
  log: boolean;
  /** The x of a value, before a coinciding curve's shift. */
  xAt: (v: number) => number;
  y: (v: number) => number;
}

const f1 = (v: number) => v.toFixed(1);

/** The frame of a chart of `w` pixels over [lo, hi], log when the range spans four times or more (and ticks are numbers). */
function curveFrame(w: number, lo: number, hi: number, ranked: boolean): CurveFrame {
  const log = !ranked && lo > 0 && hi / lo >= 4;
  const [left, right, top, plotH] = [52, 16, 30, 240];
  const plotW = w - left - right;
  const fx = (v: number) => (hi === lo ? 0.5 : log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo));
  // A little room at both ends, so markers at the first and last point are drawn whole.
  const xAt = (v: number) => left + 10 + fx(v) * (plotW - 20);
  const y = (v: number) => top + (1 - clamp01(v)) * plotH;
  return { w, left, right, top, plotW, plotH, log, xAt, y };
}

/** The grid, the two axes, the x ticks and the x axis's label. */
function curveAxes(g: CurveFrame, xs: number[], xLabel: string, tick: (x: number) => string): string[] {
  const { left, right, top, plotH, w } = g;
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const gy = g.y(t / 4);
    parts.push(
      `<line x1="${left}" y1="${gy}" x2="${w - right}" y2="${gy}" stroke="#e3e6ea"/><text x="${left - 6}" y="${gy + 4}" text-anchor="end" fill="#445">${(t / 4).toFixed(2)}</text>`,
    );
  }
  parts.push(
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#99a"/><line x1="${left}" y1="${top + plotH}" x2="${w - right}" y2="${top + plotH}" stroke="#99a"/>`,
  );
  for (const v of [...new Set(xs)].sort((a, b) => a - b))
    parts.push(
      `<text x="${f1(g.xAt(v))}" y="${top + plotH + 16}" text-anchor="middle" fill="#445">${escapeHtml(tick(v))}</text>`,
    );
  parts.push(
    `<text x="${f1(left + g.plotW / 2)}" y="${top + plotH + 34}" text-anchor="middle" fill="#445">${escapeHtml(xLabel)}${g.log ? ' (log scale)' : ''}</text>`,
  );
  return parts;
}

/**
 * How far each series is drawn to the right: curves that coincide (the same means at the same
 * x: two models both at 1.0) would hide one another, so each repeat moves a few pixels.
 */
function curveShifts(series: CurveSeries[]): number[] {
  const shapes = series.map((s) =>
    JSON.stringify(
      s.points
        .filter((p) => p.mean !== null)
        .map((p) => [p.x, p.mean])
        .sort((a, b) => a[0]! - b[0]!),
    ),
  );
  return shapes.map((k, i) => (k === '[]' ? 0 : 3.5 * shapes.slice(0, i).filter((o) => o === k).length));
}

/** One series: its interval band, its curve and a marker at each point. */
function seriesSvg(g: CurveFrame, s: CurveSeries, i: number, shift: number): string[] {
  const st = curveStyle(i);
  const dash = st.dash ? ` stroke-dasharray="${st.dash}"` : '';
  const x = (v: number) => g.xAt(v) + shift;
  const y = g.y;
  const pts = s.points.filter((p) => p.mean !== null).sort((a, b) => a.x - b.x);
  const banded = pts.filter((p) => p.ci !== null);
  const attrs = `data-series="${i}" data-marker="${st.marker}" data-dash="${st.dash || 'solid'}"`;
  const parts = [`<g class="series" ${attrs}><title>${escapeHtml(s.name)}</title>`];
  if (banded.length > 1) {
    const upper = banded.map((p) => `${f1(x(p.x))},${f1(y(p.ci![1]))}`);
    const lower = banded.map((p) => `${f1(x(p.x))},${f1(y(p.ci![0]))}`).reverse();
    // Bands overlap: light fill for screens, and thin edges in the curve's dash for print.
    parts.push(
      `<polygon class="band" points="${[...upper, ...lower].join(' ')}" fill="${st.colour}" fill-opacity="0.13" stroke="${st.colour}" stroke-opacity="0.55" stroke-width="0.8"${dash}/>`,
    );
  } else {
    for (const p of banded)
      parts.push(
        `<line class="band" x1="${f1(x(p.x))}" y1="${f1(y(p.ci![0]))}" x2="${f1(x(p.x))}" y2="${f1(y(p.ci![1]))}" stroke="${st.colour}" stroke-width="1.5"/>`,
      );
  }
  if (pts.length > 1)
    parts.push(
      `<polyline class="curve" fill="none" stroke="${st.colour}" stroke-width="2"${dash} points="${pts.map((p) => `${f1(x(p.x))},${f1(y(p.mean!))}`).join(' ')}"/>`,
    );
  for (const p of pts)
    parts.push(
      `${marker(st.marker, x(p.x), y(p.mean!), st.colour)} class="marker"><title>${escapeHtml(p.title ?? `${s.name} at ${p.x}: ${p.mean}`)}</title>${closing(st.marker)}`,
    );
  parts.push('</g>');
  return parts;
}

/** The legend under the plot, one entry per series (its lines already folded), from `top`. */
function curveLegend(g: CurveFrame, rows: string[][], top: number): string[] {
  const { left } = g;
  let ly = top;
  return rows.map((lines, i) => {
    const st = curveStyle(i);
    const dash = st.dash ? ` stroke-dasharray="${st.dash}"` : '';
    const text = lines.map((l, k) => `<tspan x="${left + 50}" dy="${k === 0 ? 0 : 14}">${escapeHtml(l)}</tspan>`);
    const entry =
      `<g class="legend" data-series="${i}"><line x1="${left}" y1="${ly + 6}" x2="${left + 40}" y2="${ly + 6}" stroke="${st.colour}" stroke-width="2"${dash}/>${marker(st.marker, left + 20, ly + 6, st.colour)}/>` +
      `<text x="${left + 50}" y="${ly + 10}">${text.join('')}</text></g>`;
    ly += lines.length * 14 + 6;
    return entry;
  });
}

/**
 * Means against a numeric x (ledger rows, a token limit, an effort's rank) on a 0..1 axis (the title names the measure), one curve per series with its 95%
 * interval as a shaded band, a marker shape and a dash pattern of its own, and a legend under
 * the plot. `domain` fixes the x range, so panels side by side share their axes; x is on a
 * log scale when the range spans a factor of four or more (12 to 240 rows is the usual sweep).
 */
export function curveChart(
  series: CurveSeries[],
  opts: {
    title: string;
    xLabel: string;
    domain?: [number, number];
    width?: number;
    /** A tick's label (default: the number); an axis of ranks (reasoning efforts) names them and is never a log scale. */
    tick?: (x: number) => string;
  },
): string {
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const [lo, hi] = opts.domain ?? [Math.min(...xs), Math.max(...xs)];
  const g = curveFrame(opts.width ?? 600, lo, hi, opts.tick !== undefined);
  const legendRows = series.map((s, i) => {
    const j = series.findIndex((o, k) => k < i && sameCurve(o, s));
    const name = j < 0 ? s.name : `${s.name} (same points as ${series[j]!.name}: drawn a little to the right)`;
    return wrapCell(name, Math.max(12, Math.floor((g.w - g.left - 60) / CHAR_PX))).split('\n');
  });
  const legendTop = g.top + g.plotH + 46;
  const h = legendTop + legendRows.reduce((a, l) => a + l.length * 14 + 6, 0) + 4;
  const shift = curveShifts(series);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="curves" viewBox="0 0 ${g.w} ${h}" width="${g.w}" height="${h}" role="img" aria-label="${escapeHtml(opts.title)}" ${FONT}>`,
    `<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(opts.title)}</text>`,
    ...curveAxes(g, xs, opts.xLabel, opts.tick ?? String),
    ...series.flatMap((s, i) => seriesSvg(g, s, i, shift[i]!)),
    ...curveLegend(g, legendRows, legendTop),
    '</svg>',
  ].join('');
}

/** Whether two series have the same means at the same x (and some point at all). */
function sameCurve(a: CurveSeries, b: CurveSeries): boolean {
  const pts = (s: CurveSeries) =>
    s.points
      .filter((p) => p.mean !== null)
      .map((p) => [p.x, p.mean] as const)
      .sort((u, v) => u[0] - v[0]);
  const [p, q] = [pts(a), pts(b)];
  return p.length > 0 && p.length === q.length && p.every(([x, m], i) => x === q[i]![0] && m === q[i]![1]);
}

/** The end tag of a marker opened with a child `<title>`. */
function closing(kind: CurveStyle['marker']): string {
  return kind === 'circle' ? '</circle>' : kind === 'square' ? '</rect>' : '</path>';
}
