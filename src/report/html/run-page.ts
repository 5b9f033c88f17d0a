/**
 * The HTML page of one run: headline scores, charts (accuracy per label, precision and recall
 * per fault code, the reward's distribution), counts, tokens and cost, and the task list with
 * its drill-down (built in the browser from the embedded data).
 */
import { BAS_LABELS, FAULT_CODES } from '../../task/types.js';
import type { RunReport } from '../run-report.js';
import { provenanceLines } from '../provenance.js';
import type { Estimate } from '../../summary/stats.js';
import type { CauseCounts } from '../../summary/summary.js';
import { fmt, fmtCi, fmtEstimate, fmtInt } from '../tables.js';
import { basename } from 'node:path';
import { appScript } from './app-script.js';
import type { DrillData } from '../../display/drill.js';
import { EMPTY_QUERY } from '../../display/list.js';
import type { PageData } from '../../display/page-data.js';
import { routeHash } from '../../display/route.js';
import { escapeHtml, jsonForScript } from './escape.js';
import { htmlTable, page, provenanceTable } from './page.js';
import { barChart, histogramChart } from './svg.js';
import { lowerBoundLines } from '../cost.js';
import { shellWord, usd } from '../../display/format.js';

function estimateCells(name: string, e: Estimate, digits = 3): string[] {
  return [name, fmt(e.mean, digits), fmt(e.stderr, digits), fmtCi(e.ci95, digits), String(e.n), e.method ?? '–'];
}

function note(e: Estimate): string {
  return e.mean === null ? 'no data' : fmtEstimate(e, 3, '  ');
}

/** The header block shared with the text report: what was run, how, and in what state. */
function header(r: RunReport, title: string): string {
  const s = r.summary;
  const rollouts =
    r.run.expected_rollouts !== null
      ? `${fmtInt(s.counts.rollouts)} of ${fmtInt(r.run.expected_rollouts)} recorded`
      : `${fmtInt(s.counts.rollouts)} recorded`;
  const notes = r.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('');
  return `<h1>${escapeHtml(title)}</h1>${provenanceTable([['folder', r.run.dir], ...provenanceLines(r.run.provenance), ['rollouts', rollouts]])}${notes}`;
}

/** What the page holds of the run's rollouts, and how to see any other. */
function embeddedNote(drill: DrillData): string {
  const l = drill.limits;
  const n = drill.rollouts.length;
  const all = n >= drill.total_rollouts;
  const what = all
    ? `All ${fmtInt(drill.total_rollouts)} rollouts are embedded.`
    : `This page embeds ${fmtInt(n)} of the run's ${fmtInt(drill.total_rollouts)} rollouts, so it stays small at any size: the ${l.worst} worst and ${l.best} best by reward, up to ${l.perCodeMissed} that missed and ${l.perCodeWronglyFlagged} that wrongly flagged each fault code, up to ${l.perErrorType} per error type, up to ${l.unparseable} unparseable replies, and any asked for with --rollout.`;
  const how = `Any rollout: <code>bas report ${escapeHtml(shellWord(drill.dir))} --rollout INDEX:ROLLOUT</code> prints it; add <code>--html FILE</code> to embed it in this page.`;
  return `<p class="small">${escapeHtml(what)} ${all ? '' : how}</p>`;
}

type RunSummary = RunReport['summary'];

/** Every score with its interval, in one table. */
function scoresTable(s: RunSummary): string {
  return htmlTable(
    ['score', 'mean', 'stderr', '95% CI', 'n', 'interval'],
    [
      estimateCells('reward', s.reward),
      estimateCells('reward (errors as 0)', s.reward_errors_as_zero),
      estimateCells('bas_correct', s.rewards.bas_correct),
      estimateCells('fault_audit', s.rewards.fault_audit),
      ...Object.entries(s.metrics).map(([k, e]) => estimateCells(k, e, k === 'num_flagged' ? 2 : 3)),
    ],
  );
}

/** The rewards as bars with their 95% whiskers. */
function headlineChart(s: RunSummary): string {
  const bar = (label: string, e: Estimate) => ({ label, value: e.mean, ci: e.ci95, note: note(e) });
  return barChart(
    [
      bar('reward', s.reward),
      bar('reward (errors as 0)', s.reward_errors_as_zero),
      bar('bas_correct', s.rewards.bas_correct),
      bar('fault_audit', s.rewards.fault_audit),
    ],
    { title: 'Rewards (95% intervals)' },
  );
}

/** Accuracy per BAS label, and recall and precision per fault code. */
function wrongCharts(s: RunSummary): [string, string] {
  const labels = barChart(
    BAS_LABELS.map((l) => ({ label: l, value: s.labels[l].mean, ci: s.labels[l].ci95, note: note(s.labels[l]) })),
    { title: 'Accuracy per BAS label' },
  );
  const codes = barChart(
    FAULT_CODES.map((c) => ({
      label: c,
      value: s.codes[c].recall,
      value2: s.codes[c].precision,
      note: `recall ${fmt(s.codes[c].recall)} · precision ${fmt(s.codes[c].precision)}`,
    })),
    { title: 'Recall per fault code', legend: ['recall', 'precision'] },
  );
  return [labels, codes];
}

/** Rollouts by outcome, errors by type. */
function countsTable(s: RunSummary): string {
  return htmlTable(
    ['rollouts', 'count'],
    [
      ['tasks', fmtInt(s.counts.tasks)],
      ['completed', fmtInt(s.counts.completed)],
      ['errored', fmtInt(s.counts.errored)],
      ...Object.entries(s.counts.errors_by_type)
        .sort()
        .map(([t, n]) => [`  ${t}`, fmtInt(n)]),
      ...(s.counts.replaced ? [['lines superseded by a retry', fmtInt(s.counts.replaced)]] : []),
    ],
  );
}

/** Precision and recall per fault code, pooled and per code. */
function codeTable(s: RunSummary): string {
  const p = s.faults_pooled;
  const row = (c: (typeof FAULT_CODES)[number]) => {
    const k = s.codes[c];
    return [c, fmt(k.precision), fmt(k.recall), fmtInt(k.tp), fmtInt(k.fp), fmtInt(k.fn)];
  };
  const table = htmlTable(
    ['fault code', 'precision', 'recall', 'tp', 'fp', 'fn'],
    [
      ['all codes, pooled', fmt(p.precision), fmt(p.recall), fmtInt(p.tp), fmtInt(p.fp), fmtInt(p.fn)],
      ...FAULT_CODES.map(row),
    ],
  );
  return `${table}<p class="small">Pooled over all claimed and true (row, code) pairs. <code>fault_precision</code> under Scores is the mean per reply, 0 for a reply that claims nothing.</p>`;
}

/** Tokens, latency and cost. */
function usageTable(r: RunReport): string {
  const s = r.summary;
  const seconds = (ms: number | null) => fmt(ms === null ? null : ms / 1000, 2);
  return htmlTable(
    ['usage and cost', 'value'],
    [
      ['prompt tokens', fmtInt(s.tokens.prompt)],
      ['completion tokens', fmtInt(s.tokens.completion)],
      [r.cost.lower_bound ? 'total tokens, at least' : 'total tokens', fmtInt(s.tokens.total)],
      ['tokens that bought no score', fmtInt(s.tokens.unscored?.total ?? 0)],
      ['latency p50 (s)', seconds(s.latency_ms.p50)],
      ['latency p95 (s)', seconds(s.latency_ms.p95)],
      ['cost, input', usd(r.cost.input_usd)],
      ['cost, output', usd(r.cost.output_usd)],
      [r.cost.lower_bound ? 'cost, total, at least' : 'cost, total', usd(r.cost.total_usd)],
      ...lowerBoundLines(r.cost, usd).map(([k, v]): [string, string] => [k.trim(), v]),
      ['cost that bought no score', usd(r.cost.unscored_usd)],
    ],
  );
}

/** Where a wrong BAS comes from (records since 0.4.1 only); empty without them. */
function consistencyBlock(s: RunSummary): string {
  const c = s.consistency;
  if (!c?.n) return '';
  const causeRow = (name: string, k: CauseCounts) => [
    name,
    fmtInt(k.audit),
    fmtInt(k.arithmetic),
    fmtInt(k.both),
    fmtInt(k.audit + k.arithmetic + k.both),
  ];
  const table = htmlTable(
    ['wrong BAS, because of', 'audit', 'arithmetic', 'both', 'wrong'],
    [causeRow('BAS (any label)', c.bas_errors), ...BAS_LABELS.map((l) => causeRow(l, c.labels[l]))],
  );
  return `${table}<p class="small">BAS as its own faults imply: ${escapeHtml(fmtEstimate(c.bas_consistent))} of ${fmtInt(c.n)} parsed replies. Audit: it stated what its own faults imply, and they are wrong; arithmetic: its faults imply the right figure and it stated another (docs/benchmark.md).</p>`;
}

/** With several rollouts per task: where the reward's variance comes from (noise.ts); empty otherwise. */
function noiseBlock(s: RunSummary): string {
  const n = s.noise;
  if (!n) return '';
  const table = htmlTable(
    ['same requests as', 'tasks', '95% CI ±'],
    n.same_requests.map((r) => [`${r.rollouts_per_task} per task`, fmtInt(r.tasks), fmt(r.half_width, 4)]),
  );
  const share = n.prediction_share === null ? '–' : `${Math.round(100 * n.prediction_share)}%`;
  const best = `${n.best_rollouts_per_task} rollout${n.best_rollouts_per_task === 1 ? '' : 's'} per task`;
  return `${table}<p class="small">Reward variance: ${share} prediction noise (within a task, variance ${escapeHtml(fmt(n.within_variance, 4))}), the rest data noise (between tasks, ${escapeHtml(fmt(n.between_variance, 4))}). Narrowest for the same requests: ${best} (docs/statistics.md, Noise split).</p>`;
}

/** pass@k of bas_correct; empty with one rollout per task. */
function passKTable(s: RunSummary): string {
  if (!s.pass_at_k.length) return '';
  return htmlTable(
    ['pass@k (bas_correct)', 'value', 'tasks'],
    s.pass_at_k.map((p) => [`pass@${p.k}`, fmt(p.value), String(p.tasks)]),
  );
}

/** The task list and the open rollout: places the app (src/web) fills from the embedded data. */
function tasksSection(drill: DrillData): string {
  return `
<section id="tasks"><h2>Tasks</h2>
<div id="tasks-app"></div>
<p class="small">Click a rollout to see its ledger, with each row marked: fault found, missed, or wrongly flagged. The address then names it: a copied link reopens it.</p>
${embeddedNote(drill)}
</section>
<div id="drill"></div>`;
}

/**
 * The data the app reads: the run's embedded rollouts, opened at the run. A page holds one
 * run, so its address names it by its folder's own name (`#/run/NAME?rollout=…`), not by a
 * path that means something only where the page was made.
 */
function pageData(drill: DrillData): PageData {
  const id = basename(drill.dir.replace(/[\\/]+$/, '')) || 'run';
  const start = routeHash({ view: 'run', run: id, list: EMPTY_QUERY, open: null });
  return { kind: 'run', start, runs: { [id]: { drill } } };
}

/** `html` in a grid cell, or nothing when it is empty. */
const cell = (html: string): string => (html ? `<div>${html}</div>` : '');

/** The whole page for `bas report --html`. */
export function runPage(r: RunReport, drill: DrillData): string {
  const s = r.summary;
  const title = `bas report: ${r.run.model}`;
  const [labels, codes] = wrongCharts(s);
  const histogram = histogramChart(s.reward_histogram, 'Reward distribution (completed rollouts)');
  const body = `
<section><h2>Scores</h2><div class="grid"><div>${scoresTable(s)}<p class="small">Means over completed rollouts. Intervals stay inside what each score can be: Wilson for 0/1 scores, Wilson on an effective sample size for other scores in [0, 1], a Poisson score interval for counts (docs/statistics.md); tasks are clusters when they have several rollouts.</p></div><div>${headlineChart(s)}</div></div></section>
<section><h2>Where it goes wrong</h2><div class="grid"><div>${labels}</div><div>${codes}</div>${cell(consistencyBlock(s))}<div>${histogram}</div></div></section>
<section><h2>Details</h2><div class="grid"><div>${countsTable(s)}</div><div>${codeTable(s)}</div><div>${usageTable(r)}</div>${cell(passKTable(s))}${cell(noiseBlock(s))}</div></section>
${tasksSection(drill)}`;
  return page({ title, header: header(r, title), body, data: jsonForScript(pageData(drill)), script: appScript() });
}
