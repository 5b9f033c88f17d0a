/**
 * Curve charts drawn by hand: means against a numeric x with 95% interval bands, one curve
 * per series told apart by colour, marker and dash. The HTML pages draw them at 12 px text;
 * the paper figure (figure.ts) draws them at a larger text size, every margin, marker and
 * line grown with it, and one key for all its panels.
 */
import { wrapCell } from '../fit-table.js';
import { escapeHtml } from './escape.js';
import { clamp01 } from './svg.js';

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

const f1 = (v: number) => v.toFixed(1);

/** A dash pattern grown by `k` (the text's size over 12 px), as an attribute, or nothing for a solid line. */
function dashAttr(st: CurveStyle, k: number): string {
  if (!st.dash) return '';
  const grown = st.dash
    .split(' ')
    .map((d) => String(Math.round(Number(d) * k * 10) / 10))
    .join(' ');
  return ` stroke-dasharray="${grown}"`;
}

/** A marker centred on (x, y), about 8 px across at 12 px text; open shapes print better over bands. */
function marker(kind: CurveStyle['marker'], x: number, y: number, colour: string, k: number): string {
  const r = 4 * k;
  const [a, b] = [r + k, r + 0.5 * k];
  const paint = `fill="#fff" stroke="${colour}" stroke-width="${f1(1.6 * k)}"`;
  switch (kind) {
    case 'circle':
      return `<circle cx="${f1(x)}" cy="${f1(y)}" r="${f1(r)}" ${paint}`;
    case 'square':
      return `<rect x="${f1(x - r)}" y="${f1(y - r)}" width="${f1(2 * r)}" height="${f1(2 * r)}" ${paint}`;
    case 'triangle':
      return `<path d="M${f1(x)} ${f1(y - a)}L${f1(x + b)} ${f1(y + r)}L${f1(x - b)} ${f1(y + r)}Z" ${paint}`;
    case 'down-triangle':
      return `<path d="M${f1(x)} ${f1(y + a)}L${f1(x + b)} ${f1(y - r)}L${f1(x - b)} ${f1(y - r)}Z" ${paint}`;
    case 'diamond':
      return `<path d="M${f1(x)} ${f1(y - a)}L${f1(x + a)} ${f1(y)}L${f1(x)} ${f1(y + a)}L${f1(x - a)} ${f1(y)}Z" ${paint}`;
    case 'cross':
      return `<path d="M${f1(x - r)} ${f1(y - r)}L${f1(x + r)} ${f1(y + r)}M${f1(x - r)} ${f1(y + r)}L${f1(x + r)} ${f1(y - r)}" fill="none" stroke="${colour}" stroke-width="${f1(2 * k)}"`;
  }
}

/** The end tag of a marker opened with a child `<title>`. */
function closing(kind: CurveStyle['marker']): string {
  return kind === 'circle' ? '</circle>' : kind === 'square' ? '</rect>' : '</path>';
}

/** Where a curve chart draws: its size, the plot's box, the two axes' maps and the text's scale. */
interface CurveFrame {
  w: number;
  left: number;
  right: number;
  top: number;
  plotW: number;
  plotH: number;
  log: boolean;
  /** The text's size over 12 px: every margin, marker and line width is grown by it. */
  k: number;
  /** The x of a value, before a coinciding curve's shift. */
  xAt: (v: number) => number;
  y: (v: number) => number;
}

/** The frame of a chart of `w` units over [lo, hi], log when the range spans four times or more (and ticks are numbers). */
function curveFrame(w: number, lo: number, hi: number, ranked: boolean, k: number, plotH: number): CurveFrame {
  const log = !ranked && lo > 0 && hi / lo >= 4;
  const [left, right, top] = [52 * k, 16 * k, 30 * k];
  const plotW = w - left - right;
  const fx = (v: number) => (hi === lo ? 0.5 : log ? Math.log(v / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo));
  // A little room at both ends, so markers at the first and last point are drawn whole.
  const xAt = (v: number) => left + 10 * k + fx(v) * (plotW - 20 * k);
  const y = (v: number) => top + (1 - clamp01(v)) * plotH;
  return { w, left, right, top, plotW, plotH, log, k, xAt, y };
}

/** The grid, the two axes and, unless left off, the x ticks and the x axis's label. */
function curveAxes(g: CurveFrame, xs: number[], xLabel: string, tick: (x: number) => string, xAxis: boolean): string[] {
  const { left, right, top, plotH, w, k } = g;
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const gy = f1(g.y(t / 4));
    parts.push(
      `<line x1="${f1(left)}" y1="${gy}" x2="${f1(w - right)}" y2="${gy}" stroke="#e3e6ea"/><text x="${f1(left - 6 * k)}" y="${f1(g.y(t / 4) + 4 * k)}" text-anchor="end" fill="#445">${(t / 4).toFixed(2)}</text>`,
    );
  }
  const bottom = f1(top + plotH);
  parts.push(
    `<line x1="${f1(left)}" y1="${f1(top)}" x2="${f1(left)}" y2="${bottom}" stroke="#99a"/><line x1="${f1(left)}" y1="${bottom}" x2="${f1(w - right)}" y2="${bottom}" stroke="#99a"/>`,
  );
  if (!xAxis) return parts;
  for (const v of [...new Set(xs)].sort((a, b) => a - b))
    parts.push(
      `<text x="${f1(g.xAt(v))}" y="${f1(top + plotH + 16 * k)}" text-anchor="middle" fill="#445">${escapeHtml(tick(v))}</text>`,
    );
  parts.push(
    `<text x="${f1(left + g.plotW / 2)}" y="${f1(top + plotH + 34 * k)}" text-anchor="middle" fill="#445">${escapeHtml(xLabel)}${g.log ? ' (log scale)' : ''}</text>`,
  );
  return parts;
}

/**
 * How far each series is drawn to the right: curves that coincide (the same means at the same
 * x: two models both at 1.0) would hide one another, so each repeat moves a few pixels.
 */
function curveShifts(series: CurveSeries[], k: number): number[] {
  const shapes = series.map((s) =>
    JSON.stringify(
      s.points
        .filter((p) => p.mean !== null)
        .map((p) => [p.x, p.mean])
        .sort((a, b) => a[0]! - b[0]!),
    ),
  );
  return shapes.map((key, i) => (key === '[]' ? 0 : 3.5 * k * shapes.slice(0, i).filter((o) => o === key).length));
}

/** One series: its interval band, its curve and a marker at each point. */
function seriesSvg(g: CurveFrame, s: CurveSeries, i: number, shift: number): string[] {
  const { k } = g;
  const st = curveStyle(i);
  const dash = dashAttr(st, k);
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
      `<polygon class="band" points="${[...upper, ...lower].join(' ')}" fill="${st.colour}" fill-opacity="0.13" stroke="${st.colour}" stroke-opacity="0.55" stroke-width="${f1(0.8 * k)}"${dash}/>`,
    );
  } else {
    for (const p of banded)
      parts.push(
        `<line class="band" x1="${f1(x(p.x))}" y1="${f1(y(p.ci![0]))}" x2="${f1(x(p.x))}" y2="${f1(y(p.ci![1]))}" stroke="${st.colour}" stroke-width="${f1(1.5 * k)}"/>`,
      );
  }
  if (pts.length > 1)
    parts.push(
      `<polyline class="curve" fill="none" stroke="${st.colour}" stroke-width="${f1(2 * k)}"${dash} points="${pts.map((p) => `${f1(x(p.x))},${f1(y(p.mean!))}`).join(' ')}"/>`,
    );
  for (const p of pts)
    parts.push(
      `${marker(st.marker, x(p.x), y(p.mean!), st.colour, k)} class="marker"><title>${escapeHtml(p.title ?? `${s.name} at ${p.x}: ${p.mean}`)}</title>${closing(st.marker)}`,
    );
  parts.push('</g>');
  return parts;
}

/**
 * Each name folded to fit a key of `w` units drawn from `left` at text scale `k`: a
 * sans-serif character averages about half the text's size across, so 0.55 of it (6.6 px at
 * 12 px) leaves room.
 */
function keyLines(names: string[], w: number, left: number, k: number): string[][] {
  return names.map((n) => wrapCell(n, Math.max(12, Math.floor((w - left - 60 * k) / (6.6 * k)))).split('\n'));
}

/** The height of a key of these folded names. */
function keyHeight(rows: string[][], k: number): number {
  return rows.reduce((a, l) => a + (l.length * 14 + 6) * k, 0);
}

/** The key: one entry per series (its lines already folded), from (`left`, `top`). */
function keyEntries(rows: string[][], left: number, top: number, k: number): string[] {
  let ly = top;
  return rows.map((lines, i) => {
    const st = curveStyle(i);
    const [tx, mid] = [f1(left + 50 * k), f1(ly + 6 * k)];
    const text = lines.map((l, j) => `<tspan x="${tx}" dy="${j === 0 ? 0 : f1(14 * k)}">${escapeHtml(l)}</tspan>`);
    const entry =
      `<g class="legend" data-series="${i}"><line x1="${f1(left)}" y1="${mid}" x2="${f1(left + 40 * k)}" y2="${mid}" stroke="${st.colour}" stroke-width="${f1(2 * k)}"${dashAttr(st, k)}/>${marker(st.marker, left + 20 * k, ly + 6 * k, st.colour, k)}/>` +
      `<text x="${tx}" y="${f1(ly + 10 * k)}">${text.join('')}</text></g>`;
    ly += (lines.length * 14 + 6) * k;
    return entry;
  });
}

/**
 * A key on its own, for a figure whose panels share one (figure.ts): each series' line,
 * marker and name, `width` units wide at `text` units of text.
 */
export function curveKey(names: string[], opts: { width: number; text: number }): string {
  const k = opts.text / 12;
  const rows = keyLines(names, opts.width, 0, k);
  const h = Math.ceil(keyHeight(rows, k) + 4 * k);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="key" viewBox="0 0 ${opts.width} ${h}" width="${opts.width}" height="${h}" font-family="system-ui, sans-serif" font-size="${opts.text}">`,
    ...keyEntries(rows, 0, 0, k),
    '</svg>',
  ].join('');
}

/** What a curve chart may be asked for beyond its series. */
export interface CurveOptions {
  title: string;
  xLabel: string;
  /** The x range, so panels side by side share their axes. */
  domain?: [number, number];
  /** Width in units (default 600). */
  width?: number;
  /** A tick's label (default: the number); an axis of ranks (reasoning efforts) names them and is never a log scale. */
  tick?: (x: number) => string;
  /** The size of the text in units (default 12); margins, markers and lines grow with it. */
  text?: number;
  /** The plot's height in units (default 20 times the text's size). */
  plotH?: number;
  /** false: no key under the plot (a figure of panels draws one for all: curveKey). */
  legend?: boolean;
  /** false: no x tick labels or axis label (a panel above another on the same axis). */
  xAxis?: boolean;
}

/**
 * Means against a numeric x (ledger rows, a token limit, an effort's rank) on a 0..1 axis (the
 * title names the measure), one curve per series with its 95% interval as a shaded band, a
 * marker shape and a dash pattern of its own, and a key under the plot. x is on a log scale
 * when the range spans a factor of four or more (12 to 240 rows is the usual sweep).
 */
export function curveChart(series: CurveSeries[], opts: CurveOptions): string {
  const text = opts.text ?? 12;
  const k = text / 12;
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const [lo, hi] = opts.domain ?? [Math.min(...xs), Math.max(...xs)];
  const g = curveFrame(opts.width ?? 600, lo, hi, opts.tick !== undefined, k, opts.plotH ?? 20 * text);
  const xAxis = opts.xAxis ?? true;
  const rows = opts.legend === false ? [] : keyLines(coincidenceNames(series), g.w, g.left, k);
  const keyTop = g.top + g.plotH + (xAxis ? 46 : 8) * k;
  const h = Math.ceil(keyTop + keyHeight(rows, k) + 4 * k);
  const shift = curveShifts(series, k);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="curves" viewBox="0 0 ${g.w} ${h}" width="${g.w}" height="${h}" role="img" aria-label="${escapeHtml(opts.title)}" font-family="system-ui, sans-serif" font-size="${text}">`,
    `<text x="0" y="${f1(16 * k)}" font-weight="600" font-size="${f1(13 * k)}">${escapeHtml(opts.title)}</text>`,
    ...curveAxes(g, xs, opts.xLabel, opts.tick ?? String, xAxis),
    ...series.flatMap((s, i) => seriesSvg(g, s, i, shift[i]!)),
    ...keyEntries(rows, g.left, keyTop, k),
    '</svg>',
  ].join('');
}

/** Each series' name, with the earlier series it coincides with (its curve drawn a little to the right). */
function coincidenceNames(series: CurveSeries[]): string[] {
  return series.map((s, i) => {
    const j = series.findIndex((o, m) => m < i && sameCurve(o, s));
    return j < 0 ? s.name : `${s.name} (same points as ${series[j]!.name}: drawn a little to the right)`;
  });
}

/** Whether two series have the same means at the same x (and some point at all). */
export function sameCurve(a: CurveSeries, b: CurveSeries): boolean {
  const pts = (s: CurveSeries) =>
    s.points
      .filter((p) => p.mean !== null)
      .map((p) => [p.x, p.mean] as const)
      .sort((u, v) => u[0] - v[0]);
  const [p, q] = [pts(a), pts(b)];
  return p.length > 0 && p.length === q.length && p.every(([x, m], i) => x === q[i]![0] && m === q[i]![1]);
}
