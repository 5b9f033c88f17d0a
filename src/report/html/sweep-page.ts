/**
 * The HTML page of `bas sweep`: reward, `bas_correct` and `fault_audit` against ledger rows,
 * one curve per model with its 95% interval band, one panel per fault rate on shared axes,
 * and the table of points. `sweepFigures` is also the curve figure of `bas leaderboard` over
 * sweep folders.
 */
import { axisText, SWEEP_AXES } from '../../runfile/sweep-file.js';
import {
  figureAxis,
  hasFaultRates,
  pointName,
  sweepSettingsLines,
  SWEEP_CURVES,
  SWEEP_MEASURES,
  type SweepResult,
} from '../sweep.js';
import { fmt, fmtInt } from '../tables.js';
import { escapeHtml } from './escape.js';
import { htmlTable, page, provenanceTable } from './page.js';
import { curveChart } from './curves.js';

const DIGITS = 3;

/** The curves of a sweep: a figure per measure, a panel per fault rate, every model in each. */
export function sweepFigures(r: SweepResult): string {
  const { x, ...axis } = figureAxis(r);
  const rates = [...new Set(r.points.map((p) => p.fault_rate))].sort((a, b) => (a ?? 0) - (b ?? 0));
  const width = 560;
  const figures = SWEEP_CURVES.map((m) => {
    const panels = rates.map((rate) => {
      const series = r.models.map((model) => ({
        name: model,
        points: r.points
          .filter((p) => p.model === model && p.fault_rate === rate)
          .map((p) => {
            const e = p.measures[m];
            const ci = e.ci95 ? `[${fmt(e.ci95[0], DIGITS)}, ${fmt(e.ci95[1], DIGITS)}]` : '';
            return {
              x: x(p),
              mean: e.mean,
              ci: e.ci95,
              title: `${model}, ${pointName(p, r.axis)}: ${m} ${fmt(e.mean, DIGITS)} ${ci} (n = ${p.completed})`,
            };
          }),
      }));
      const title = `${m}: means with 95% intervals${rate === null ? '' : `, fault rate ${rate}`}`;
      return `<div>${curveChart(series, { title, ...axis, width })}</div>`;
    });
    return { m, panels };
  });
  // One fault rate: the three figures side by side; several: a row of panels per measure.
  if (rates.length === 1) return `<div class="grid">${figures.map((f) => f.panels.join('')).join('')}</div>`;
  return figures.map((f) => `<h3>${escapeHtml(f.m)}</h3><div class="grid">${f.panels.join('')}</div>`).join('');
}

/** The table of points under the figures: every model and point with its numbers and folder. */
function sweepTable(r: SweepResult): string {
  const withRate = hasFaultRates(r);
  const est = (e: { mean: number | null; ci95: [number, number] | null }) =>
    e.mean === null
      ? '–'
      : `${fmt(e.mean, DIGITS)}\n${e.ci95 ? `[${fmt(e.ci95[0], DIGITS)}, ${fmt(e.ci95[1], DIGITS)}]` : '–'}`;
  const head = [
    'model',
    SWEEP_AXES[r.axis].head,
    ...(withRate ? ['fault rate'] : []),
    ...SWEEP_MEASURES,
    'completed',
    'errored',
    'folder',
  ];
  return htmlTable(
    head,
    r.points.map((p) => [
      p.model,
      axisText(p, r.axis),
      ...(withRate ? [p.fault_rate === null ? '–' : String(p.fault_rate)] : []),
      ...SWEEP_MEASURES.map((m) => est(p.measures[m])),
      `${fmtInt(p.completed)} of ${fmtInt(p.n)}`,
      fmtInt(p.errored),
      p.dir,
    ]),
    { textCols: [0, head.length - 1], wrapCols: [0, head.length - 1], lineBreaks: true },
  );
}

/** The whole page for `bas sweep --html`. */
export function sweepPage(r: SweepResult): string {
  const title = `bas sweep: ${r.models.join(', ')}`;
  const heading = SWEEP_AXES[r.axis].curves;
  const body = `<section><h2>${heading}</h2>${sweepFigures(r)}</section><section><h2>Points</h2>${sweepTable(r)}</section>`;
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>folder <b>${escapeHtml(r.dir)}</b></span><span>models <b>${r.models.length}</b></span><span>points <b>${r.points.length}</b></span></div>${provenanceTable(sweepSettingsLines(r))}`;
  return page({ title, header, body });
}
