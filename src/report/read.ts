/**
 * A run folder summarised for reports: its records folded into a summary, with plain notes
 * about its state (in progress, cut off, mixed configurations).
 */
import { ConfigError } from '../errors/index.js';
import { registerSecret } from '../io/secrets.js';
import { registerKnownKeys } from '../settings/providers.js';
import type { TaskConfig } from '../task/types.js';
import { expectedRollouts, locateRun, readRunInfo, stderrWarn, type RunFile, type Warn } from '../runfile/read.js';
import { folderLockState } from '../runfile/lock.js';
import { runGenerator } from '../runfile/versions.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { withSpend } from '../summary/spend.js';
import type { Summary } from '../summary/summary.js';
import type { TaskMeansSource } from '../summary/task-means.js';
import { spendBeside } from '../runfile/sessions.js';
import {
  foldWinningRecords,
  runBounds,
  stoppedThrough,
  SummaryFold,
  type RunBounds,
  type WinnerFold,
} from '../runfile/winners.js';
import type { RolloutRecord } from '../runfile/record.js';
import { provenanceOf, type Provenance } from './provenance.js';
import { sequentialOf } from './sequential-record.js';
import { sequentialNote } from './sequential-text.js';
import * as std from '../io/std.js';
import { savedResumeCommand } from '../settings/resume-command.js';

/** A run folder, summarised. */
export interface RunData {
  dir: string;
  resultsPath: string;
  /** run.json, or null when the folder has only results.jsonl (say, `bas score --out`). */
  run: RunFile | null;
  model: string;
  /** The task configuration (run.json's, else the first record's); null if neither says. */
  task: TaskConfig | null;
  /** Its per-task means, which compare and the leaderboard pair runs on. */
  builder: TaskMeansSource;
  summary: Summary;
  /** Rollouts the run set out to do (tasks × rollouts), when run.json says. */
  expected: number | null;
  /** Plain sentences about the state of the run: in progress, cut off, mixed configs. */
  notes: string[];
  /** What a reader needs to cite the run's numbers (see provenance.ts). */
  provenance: Provenance;
}

/**
 * A folder written by bas 0.3 may hold an endpoint's echo of the key split by hidden
 * characters, which that version's redaction missed. When the run's key variable is set here,
 * its value is registered, so that whatever the report shows has it cut out. The name comes
 * from a file, so it is used for nothing else, and only a variable named like a key is read.
 */
function registerReadBackKey(run: RunFile | null): void {
  // The key variables bas reads itself, whatever the run names (a scored run names none).
  registerKnownKeys(std.env());
  const name = run?.api_key_var;
  if (typeof name !== 'string' || !/^[A-Z][A-Z0-9_]{0,63}$/.test(name) || !/KEY|TOKEN|SECRET/.test(name)) return;
  const value = std.env()[name];
  if (value) registerSecret(value);
}

/**
 * What a report reads from a run's winning records, in one pass: the summary (SummaryFold,
 * which takes a re-run's line in place of the errored one), the configurations and the model;
 * and a caller's fold, which must take such lines too (`replace`) for the read to stay one pass.
 */
class RunFold<F extends WinnerFold | null> extends SummaryFold {
  readonly configs = new Set<string>();
  firstConfig: TaskConfig | null = null;
  firstModel: string | null = null;

  constructor(
    readonly also: F,
    bounds: RunBounds | null,
    lastIndex: number | null = null,
  ) {
    super(bounds, lastIndex);
  }

  private lastConfig: TaskConfig | null = null;

  private note(r: RolloutRecord): void {
    const c = r.config;
    if (c && this.configs.size < 20) {
      // Records of a run nearly always repeat one configuration: it is keyed once, not per record.
      const last = this.lastConfig;
      if (
        last === null ||
        last.num_transactions !== c.num_transactions ||
        last.fault_rate !== c.fault_rate ||
        last.seed !== c.seed
      ) {
        this.configs.add(JSON.stringify([c.num_transactions, c.fault_rate, c.seed]));
        this.lastConfig = c;
      }
      this.firstConfig ??= c;
    }
    if (typeof r.model === 'string') this.firstModel ??= r.model;
  }

  override add(r: RolloutRecord, line?: number): void {
    super.add(r);
    this.note(r);
    this.also?.add(r, line ?? 0);
  }

  override replace(r: RolloutRecord, line?: number): boolean {
    if (this.also !== null && !this.also.replace) return false;
    if (!super.replace(r)) return false;
    this.note(r);
    return this.also === null || this.also.replace!(r, line ?? 0);
  }
}

/** Reads and summarises a run folder (or a bare results file); `warn` hears a torn last line and records set aside. */
export async function readRun(path: string, warn?: Warn, options?: ReadOptions): Promise<RunData> {
  return (await readRunFolding(path, () => null, warn, options)).data;
}

/** How a run folder may be read. */
interface ReadOptions {
  /**
   * Read a run that holds no rollout yet (a sweep's point stopped at its budget before its
   * first) as an empty summary instead of refusing it.
   */
  allowEmpty?: boolean;
}

/**
 * Reads and summarises a run folder as `readRun` does and, in the same pass, folds its
 * winning records (the last line of each pair, within the run) into a fold made by `start`:
 * a caller needing more than the summary (the HTML drill-down, one rollout) needs no read of
 * its own. The fold returned has seen every winner once, in file order (a file holding a pair
 * twice is read again into a new fold: `foldWinningRecords`).
 */
export async function readRunFolding<F extends WinnerFold | null>(
  path: string,
  start: () => F,
  warn: Warn = stderrWarn,
  options: ReadOptions = {},
): Promise<{ data: RunData; fold: F }> {
  const where = locateRun(path);
  const read = new RunRead(where, where.runPath ? await readRunInfo(where.runPath) : null, start);
  // One pass over the file (two only for a caller's fold that cannot take a re-run's line in
  // place of the errored one).
  const { fold, counts } = await foldWinningRecords(read.resultsPath, () => read.newFold(), {
    bounds: read.bounds,
    warn,
  });
  return read.finish(fold, counts, options);
}

/**
 * A run folder's read as a report makes it, for a reader that walks the file itself: made with
 * its run.json, fed every winning record in file order (`newFold`: `add`, and `replace` for a
 * line replacing an earlier one of its pair), then `finish`ed into the run's data. `readRunFolding`
 * feeds it through the winning-records reader; the viewer, through its rollout index's one read
 * (src/view/run-state.ts), so a run it opens is read once.
 */
export class RunRead<F extends WinnerFold | null> {
  readonly dir: string;
  readonly resultsPath: string;
  private readonly runPath: string | null;
  /** Records that cannot belong to the run (a task past n, another shard's) are set aside and counted, never summarised. */
  readonly bounds: RunBounds | null;
  /** A run its rule stopped is summarised over the tasks the rule used; later replies apart. */
  private readonly through: number | null;

  /** `where`: the folder as `locateRun` found it; `run`: its run.json as read (null: none). */
  constructor(
    where: { dir: string; resultsPath: string; runPath: string | null },
    private readonly run: RunFile | null,
    private readonly start: () => F,
  ) {
    ({ dir: this.dir, resultsPath: this.resultsPath, runPath: this.runPath } = where);
    registerReadBackKey(run);
    this.bounds = runBounds(run);
    this.through = stoppedThrough(run as Record<string, unknown> | null);
  }

  /** A fold to feed the winning records to: the summary's, the configurations', and the caller's. */
  newFold(): RunFold<F> {
    return new RunFold(this.start(), this.bounds, this.through);
  }

  /** The run's data from a fold fed every winner; `counts`: the records set aside. */
  finish(
    fold: RunFold<F>,
    counts: { setAside: number; firstSetAside: { line: number; reason: string } | null },
    options: ReadOptions = {},
  ): { data: RunData; fold: F } {
    const { dir, resultsPath, runPath } = this;
    const { configs, firstConfig, firstModel } = fold;
    const builder = fold.finish();
    // What the run spent beside its records (unrecorded rollouts, requests abandoned in flight), from run.json.
    const summary = withSpend(builder.result(), spendBeside(this.run as Record<string, unknown> | null));
    if (summary.counts.rollouts === 0 && !options.allowEmpty) {
      throw new ConfigError(`${resultsPath} holds no rollouts yet: nothing to report`);
    }
    const status = statusNotes(this.run, dir);
    const run = status.run;
    // A run with a stopping rule says where the rule left it, whatever its status.
    const sequential = sequentialOf(run);
    const notes = [
      ...status.notes,
      ...(sequential ? [sequentialNote(sequential, run?.status, summary, run?.prices)] : []),
      ...recordNotes(run, runPath, resultsPath, summary, counts, configs.size),
    ];
    const model = run?.model ?? firstModel ?? '(unknown model)';
    const task = run?.task ?? firstConfig;
    const expected = expectedRollouts(run);
    const provenance = provenanceOf(run, model, task);
    const data: RunData = { dir, resultsPath, run, model, task, builder, summary, expected, notes, provenance };
    return { data, fold: fold.also };
  }
}

/**
 * What the run's status says, in plain notes; a run.json that says running with no live bas
 * holding the folder was killed or crashed, and is read as interrupted.
 */
function statusNotes(run: RunFile | null, dir: string): { run: RunFile | null; notes: string[] } {
  const status = run?.status;
  // With the endpoint flags the resume needs (a URL no registry names is refused without them).
  const resume = `\`${savedResumeCommand(dir, run as Record<string, unknown> | null, std.env())}\``;
  if (status === 'running' && run !== null && folderLockState(dir) !== 'alive')
    return {
      run: { ...run, status: 'interrupted' },
      notes: [
        `This run was interrupted (run.json still says "running", but no bas process holds the folder): the figures cover what completed. ${resume} finishes it.`,
      ],
    };
  const note =
    status === 'running'
      ? 'This run is still in progress (run.json says "running"): the figures cover what has finished so far.'
      : status === 'incomplete'
        ? 'This run is incomplete: some planned rollouts are in none of its inputs (missing replies or a missing shard).'
        : status === 'budget'
          ? `This run stopped at its budget (--max-cost / --max-total-tokens) before it finished: the figures cover what completed. ${resume} with a larger budget finishes it.`
          : status === 'interrupted' || status === 'failed'
            ? `This run ${status === 'failed' ? 'failed' : 'was interrupted'} before it finished: the figures cover what completed. ${resume} finishes it.`
            : null;
  return { run, notes: note === null ? [] : [note] };
}

/** Notes on what the records hold: rollouts missing, another generator, records set aside, no run.json, mixed configurations. */
function recordNotes(
  run: RunFile | null,
  runPath: string | null,
  resultsPath: string,
  summary: Summary,
  counts: { setAside: number; firstSetAside: { line: number; reason: string } | null },
  configs: number,
): string[] {
  const notes: string[] = [];
  const expected = expectedRollouts(run);
  // A run its rule stopped was meant to end there: its note says so, and nothing is missing.
  const ruleStopped = run?.status === 'precision' || run?.status === 'decided';
  if (expected !== null && summary.counts.rollouts < expected && !ruleStopped) {
    notes.push(
      `${summary.counts.rollouts} of ${expected} rollouts are recorded; ${expected - summary.counts.rollouts} are missing.`,
    );
  }
  const generator = runGenerator(run);
  if (generator !== null && generator !== GENERATOR_VERSION) {
    notes.push(
      `This run was made by task generator ${generator} and this bas has generator ${GENERATOR_VERSION}: its ledgers cannot be rebuilt, so the HTML report shows replies without ledgers.`,
    );
  }
  const { setAside, firstSetAside } = counts;
  if (firstSetAside !== null)
    notes.push(
      `${setAside} record${setAside === 1 ? '' : 's'} of ${resultsPath} cannot belong to this run and ${setAside === 1 ? 'is' : 'are'} left out (first: line ${firstSetAside.line}, ${firstSetAside.reason}).`,
    );
  if (!run && runPath)
    notes.push(`No run.json beside ${resultsPath}: the model and task configuration come from the records.`);
  if (configs > 1) notes.push('The records hold more than one task configuration: their figures are pooled.');
  return notes;
}
