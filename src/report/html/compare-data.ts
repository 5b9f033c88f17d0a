/**
 * The data a comparison's page carries for the app: for each pairing of a run with the
 * baseline, the diff of the rollouts both hold (display/diff.ts, flipped first), and the
 * drill-down data of the rollouts it lists in both runs, so each opens side by side with both
 * ledgers marked. Each run's results are read twice more for it (its run.json once): for its
 * rows (list-rows.ts), then for the records its diffs list.
 */
import { diffRuns, type DiffAnswer } from '../../display/diff.js';
import type { DrillData } from '../../display/drill.js';
import type { ListRow } from '../../display/list.js';
import { compareKey, type PageData } from '../../display/page-data.js';
import { routeHash } from '../../display/route.js';
import { locateRun, readRunInfo, type RunFile } from '../../runfile/read.js';
import { foldWinningRecords, runBounds } from '../../runfile/winners.js';
import type { Comparison } from '../compare.js';
import { readListRows } from '../list-rows.js';
import { drillDataOf } from './drilldown.js';
import { DrillSelection } from './selection.js';
import { comparePage } from './compare-page.js';
import type { CompareColumn } from '../../settings/choices.js';

/** Rollouts a page's diff lists, each with both runs' drill-down embedded (about 5 KB each). */
const PAGE_DIFF_ROWS = 100;

type Run = Comparison['runs'][number];

/** Where a run's results are, and its run.json (read once for both passes over the results). */
async function runInfo(r: Run): Promise<{ path: string; run: RunFile | null }> {
  const at = locateRun(r.dir);
  return { path: at.resultsPath, run: at.runPath === null ? null : await readRunInfo(at.runPath) };
}

/** The records of the pairs `wanted` in the run's results, kept as the report page's selection keeps them. */
async function readChosen(path: string, run: RunFile | null, wanted: Array<[number, number]>) {
  const { fold } = await foldWinningRecords(path, () => new DrillSelection(wanted), {
    bounds: runBounds(run),
    warn: () => {},
  });
  return fold;
}

/** The drill-down data of the rollouts of `r` that were asked for. */
function drillOf(r: Run, run: RunFile | null, chosen: DrillSelection): DrillData {
  const asked = chosen.selected().filter((s) => s.reasons.includes('asked for'));
  return drillDataOf({ run, task: r.task, dir: r.dir, summary: { counts: { rollouts: r.rollouts } } }, asked);
}

/** The page data of comparison `c`: the diff of each comparable pairing, its rollouts openable side by side. */
async function comparePageData(c: Comparison): Promise<PageData | null> {
  const byLabel = new Map(c.runs.map((r) => [r.label, r]));
  const pairs = c.pairings.filter((p) => p.comparable).map((p) => [byLabel.get(p.baseline)!, byLabel.get(p.run)!]);
  if (pairs.length === 0) return null;
  // First the rows of every run, then the diffs, then the records each diff lists.
  const infos = new Map<Run, { path: string; run: RunFile | null }>();
  const rows = new Map<Run, ListRow[]>();
  for (const r of new Set(pairs.flat())) {
    const info = await runInfo(r);
    infos.set(r, info);
    rows.set(r, await readListRows(info.path, info.run));
  }
  const compares: Record<string, { compare: unknown; diff: DiffAnswer }> = {};
  const wanted = new Map<Run, Array<[number, number]>>();
  for (const [a, b] of pairs as Array<[Run, Run]>) {
    const diff = diffRuns([a.dir, b.dir], rows.get(a)!, rows.get(b)!, PAGE_DIFF_ROWS);
    compares[compareKey(a.dir, b.dir)] = { compare: null, diff };
    for (const r of [a, b])
      wanted.set(r, [...(wanted.get(r) ?? []), ...diff.rows.map((d): [number, number] => [d.index, d.rollout])]);
  }
  const runs: PageData['runs'] = {};
  for (const [r, want] of wanted) {
    const { path, run } = infos.get(r)!;
    runs[r.dir] = { drill: drillOf(r, run, await readChosen(path, run, want)) };
  }
  const [a, b] = pairs[0] as [Run, Run];
  return {
    kind: 'compare',
    start: routeHash({ view: 'compare', a: a.dir, b: b.dir, open: null, page: 0 }),
    runs,
    compares,
  };
}

/**
 * The whole page of `bas compare --html` (and `compareRuns().html()`): the comparison's
 * figures and, when a pair of its runs is comparable, the app with their diff.
 */
export async function compareHtml(c: Comparison, columns: readonly CompareColumn[] | null): Promise<string> {
  return comparePage(c, columns, await comparePageData(c));
}
