/**
 * The HTML page of `bas leaderboard`: per group of comparable runs, the ranking table and a
 * bar chart of the ranking measure with 95% whiskers. Every name and folder is escaped, and
 * long ones wrap, so the page fits a 1280-pixel window.
 */
import { LEADERBOARD_COLUMNS, leaderboardCells, vsBestText, type Leaderboard } from '../leaderboard.js';
import type { Estimate } from '../../summary/stats.js';
import { fmt, fmtCi, fmtInt } from '../tables.js';
import { escapeHtml } from './escape.js';
import { htmlTable, page } from './page.js';
import { barChart } from './svg.js';

function est(e: Estimate, digits = 3): string {
  return e.mean === null ? '–' : `${fmt(e.mean, digits)}\n${fmtCi(e.ci95, 2)}`;
}

/** The whole page for `bas leaderboard --html`. */
/** The leaderboard's page; `extra` is trusted HTML put after the tables (the curves of sweep folders). */
export function leaderboardPage(lb: Leaderboard, extra = ''): string {
  const title = 'bas leaderboard';
  const sections = lb.groups.map((g) => {
    const table = htmlTable(
      [...LEADERBOARD_COLUMNS, 'vs #1 (reward)'],
      g.runs.map((r) => {
        const v = vsBestText(r);
        return [...leaderboardCells(r, est), v.diff ? `${v.diff}\n${v.verdict}` : v.verdict];
      }),
      { textCols: [1, 2, 13], wrapCols: [1, 2], lineBreaks: true },
    );
    const chart = barChart(
      g.runs.map((r) => {
        const e = r.measures[lb.by];
        return {
          label: `#${r.rank} · ${r.name}`,
          value: e.mean,
          ci: e.ci95,
          note: e.mean === null ? 'no data' : `${e.mean.toFixed(3)} ${fmtCi(e.ci95, 2)}`,
        };
      }),
      { title: `${lb.by} (95% intervals)` },
    );
    const notes = g.runs
      .flatMap((r) => r.notes.map((n) => `<p class="note">${escapeHtml(`#${r.rank} ${r.name}: ${n}`)}</p>`))
      .join('');
    return `<section><h2>${escapeHtml(g.title)}</h2>${table}<div style="margin-top:14px">${chart}</div>${notes}</section>`;
  });
  const apart =
    lb.groups.length > 1
      ? `<p class="small">Runs on different tasks or task generators are ranked apart, never together.</p>`
      : '';
  const body = `${sections.join('')}<section><p class="small">Best first by ${escapeHtml(lb.by)}. Intervals are 95% (methods in docs/statistics.md). "vs #1" is the paired difference in reward against the group's best on the tasks both ran, resampled by task ${fmtInt(lb.resamples)} times (seed ${lb.seed}); a verdict names a winner only when its interval excludes zero. Pooled precision and recall are over all claimed and true (row, code) pairs.</p>${apart}</section>`;
  const header = `<h1>${escapeHtml(title)}</h1><div class="meta"><span>groups <b>${lb.groups.length}</b></span><span>runs <b>${lb.groups.reduce((a, g) => a + g.runs.length, 0)}</b></span><span>ranked by <b>${escapeHtml(lb.by)}</b></span></div>`;
  return page({ title, header, body: body + extra });
}
