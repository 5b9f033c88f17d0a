/**
 * The HTML page of `bas compare`: runs side by side, bars with 95% whiskers per run for each
 * reward, and the paired differences against the baseline with their verdicts.
 */
import { COMPARE_MEASURES, type Comparison } from '../compare.js';
import { describeTask } from '../run-report.js';
import { fmtEstimate, fmtInt } from '../tables.js';
import { dateText, durationText, samplingText } from '../provenance.js';
import { escapeHtml } from './escape.js';
import { htmlTable, page } from './page.js';
import { barChart } from './svg.js';

function signed(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
}

/** The whole page for `bas compare --html`. */
export function comparePage(c: Comparison): string {
  // Names, not models: two runs of one model are told apart by their folders.
  const title = `bas compare: ${c.runs.map((r) => r.name).join(' vs ')}`;
  const runs = htmlTable(
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
  const provenance = htmlTable(
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
  // Mean over interval in each cell, so nine columns fit the page without a scroll bar.
  const measures = htmlTable(
    ['run', ...COMPARE_MEASURES.map((m) => m.replace(/_/g, '_\u200b'))],
    c.runs.map((r) => [
      r.label,
      ...COMPARE_MEASURES.map((m) => fmtEstimate(r.measures[m], m === 'num_flagged' ? 2 : 3, '\n')),
    ]),
    { lineBreaks: true },
  );
  const charts = (['reward', 'reward_errors_as_zero', 'bas_correct', 'fault_audit'] as const)
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
  const pairs = c.pairings.length
    ? htmlTable(
        ['pair', 'shared tasks', 'left out', 'reward diff', '95% CI', 'diff (errors as 0)', '95% CI', 'verdict'],
        c.pairings.map((p) => [
          `${p.run} − ${p.baseline}`,
          fmtInt(p.shared_tasks),
          fmtInt(p.left_out),
          signed(p.diff?.mean),
          p.diff?.ci95 ? `[${signed(p.diff.ci95[0])}, ${signed(p.diff.ci95[1])}]` : '–',
          signed(p.diff_errors_as_zero?.mean),
          p.diff_errors_as_zero?.ci95
            ? `[${signed(p.diff_errors_as_zero.ci95[0])}, ${signed(p.diff_errors_as_zero.ci95[1])}]`
            : '–',
          p.verdict ?? (p.comparable ? '–' : 'not comparable'),
        ]),
        { textCols: [7], wrapCols: [7] },
      )
    : '';
  const notes = [
    ...c.pairings.filter((p) => p.note).map((p) => p.note!),
    ...c.runs.flatMap((r) => r.notes.map((n) => `${r.label}: ${n}`)),
  ]
    .map((n) => `<p class="note">${escapeHtml(n)}</p>`)
    .join('');
  const body = `
<section><h2>Runs</h2>${runs}<h3>Provenance</h3>${provenance}</section>
<section><h2>Means with 95% intervals</h2>${measures}<div class="grid" style="margin-top:14px">${charts}</div></section>
<section><h2>Paired differences against ${escapeHtml(c.baseline)}</h2>${pairs || '<p>No pairs.</p>'}
<p class="small">Per shared task, each run's rollouts are averaged first; the difference (run − baseline) is resampled by task ${fmtInt(c.resamples)} times (seed ${c.seed}). A verdict names a winner only when the 95% interval excludes zero.</p>${notes}</section>`;
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>baseline <b>${escapeHtml(c.baseline)}</b></span><span>runs <b>${c.runs.length}</b></span></div>`;
  return page({ title, header, body });
}
