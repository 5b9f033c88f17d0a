/**
 * The HTML page of `bas compare`: runs side by side, bars with 95% whiskers per run for each
 * reward, and the paired differences against the baseline with their verdicts.
 */
import { anytimeVerdictNote, verdictSource, type Comparison } from '../compare.js';
import { COMPARE_MEASURES } from '../../settings/choices.js';
import { COMPARE_TABLE, compareRows } from '../compare-columns.js';
import { pickColumns, stackedCell } from '../columns.js';
import type { CompareColumn } from '../../settings/choices.js';
import type { PairedBootstrap } from '../../summary/stats.js';
import { describeTask } from '../run-report.js';
import { fmtEstimate, fmtInt, signed } from '../tables.js';
import { dateText, durationText, samplingText } from '../provenance.js';
import { escapeHtml, jsonForScript } from './escape.js';
import { appScript } from './app-script.js';
import type { PageData } from '../../display/page-data.js';
import { htmlTable, page } from './page.js';
import { barChart } from './svg.js';

/** Each run's identity and counts. */
function runsTable(c: Comparison): string {
  return htmlTable(
    ['run', 'model', 'tasks', 'rollouts', 'completed', 'errors', 'task config', 'folder'],
    c.runs.map((r) => [
      r.label,
      r.model,
      fmtInt(r.tasks),
      fmtInt(r.rollouts),
      fmtInt(r.completed),
      fmtInt(r.errors),
      describeTask(r.task),
      r.dir,
    ]),
    { textCols: [1, 6, 7], wrapCols: [1, 6, 7] },
  );
}

/** How each run was made: endpoint, sampling as sent, size, versions, start, wall time, status. */
function provenanceTable(c: Comparison): string {
  return htmlTable(
    ['run', 'endpoint', 'sampling as sent', 'tasks × rollouts', 'versions', 'started', 'wall time', 'status'],
    c.runs.map((r) => {
      const p = r.provenance;
      return [
        r.label,
        p.endpoint === 'built-in' ? 'built-in' : `${p.endpoint ?? 'unknown'} (provider ${p.provider ?? 'unknown'})`,
        samplingText(p.sampling),
        `${p.n ?? 'unknown'} × ${p.rollouts ?? 'unknown'}`,
        `bas ${p.bas_version ?? 'unknown'}, ${p.generator === null ? 'tasks from a file' : `generator ${p.generator}, prompt ${p.prompt_version ?? 'unknown'}`}`,
        dateText(p.started_at),
        durationText(p.wall_time_s),
        p.status ?? 'unknown',
      ];
    }),
    { textCols: [1, 2, 4, 7], wrapCols: [1, 2, 4] },
  );
}

/** Every measure per run, a mean over its interval in each cell, so nine columns fit the page without a scroll bar. */
function measuresTable(c: Comparison): string {
  return htmlTable(
    ['run', ...COMPARE_MEASURES.map((m) => m.replace(/_/g, '_\u200b'))],
    c.runs.map((r) => [
      r.label,
      ...COMPARE_MEASURES.map((m) => fmtEstimate(r.measures[m], m === 'num_flagged' ? 2 : 3, '\n')),
    ]),
    { lineBreaks: true },
  );
}

/** Bars with 95% whiskers per run for each reward. */
function charts(c: Comparison): string {
  return (['reward', 'reward_errors_as_zero', 'bas_correct', 'fault_audit'] as const)
    .map((m) =>
      barChart(
        c.runs.map((r) => ({
          label: `${r.label} · ${r.name}`,
          value: r.measures[m].mean,
          ci: r.measures[m].ci95,
          note: r.measures[m].mean === null ? 'no data' : fmtEstimate(r.measures[m]),
        })),
        { title: `${m} (95% intervals)` },
      ),
    )
    .map((svg) => `<div>${svg}</div>`)
    .join('');
}

/** The paired differences against the baseline, with their verdicts ('' without pairs). */
function pairsTable(c: Comparison): string {
  if (!c.pairings.length) return '';
  const ci = (d: PairedBootstrap | null) => (d?.ci95 ? `[${signed(d.ci95[0])}, ${signed(d.ci95[1])}]` : '–');
  return htmlTable(
    ['pair', 'shared tasks', 'left out', 'reward diff', '95% CI', 'diff (errors as 0)', '95% CI', 'verdict'],
    c.pairings.map((p) => [
      `${p.run} − ${p.baseline}`,
      fmtInt(p.shared_tasks),
      fmtInt(p.left_out),
      signed(p.diff?.mean),
      ci(p.diff),
      signed(p.diff_errors_as_zero?.mean),
      ci(p.diff_errors_as_zero),
      p.verdict === null ? (p.comparable ? '–' : 'not comparable') : `${p.verdict}${verdictSource(p)}`,
    ]),
    { textCols: [7], wrapCols: [7] },
  );
}

/** The runs in one table of the columns `--columns` chose (mean over interval in each estimate's cell). */
function chosenTable(c: Comparison, columns: readonly CompareColumn[]): string {
  const cols = pickColumns(COMPARE_TABLE, columns);
  const text = cols.flatMap((col, i) => (col.align === 'left' ? [i] : []));
  return htmlTable(
    cols.map((col) => col.head.replace(/_/g, '_\u200b')),
    compareRows(c).map((r) => cols.map((col) => stackedCell(col.value(r, c)))),
    { textCols: text, wrapCols: text, lineBreaks: true },
  );
}

/**
 * The whole page for `bas compare --html`; with `columns` (`--columns`), the runs and their
 * measures are one table of those columns.
 */
export function comparePage(
  c: Comparison,
  columns: readonly CompareColumn[] | null = null,
  data: PageData | null = null,
): string {
  // Names, not models: two runs of one model are told apart by their folders.
  const title = `bas compare: ${c.runs.map((r) => r.name).join(' vs ')}`;
  const notes = [
    ...c.pairings.flatMap((p) => anytimeVerdictNote(p) ?? []),
    ...c.pairings.filter((p) => p.note).map((p) => p.note!),
    ...c.runs.flatMap((r) => r.notes.map((n) => `${r.label}: ${n}`)),
  ]
    .map((n) => `<p class="note">${escapeHtml(n)}</p>`)
    .join('');
  const [runs, measures] = columns === null ? [runsTable(c), measuresTable(c)] : [chosenTable(c, columns), ''];
  const body = `
<section><h2>Runs</h2>${runs}<h3>Provenance</h3>${provenanceTable(c)}</section>
<section><h2>Means with 95% intervals</h2>${measures}<div class="grid" style="margin-top:14px">${charts(c)}</div></section>
<section><h2>Paired differences against ${escapeHtml(c.baseline)}</h2>${pairsTable(c) || '<p>No pairs.</p>'}
<p class="small">Per shared task, each run's rollouts are averaged first; the difference (run − baseline) is resampled by task ${fmtInt(c.resamples)} times (seed ${c.seed}). A verdict names a winner only when the 95% interval excludes zero.</p>${notes}</section>`;
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>baseline <b>${escapeHtml(c.baseline)}</b></span><span>runs <b>${c.runs.length}</b></span></div>`;
  if (data === null) return page({ title, header, body });
  // The app (src/web) draws the diff from the embedded data first: flipped rollouts first, each side by side.
  const changed = `<section id="changed"><h2>Rollouts that changed, flipped first</h2><div id="app"></div></section>`;
  return page({ title, header, body: changed + body, data: jsonForScript(data), script: appScript() });
}
