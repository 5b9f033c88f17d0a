/**
 * The summary as plain-text tables (cli-table3, no colours, so output is the same on a
 * terminal, in a pipe and in a test).
 */
import Table from 'cli-table3';
import { fitWidth, terminalText } from '../io/terminal-text.js';
import { BAS_LABELS, FAULT_CODES } from '../task/types.js';
import type { Estimate } from '../summary/stats.js';
import type { CauseCounts, Summary } from '../summary/summary.js';
import { incompleteBecause } from '../summary/billed.js';

/**
 * A table with our house look: no colour codes. Cells may quote outside text (model names,
 * folder names, error messages), so every text cell is made safe for a terminal on its way in.
 */
export function plainTable(
  head: string[],
  align?: Array<'left' | 'right'>,
  opts: { separators?: boolean } = {},
): Table.Table {
  const table = new Table({
    head: head.map(terminalText),
    // Compact (no line between rows) unless cells span several lines and need separating.
    style: { head: [], border: [], compact: !opts.separators },
    colAligns: align ?? head.map((_, i) => (i === 0 ? 'left' : 'right')),
  });
  const push = table.push.bind(table);
  table.push = (...rows: Table.Table[number][]) => push(...rows.map(safeRow));
  return table;
}

function safeRow<R>(row: R): R {
  return (
    Array.isArray(row) ? row.map((cell: unknown) => (typeof cell === 'string' ? terminalText(cell) : cell)) : row
  ) as R;
}

/** A number with `digits` decimals, or an en dash for a missing value. */
export function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits);
}

/** "[0.123, 0.456]" or an en dash. */
export function fmtCi(ci: [number, number] | null, digits = 3): string {
  return ci ? `[${fmt(ci[0], digits)}, ${fmt(ci[1], digits)}]` : '–';
}

/**
 * A mean and its 95% interval in one number format (the same decimals for both, so a mean of
 * 1.000 never sits beside "[1.00, 1.00]"), separated by `sep`; an en dash without a mean.
 */
export function fmtEstimate(e: Estimate, digits = 3, sep = ' '): string {
  return e.mean === null ? '–' : `${fmt(e.mean, digits)}${sep}${fmtCi(e.ci95, digits)}`;
}

/** A difference with its sign, three decimals ("+0.120", "-0.050"); "–" when there is none. */
export function signed(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `${v >= 0 ? '+' : ''}${v.toFixed(3)}`;
}

/** A whole number with thousands separators. */
export function fmtInt(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

/** The interval method in a few letters, so the scores table fits 80 columns; see METHOD_LEGEND. */
const METHOD_SHORT: Record<NonNullable<Estimate['method']>, string> = {
  wilson: 'wilson',
  'wilson-neff': 'wilson*',
  'poisson-neff': 'poisson*',
  t: 't',
};
const METHOD_LEGEND =
  'interval: wilson for 0/1 scores, wilson* for other scores in [0, 1], poisson*\nfor counts (* on the effective sample size; see docs/statistics.md), t unbounded';

function estimateRow(name: string, e: Estimate, digits = 3): string[] {
  return [
    name,
    fmt(e.mean, digits),
    fmt(e.stderr, digits),
    fmtCi(e.ci95, digits),
    String(e.n),
    e.method ? METHOD_SHORT[e.method] : '–',
  ];
}

/** Rollouts by outcome, errors by type, lines superseded and replies cut. */
function countsTable(s: Summary): string {
  const counts = plainTable(['rollouts', 'count']);
  counts.push(['tasks', fmtInt(s.counts.tasks)]);
  counts.push(['rollouts', fmtInt(s.counts.rollouts)]);
  counts.push(['completed', fmtInt(s.counts.completed)]);
  counts.push(['errored', fmtInt(s.counts.errored)]);
  for (const [type, n] of Object.entries(s.counts.errors_by_type).sort()) counts.push([`  ${type}`, fmtInt(n)]);
  if (s.counts.replaced) counts.push(['lines superseded by a later retry', fmtInt(s.counts.replaced)]);
  if (s.truncated) counts.push(['cut by the token limit (finish_reason "length")', fmtInt(s.truncated)]);
  // A run its rule stopped is summarised over the tasks the rule used; later replies are apart.
  const late = s.counts.after_stop ?? 0;
  if (late) counts.push([`repl${late === 1 ? 'y' : 'ies'} after the stop, not in the summary`, fmtInt(late)]);
  return counts.toString();
}

/** Every score with its interval. */
function scoresTable(s: Summary): string {
  const scores = plainTable(
    ['score', 'mean', 'stderr', '95% CI', 'n', 'interval'],
    ['left', 'right', 'right', 'right', 'right', 'left'],
  );
  scores.push(estimateRow('reward', s.reward));
  scores.push(estimateRow('reward (errors as 0)', s.reward_errors_as_zero));
  scores.push(estimateRow('bas_correct', s.rewards.bas_correct));
  scores.push(estimateRow('fault_audit', s.rewards.fault_audit));
  for (const [name, e] of Object.entries(s.metrics)) scores.push(estimateRow(name, e, name === 'num_flagged' ? 2 : 3));
  return scores.toString();
}

/** Precision and recall per fault code, pooled and per code, with what pooled means. */
function codesLines(s: Summary): string[] {
  const codes = plainTable(['fault code', 'precision', 'recall', 'tp', 'fp', 'fn']);
  const p = s.faults_pooled;
  codes.push(['all codes, pooled', fmt(p.precision), fmt(p.recall), fmtInt(p.tp), fmtInt(p.fp), fmtInt(p.fn)]);
  for (const c of FAULT_CODES) {
    const b = s.codes[c];
    codes.push([c, fmt(b.precision), fmt(b.recall), fmtInt(b.tp), fmtInt(b.fp), fmtInt(b.fn)]);
  }
  if (s.unknown_codes) codes.push(['(unknown codes claimed)', '', '', '', fmtInt(s.unknown_codes), '']);
  return [
    codes.toString(),
    'precision and recall here are pooled over all claimed and true (row, code)\npairs; fault_precision above is the mean per reply,\n0 for a reply that claims nothing',
  ];
}

/** Tokens (with what bought no score and what the cache gave), latency and time to first token. */
function usageTable(s: Summary): string {
  const usage = plainTable(['usage', 'value']);
  usage.push(['prompt tokens', fmtInt(s.tokens.prompt)]);
  usage.push(['completion tokens', fmtInt(s.tokens.completion)]);
  // Reasoning billed outside completion_tokens (total_tokens beyond the two) is counted as completion.
  if (s.tokens.beyond_completion)
    usage.push(['  of which beyond completion_tokens', fmtInt(s.tokens.beyond_completion)]);
  // Requests in flight at a stop, replies billed without usage: the sums leave them out.
  const incomplete = incompleteBecause(s.tokens);
  usage.push([incomplete ? 'total tokens, at least' : 'total tokens', fmtInt(s.tokens.total)]);
  if (incomplete) usage.push([`  not counted: ${incomplete}`, worstText(s.tokens)]);
  if (s.tokens.reasoning) usage.push(['  of which reasoning', fmtInt(s.tokens.reasoning)]);
  if (s.tokens.cached) usage.push(['  of which cached prompt', fmtInt(s.tokens.cached)]);
  // Errored rollouts were paid for too: their tokens are in the sums, and shown apart.
  if (s.tokens.unscored?.total) usage.push(['  of which bought no score', fmtInt(s.tokens.unscored.total)]);
  // Replies from the response cache cost nothing here: their tokens are apart from the sums.
  const hits = s.tokens.from_cache;
  if (hits)
    usage.push([
      `from the cache (${fmtInt(hits.rollouts)} rollout${hits.rollouts === 1 ? '' : 's'}, not paid)`,
      `${fmtInt(hits.total)} tokens`,
    ]);
  usage.push(['latency p50 (s)', fmt(s.latency_ms.p50 === null ? null : s.latency_ms.p50 / 1000, 2)]);
  usage.push(['latency p95 (s)', fmt(s.latency_ms.p95 === null ? null : s.latency_ms.p95 / 1000, 2)]);
  // Summaries of older runs have no ttft_ms; streamed runs show time to first token.
  const ttft = s.ttft_ms;
  if (ttft?.n && ttft.p50 !== null && ttft.p95 !== null) {
    usage.push(['first token p50 (s)', fmt(ttft.p50 / 1000, 2)]);
    usage.push(['first token p95 (s)', fmt(ttft.p95 / 1000, 2)]);
  }
  return usage.toString();
}

/** "up to 12,345 more": the worst case of what the sums leave out, where it is bounded. */
function worstText(t: Summary['tokens']): string {
  const f = t.in_flight ?? { requests: 0, prompt: 0, completion: 0 };
  const u = t.unreported ?? { requests: 0, prompt: 0, completion: 0 };
  if (f.completion === null) return 'unknown';
  const worst = f.prompt + f.completion + u.prompt + u.completion;
  return worst > 0 ? `up to ${fmtInt(worst)} more` : 'unknown';
}

/** The summary's tables, each preceded by a heading line. */
export function renderSummary(s: Summary, opts: { title?: string } = {}): string {
  const parts: string[] = [];
  if (opts.title) parts.push(terminalText(opts.title));
  parts.push(countsTable(s));
  if (s.errors?.length) parts.push(renderErrors(s));
  parts.push(scoresTable(s), METHOD_LEGEND);
  const labels = plainTable(['label', 'accuracy', '95% CI', 'n']);
  for (const l of BAS_LABELS) labels.push([l, fmt(s.labels[l].mean), fmtCi(s.labels[l].ci95), String(s.labels[l].n)]);
  parts.push(labels.toString(), ...codesLines(s));
  const consistency = renderConsistency(s);
  if (consistency) parts.push(consistency);
  const noise = renderNoise(s);
  if (noise) parts.push(noise);
  if (s.pass_at_k.length) {
    const pk = plainTable(['pass@k (bas_correct)', 'value', 'tasks']);
    for (const r of s.pass_at_k) pk.push([`pass@${r.k}`, fmt(r.value), String(r.tasks)]);
    parts.push(pk.toString());
  }
  parts.push(usageTable(s));
  if (s.tokens.ignored)
    parts.push(
      `(${fmtInt(s.tokens.ignored)} token counts were negative, fractional or absurd and are left out of the sums)`,
    );
  return parts.join('\n') + '\n';
}

/** "12 (40%)": a count and its share of `of`. */
function countShare(count: number, of: number): string {
  return of ? `${fmtInt(count)} (${Math.round((100 * count) / of)}%)` : fmtInt(count);
}

/**
 * Where a wrong BAS comes from: how often the stated BAS is the one the reply's own faults
 * imply, and each wrong BAS (and label) by cause. Null for a run whose records have no split
 * (written before bas 0.4.1).
 */
function renderConsistency(s: Summary): string | null {
  const c = s.consistency;
  if (!c?.n) return null;
  const e = c.bas_consistent;
  const lines = [`BAS as its own faults imply: ${fmt(e.mean)} ${fmtCi(e.ci95)} of ${fmtInt(c.n)} parsed replies`];
  const t = plainTable(['wrong BAS, because of', 'audit', 'arithmetic', 'both', 'wrong']);
  const row = (name: string, k: CauseCounts) => {
    const wrong = k.audit + k.arithmetic + k.both;
    t.push([
      name,
      countShare(k.audit, wrong),
      countShare(k.arithmetic, wrong),
      countShare(k.both, wrong),
      fmtInt(wrong),
    ]);
  };
  row('BAS (any label)', c.bas_errors);
  for (const l of BAS_LABELS) row(`  ${l}`, c.labels[l]);
  lines.push(
    t.toString(),
    'audit: it stated what its own faults imply, and they are wrong; arithmetic:\nits faults imply the right figure, and it stated another (docs/benchmark.md)',
  );
  return lines.join('\n');
}

/**
 * With several rollouts per task: how much of the reward's variance is prediction noise
 * (within a task) and how much data noise (between tasks), and the interval the same
 * requests would give spread as K rollouts per task. Null for one rollout per task.
 */
function renderNoise(s: Summary): string | null {
  const n = s.noise;
  if (!n) return null;
  const share = n.prediction_share === null ? '–' : `${Math.round(100 * n.prediction_share)}%`;
  const lines = [
    `reward variance over ${fmtInt(n.tasks)} tasks × ${fmt(n.rollouts_per_task, 2)} rollouts: ${share} prediction noise\n(within a task), the rest data noise (between tasks)`,
  ];
  const t = plainTable(['same requests as', 'tasks', '95% CI ±']);
  const own = Math.round(n.rollouts_per_task);
  for (const r of n.same_requests)
    t.push([
      `${r.rollouts_per_task} rollout${r.rollouts_per_task === 1 ? '' : 's'} per task${r.rollouts_per_task === own ? ' (this run)' : ''}`,
      fmtInt(r.tasks),
      fmt(r.half_width, 4),
    ]);
  lines.push(
    t.toString(),
    `narrowest for the same requests: ${n.best_rollouts_per_task} rollout${n.best_rollouts_per_task === 1 ? '' : 's'} per task (within-task variance\n${fmt(n.within_variance, 4)}, between-task ${fmt(n.between_variance, 4)}; docs/statistics.md, Noise split)`,
  );
  return lines.join('\n');
}

/** Width of an example message in the text summary (JSON keeps the whole of it). */
const EXAMPLE_WIDTH = 68;

/** The commonest error messages per type, as indented lines that fit 80 columns. */
function renderErrors(s: Summary): string {
  const lines = ['why rollouts errored (commonest messages per type)'];
  for (const d of s.errors) {
    // Types and messages come from endpoints and files: terminal-safe before they are shown.
    lines.push(`  ${terminalText(d.type)}: ${fmtInt(d.count)}`);
    for (const m of d.messages) {
      // Cut by columns (wide characters count two), never inside "[redacted]".
      lines.push(`    ${fmtInt(m.count).padStart(5)}  ${fitWidth(terminalText(m.example), EXAMPLE_WIDTH)}`);
    }
    if (d.other) lines.push(`    ${fmtInt(d.other).padStart(5)}  (other messages)`);
  }
  return lines.join('\n');
}
