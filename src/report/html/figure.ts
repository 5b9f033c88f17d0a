/**
 * Standalone SVG figures for a paper (`--svg FILE`): a sweep's curves and a leaderboard's
 * dot-and-interval plot, each one SVG document of its own. The same charts as the HTML pages
 * (svg.ts), laid side by side in one outer `<svg>`: an XML declaration, the SVG namespace, a
 * viewBox, no script, no style sheet, no outside reference, fonts by generic family only, and
 * every text escaped, so a browser shows it and the usual SVG-to-PDF tools (rsvg-convert,
 * Inkscape, cairosvg) convert it for LaTeX.
 */
import { measureName, type Leaderboard } from '../leaderboard.js';
import { figureAxis, pointName, SWEEP_CURVES, type SweepResult } from '../sweep.js';
import { fmt } from '../tables.js';
import { escapeHtml } from './escape.js';
import { curveChart } from './svg.js';

const FONT = 'font-family="sans-serif" font-size="12"';

/** A chart and its size, read off its viewBox. */
function sized(svg: string): { svg: string; w: number; h: number } {
  const m = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  return { svg, w: Number(m?.[1] ?? 0), h: Number(m?.[2] ?? 0) };
}

/**
 * Charts in rows (each row an array), nested in one SVG document with a title line; the
 * system font list of the HTML charts becomes the generic family alone.
 */
function compose(title: string, rows: string[][], note?: string): string {
  const gap = 16;
  const top = 26;
  const laid = rows.map((row) => row.map(sized));
  const width = Math.max(320, ...laid.map((row) => row.reduce((a, c) => a + c.w, 0) + gap * (row.length - 1)));
  const parts: string[] = [];
  let y = top;
  for (const row of laid) {
    let x = 0;
    for (const c of row) {
      parts.push(
        c.svg.replace('<svg ', `<svg x="${x}" y="${y}" `).replace(/font-family="[^"]*"/g, 'font-family="sans-serif"'),
      );
      x += c.w + gap;
    }
    y += Math.max(0, ...row.map((c) => c.h)) + gap;
  }
  const noteLines = note ? note.split('\n') : [];
  const height = Math.ceil(y + noteLines.length * 15);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${Math.ceil(width)} ${height}" width="${Math.ceil(width)}" height="${height}" ${FONT}>\n` +
    `<title>${escapeHtml(title)}</title>\n` +
    `<rect width="100%" height="100%" fill="#ffffff"/>\n` +
    `<text x="0" y="16" font-weight="600" font-size="14">${escapeHtml(title)}</text>\n` +
    parts.join('\n') +
    noteLines.map((l, i) => `\n<text x="0" y="${y + 4 + i * 15}" fill="#445">${escapeHtml(l)}</text>`).join('') +
    '\n</svg>\n'
  );
}

/** `bas sweep --svg`: a panel per measure (reward, bas_correct, fault_audit) and fault rate, every model a curve. */
export function sweepSvg(r: SweepResult): string {
  const { x, ...axis } = figureAxis(r);
  const rates = [...new Set(r.points.map((p) => p.fault_rate))].sort((a, b) => (a ?? 0) - (b ?? 0));
  const charts = SWEEP_CURVES.map((m) =>
    rates.map((rate) =>
      curveChart(
        r.models.map((model) => ({
          name: model,
          points: r.points
            .filter((p) => p.model === model && p.fault_rate === rate)
            .map((p) => ({
              x: x(p),
              mean: p.measures[m].mean,
              ci: p.measures[m].ci95,
              title: `${model}, ${pointName(p, r.axis)}: ${m} ${fmt(p.measures[m].mean)}`,
            })),
        })),
        { title: `${m}${rate === null ? '' : `, fault rate ${rate}`}`, ...axis, width: 420 },
      ),
    ),
  );
  // One fault rate: the three measures in a row; several: a row per measure.
  const grid = rates.length === 1 ? [charts.map((c) => c[0]!)] : charts;
  return compose(
    `bas sweep: ${r.models.join(', ')}`,
    grid,
    'Means with 95% intervals (bands); one curve per model, told apart by colour, marker and dash.',
  );
}

/** A step for ticks on [lo, hi]: 0.01, 0.02, 0.05, 0.1 … giving four to ten ticks. */
function tickStep(span: number): number {
  for (const s of [0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1]) if (span / s <= 10) return s;
  return 1;
}

/**
 * One group of a leaderboard as dots (the ranking measure's mean) with 95% interval
 * whiskers, best first, each row named with its rank and tier. The axis spans the intervals
 * (within 0..1), so close runs stay apart.
 */
function dotChart(
  rows: Array<{ label: string; mean: number | null; ci: [number, number] | null; tier: number | null }>,
  title: string,
  measure: string,
): string {
  const lo0 = Math.min(...rows.flatMap((r) => (r.ci ? [r.ci[0]] : r.mean !== null ? [r.mean] : [])));
  const hi0 = Math.max(...rows.flatMap((r) => (r.ci ? [r.ci[1]] : r.mean !== null ? [r.mean] : [])));
  const [a, b] = Number.isFinite(lo0) ? [lo0, hi0] : [0, 1];
  const step = tickStep(Math.max(b - a, 0.01));
  const lo = Math.max(0, Math.floor((a - step / 2) / step) * step);
  const hi = Math.min(1, Math.ceil((b + step / 2) / step) * step);
  const labelW = Math.min(360, Math.ceil(Math.max(8, ...rows.map((r) => [...r.label].length)) * 7.2) + 12);
  const plotW = 360;
  const noteW = 150;
  const rowH = 22;
  const top = 30;
  const w = labelW + plotW + noteW;
  const h = top + rows.length * rowH + 40;
  const x = (v: number) => labelW + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo || 1)) * plotW;
  const f = (v: number) => v.toFixed(1);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(title)}" ${FONT}>`,
    `<text x="0" y="16" font-weight="600" font-size="13">${escapeHtml(title)}</text>`,
  ];
  for (let t = lo; t <= hi + step / 1000; t += step) {
    const gx = f(x(t));
    parts.push(
      `<line x1="${gx}" y1="${top - 4}" x2="${gx}" y2="${top + rows.length * rowH}" stroke="#e3e6ea"/><text x="${gx}" y="${top + rows.length * rowH + 16}" text-anchor="middle" fill="#445">${fmt(t, step < 0.01 ? 3 : 2)}</text>`,
    );
  }
  parts.push(
    `<text x="${f(labelW + plotW / 2)}" y="${h - 6}" text-anchor="middle" fill="#445">${escapeHtml(measure)}, mean with 95% interval</text>`,
  );
  rows.forEach((r, i) => {
    const cy = top + i * rowH + rowH / 2;
    // Tiers alternate in shade, so a reader sees where one ends.
    if (r.tier !== null && r.tier % 2 === 0)
      parts.push(`<rect x="0" y="${f(cy - rowH / 2)}" width="${w}" height="${rowH}" fill="#f2f4f7"/>`);
    parts.push(`<text x="${labelW - 8}" y="${f(cy + 4)}" text-anchor="end">${escapeHtml(r.label)}</text>`);
    if (r.ci)
      parts.push(
        `<g stroke="#1d2b3a" stroke-width="1.5"><line x1="${f(x(r.ci[0]))}" y1="${f(cy)}" x2="${f(x(r.ci[1]))}" y2="${f(cy)}"/><line x1="${f(x(r.ci[0]))}" y1="${f(cy - 5)}" x2="${f(x(r.ci[0]))}" y2="${f(cy + 5)}"/><line x1="${f(x(r.ci[1]))}" y1="${f(cy - 5)}" x2="${f(x(r.ci[1]))}" y2="${f(cy + 5)}"/></g>`,
      );
    if (r.mean !== null) parts.push(`<circle cx="${f(x(r.mean))}" cy="${f(cy)}" r="4.5" fill="#0072b2"/>`);
    const note = r.mean === null ? 'no data' : `${fmt(r.mean)}${r.ci ? ` [${fmt(r.ci[0])}, ${fmt(r.ci[1])}]` : ''}`;
    parts.push(`<text x="${labelW + plotW + 10}" y="${f(cy + 4)}" fill="#334">${escapeHtml(note)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

/** `bas leaderboard --svg`: a dot-and-interval plot per group of runs on the same tasks. */
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
    `Best first by ${measure}. Runs of one tier cannot be told from the tier's best by a paired test\n(Holm-corrected, 95%); shaded rows mark every other tier.`,
  );
}
