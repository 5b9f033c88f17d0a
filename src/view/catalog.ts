/**
 * What `bas view` knows of the folder it serves: every run folder and sweep folder under it
 * (found by runfile's one rule, runfile/discover.ts), each run as run-state.ts reads it, and
 * the budgets that keep only a few runs' whole summaries and indexes in memory. Nothing here
 * writes, and nothing is kept between starts.
 */
import { terminalText } from '../io/terminal-text.js';
import { outsideText } from '../io/outside-text.js';
import { findRunFolders } from '../runfile/discover.js';
import { planModels, readSweepPlan, type SweepPlan } from '../runfile/sweep-file.js';
import type { RunRow, SweepRow } from '../display/runs.js';
import { runRow } from './run-row.js';
import { OneAtATime, RunState, type Shared } from './run-state.js';

/**
 * Runs whose whole summary (with its per-task table, which comparisons pair) is kept at once;
 * every other run keeps only its report, a few KB. A million-task run's table is tens of MB.
 */
const KEPT_SUMMARIES = 2;
/** Bytes the rollout indexes may hold together; the least recently used go past it (and are read again when opened). */
const INDEX_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Warming reads a run's summary with its index, in the index's one read (run-state.ts
 * `followRead`), at any size (the run list asks every run's figures anyway). A run that read
 * could not summarise (a damaged line, say) is read a second time, for its summary alone, only
 * up to this many rollouts: the report's fold over a run of a million tasks takes the server to
 * some 200 MiB while it runs (its per-task table; docs/performance.md).
 */
const WARM_SUMMARY_MAX_ROLLOUTS = 200_000;
/** A walk of the folder is reused for this long. */
const WALK_MS = 1000;

/** How a catalog reads. */
export interface CatalogOptions {
  /**
   * A read of the results file with more than this left to go (a large file opened the first
   * time) goes on in the background, and what is asked of it is answered from what has been
   * read so far; a smaller one is waited for.
   */
  waitBytes?: number;
  /**
   * Runs whose whole summary is kept at once (KEPT_SUMMARIES by default): a bundle keeps every
   * run it pairs, so each pairing and the leaderboard read none of them again.
   */
  keptSummaries?: number;
}

/** Bytes of a results file read before answering (some 30,000 rollouts, well under a second). */
const WAIT_BYTES = 32 * 1024 * 1024;

/** A sweep folder as the walk found it: its plan, or why the plan cannot be read (`error`). */
export type KnownSweep = { plan: SweepPlan; error: null } | { plan: null; error: string };

/** A sweep's status from its points' (null: a point whose folder is not there yet). */
function sweepStatus(points: Array<string | null>, problem: string | null): string {
  if (problem !== null) return 'damaged';
  if (points.includes('running')) return 'running';
  if (points.includes('damaged')) return 'damaged';
  return points.length > 0 && points.every((p) => p === 'complete') ? 'complete' : 'incomplete';
}

/** Every run and sweep under a root folder. */
export class Catalog {
  private readonly runs = new Map<string, RunState>();
  /** The sweeps the last walk found, in its order, by id: each one's row and plan. */
  private sweeps = new Map<string, FoundSweep>();
  private walked = 0;
  /** Folders the last walk left out, past its bounds. */
  truncated = false;
  /** Folders the last walk could not enter: their names are not UTF-8 (shown with U+FFFD). */
  unnamed: string[] = [];

  private readonly shared: Shared;

  constructor(
    readonly root: string,
    options: CatalogOptions = {},
  ) {
    this.shared = {
      waitBytes: options.waitBytes ?? WAIT_BYTES,
      keptSummaries: options.keptSummaries ?? KEPT_SUMMARIES,
      folds: new OneAtATime(),
    };
  }

  /** Walks the folder again if the last walk is older than a second. */
  private refreshTree(): void {
    if (Date.now() - this.walked < WALK_MS) return;
    this.walked = Date.now();
    const walked = findRunFolders(this.root);
    const found = new Map(walked.runs.map((r) => [r.id, r]));
    this.truncated = walked.truncated;
    for (const id of [...this.runs.keys()]) if (!found.has(id)) this.runs.delete(id);
    for (const [id, { dir, sweep }] of found)
      if (!this.runs.has(id)) this.runs.set(id, new RunState(id, dir, sweep, this.shared));
    this.sweeps = new Map(walked.sweeps.map(({ id, dir }) => [id, sweepRow(id, dir)]));
    this.unnamed = walked.unnamed;
  }

  /** The rows of the list: runs (each read as needed) and sweeps, with their points' statuses. */
  async list(): Promise<{ runs: RunRow[]; sweeps: SweepRow[]; truncated: boolean; unnamed: string[] }> {
    this.refreshTree();
    // Made from run.json and what is already read: the list never waits on a results file.
    const rows = await Promise.all([...this.runs.values()].map((r) => runRow(r, false)));
    this.keepFew();
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const sweeps = [...this.sweeps.values()].map(({ row: s, known }) => {
      const folders = known.plan?.points.map((p) => p.folder) ?? [];
      const points = folders.map((f) => status.get(pointId(s.id, f)) ?? null);
      return { ...s, status: sweepStatus(points, s.problem), complete: points.filter((p) => p === 'complete').length };
    });
    return { runs: rows, sweeps, truncated: this.truncated, unnamed: this.unnamed };
  }

  /** The ids of the runs the walk found, in its order: no run is read for them. */
  ids(): string[] {
    this.refreshTree();
    return [...this.runs.keys()];
  }

  /** A sweep the walk found, with its plan as the walk read it (never read again here), or null. */
  sweep(id: string): KnownSweep | null {
    this.refreshTree();
    return this.sweeps.get(id)?.known ?? null;
  }

  /** The run of an id, or null: only folders the walk found are ever read. */
  async run(id: string): Promise<RunState | null> {
    this.refreshTree();
    const r = this.runs.get(id) ?? null;
    if (r) await r.loadInfo();
    return r;
  }

  /**
   * Lets all but the few most recently used whole summaries go, and the least recently used
   * indexes past the budget, so memory does not grow with the number or size of the runs.
   */
  keepFew(): void {
    const recent = [...this.runs.values()].sort((a, b) => b.used - a.used);
    for (const r of recent.filter((x) => x.data !== null).slice(this.shared.keptSummaries)) r.dropSummary();
    let bytes = 0;
    recent.forEach((r, i) => {
      bytes += r.indexBytes();
      if (i > 0 && bytes > INDEX_BUDGET_BYTES) r.dropIndex();
    });
  }

  /**
   * Reads every run's index and report in the background, newest first, one run at a time, so
   * a run opens at once when it is asked for; what the budgets do not keep is read again then.
   */
  async warm(stop: () => boolean): Promise<void> {
    const { runs } = await this.list();
    runs.sort((a, b) => String(b.started_at ?? '').localeCompare(String(a.started_at ?? '')));
    for (const row of runs) {
      if (stop()) return;
      const r = this.runs.get(row.id);
      if (!r) continue;
      // Warming is not use: what a user opened stays ahead of it in the budgets.
      const used = r.used;
      try {
        const index = await r.wholeIndex();
        if (index.rollouts <= WARM_SUMMARY_MAX_ROLLOUTS) await r.summary(true);
      } catch {
        // Shown when the run is opened.
      }
      r.used = used;
      this.keepFew();
    }
  }
}

/** The id of a sweep point's run: its folder under the sweep's. */
export function pointId(sweep: string, folder: string): string {
  return sweep === '.' ? folder : `${sweep}/${folder}`;
}

/** A sweep as the walk found it: its row (less what its points' runs say) and its plan. */
interface FoundSweep {
  row: Omit<SweepRow, 'status' | 'complete'>;
  known: KnownSweep;
}

function sweepRow(id: string, dir: string): FoundSweep {
  try {
    const plan = readSweepPlan(dir, 'bas view');
    const models = planModels(plan);
    return {
      row: {
        id,
        kind: 'sweep',
        models: models.map((m) => terminalText(m)),
        points: plan.points.length,
        created_at: typeof plan.created_at === 'string' ? terminalText(plan.created_at) : null,
        problem: null,
      },
      known: { plan, error: null },
    };
  } catch (err) {
    const error = (err as Error).message;
    return {
      row: { id, kind: 'sweep', models: [], points: 0, created_at: null, problem: outsideText(error, 500) },
      known: { plan: null, error },
    };
  }
}
