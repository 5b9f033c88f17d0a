/**
 * One run folder as `bas view` knows it: its run.json and status, its rollout index
 * (runfile/rollout-index.ts) and its summary, folded by the report code itself (report/read.ts
 * `RunRead`) in the same read of the results file as the index, and kept in memory until the
 * file changes (then read again by `readRun`). Nothing here writes: files are only opened to be
 * read.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { outsideText } from '../io/outside-text.js';
import { readRun, RunRead, type RunData } from '../report/read.js';
import { buildRunReport, renderRunReport, type RunReport } from '../report/run-report.js';
import { costOf } from '../report/cost.js';
import { folderLockState } from '../runfile/lock.js';
import { locateRun, readRunInfo, type RunFile } from '../runfile/read.js';
import { resultsSize, RUN_FILE } from '../runfile/files.js';
import { RolloutIndex } from '../runfile/rollout-index.js';
import { runBounds, type RunBounds } from '../runfile/winners.js';
import type { Summary } from '../summary/summary.js';
import type { ListFigures } from '../display/runs.js';

/** Work done one at a time, in the order asked. */
export class OneAtATime {
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

/** What every run of a catalog shares: how long to wait for a read, how many summaries to keep, the one fold at a time. */
export interface Shared {
  waitBytes: number;
  keptSummaries: number;
  /** Summaries are read one at a time: each holds the report's fold over a whole file while it runs. */
  folds: OneAtATime;
}

/** The run list's figures of a summary. */
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

  /** The index as far as it has read, without reading; null when there is none. */
  get indexSoFar(): RolloutIndex | null {
    return this.index;
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
      // Named by its id under the served folder, as every view names it: a bundle made of it
      // then holds no path above that folder, even where the text wraps a long one.
      const report = buildRunReport({ ...data, dir: this.id });
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
}
