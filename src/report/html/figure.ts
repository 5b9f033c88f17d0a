/**
 * Standalone SVG figures for a paper (`--svg FILE`): a sweep's curves and a leaderboard's
 * dot-and-interval plot, each one SVG document of its own. The same charts as the HTML pages
 * (svg.ts), laid side by side in one outer `<svg>`: an XML declaration, the SVG namespace, a
 * viewBox, no script, no style sheet, no outside reference, fonts by generic family only, and
 * every text escaped, so a browser shows it and the usual SVG-to-PDF tools (rsvg-convert,
 * Inkscape, cairosvg) convert it for LaTeX.
 */
import { wrapCell } from '../fit-table.js';
import { measureName, type Leaderboard } from '../leaderboard.js';
import { figureAxis, pointName, sweepSettingsLines, SWEEP_CURVES, type SweepResult } from '../sweep.js';
import { samplingShort } from '../provenance.js';
import { fmt } from '../tables.js';
import { curveChart, curveKey, sameCurve, type CurveSeries } from './curves.js';
import { escapeHtml } from './escape.js';
import { CHAR_PX } from './svg.js';

/**
 * The scale a figure is drawn at: a column of panels is COLUMN units wide and meant to be set
 * 252 pt wide (one column of a two-column paper), so a unit is half a point, and the smallest
 * text, TEXT units, is 10 pt there. The document says so in its width and height (in pt), so a
 * converter's PDF has that size already.
 */
const COLUMN = 504;
const TEXT = 20;
const PT_PER_UNIT = 0.5;
const K = TEXT / 12;
/** A line of text, in units. */
const LINE = 14 * K;

/** A chart and its size, read off its viewBox. */
function sized(svg: string): { svg: string; w: number; h: number } {
  const m = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  return { svg, w: Number(m?.[1] ?? 0), h: Number(m?.[2] ?? 0) };
}

/**
 * Prose folded to `width` units at `size` units of text: a sans-serif character averages about
 * half its size across, so 0.55 of it leaves room (names in the key too: curves.ts).
 */
function fold(text: string, width: number, size = TEXT): string[] {
  const chars = Math.max(12, Math.floor(width / (0.55 * size)));
  return text.split('\n').flatMap((l) => wrapCell(l, chars).split('\n'));
}

/**
 * Charts in rows (each row an array), nested in one SVG document over notes folded to the
 * figure's width; the system font list of the HTML charts becomes the generic family alone.
 * The title is the document's `<title>`, not drawn: a paper's caption says what the figure is,
 * and the key names every curve.
 */
function compose(title: string, rows: string[][], notes: string[]): string {
  const gap = 10 * K;
  const laid = rows.map((row) => row.map(sized));
  const width = Math.max(COLUMN, ...laid.map((row) => row.reduce((a, c) => a + c.w, 0) + gap * (row.length - 1)));
  const parts: string[] = [];
  let y = 0;
  for (const row of laid) {
    let x = 0;
    for (const c of row) {
      parts.push(
        c.svg
          .replace('<svg ', `<svg x="${x}" y="${y.toFixed(1)}" `)
          .replace(/font-family="[^"]*"/g, 'font-family="sans-serif"'),
      );
      x += c.w + gap;
    }
    y += Math.max(0, ...row.map((c) => c.h)) + gap;
  }
  const noteLines = notes.flatMap((n) => fold(n, width));
  for (const [i, l] of noteLines.entries())
    parts.push(`<text x="0" y="${(y + TEXT + i * LINE).toFixed(1)}" fill="#445">${escapeHtml(l)}</text>`);
  const height = Math.ceil(y + noteLines.length * LINE + TEXT * 0.5);
  const w = Math.ceil(width);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${w} ${height}" width="${w * PT_PER_UNIT}pt" height="${height * PT_PER_UNIT}pt" font-family="sans-serif" font-size="${TEXT}">\n` +
    `<title>${escapeHtml(title)}</title>\n` +
    `<rect width="100%" height="100%" fill="#ffffff"/>\n` +
    parts.join('\n') +
    '\n</svg>\n'
  );
}

/**
 * The key's names: a model whose curve coincides with an earlier one's in some panel (two
 * models both at 1.0) is drawn a little to the right there, and its entry says where.
 */
function keyNames(models: string[], panels: Array<{ title: string; series: CurveSeries[] }>): string[] {
  return models.map((name, i) => {
    for (let j = 0; j < i; j++) {
      const where = panels.filter((p) => sameCurve(p.series[j]!, p.series[i]!)).map((p) => p.title);
      if (where.length === panels.length) return `${name} (same points as ${models[j]}: drawn a little to the right)`;
      if (where.length > 0)
        return `${name} (same points as ${models[j]} in ${where.length} of ${panels.length} panels: shifted right there)`;
    }
    return name;
  });
}

/** A sweep's fault rates, in order (none first): a panel each. */
export function sweepRates(r: SweepResult): Array<number | null> {
  return [...new Set(r.points.map((p) => p.fault_rate))].sort((a, b) => (a ?? 0) - (b ?? 0));
}

type SweepPointOf = SweepResult['points'][number];

/** Each model's curve of measure `m` at fault rate `rate`: a point per grid point, titled by `title`. */
export function sweepSeries(
  r: SweepResult,
  m: (typeof SWEEP_CURVES)[number],
  rate: number | null,
  x: (p: SweepPointOf) => number,
  title: (p: SweepPointOf, model: string) => string,
): CurveSeries[] {
  return r.models.map((model) => ({
    name: model,
    points: r.points
      .filter((p) => p.model === model && p.fault_rate === rate)
      .map((p) => ({ x: x(p), mean: p.measures[m].mean, ci: p.measures[m].ci95, title: title(p, model) })),
  }));
}

/**
 * `bas sweep --svg`: a panel per measure (reward, bas_correct, fault_audit), stacked in one
 * column that reads at a paper's column width, a column per fault rate, every model a curve,
 * one key for the figure and the sweep's settings under it.
 */
export function sweepSvg(r: SweepResult): string {
  const { x, ...axis } = figureAxis(r);
  const rates = sweepRates(r);
  const panels = SWEEP_CURVES.map((m) =>
    rates.map((rate) => ({
      title: `${m}${rate === null ? '' : `, fault rate ${rate}`}`,
      series: sweepSeries(
        r,
        m,
        rate,
        x,
        (p, model) => `${model}, ${pointName(p, r.axis)}: ${m} ${fmt(p.measures[m].mean)}`,
      ),
    })),
  );
  const last = SWEEP_CURVES.length - 1;
  const grid = panels.map((row, i) =>
    row.map((p) =>
      curveChart(p.series, {
        title: p.title,
        ...axis,
        width: COLUMN,
        text: TEXT,
        plotH: 6 * TEXT,
        legend: false,
        xAxis: i === last,
      }),
    ),
  );
  const key = curveKey(keyNames(r.models, panels.flat()), { width: COLUMN * rates.length, text: TEXT });
  return compose(
    `bas sweep: ${r.models.join(', ')}`,
    [...grid, [key]],
    ['Means with 95% intervals (bands).', ...sweepSettingsLines(r).map(([label, text]) => `${label}: ${text}`)],
  );
}

/** A step for ticks on a span: 0.01, 0.02, 0.05, 0.1 … giving at most `most` ticks. */
function tickStep(span: number, most: number): number {
  for (const s of [0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1]) if (span / s <= most - 1) return s;
  return 1;
}

/** One run of a dot chart: its name line, the settings its figure was measured with, its estimate and tier. */
type Dot = { label: string; settings: string; mean: number | null; ci: [number, number] | null; tier: number | null };

/** The axis of a dot chart: it spans the intervals (within 0..1), with as many ticks as fit `plotW`. */
function dotAxis(rows: Dot[], plotW: number): { lo: number; hi: number; step: number } {
  const ends = rows.flatMap((r) => (r.ci ? r.ci : r.mean !== null ? [r.mean] : []));
  const [a, b] = ends.length ? [Math.min(...ends), Math.max(...ends)] : [0, 1];
  // A tick's label ("0.25") and the room between two, about 6 characters.
  const step = tickStep(Math.max(b - a, 0.01), Math.max(3, Math.floor(plotW / (6 * CHAR_PX * K))));
  const lo = Math.max(0, Math.floor((a - step / 2) / step) * step);
  const hi = Math.min(1, Math.ceil((b + step / 2) / step) * step);
  return { lo, hi, step };
}

/** A dot chart's run: its name lines (one text, folded) and the settings lines under them, from `y` down. */
function runLines(label: string[], settings: string[], y: number): string[] {
  const f = (v: number) => v.toFixed(1);
  const tspans = label.map((l, j) => `<tspan x="0" dy="${j === 0 ? 0 : f(LINE)}">${escapeHtml(l)}</tspan>`);
  return [
    `<text class="run" x="0" y="${f(y + LINE - 4 * K)}">${tspans.join('')}</text>`,
    ...settings.map(
      (l, j) =>
        `<text class="settings" x="0" y="${f(y + (label.length + j + 1) * LINE - 4 * K)}" fill="#556">${escapeHtml(l)}</text>`,
    ),
  ];
}

/**
 * One group of a leaderboard as dots (the ranking measure's mean) with 95% interval
 * whiskers, best first: each run's name with its rank and tier on a line of its own (folded
 * to the width), its dot and whisker under it, the numbers at the right. The axis spans the
 * intervals (within 0..1), so close runs stay apart.
 */
function dotChart(rows: Dot[], title: string, measure: string): string {
  const f = (v: number) => v.toFixed(1);
  const notes = rows.map((r) =>
    r.mean === null ? 'no data' : `${fmt(r.mean)}${r.ci ? ` [${fmt(r.ci[0])}, ${fmt(r.ci[1])}]` : ''}`,
  );
  const noteW = Math.max(...notes.map((n) => n.length)) * CHAR_PX * K;
  // The plot starts far enough in for half a tick's label ("0.25") left of its first tick.
  const [w, pad] = [COLUMN, 16 * K];
  const plotW = w - noteW - 2 * pad;
  const { lo, hi, step } = dotAxis(rows, plotW);
  const x = (v: number) => pad + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo || 1)) * plotW;
  const ticks: number[] = [];
  for (let t = lo; t <= hi + step / 1000; t += step) ticks.push(t);
  const heading = fold(title, w, 13 * K);
  const parts = heading.map(
    (l, i) =>
      `<text x="0" y="${f(16 * K + i * LINE)}" font-weight="600" font-size="${f(13 * K)}">${escapeHtml(l)}</text>`,
  );
  let y = heading.length * LINE + 8 * K;
  rows.forEach((r, i) => {
    const label = fold(r.label, w);
    const settings = fold(r.settings, w);
    const rowH = (label.length + settings.length + 1) * LINE + 4 * K;
    // Tiers alternate in shade, so a reader sees where one ends.
    if (r.tier !== null && r.tier % 2 === 0)
      parts.push(`<rect x="0" y="${f(y)}" width="${w}" height="${f(rowH)}" fill="#f2f4f7"/>`);
    parts.push(...runLines(label, settings, y));
    const cy = y + (label.length + settings.length) * LINE + LINE / 2;
    // The grid in the dot's band only, so it never strikes through a name.
    for (const t of ticks)
      parts.push(
        `<line x1="${f(x(t))}" y1="${f(cy - LINE / 2)}" x2="${f(x(t))}" y2="${f(cy + LINE / 2)}" stroke="#c9ced6" stroke-width="${f(K)}"/>`,
      );
    if (r.ci)
      parts.push(
        `<g stroke="#1d2b3a" stroke-width="${f(1.5 * K)}"><line x1="${f(x(r.ci[0]))}" y1="${f(cy)}" x2="${f(x(r.ci[1]))}" y2="${f(cy)}"/><line x1="${f(x(r.ci[0]))}" y1="${f(cy - 5 * K)}" x2="${f(x(r.ci[0]))}" y2="${f(cy + 5 * K)}"/><line x1="${f(x(r.ci[1]))}" y1="${f(cy - 5 * K)}" x2="${f(x(r.ci[1]))}" y2="${f(cy + 5 * K)}"/></g>`,
      );
    if (r.mean !== null) parts.push(`<circle cx="${f(x(r.mean))}" cy="${f(cy)}" r="${f(4.5 * K)}" fill="#0072b2"/>`);
    parts.push(`<text x="${w}" y="${f(cy + 6 * K)}" text-anchor="end" fill="#334">${escapeHtml(notes[i]!)}</text>`);
    y += rowH;
  });
  for (const t of ticks)
    parts.push(
      `<text x="${f(x(t))}" y="${f(y + LINE)}" text-anchor="middle" fill="#445">${fmt(t, step < 0.01 ? 3 : 2)}</text>`,
    );
  parts.push(
    `<text x="${f(pad + plotW / 2)}" y="${f(y + 2 * LINE)}" text-anchor="middle" fill="#445">${escapeHtml(measure)}</text>`,
  );
  const h = Math.ceil(y + 2 * LINE + 6 * K);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(title)}" font-family="sans-serif" font-size="${TEXT}">`,
    ...parts,
    '</svg>',
  ].join('');
}

/** `bas leaderboard --svg`: a dot-and-interval plot per group of runs on the same tasks, one column wide. */
export function leaderboardSvg(lb: Leaderboard): string {
  const measure = measureName(lb.by);
  const charts = lb.groups
    .filter((g) => g.runs.length > 0)
    .map((g) =>
      dotChart(
        g.runs.map((r) => {
          const e = r.measures[lb.by];
          return {
            label: `${r.rank ?? '–'}. ${r.name}${r.tier === null ? '' : ` (tier ${r.tier})`}`,
            // Every figure carries what it was measured with: the endpoint, the sampling, the version.
            settings: `${r.provenance.endpoint ?? 'unknown endpoint'} · ${samplingShort(r.provenance.sampling)} · bas ${r.provenance.bas_version ?? 'unknown'}`,
            mean: e.mean,
            ci: e.ci95,
            tier: r.tier,
          };
        }),
        g.title,
        measure,
      ),
    );
  return compose(
    'bas leaderboard',
    charts.map((c) => [c]),
    [
      `Best first by ${measure}: dots are means, whiskers 95% intervals. Runs of one tier cannot be told from the tier's best by a paired test (Holm-corrected, 95%); shaded rows mark every other tier.`,
    ],
  );
}
