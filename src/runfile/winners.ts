/**
 * The winning records of a results file: the last line of each (index, rollout) pair is the
 * one that counts (a resumed run re-runs an errored rollout and appends its new line). Every
 * reader of a run's records (resume, merge, report and its summary, the HTML drill-down)
 * reads them through here, so the rule, the torn-last-line rule (in `forEachRecord`) and the
 * run's bounds are applied the same way everywhere.
 *
 * The first pass finds each pair's last line and checks each record against the run it sits
 * in; a second hands the winners over in file order. A reader that folds the records into
 * something it can start again (a summary, a resume's state, the drill-down's selection) uses
 * `foldWinningRecords`, which folds during the first pass. A pair recorded twice (a run
 * resumed after errors: an errored line, then the line that re-ran it) is handed to the
 * fold's `replace`; a fold that can take the earlier line back (`SummaryFold` holds errored
 * winners until the end) keeps the read to one pass, and the file is read again only for a
 * fold that cannot. Memory is a few bytes per pair, and the errored winners a summary holds.
 *
 * A record that cannot belong to its run (a task index past n, outside the run's shard or
 * its list of tasks, a rollout past the run's count) is either refused with the file and line
 * (merge: a new folder must not be built from it) or set aside and counted (report, resume:
 * the rest of the run is still worth reading), never counted as a rollout of the run.
 */
import { ConfigError } from '../errors/index.js';
import { forEachRecord, stderrWarn, type Warn } from './read.js';
import { pairKey, splitPairKey, type PairKey, type RolloutRecord } from './record.js';
import { SummaryBuilder } from '../summary/summary-builder.js';
import type { Summary, SummaryRecord } from '../summary/summary.js';
import { billedCompletion, tokenCount } from '../summary/billed.js';
import { inShard, readShard, type Shard } from '../settings/shard.js';

/** What a run's records must fit: its tasks and its rollouts per task, as run.json says. */
export interface RunBounds {
  /** Tasks 0..n-1. */
  n: number;
  rollouts: number;
  shard: Shard | null;
  /** A scored run's own list of tasks (null: every index below n). */
  indices: ReadonlySet<number> | null;
}

/** The bounds a run.json gives its records, or null when it cannot say (no run.json, an old or foreign one). */
export function runBounds(
  run: { n?: unknown; rollouts?: unknown; shard?: unknown; indices?: unknown } | null,
): RunBounds | null {
  if (run === null || typeof run.n !== 'number') return null;
  const shard = readShard(run.shard);
  if (shard === undefined) return null;
  const indices = Array.isArray(run.indices) ? new Set(run.indices as number[]) : null;
  // A scored run's n is the length of its list; its indices may be any numbers.
  let n = run.n;
  if (indices) for (const i of indices) n = Math.max(n, i + 1);
  return { n, rollouts: typeof run.rollouts === 'number' ? run.rollouts : 1, shard, indices };
}

/**
 * The last task a stopping rule used, for a run that rule stopped (status `precision` or
 * `decided`, with run.json's `sequential` reached at `last_index`); null for any other run. Its
 * summary is over tasks 0..last_index alone (SPEC, "A run stopped by its rule").
 */
export function stoppedThrough(run: Record<string, unknown> | null): number | null {
  if (run?.status !== 'precision' && run?.status !== 'decided') return null;
  const q = run.sequential as Record<string, unknown> | null | undefined;
  if (typeof q !== 'object' || q === null || q.reached !== true) return null;
  const last = q.last_index;
  return typeof last === 'number' && Number.isSafeInteger(last) && last >= 0 ? last : null;
}

/** Why a record cannot belong to a run with these bounds, or null when it can. */
export function outsideRun(r: { index: number; rollout?: number }, b: RunBounds): string | null {
  const rollout = r.rollout ?? 0;
  if (b.indices !== null) {
    if (!b.indices.has(r.index)) return `task ${r.index} is not one of the run's ${b.indices.size} tasks`;
  } else if (r.index >= b.n) return `task ${r.index} is outside the run's ${b.n} tasks (0 to ${b.n - 1})`;
  if (b.shard !== null && !inShard(r.index, b.shard))
    return `task ${r.index} is not in the run's shard ${b.shard.index}/${b.shard.count}`;
  if (rollout >= b.rollouts)
    return `rollout ${rollout} is outside the run's ${b.rollouts} rollout${b.rollouts === 1 ? '' : 's'} per task`;
  return null;
}

/** What the first pass found. */
export interface WinnerCounts {
  /** Record lines read, superseded and set-aside ones included. */
  lines: number;
  /** Lines a later line of the same pair replaced. */
  replaced: number;
  /** Distinct pairs: the run's rollouts as recorded. */
  rollouts: number;
  /** Records that cannot belong to the run, left out. */
  setAside: number;
  /** The first of them, for the message: its line and why. */
  firstSetAside: { line: number; reason: string } | null;
}

interface WinnerOptions {
  /** The run the records must fit; null or absent: any index and rollout. */
  bounds?: RunBounds | null;
  /** `refuse`: a record outside the run is a ConfigError naming file and line; `set-aside` (default): counted and left out. */
  outside?: 'refuse' | 'set-aside';
  /** Where the torn-last-line and set-aside warnings go. */
  warn?: Warn;
}

interface ScanOptions extends WinnerOptions {
  /** Sees each record within the run as the first pass reads it, and whether it replaced an earlier line of its pair. */
  onLine?: (r: RolloutRecord, line: number, replaces: boolean) => void;
}

/** Pairs dense enough to be kept in a typed array: a slot per (task, rollout), 4 bytes each. */
const MAX_DENSE_SLOTS = 1 << 24;

/** The last line of each pair: a typed array over the run's pairs where they are known and few, else a map. */
class PairLines {
  private readonly dense: Uint32Array | null;
  private readonly sparse = new Map<PairKey, number>();

  constructor(private readonly bounds: RunBounds | null) {
    const slots = bounds ? bounds.n * bounds.rollouts : Infinity;
    this.dense = slots <= MAX_DENSE_SLOTS ? new Uint32Array(slots) : null;
  }

  /** Records `line` as the pair's last; returns the line it replaced, or 0. */
  set(index: number, rollout: number, line: number): number {
    if (this.dense !== null) {
      const slot = index * this.bounds!.rollouts + rollout;
      const before = this.dense[slot]!;
      this.dense[slot] = line;
      return before;
    }
    const key = pairKey(index, rollout);
    const before = this.sparse.get(key) ?? 0;
    this.sparse.set(key, line);
    return before;
  }

  /** Calls `fn` for every pair that has a line. */
  forEachPair(fn: (index: number, rollout: number) => void): void {
    if (this.dense !== null) {
      const per = this.bounds!.rollouts;
      for (let slot = 0; slot < this.dense.length; slot++)
        if (this.dense[slot] !== 0) fn(Math.floor(slot / per), slot % per);
      return;
    }
    for (const key of this.sparse.keys()) fn(...splitPairKey(key));
  }

  get(index: number, rollout: number): number {
    if (this.dense !== null) return this.dense[index * this.bounds!.rollouts + rollout]!;
    return this.sparse.get(pairKey(index, rollout)) ?? 0;
  }
}

/** The winning lines of one results file, found by a first pass; `forEach` reads them. */
export class Winners {
  private constructor(
    readonly path: string,
    readonly counts: WinnerCounts,
    private readonly pairs: PairLines,
    private readonly bounds: RunBounds | null,
    private readonly lastLine: number,
  ) {}

  /** The first pass: every line parsed and checked, each pair's last line noted. */
  static async scan(path: string, opts: ScanOptions = {}): Promise<Winners> {
    const bounds = opts.bounds ?? null;
    const warn = opts.warn ?? stderrWarn;
    const pairs = new PairLines(bounds);
    const counts: WinnerCounts = { lines: 0, replaced: 0, rollouts: 0, setAside: 0, firstSetAside: null };
    let lastLine = 0;
    await forEachRecord(
      path,
      (r, line) => {
        counts.lines++;
        lastLine = line;
        const why = bounds ? outsideRun(r, bounds) : null;
        if (why !== null) {
          if (opts.outside === 'refuse')
            throw new ConfigError(`${path}: line ${line} cannot belong to its run: ${why}`);
          counts.setAside++;
          counts.firstSetAside ??= { line, reason: why };
          return;
        }
        const replaces = pairs.set(r.index, r.rollout ?? 0, line) !== 0;
        if (replaces) counts.replaced++;
        else counts.rollouts++;
        opts.onLine?.(r, line, replaces);
      },
      warn,
    );
    if (counts.firstSetAside !== null) {
      const { line, reason } = counts.firstSetAside;
      warn(
        `${path}: set aside ${counts.setAside} record${counts.setAside === 1 ? '' : 's'} that cannot belong to this run (first: line ${line}, ${reason}); they are not counted`,
      );
    }
    return new Winners(path, counts, pairs, bounds, lastLine);
  }

  /** Calls `fn` for every pair that has a winning line, without reading the file again. */
  forEachPair(fn: (index: number, rollout: number) => void): void {
    this.pairs.forEachPair(fn);
  }

  /** Whether the record read at `line` is its pair's winner. */
  wins(r: RolloutRecord, line: number): boolean {
    if (this.bounds !== null && outsideRun(r, this.bounds) !== null) return false;
    return this.pairs.get(r.index, r.rollout ?? 0) === line;
  }

  /**
   * The second pass: `fn` gets each winning record in file order with its line number, and
   * `onReplaced` each line a later line of its pair replaced (its tokens were still paid for).
   * Lines appended since the first pass (a run still going) are not read: both passes see one file.
   */
  async forEach(
    fn: (r: RolloutRecord, line: number) => void,
    onReplaced?: (r: RolloutRecord, line: number) => void,
  ): Promise<void> {
    await forEachRecord(
      this.path,
      (r, line) => {
        if (line > this.lastLine) return false;
        if (this.wins(r, line)) fn(r, line);
        else if (onReplaced && (this.bounds === null || outsideRun(r, this.bounds) === null)) onReplaced(r, line);
        return true;
      },
      () => {}, // the first pass warned already
    );
  }
}

/** Something the winning records are folded into, one at a time, in file order. */
export interface WinnerFold {
  add(r: RolloutRecord, line: number): void;
  /** A line a later line of its pair replaced (its tokens were still paid for). */
  addReplaced?(r: RolloutRecord, line: number): void;
  /**
   * In the first pass: `r` replaces the line of its pair that this fold was given last. True
   * when the fold took it (the earlier line now counting as replaced); false when it cannot
   * take the earlier line back, and the file is then read again into a fresh fold.
   */
  replace?(r: RolloutRecord, line: number): boolean;
}

/**
 * The winning records of `path` folded into a fold made by `start`. One pass when no pair has
 * two lines, or when the fold takes each replacing line (`replace`). Otherwise the fold of that
 * pass is dropped at the first line it cannot take, and a new one is made and fed the winners
 * in file order by a second pass. No more than one fold is held at a time.
 */
export async function foldWinningRecords<F extends WinnerFold>(
  path: string,
  start: () => F,
  opts: WinnerOptions = {},
): Promise<{ fold: F; counts: WinnerCounts }> {
  let fold: F | null = start();
  const winners = await Winners.scan(path, {
    ...opts,
    onLine: (r, line, replaces) => {
      if (!replaces) fold?.add(r, line);
      else if (fold !== null && !fold.replace?.(r, line)) fold = null;
    },
  });
  if (fold !== null) return { fold, counts: winners.counts };
  const again = start();
  await winners.forEach(
    (r, line) => again.add(r, line),
    again.addReplaced && ((r, line) => again.addReplaced!(r, line)),
  );
  return { fold: again, counts: winners.counts };
}

/** What the summary reads of an errored line, kept while a later line may still replace it. */
function errorPart(r: RolloutRecord): SummaryRecord {
  return {
    index: r.index,
    rollout: r.rollout ?? 0,
    reward: null,
    rewards: null,
    metrics: null,
    error: r.error,
    usage: r.usage ?? null,
  };
}

/**
 * The summary of a run's winning records, read in one pass. A scored line is summarised at
 * once (bas never writes a line after a scored one of the same pair); an errored one is held
 * until the end, since a later line of its pair (a resume re-running it, in the file or in
 * this session: `supersede`) makes it a replaced line instead. The summary does not depend on
 * the order it is fed (src/summary), so holding lines back changes no figure.
 */
export class SummaryFold implements WinnerFold {
  protected readonly builder: SummaryBuilder;
  /** Errored lines that win so far, by pair. */
  private readonly heldErrors = new Map<PairKey, SummaryRecord>();

  /**
   * `bounds`, when known, let a run of one rollout per task keep only a little per task
   * (SummaryOptions); `lastIndex`, the last task a stopping rule used (`stoppedThrough`), keeps
   * later tasks' rollouts out of the summary but for their tokens.
   */
  constructor(bounds: RunBounds | null = null, lastIndex: number | null = null) {
    this.builder = new SummaryBuilder({ oneRolloutPerTask: bounds !== null && bounds.rollouts === 1, lastIndex });
  }

  add(r: RolloutRecord): void {
    this.take(r);
  }

  private take(r: RolloutRecord): void {
    if (r.error) this.heldErrors.set(pairKey(r.index, r.rollout ?? 0), errorPart(r));
    else this.builder.add(r);
  }

  addReplaced(r: RolloutRecord): void {
    this.builder.addReplaced(r);
  }

  /** Takes a line replacing an errored one; a scored line cannot be taken back (false). */
  replace(r: RolloutRecord): boolean {
    if (!this.heldErrors.has(pairKey(r.index, r.rollout ?? 0))) return false;
    this.supersede(r);
    return true;
  }

  /** A newer line of `r`'s pair (or of a new pair): it wins, and an errored line it replaces counts as replaced. */
  supersede(r: RolloutRecord): void {
    const key = pairKey(r.index, r.rollout ?? 0);
    const held = this.heldErrors.get(key);
    if (held !== undefined) {
      this.heldErrors.delete(key);
      this.builder.addReplaced(held);
    }
    this.take(r);
  }

  /** The builder with every winner in: the errored lines still held are summarised now. */
  finish(): SummaryBuilder {
    for (const r of this.heldErrors.values()) this.builder.add(r);
    this.heldErrors.clear();
    return this.builder;
  }

  /**
   * Prompt and completion tokens over every line so far (winning, held back, replaced), without
   * finishing the fold: what a resumed run spent before, for its budget.
   */
  tokens(): { prompt: number; completion: number } {
    const t = this.builder.result().tokens;
    let prompt = t.prompt;
    let completion = t.completion;
    for (const r of this.heldErrors.values()) {
      const p = tokenCount(r.usage?.prompt_tokens);
      // Billed beyond completion_tokens too, where total_tokens says so (billed.ts).
      const c = r.usage ? billedCompletion(r.usage) : null;
      // The same bounds as the summary's: a count past them is a fault, not tokens.
      if (p !== null) prompt += p;
      if (c !== null) completion += c;
    }
    return { prompt, completion };
  }

  /** The summary of every winner so far. */
  summary(): Summary {
    return this.finish().result();
  }
}
