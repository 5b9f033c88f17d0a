/**
 * `bas view DIR --bundle FILE`: what the viewer shows of the runs under DIR, frozen into one
 * HTML file that opens from a static host or straight from disk, with no server and no request
 * elsewhere. It holds the API's own answers (the runs list, each run's report, each sweep, the
 * leaderboard, the paired figures of each pair of runs while there are few) and every rollout of every run as
 * drill-down data; the app (src/web) reads it as it reads the API, with the same addresses, and
 * computes a diff of any two runs from it (src/display/diff.ts).
 */
import { basename, dirname, sep } from 'node:path';
import type { DrillData } from '../display/drill.js';
import { compareKey, type PageData } from '../display/page-data.js';
import { fileSink, withSink } from '../io/output.js';
import { drillDataOf, TaskPool } from '../report/html/drilldown.js';
import { jsonForScript } from '../report/html/escape.js';
import { appScript } from '../report/html/app-script.js';
import { page } from '../report/html/page.js';
import { DrillSelection, type Selected } from '../report/html/selection.js';
import { resultsPath } from '../runfile/files.js';
import type { RolloutRecord } from '../runfile/record.js';
import { foldWinningRecords, runBounds } from '../runfile/winners.js';
import { compareAnswer, runAnswer, runsAnswer, safeStrings } from './api.js';
import { Catalog } from './catalog.js';
import type { RunState } from './run-state.js';
import { sweepAnswer } from './sweep-view.js';
import { leaderboardAnswer } from './leaderboard-api.js';
import { Figures } from '../report/html/blocks.js';

/**
 * A run of up to this many rollouts is held whole (about 2.5 KB a rollout of 24 rows: some
 * 50 MB, and a second or two to open); a larger one holds the report page's selection.
 */
const MAX_ALL_ROLLOUTS = 20_000;

/** Up to this many runs, the paired figures of every pair are computed into the bundle (n·(n−1)/2 comparisons). */
const MAX_COMPARED_RUNS = 8;

/** Keeps every winning record of a run, in (index, rollout) order at the end. */
class AllRecords {
  private readonly held = new Map<string, RolloutRecord>();
  add(r: RolloutRecord): void {
    this.held.set(`${r.index}:${r.rollout ?? 0}`, r);
  }
  replace(r: RolloutRecord): boolean {
    this.add(r);
    return true;
  }
  selected(): Selected[] {
    return [...this.held.values()]
      .sort((a, b) => a.index - b.index || (a.rollout ?? 0) - (b.rollout ?? 0))
      .map((record) => ({ record, reasons: [] }));
  }
}

/**
 * Every rollout of `run` as drill-down data, its text made safe as the API's answers are; a
 * run of more than `maxAll` rollouts holds the report page's bounded selection instead
 * (selection.ts), and the bundle says so.
 */
async function drillOf(run: RunState, total: number, maxAll: number, pool: TaskPool): Promise<DrillData> {
  const all = total <= maxAll;
  const { fold } = await foldWinningRecords(
    resultsPath(run.dir),
    (): AllRecords | DrillSelection => (all ? new AllRecords() : new DrillSelection()),
    { bounds: runBounds(run.info), warn: () => {} },
  );
  const chosen = fold.selected();
  const task = run.info?.task ?? null;
  const rollouts = Math.max(total, chosen.length);
  const drill = drillDataOf({ run: run.info, task, dir: run.id, summary: { counts: { rollouts } } }, chosen, pool);
  // The tasks and their text are the pool's, written once for every run (PageData.pool).
  return safeStrings({ ...drill, tasks: [], strings: [] }) as DrillData;
}

/** The paired figures of each pair of runs, while there are few of them. */
async function comparisons(catalog: Catalog, ids: string[]): Promise<NonNullable<PageData['compares']>> {
  const out: NonNullable<PageData['compares']> = {};
  if (ids.length > MAX_COMPARED_RUNS) return out;
  for (const a of ids)
    for (const b of ids) {
      if (a === b) continue;
      try {
        const compare = await compareAnswer(catalog, new URLSearchParams({ a, b }));
        out[compareKey(a, b)] = { compare };
      } catch {
        // runs that cannot be paired: the bundle shows why when asked (no comparison held)
      }
    }
  return out;
}

/** What a bundle holds, for the command's line and the tests. */
export interface BundleCount {
  runs: number;
  rollouts: number;
  bytes: number;
}

/** The bundle's data: the runs list, each run's report and rollouts, the sweeps, the pairs' figures. */
async function bundleData(root: string, maxAll: number, figures: Figures): Promise<PageData> {
  // Everything is read whole before it is answered: there is no second ask.
  // Every run it pairs keeps its summary, so the pairings and the leaderboard read none again.
  const catalog = new Catalog(root, { waitBytes: Number.MAX_SAFE_INTEGER, keptSummaries: MAX_COMPARED_RUNS });
  const first = (await runsAnswer(catalog)) as { runs: Array<{ id: string }>; sweeps: Array<{ id: string }> };
  const runs: PageData['runs'] = {};
  const pool = new TaskPool();
  for (const { id } of first.runs) {
    const state = await catalog.run(id);
    if (state === null) continue;
    const run = await runAnswer(catalog, new URLSearchParams({ run: id }));
    const total = (run as { index: { rollouts: number } | null }).index?.rollouts ?? 0;
    runs[id] = { run, drill: await drillOf(state, total, maxAll, pool).catch(() => emptyDrill(id)) };
    catalog.keepFew();
  }
  const sweeps: NonNullable<PageData['sweeps']> = {};
  for (const { id } of first.sweeps)
    sweeps[id] = await sweepAnswer(catalog, new URLSearchParams({ sweep: id }), figures);
  return {
    kind: 'bundle',
    start: '#/',
    // Asked again: the figures of each run are known now that every report was read. The folder
    // is named by its own name: a shared file need not tell where it was made.
    list: { ...((await runsAnswer(catalog)) as object), root: basename(root) },
    runs,
    pool: safeStrings({ tasks: pool.tasks, strings: pool.strings.list }) as PageData['pool'],
    sweeps,
    compares: await comparisons(catalog, Object.keys(runs)),
    leaderboard: await leaderboardAnswer(catalog, figures),
  };
}

/**
 * `value` with the folder it was read from taken out of every string: a run's path under it
 * stays (`runs/a`), what lies above it (`/home/me/projects/…`) goes, so a shared file need not
 * tell where it was made. The reports and comparisons name each run by its id from the start
 * (run-state.ts, api.ts): a path a text table broke across lines would be beyond a string's reach.
 */
function withoutRoot<T>(value: T, root: string): T {
  const above = `${dirname(root)}${sep}`;
  const strip = (v: unknown): unknown => {
    if (typeof v === 'string') return v.split(above).join('');
    if (Array.isArray(v)) return v.map(strip);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [strip(k) as string, strip(x)]));
    return v;
  };
  return dirname(root) === root ? value : (strip(value) as T);
}

/** A run whose results cannot be read (its problem is in its report): no rollouts. */
function emptyDrill(id: string): DrillData {
  return { ...drillDataOf({ run: null, task: null, dir: id, summary: { counts: { rollouts: 0 } } }, []), tasks: [] };
}

/**
 * Writes the bundle of the runs under `root` to `file` (whole, or not at all); a run of more
 * than `maxAll` rollouts holds the report page's selection of them.
 */
export async function writeBundle(root: string, file: string, maxAll = MAX_ALL_ROLLOUTS): Promise<BundleCount> {
  const sink = fileSink(file, '--bundle');
  const figures = new Figures();
  const data = withoutRoot(await bundleData(root, maxAll, figures), root);
  const title = `bas view bundle: ${Object.keys(data.runs).length} run(s)`;
  const html = page({
    title,
    header:
      '<a href="#/"><b>bas view</b></a> <span class="small">bundle: runs, rollouts and comparisons, read from this file alone</span>',
    // The figures of its leaderboard and sweeps, drawn by the server, as the --html pages hold them.
    body: `<div id="app"></div>\n${withoutRoot(figures.templates(), root)}`,
    data: jsonForScript(data),
    script: appScript(),
  });
  await withSink(sink, async (s) => s.write(html));
  const rollouts = Object.values(data.runs).reduce((n, r) => n + r.drill.rollouts.length, 0);
  return { runs: Object.keys(data.runs).length, rollouts, bytes: Buffer.byteLength(html) };
}
