/**
 * The HTML page of `bas sweep`: reward, `bas_correct` and `fault_audit` against ledger rows,
 * one curve per model with its 95% interval band, one panel per fault rate on shared axes,
 * and the table of points, drawn by the app (src/web) from the page's data: /api/sweep's
 * answer with the page's sections (display/blocks.ts). `sweepFigures` is also the curve figure
 * of `bas leaderboard` over sweep folders.
 */
import { basename } from 'node:path';
import type { Block, Section, TableBlock } from '../../display/blocks.js';
import { routeHash } from '../../display/route.js';
import type { PageData } from '../../display/page-data.js';
import type { SweepPoint } from '../../display/runs.js';
import { terminalText } from '../../io/terminal-text.js';
import { axisText, SWEEP_AXES } from '../../runfile/sweep-file.js';
import {
  figureAxis,
  hasFaultRates,
  pointName,
  renderSweep,
  sweepSettingsLines,
  SWEEP_CURVES,
  SWEEP_MEASURES,
  type SweepResult,
} from '../sweep.js';
import { fmt, fmtInt } from '../tables.js';
import { appScript } from './app-script.js';
import { Figures, safeCells } from './blocks.js';
import { escapeHtml, jsonForScript } from './escape.js';
import { page, provenanceTable } from './page.js';
import { curveChart } from './curves.js';
import { sweepRates, sweepSeries } from './figure.js';

const DIGITS = 3;

/** The curves of a sweep: a figure per measure, a panel per fault rate, every model in each. */
export function sweepFigures(r: SweepResult, figures: Figures | null): Block[] {
  // A reader that holds no figures (bas view in a browser) is drawn none.
  if (figures === null) return [];
  const { x, ...axis } = figureAxis(r);
  const rates = sweepRates(r);
  const width = 560;
  const drawn = SWEEP_CURVES.map((m) => {
    const panels = rates.map((rate) => {
      const series = sweepSeries(r, m, rate, x, (p, model) => {
        const e = p.measures[m];
        const ci = e.ci95 ? `[${fmt(e.ci95[0], DIGITS)}, ${fmt(e.ci95[1], DIGITS)}]` : '';
        return `${model}, ${pointName(p, r.axis)}: ${m} ${fmt(e.mean, DIGITS)} ${ci} (n = ${p.completed})`;
      });
      const title = `${m}: means with 95% intervals${rate === null ? '' : `, fault rate ${rate}`}`;
      return curveChart(series, { title, ...axis, width });
    });
    return { m, panels };
  });
  // One fault rate: the three figures side by side; several: a row of panels per measure.
  if (rates.length === 1) return [figures.add(...drawn.flatMap((f) => f.panels))];
  return drawn.flatMap((f) => [{ h3: f.m }, figures.add(...f.panels)]);
}

/** The table of points under the figures: every model and point with its numbers and folder. */
function sweepTable(r: SweepResult): TableBlock {
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
  return {
    head,
    rows: r.points.map((p) => [
      p.model,
      axisText(p, r.axis),
      ...(withRate ? [p.fault_rate === null ? '–' : String(p.fault_rate)] : []),
      ...SWEEP_MEASURES.map((m) => est(p.measures[m])),
      `${fmtInt(p.completed)} of ${fmtInt(p.n)}`,
      fmtInt(p.errored),
      p.dir,
    ]),
    text: [0, head.length - 1],
    wrap: [0, head.length - 1],
    lines: true,
  };
}

/** The sweep as /api/sweep answers it, from its curves (a point's problems are in its run's report). */
function sweepAnswerOf(r: SweepResult) {
  const t = (v: string) => terminalText(v);
  return {
    id: t(r.dir),
    models: r.models.map(t),
    created_at: null,
    text: t(renderSweep(r)),
    settings: sweepSettingsLines(r).map(([k, v]) => [k, t(v)]),
    points: r.points.map((p): SweepPoint => ({
      run: t(p.dir),
      point: t(pointName(p, r.axis)),
      model: t(p.model),
      num_transactions: p.num_transactions,
      fault_rate: p.fault_rate,
      status: t(p.status ?? 'unknown'),
      recorded: p.completed + p.errored,
      expected: p.n,
      reward: p.measures.reward,
      problem: null,
    })),
  };
}

/** What a sweep's page shows: its curves (their figures go to `figures`; none when null), then its points. */
export function sweepSections(r: SweepResult, figures: Figures | null): Section[] {
  return safeCells([
    [{ h2: SWEEP_AXES[r.axis].curves }, ...sweepFigures(r, figures)],
    [{ h2: 'Points' }, { table: sweepTable(r) }],
  ]);
}

/** The whole page for `bas sweep --html`. */
export function sweepPage(r: SweepResult, figures = new Figures()): string {
  const title = `bas sweep: ${r.models.join(', ')}`;
  const sections = sweepSections(r, figures);
  // Named in the address by its folder's name: an absolute path is no address.
  const id = basename(r.dir) || 'sweep';
  const data: PageData = {
    kind: 'sweep',
    start: routeHash({ view: 'sweep', sweep: id }),
    runs: {},
    sweeps: { [id]: { ...sweepAnswerOf(r), sections } },
  };
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>folder <b>${escapeHtml(r.dir)}</b></span><span>models <b>${r.models.length}</b></span><span>points <b>${r.points.length}</b></span></div>${provenanceTable(sweepSettingsLines(r))}`;
  const body = `<div id="app"></div>\n${figures.templates()}`;
  return page({ title, header, body, data: jsonForScript(data), script: appScript() });
}
