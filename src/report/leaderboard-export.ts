/**
 * The leaderboard in formats to paste: Markdown (reads cleanly as plain text too), CSV (one
 * row per run, every number at full precision, for a spreadsheet or a plotting script) and
 * LaTeX (booktabs). Columns come from leaderboard-table.ts, so every format shows the same
 * table. Intervals are written `0.538 [0.490, 0.580]`, the mean and both bounds with the same
 * decimals: the intervals are not symmetric (Wilson), so `±` would misstate them.
 */
import type { Estimate } from '../summary/stats.js';
import { measureText, vsBestText, type Leaderboard, type LeaderboardRun } from './leaderboard.js';
import {
  chosenColumns,
  groupRows,
  inlineCell,
  PROVENANCE_COLUMNS,
  RESULT_COLUMNS,
  type Cell,
  type Column,
} from './leaderboard-table.js';
import type { LeaderboardColumn } from '../settings/choices.js';
import { csvField } from './csv.js';
import { fmtEstimate } from './tables.js';
import { SAMPLING_CSV_HEAD, samplingCells, samplingText, sharedText } from './provenance.js';

/** Text safe in a Markdown table cell: no control characters or line breaks, `|` escaped, no raw HTML. */
export function markdownCell(text: string): string {
  let s = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) s += ' ';
    else if (ch === '|') s += '\\|';
    else if (ch === '<') s += '&lt;';
    else s += ch;
  }
  return s;
}

function markdownTable(lb: Leaderboard, runs: LeaderboardRun[], cols: Column[]): string[] {
  return [
    `| ${cols.map((c) => c.head).join(' | ')} |`,
    `|${cols.map((c) => (c.align === 'left' ? ' --- ' : ' ---: ')).join('|')}|`,
    ...runs.map((r) => `| ${cols.map((c) => markdownCell(inlineCell(c.value(r, lb)))).join(' | ')} |`),
  ];
}

/** The leaderboard as Markdown: per group the results table, the runs not ranked, and the provenance table. */
export function renderLeaderboardMarkdown(
  lb: Leaderboard,
  columns: readonly LeaderboardColumn[] | null = null,
): string {
  const results = columns === null ? RESULT_COLUMNS : chosenColumns(columns);
  const out: string[] = [];
  for (const g of lb.groups) {
    out.push(`### ${markdownCell(g.title)}`, '');
    out.push(
      `Ranked by ${measureText(lb.by)}, best first; means with 95% intervals; "vs #1" is the paired difference against #1 on shared tasks.`,
      '',
    );
    out.push(...markdownTable(lb, groupRows(g), results), '');
    if (g.unranked.length) {
      out.push('Not ranked (`--include-incomplete` ranks them):', '');
      for (const r of g.unranked) out.push(`- ${markdownCell(r.name)}: ${markdownCell(r.unrankable ?? '')}`);
      out.push('');
    }
    for (const r of g.runs.filter((x) => x.unrankable))
      out.push(`\\* #${r.rank} is ranked only by \`--include-incomplete\`: ${markdownCell(r.unrankable!)}`, '');
    out.push('How each run was made:', '', ...markdownTable(lb, groupRows(g), PROVENANCE_COLUMNS), '');
  }
  out.push(
    `Intervals: 95%, see docs/statistics.md. Paired differences: bootstrap over shared tasks, ${lb.resamples} resamples, seed ${lb.seed}.`,
  );
  return out.join('\n') + '\n';
}

const CSV_MEASURES = [
  'reward_errors_as_zero',
  'reward',
  'bas_correct',
  'fault_audit',
  'bas_label_accuracy',
  'fault_precision',
  'fault_recall',
  'num_flagged',
  'parsed',
] as const;

const est3 = (m: string) => [m, `${m}_ci_low`, `${m}_ci_high`];

/** The CSV fields each `--columns` column stands for. */
const CSV_FIELDS: Record<LeaderboardColumn, string[]> = {
  rank: ['rank'],
  tier: ['tier'],
  run: ['run'],
  date: ['started_at'],
  size: ['n', 'rollouts_per_task'],
  completed: ['completed', 'errored'],
  bas_correct: est3('bas_correct'),
  fault_audit: est3('fault_audit'),
  reward: est3('reward'),
  reward_errors_as_zero: est3('reward_errors_as_zero'),
  bas_label_accuracy: est3('bas_label_accuracy'),
  fault_precision: est3('fault_precision'),
  fault_recall: est3('fault_recall'),
  num_flagged: est3('num_flagged'),
  parsed: est3('parsed'),
  bas_consistent: est3('bas_consistent'),
  causes: ['wrong_bas_audit', 'wrong_bas_arithmetic', 'wrong_bas_both'],
  vs_best: ['vs_best_diff', 'vs_best_ci_low', 'vs_best_ci_high', 'vs_best_verdict'],
};

/** The CSV's header: every field, in order (`--columns` keeps the group and the chosen columns' fields). */
const CSV_HEAD = [
  'group',
  'rank',
  'ranked',
  'why_not_ranked',
  'run',
  'folder',
  'model',
  'provider',
  'endpoint',
  ...SAMPLING_CSV_HEAD,
  'n',
  'rollouts_per_task',
  'num_transactions',
  'fault_rate',
  'seed',
  'generator',
  'prompt_version',
  'bas_version',
  'made_by',
  'started_at',
  'ended_at',
  'wall_time_s',
  'status',
  'rollouts',
  'completed',
  'errored',
  ...CSV_MEASURES.flatMap((m) => [m, `${m}_ci_low`, `${m}_ci_high`]),
  'pooled_precision',
  'pooled_recall',
  'tokens_total',
  'cost_usd',
  'cost_is_lower_bound',
  'vs_best_diff',
  'vs_best_ci_low',
  'vs_best_ci_high',
  'vs_best_verdict',
  'bas_consistent',
  'bas_consistent_ci_low',
  'bas_consistent_ci_high',
  'wrong_bas_audit',
  'wrong_bas_arithmetic',
  'wrong_bas_both',
  'tier',
];

const estCells = (e: Estimate) => [e.mean, e.ci95?.[0] ?? null, e.ci95?.[1] ?? null];

type CsvCell = string | number | null;
type LeaderboardGroup = Leaderboard['groups'][number];

/** Where the run stands: its group, rank, name and what it was measured with. */
function csvIdentity(g: LeaderboardGroup, gi: number, r: LeaderboardRun): CsvCell[] {
  const p = r.provenance;
  const ranked = r.rank === null ? 'no' : r.unrankable ? 'marked' : 'yes';
  return [gi + 1, r.rank, ranked, r.unrankable, r.name, r.dir, r.model, p.provider, p.endpoint]
    .concat(samplingCells(p.sampling))
    .concat([p.n, p.rollouts, g.task?.num_transactions ?? null, g.task?.fault_rate ?? null, g.task?.seed ?? null])
    .concat([g.generator, g.prompt_version, p.bas_version, p.made_by, p.started_at, p.ended_at, p.wall_time_s]);
}

/** What the run measured: counts, every measure with its interval, tokens, cost, the gap to the best, consistency, tier. */
function csvMeasures(lb: Leaderboard, r: LeaderboardRun): CsvCell[] {
  const pair = r.vs_best;
  const d = pair ? (lb.by === 'reward_errors_as_zero' ? pair.diff_errors_as_zero : pair.diff) : null;
  const verdict = r.rank === null || r.rank === 1 ? null : vsBestText(r, lb.by).verdict;
  const c = r.consistency;
  // Where a wrong BAS comes from: empty for a run recorded before 0.4.1.
  const consistency = c.n
    ? [...estCells(c.bas_consistent), c.bas_errors.audit, c.bas_errors.arithmetic, c.bas_errors.both]
    : [null, null, null, null, null, null];
  return [
    r.status,
    r.rollouts,
    r.completed,
    r.errored,
    ...CSV_MEASURES.flatMap((m) => estCells(r.measures[m])),
    r.faults_pooled.precision,
    r.faults_pooled.recall,
    r.tokens.total,
    r.cost.total_usd,
    // True when tokens and cost may be incomplete (requests in flight at a stop, replies without usage).
    r.cost.lower_bound ? 'yes' : 'no',
    d?.mean ?? null,
    d?.ci95?.[0] ?? null,
    d?.ci95?.[1] ?? null,
    verdict,
    ...consistency,
    r.tier,
  ];
}

/** The leaderboard as CSV: a header, then one row per run of every group (ranked first, then the rest). */
export function renderLeaderboardCsv(lb: Leaderboard, columns: readonly LeaderboardColumn[] | null = null): string {
  // `--columns`: the group, then each chosen column's fields (a measure's mean and bounds).
  const keep =
    columns === null
      ? CSV_HEAD.map((_, i) => i)
      : [0, ...columns.flatMap((c) => CSV_FIELDS[c].map((f) => CSV_HEAD.indexOf(f)))];
  const lines = [keep.map((i) => CSV_HEAD[i]).join(',')];
  lb.groups.forEach((g, gi) => {
    for (const r of groupRows(g)) {
      const row = [...csvIdentity(g, gi, r), ...csvMeasures(lb, r)];
      lines.push(keep.map((i) => csvField(row[i]!)).join(','));
    }
  });
  return lines.join('\n') + '\n';
}

/** Text for LaTeX: its special characters escaped, the few non-ASCII signs bas writes as math. */
export function latexText(text: string): string {
  const map: Record<string, string> = {
    '\\': '\\textbackslash{}',
    '{': '\\{',
    '}': '\\}',
    $: '\\$',
    '&': '\\&',
    '#': '\\#',
    '%': '\\%',
    _: '\\_',
    '^': '\\^{}',
    '~': '\\textasciitilde{}',
    '×': '$\\times$',
    '–': '--',
    '−': '$-$',
    '·': '$\\cdot$',
  };
  let s = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    s += c < 0x20 || (c >= 0x7f && c < 0xa0) ? ' ' : (map[ch] ?? ch);
  }
  return s;
}

/** The leaderboard as LaTeX: per group, a booktabs table of the results columns (needs booktabs and graphicx). */
export function renderLeaderboardLatex(lb: Leaderboard, columns: readonly LeaderboardColumn[] | null = null): string {
  if (columns !== null) return compactLatex(lb, chosenColumns(columns));
  const cols = RESULT_COLUMNS;
  // Eighteen columns do not fit one column of a two-column paper, however small the type: the
  // full table spans both (`table*`), scaled to the page's width; --columns picks fewer for one.
  const out = ['% bas leaderboard: needs \\usepackage{booktabs} and \\usepackage{graphicx}'];
  for (const g of lb.groups) {
    const rows = groupRows(g);
    out.push(
      '\\begin{table*}[t]',
      '\\centering',
      '\\resizebox{\\textwidth}{!}{%',
      `\\begin{tabular}{${cols.map((c) => (c.align === 'left' ? 'l' : 'r')).join('')}}`,
      '\\toprule',
      `${cols.map((c) => latexText(c.head)).join(' & ')} \\\\`,
      '\\midrule',
    );
    rows.forEach((r, i) => {
      if (i === g.runs.length && i > 0) out.push('\\midrule');
      out.push(`${cols.map((c) => latexText(inlineCell(c.value(r, lb)))).join(' & ')} \\\\`);
    });
    // What every number of the table was measured with: the title has the tasks and versions
    // of the task; the sampling and the bas of each run are added (each run's where they differ).
    const sampling = sharedText(rows.map((r) => [r.name, samplingText(r.provenance.sampling)]));
    const bas = sharedText(rows.map((r) => [r.name, r.provenance.bas_version ?? 'unknown']));
    const unranked = g.unranked.length ? ` Below the rule: runs not ranked (${g.unranked.length}).` : '';
    const marked = g.runs.some((r) => r.unrankable) ? ' * ranked only by --include-incomplete.' : '';
    out.push(
      '\\bottomrule',
      '\\end{tabular}}',
      `\\caption{${latexText(`${g.title}. Sampling: ${sampling}. bas ${bas}. Ranked by ${measureText(lb.by)}; means with 95% intervals.${unranked}${marked}`)}}`,
      '\\end{table*}',
      '',
    );
  }
  return out.join('\n');
}

/** A LaTeX cell stacked on two lines (a mean over its interval) without any package: a one-column tabular. */
function latexStacked(c: Cell, align: 'l' | 'r'): string {
  if (typeof c === 'string') return latexText(c);
  const [mean, ci] = fmtEstimate(c.est, c.digits, '\n').split('\n');
  if (ci === undefined) return latexText(mean!);
  return `\\begin{tabular}[t]{@{}${align}@{}}${latexText(mean!)}\\\\[-2pt]{\\scriptsize ${latexText(ci)}}\\end{tabular}`;
}

/**
 * The compact LaTeX of `--columns`: for one column of a two-column paper. Each mean has its
 * 95% interval below it in small type, `\small` text, booktabs rules and tight column gaps,
 * in a box that shrinks the table to the column's width only when it is wider (`\width` is
 * the table's own): five columns of a usual leaderboard came to about 277 pt against a 252 pt
 * column. The caption says what the numbers were measured with: sampling and bas's version.
 */
function compactLatex(lb: Leaderboard, cols: Column[]): string {
  const out = ['% bas leaderboard --columns: needs \\usepackage{booktabs} and \\usepackage{graphicx}'];
  for (const g of lb.groups) {
    const rows = groupRows(g);
    const aligns = cols.map((c) => (c.align === 'left' ? 'l' : 'r') as 'l' | 'r');
    out.push(
      '\\begin{table}[t]',
      '\\centering',
      '\\small',
      '\\setlength{\\tabcolsep}{3pt}',
      '\\resizebox{\\ifdim\\width>\\columnwidth\\columnwidth\\else\\width\\fi}{!}{%',
      `\\begin{tabular}{${aligns.join('')}}`,
      '\\toprule',
      `${cols.map((c) => latexText(c.head)).join(' & ')} \\\\`,
      '\\midrule',
    );
    rows.forEach((r, i) => {
      if (i === g.runs.length && i > 0) out.push('\\midrule');
      out.push(`${cols.map((c, k) => latexStacked(c.value(r, lb), aligns[k]!)).join(' & ')} \\\\`);
    });
    const sampling = sharedText(rows.map((r) => [r.name, samplingText(r.provenance.sampling)]));
    const bas = sharedText(rows.map((r) => [r.name, r.provenance.bas_version ?? 'unknown']));
    const unranked = g.unranked.length ? ` Below the rule: runs not ranked (${g.unranked.length}).` : '';
    out.push(
      '\\bottomrule',
      '\\end{tabular}}',
      `\\caption{${latexText(`${g.title}. Sampling: ${sampling}. bas ${bas}. Ranked by ${measureText(lb.by)}; means with their 95% intervals below.${unranked}`)}}`,
      '\\end{table}',
      '',
    );
  }
  return out.join('\n');
}
