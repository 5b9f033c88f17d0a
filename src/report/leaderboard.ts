/**
 * `bas leaderboard` in data: runs ranked best first within groups of runs on the same tasks,
 * each with its 95% intervals, counts, tokens and cost, and its paired verdict against the
 * group's best on the tasks they share (the bootstrap of `compare`).
 *
 * Runs are ranked together only when the same index means the same ledger: the same task
 * configuration (rows, fault rate, seed), the same task generator and the same prompt.
 * Anything else would compare results on different tasks, or on tasks asked differently, so
 * it forms a group of its own.
 */
import type { TaskConfig } from '../task/types.js';
import { runGenerator, runPromptVersion } from '../runfile/versions.js';
import { pairRuns, type Pairing } from './compare.js';
import { fitTable } from './fit-table.js';
import type { RunData } from './read.js';
import { costOf, describeTask, type Cost } from './run-report.js';
import { runNames } from './run-names.js';
import type { Estimate } from '../summary/stats.js';
import type { PooledFaults } from '../summary/aggregate.js';
import { fmt, fmtCi, fmtInt } from './tables.js';
import type { RankMeasure } from '../settings/choices.js';
export type { RankMeasure } from '../settings/choices.js';

export interface LeaderboardRun {
  /** 1 for the best of its group. */
  rank: number;
  name: string;
  dir: string;
  model: string;
  status: string | null;
  notes: string[];
  tasks: number;
  rollouts: number;
  completed: number;
  errored: number;
  errors_by_type: Record<string, number>;
  measures: {
    reward: Estimate;
    reward_errors_as_zero: Estimate;
    bas_correct: Estimate;
    fault_audit: Estimate;
    fault_precision: Estimate;
    fault_recall: Estimate;
    num_flagged: Estimate;
  };
  /** Precision and recall over all claimed and true pairs (see `PooledFaults`). */
  faults_pooled: PooledFaults;
  /** `unscored`: the part of the total that bought no score (errored rollouts, replaced lines). */
  tokens: { prompt: number; completion: number; total: number; unscored: number };
  /** At the prices recorded in the run's run.json; null parts where none were given. */
  cost: Cost;
  /** Paired difference (this run − the best) in reward on shared tasks; null for the best. */
  vs_best: Pairing | null;
}

interface LeaderboardGroup {
  task: TaskConfig | null;
  /** Task generator version; null when the tasks came from a file (`bas score`). */
  generator: number | null;
  /** Prompt version; null when the tasks came from a file (`bas score`). */
  prompt_version: number | null;
  /** A one-line description of the group's tasks. */
  title: string;
  runs: LeaderboardRun[];
}

export interface Leaderboard {
  by: RankMeasure;
  seed: number;
  resamples: number;
  groups: LeaderboardGroup[];
}

function groupKey(d: RunData): string {
  const t = d.task;
  return JSON.stringify([
    t?.num_transactions ?? null,
    t?.fault_rate ?? null,
    t?.seed ?? null,
    runGenerator(d.run),
    runPromptVersion(d.run),
  ]);
}

function groupTitle(d: RunData): string {
  const g = runGenerator(d.run);
  const p = runPromptVersion(d.run);
  return `${describeTask(d.task)} · ${g === null ? 'tasks from a file' : `task generator ${g}, prompt ${p}`}`;
}

function measureOf(d: RunData, by: RankMeasure): Estimate {
  const s = d.summary;
  return by === 'bas_correct' || by === 'fault_audit' ? s.rewards[by] : s[by];
}

/** Best first by the mean of `by`; runs without a mean last; ties by name, then folder. */
function rankOrder(runs: Array<{ d: RunData; name: string }>, by: RankMeasure): Array<{ d: RunData; name: string }> {
  return [...runs].sort((a, b) => {
    const [x, y] = [measureOf(a.d, by).mean, measureOf(b.d, by).mean];
    if (x !== y) return y === null ? -1 : x === null ? 1 : y - x;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : a.d.dir < b.d.dir ? -1 : 1;
  });
}

/** Ranks `runs` within groups of comparable runs; groups in the order their first run was given. */
export function buildLeaderboard(
  runs: RunData[],
  opts: { by?: RankMeasure; seed: number; resamples: number },
): Leaderboard {
  const by = opts.by ?? 'reward';
  const names = runNames(runs);
  const groups = new Map<string, Array<{ d: RunData; name: string }>>();
  runs.forEach((d, i) => {
    const key = groupKey(d);
    groups.set(key, [...(groups.get(key) ?? []), { d, name: names[i]! }]);
  });
  return {
    by,
    seed: opts.seed,
    resamples: opts.resamples,
    groups: [...groups.values()].map((members) => {
      const ranked = rankOrder(members, by);
      const best = ranked[0]!;
      return {
        task: best.d.task,
        generator: runGenerator(best.d.run),
        prompt_version: runPromptVersion(best.d.run),
        title: groupTitle(best.d),
        runs: ranked.map(({ d, name }, i): LeaderboardRun => {
          const s = d.summary;
          return {
            rank: i + 1,
            name,
            dir: d.dir,
            model: d.model,
            status: typeof d.run?.status === 'string' ? d.run.status : null,
            notes: d.notes,
            tasks: s.counts.tasks,
            rollouts: s.counts.rollouts,
            completed: s.counts.completed,
            errored: s.counts.errored,
            errors_by_type: s.counts.errors_by_type,
            measures: {
              reward: s.reward,
              reward_errors_as_zero: s.reward_errors_as_zero,
              bas_correct: s.rewards.bas_correct,
              fault_audit: s.rewards.fault_audit,
              fault_precision: s.metrics.fault_precision,
              fault_recall: s.metrics.fault_recall,
              num_flagged: s.metrics.num_flagged,
            },
            faults_pooled: s.faults_pooled,
            tokens: {
              prompt: s.tokens.prompt,
              completion: s.tokens.completion,
              total: s.tokens.total,
              unscored: s.tokens.unscored?.total ?? 0,
            },
            cost: costOf(s, {}, d.run?.prices),
            vs_best: i === 0 ? null : pairRuns(best.d, '#1', d, `#${i + 1}`, opts.seed, opts.resamples),
          };
        }),
      };
    }),
  };
}

/** "$1.23", "$0.0042", or an en dash when the run recorded no prices. */
function usd(v: number | null): string {
  return v === null ? '–' : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

function signed(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;
}

/** The paired difference against the best: "−0.052 [−0.101, −0.004]", or why there is none. */
export function vsBestText(r: LeaderboardRun): { diff: string; verdict: string } {
  const p = r.vs_best;
  if (!p) return { diff: '', verdict: 'best' };
  if (!p.comparable || !p.diff || p.diff.mean === null) return { diff: '–', verdict: p.note ? 'no shared tasks' : '–' };
  const ci = p.diff.ci95!;
  const verdict =
    p.verdict === `${p.baseline} better`
      ? 'best better'
      : p.verdict === `${p.run} better`
        ? 'this better'
        : 'no difference shown';
  return { diff: `${signed(p.diff.mean)} [${signed(ci[0])}, ${signed(ci[1])}]`, verdict };
}

function cell(e: Estimate): string {
  return e.mean === null ? '–' : `${fmt(e.mean)}\n${fmtCi(e.ci95, 2)}`;
}

/** The text `bas leaderboard` prints: per group, three tables that each fit 80 columns. */
export function renderLeaderboard(lb: Leaderboard): string {
  const out: string[] = [];
  const sep = { separators: true };
  for (const g of lb.groups) {
    out.push(
      `${g.title}: ${g.runs.length} run${g.runs.length === 1 ? '' : 's'}, best first by ${lb.by} (95% intervals)`,
    );
    out.push(
      fitTable(
        ['#', 'run\nfolder', 'reward', 'bas_correct', 'fault_audit'],
        g.runs.map((r) => [
          String(r.rank),
          `${r.name}\n${r.dir}`,
          cell(r.measures.reward),
          cell(r.measures.bas_correct),
          cell(r.measures.fault_audit),
        ]),
        { ...sep, align: ['right', 'left', 'right', 'right', 'right'], wrap: [1] },
      ),
    );
    out.push(
      fitTable(
        ['#', 'pooled\nprecision', 'pooled\nrecall', 'claims\nper reply', 'completed', 'errored', 'tokens', 'cost'],
        g.runs.map((r) => [
          String(r.rank),
          fmt(r.faults_pooled.precision),
          fmt(r.faults_pooled.recall),
          fmt(r.measures.num_flagged.mean, 2),
          fmtInt(r.completed),
          fmtInt(r.errored),
          fmtInt(r.tokens.total),
          usd(r.cost.total_usd),
        ]),
        { align: ['right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'] },
      ),
    );
    if (g.runs.length > 1) {
      out.push(
        `paired against #1 on shared tasks (reward, bootstrap, ${fmtInt(lb.resamples)} resamples, seed ${lb.seed})`,
        fitTable(
          ['#', 'shared\ntasks', 'reward diff (this − #1)\n95% interval', 'verdict'],
          g.runs.slice(1).map((r) => {
            const v = vsBestText(r);
            return [String(r.rank), fmtInt(r.vs_best?.shared_tasks ?? 0), v.diff, v.verdict];
          }),
          { align: ['right', 'right', 'right', 'left'], wrap: [3] },
        ),
      );
    }
    for (const r of g.runs) for (const n of r.notes) out.push(`note (#${r.rank} ${r.name}): ${n}`);
    for (const r of g.runs)
      if (r.tokens.unscored > 0)
        out.push(
          `note: #${r.rank}'s ${fmtInt(r.tokens.total)} tokens include ${fmtInt(r.tokens.unscored)} that bought no score (errored rollouts)${r.cost.unscored_usd !== null ? `, ${usd(r.cost.unscored_usd)} of its ${usd(r.cost.total_usd)}` : ''}`,
        );
    for (const r of g.runs)
      if (r.vs_best?.left_out)
        out.push(
          `note: ${r.vs_best.left_out} shared task(s) left out of #${r.rank} − #1: one run has no completed rollout on them`,
        );
    out.push('');
  }
  if (lb.groups.length > 1)
    out.push(
      `${lb.groups.length} groups: runs on different tasks or task generators are ranked apart, never together.`,
    );
  out.push('pooled precision and recall are over all claimed and true (row, code) pairs.');
  return out.join('\n') + '\n';
}

/** Text safe in a Markdown table cell: no control characters, no line break, `|` escaped. */
export function markdownCell(text: string): string {
  let s = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) s += ' ';
    else if (
      ch === '|' ||
      ch === '\\' ||
      ch === '`' ||
      ch === '*' ||
      ch === '_' ||
      ch === '<' ||
      ch === '[' ||
      ch === ']'
    )
      s += `\\${ch}`;
    else s += ch;
  }
  return s;
}

/** One run's cells under `LEADERBOARD_COLUMNS`; `est` writes a mean with its interval. */
export function leaderboardCells(r: LeaderboardRun, est: (e: Estimate, digits?: number) => string): string[] {
  return [
    String(r.rank),
    r.name,
    r.dir,
    est(r.measures.reward),
    est(r.measures.bas_correct),
    est(r.measures.fault_audit),
    fmt(r.faults_pooled.precision),
    fmt(r.faults_pooled.recall),
    est(r.measures.num_flagged, 2),
    fmtInt(r.completed),
    fmtInt(r.errored),
    fmtInt(r.tokens.total),
    usd(r.cost.total_usd),
  ];
}

/** The columns of one run's row in the Markdown and HTML leaderboards, before the verdict. */
export const LEADERBOARD_COLUMNS = [
  '#',
  'run',
  'folder',
  'reward',
  'bas_correct',
  'fault_audit',
  'pooled precision',
  'pooled recall',
  'claims per reply',
  'completed',
  'errored',
  'tokens',
  'cost',
] as const;

/** The leaderboard as Markdown tables, one per group, for a README or a paper. */
export function renderLeaderboardMarkdown(lb: Leaderboard): string {
  const out: string[] = [];
  const est = (e: Estimate, digits = 3) => (e.mean === null ? '–' : `${fmt(e.mean, digits)} ${fmtCi(e.ci95, digits)}`);
  for (const g of lb.groups) {
    out.push(`### ${markdownCell(g.title)}`, '');
    out.push(
      `Best first by ${markdownCell(lb.by)}; means with 95% intervals; the last column is the paired reward difference against #1 on shared tasks.`,
      '',
    );
    const head = [...LEADERBOARD_COLUMNS, 'vs #1'];
    out.push(
      `| ${head.join(' | ')} |`,
      `|${head.map((_, i) => (i === 1 || i === 2 || i === 13 ? ' --- ' : ' ---: ')).join('|')}|`,
    );
    for (const r of g.runs) {
      const v = vsBestText(r);
      const cells = [...leaderboardCells(r, est), v.diff ? `${v.diff} ${v.verdict}` : v.verdict];
      out.push(`| ${cells.map(markdownCell).join(' | ')} |`);
    }
    out.push('');
  }
  out.push(
    `Intervals: see docs/statistics.md. Paired differences: bootstrap over shared tasks, ${lb.resamples} resamples, seed ${lb.seed}.`,
  );
  return out.join('\n') + '\n';
}
