/**
 * What `bas view` knows of the folder it serves: every run folder and sweep folder under it
 * (found by runfile's one rule, runfile/discover.ts), each run's run.json and status, its
 * rollout index (runfile/rollout-index.ts) and its summary, folded by the report code itself
 * (report/read.ts `RunRead`) in the same read of the results file as the index, and kept in
 * memory until the file changes (then read again by `readRun`). Nothing here writes, and
 * nothing is kept between starts: files are only opened to be read.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { terminalText } from '../io/terminal-text.js';
import { outsideText } from '../io/outside-text.js';
import { readRun, RunRead, type RunData } from '../report/read.js';
import { buildRunReport, renderRunReport, type RunReport } from '../report/run-report.js';
import { costOf } from '../report/cost.js';
import { provenanceOf, samplingShort } from '../report/provenance.js';
import { folderLockState } from '../runfile/lock.js';
import { expectedRollouts, locateRun, readRunInfo, type RunFile } from '../runfile/read.js';
import { findRunFolders } from '../runfile/discover.js';
import { resultsSize, RUN_FILE } from '../runfile/files.js';
import { RolloutIndex } from '../runfile/rollout-index.js';
import { runBounds, type RunBounds } from '../runfile/winners.js';
import { planModels, readSweepPlan, type SweepPlan } from '../runfile/sweep-file.js';
import type { Summary } from '../summary/summary.js';
import type { ListFigures, RunRow, SweepRow } from '../display/runs.js';

/**
 * Runs whose whole summary (with its per-task table, which comparisons pair) is kept at once;
 * every other run keeps only its report, a few KB. A million-task run's table is tens of MB.
 */
const KEPT_SUMMARIES = 2;
/** Bytes the rollout indexes may hold together; the least recently used go past it (and are read again when opened). */
const INDEX_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Warming reads a run's summary with its index, in the index's one read (`followRead`), at any
 * size (the run list asks every run's figures anyway). A run that read could not summarise (a
 * damaged line, say) is read a second time, for its summary alone, only up to this many
 * rollouts: the report's fold over a run of a million tasks takes the server to some 200 MiB
 * while it runs (its per-task table; docs/performance.md).
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

/** Work done one at a time, in the order asked. */
class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => {});
    return next;
  }
}

/** The text a run's bounds are keyed by (a scored run's index set as a list). */
function boundsKey(b: RunBounds | null): string {
  return JSON.stringify(b, (_k, v: unknown) => (v instanceof Set ? [...(v as Set<number>)] : v));
}

interface Shared {
  waitBytes: number;
  keptSummaries: number;
  /** Summaries are read one at a time: each holds the report's fold over a whole file while it runs. */
  folds: OneAtATime;
}

/** A sweep folder as the walk found it: its plan, or why the plan cannot be read (`error`). */
export type KnownSweep = { plan: SweepPlan; error: null } | { plan: null; error: string };

/** A sweep's status from its points' (null: a point whose folder is not there yet). */
function sweepStatus(points: Array<string | null>, problem: string | null): string {
  if (problem !== null) return 'damaged';
  if (points.includes('running')) return 'running';
  if (points.includes('damaged')) return 'damaged';
  return points.length > 0 && points.every((p) => p === 'complete') ? 'complete' : 'incomplete';
}

function figuresOf(s: Summary, run: RunFile | null): ListFigures {
  const cost = costOf(s, {}, run?.prices);
  return {
    rollouts: s.counts.rollouts,
    completed: s.counts.completed,
    errored: s.counts.errored,
    reward: s.reward,
    tokens: s.tokens.total,
    cost_usd: cost.total_usd,
    cost_at_least: cost.lower_bound,
  };
}

/** One run folder: its run.json, index and summary, each read when first needed and again when its file changes. */
export class RunState {
  info: RunFile | null = null;
  infoProblem: string | null = null;
  private infoStamp = '';
  private index: RolloutIndex | null = null;
  /** The whole summary, kept for only a few runs at once (comparisons need its per-task table). */
  data: RunData | null = null;
  /** The run's report as `bas report` builds it, and its text: kept, small. */
  report: { report: RunReport; text: string } | null = null;
  dataProblem: string | null = null;
  /** The results file's size when the report was built. */
  private reportSize = -1;
  private reading: Promise<void> | null = null;
  figures: ListFigures | null = null;
  /** When the run was last used (for keeping only a few summaries and indexes). */
  used = 0;

  constructor(
    readonly id: string,
    readonly dir: string,
    readonly sweep: string | null,
    private readonly shared: Shared,
  ) {}

  /** Reads run.json again when it changed. */
  async loadInfo(): Promise<void> {
    let stamp = 'none';
    try {
      const st = statSync(join(this.dir, RUN_FILE));
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch {
      // No run.json: a bare results folder.
    }
    if (stamp === this.infoStamp) return;
    this.infoStamp = stamp;
    try {
      this.info = await readRunInfo(join(this.dir, RUN_FILE));
      this.infoProblem = null;
    } catch (err) {
      this.info = null;
      this.infoProblem = outsideText((err as Error).message, 500);
    }
    if (this.index && boundsKey(runBounds(this.info)) !== boundsKey(this.indexBounds)) this.index = null;
  }

  private indexBounds: RunBounds | null = null;

  /** The status: run.json's, except that "running" without a live bas holding the folder is "interrupted". */
  status(): string {
    if (this.infoProblem) return 'damaged';
    const s = typeof this.info?.status === 'string' ? this.info.status : null;
    if (s === null) return 'unknown';
    if (s === 'running') return folderLockState(this.dir) === 'alive' ? 'running' : 'interrupted';
    return s;
  }

  /**
   * The rollout index, brought up to date with the file when little of it is left to read.
   * When much is (a large file opened the first time), the read goes on in the background and
   * the index is returned as far as it has read (`reading`, `indexedBytes` of `target`).
   */
  async rollouts(): Promise<RolloutIndex> {
    this.used = Date.now();
    const index = this.openIndex();
    const size = resultsSize(this.dir);
    const behind = size - index.indexedBytes;
    const reading = index.refresh();
    index.target = Math.max(index.target, size);
    if (behind <= this.shared.waitBytes) await reading;
    else reading.catch(() => {}); // a failure shows on the next call that waits
    return index;
  }

  /** The rollout index with the whole file read. */
  async wholeIndex(): Promise<RolloutIndex> {
    this.used = Date.now();
    const index = this.openIndex();
    await index.refresh();
    return index;
  }

  /** The index, made when there is none; its first read folds the summary too when that is wanted (`followRead`). */
  private openIndex(): RolloutIndex {
    if (this.index === null) {
      this.indexBounds = runBounds(this.info);
      this.index = new RolloutIndex(this.dir, this.indexBounds);
      if (this.stale()) this.followRead(this.index);
    }
    return this.index;
  }

  /** The summary the index's first read is folding, settled when that read ends. */
  private followed: Promise<void> | null = null;

  /**
   * Has the index's first read fold the report's summary as it goes (runfile/rollout-index.ts
   * `follow`, report/read.ts `RunRead`): each line is read and parsed once for both. What that
   * read cannot give is left to `readSummary`, which reads the file again as `bas report` does:
   * a run.json that cannot be read, a damaged line (the report names it), a line replacing a
   * scored one of its pair, a file replaced meanwhile.
   */
  private followRead(index: RolloutIndex): void {
    if (this.infoProblem !== null) return;
    let read: RunRead<null>;
    try {
      read = new RunRead(locateRun(this.dir), this.info, () => null);
    } catch {
      return;
    }
    const fold = read.newFold();
    let taken = true;
    const whole = index.follow((r, line, replaces) => {
      if (!taken) return;
      try {
        if (!replaces) fold.add(r, line);
        else taken = fold.replace(r, line);
      } catch {
        taken = false;
      }
    });
    if (whole === null) return;
    this.followed = whole
      .then((size) => {
        if (size === null || !taken || index.damaged > 0 || this.index !== index) return;
        this.settle(() => read.finish(fold, index).data, size);
      })
      .finally(() => (this.followed = null));
  }

  /** Memory the index holds, 0 when there is none. */
  indexBytes(): number {
    return this.index?.memoryBytes() ?? 0;
  }

  /** Lets the index go; it is built again when asked for. */
  dropIndex(): void {
    // One being read is kept: a second read of the same file would hold both at once.
    if (this.index?.reading) return;
    this.index = null;
  }

  /** Whether the report is older than the results file. */
  private stale(): boolean {
    return resultsSize(this.dir) !== this.reportSize;
  }

  /** Reads the report and the whole summary (one fold at a time over the catalog). */
  private read(): Promise<void> {
    this.reading ??= this.shared.folds.run(() => this.readSummary()).finally(() => (this.reading = null));
    return this.reading;
  }

  /**
   * The report, read again when the file grew (one read at a time). `wait` false returns at
   * once, leaving the read going (the list's figures follow a running run a read behind).
   */
  async summary(wait: boolean): Promise<{ report: RunReport; text: string } | null> {
    this.used = Date.now();
    if (this.stale() || (this.report === null && this.dataProblem === null)) {
      const reading = this.read();
      if (wait) await reading;
    } else if (wait && this.reading) await this.reading;
    return this.report;
  }

  /**
   * The report now: waited for when the results file is small, else as it is (null before the
   * first read ends), with the read going on (`summaryPending`).
   */
  async summaryNow(): Promise<{ report: RunReport; text: string } | null> {
    return this.summary(resultsSize(this.dir) <= this.shared.waitBytes);
  }

  /** Whether the report is being read. */
  get summaryPending(): boolean {
    return this.reading !== null;
  }

  /** The whole summary, read again when it was let go or the file grew. */
  async wholeSummary(): Promise<RunData | null> {
    this.used = Date.now();
    if (this.reading) await this.reading;
    if (this.data === null || this.stale()) await this.read();
    return this.data;
  }

  private async readSummary(): Promise<void> {
    // The index first, whole: its first read folds the summary too (`followRead`), and the two
    // reads of a large file that remain (`readRun` below) never hold their memory at once.
    await this.wholeIndex().catch(() => null);
    await this.followed;
    if (!this.stale() && (this.data !== null || this.dataProblem !== null)) return;
    const size = resultsSize(this.dir);
    const data = await readRun(this.dir, () => {}).catch((err: unknown) => err as Error);
    this.settle(() => {
      if (data instanceof Error) throw data;
      return data;
    }, size);
  }

  /** Takes a run's data (or why it cannot be read) as the report of the results file at `size` bytes. */
  private settle(make: () => RunData, size: number): void {
    try {
      const data = make();
      this.data = data;
      const report = buildRunReport(data);
      this.report = { report, text: renderRunReport(report) };
      this.dataProblem = null;
      this.figures = figuresOf(data.summary, data.run);
    } catch (err) {
      this.data = null;
      this.report = null;
      this.figures = null;
      this.dataProblem = outsideText((err as Error).message, 500);
    }
    this.reportSize = size;
  }

  /** Lets the whole summary go (the report and the list figures stay). */
  dropSummary(): void {
    if (!this.reading) this.data = null;
  }

  /**
   * The list's figures, always what the results give (never run.json's stored summary, which
   * an edit or an older bas may have left claiming other figures): the last report read, its
   * next read going on in the background (after this answer) when the file changed.
   */
  private listFigures(): ListFigures | null {
    afterAnswer(() => void this.summary(false));
    return this.figures;
  }

  /**
   * Rollouts recorded. A running run's, and that of a run whose index is wanted (`wait`), come
   * from its index brought up to date when little is left to read (what a running run appended
   * since the last ask: the list is current, never one ask behind), else as far as the read has
   * got; a finished run not opened yet takes its figures' count.
   */
  private async recordedNow(status: string, figures: ListFigures | null, wait: boolean): Promise<number | null> {
    if (!wait && status !== 'running') {
      if (this.index !== null) afterAnswer(() => void this.rollouts().catch(() => {}));
      return this.index?.rollouts ?? figures?.rollouts ?? null;
    }
    try {
      return (await this.rollouts()).rollouts;
    } catch {
      return figures?.rollouts ?? null; // no results file yet
    }
  }

  /**
   * The row of the run list. `wait` brings a running run's count up to date first (one run's
   * progress); without it (the list) the row is made from run.json and what is already read,
   * and the rest follows in the background, shown by the next ask.
   */
  async row(wait = true): Promise<RunRow> {
    await this.loadInfo();
    const status = this.status();
    const run = this.info;
    const figures = this.listFigures();
    const recorded = await this.recordedNow(status, figures, wait);
    const p = provenanceOf(run, run?.model ?? '(unknown model)', run?.task ?? null);
    const t = p.task;
    return {
      id: this.id,
      kind: 'run',
      sweep: this.sweep,
      model: terminalText(p.model),
      endpoint: p.endpoint === null ? null : terminalText(p.endpoint),
      task: t ? `${t.num_transactions} rows · fault rate ${t.fault_rate} · seed ${t.seed}` : 'unknown',
      sampling: terminalText(samplingShort(p.sampling)),
      status: terminalText(status),
      started_at: p.started_at,
      expected: expectedRollouts(run),
      recorded,
      figures,
      problem: this.infoProblem ?? (figures === null ? this.dataProblem : null),
    };
  }
}

/** Runs `fn` once the answer being made has gone: work a request starts never delays it. */
function afterAnswer(fn: () => void): void {
  setImmediate(fn);
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
    const rows = await Promise.all([...this.runs.values()].map((r) => r.row(false)));
    this.keepFew();
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const sweeps = [...this.sweeps.values()].map(({ row: s, known }) => {
      const folders = known.plan?.points.map((p) => p.folder) ?? [];
      const points = folders.map((f) => status.get(pointId(s.id, f)) ?? null);
      return { ...s, status: sweepStatus(points, s.problem), complete: points.filter((p) => p === 'complete').length };
    });
    return { runs: rows, sweeps, truncated: this.truncated, unnamed: this.unnamed };
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
