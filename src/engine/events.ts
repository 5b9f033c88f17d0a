/**
 * What `runPlan` tells its caller while it works, and what it hands back. The engine prints
 * nothing: a front end (the CLI, a sweep, a user's program) turns these into lines, a
 * progress bar or nothing at all, and chooses an exit code from the outcome.
 */
import type { Failure } from '../endpoint/classify.js';
import type { RolloutRecord } from '../runfile/record.js';
import type { RunInfo } from '../runfile/run-info.js';
import type { Summary } from '../summary/summary.js';
import type { SequentialRecord } from '../summary/confidence-sequence.js';

/** One event of a run, in the order they happen. */
export type EvalEvent =
  /** A resume found every rollout recorded and scored: nothing runs. `marked` is the status it had, when it was not `complete` (it is now). */
  | { type: 'nothing-to-do'; dir: string; total: number; marked: string | null }
  /** A resume is about to run the rollouts still pending (never recorded, or errored). */
  | { type: 'resuming'; dir: string; pending: number; total: number }
  /** The folder held a run that scored nothing (a failed start); it is started again. */
  | { type: 'restarted'; dir: string }
  /** run.json says `running`: rollouts start now. `already` were recorded by earlier sessions. */
  | {
      type: 'started';
      dir: string;
      info: RunInfo;
      total: number;
      pending: number;
      already: number;
      concurrency: number;
    }
  | { type: 'rollout-started'; index: number; rollout: number }
  /** An attempt failed and will be retried after `delay_ms`. */
  | { type: 'retry'; index: number; rollout: number; attempt: number; delay_ms: number; failure: Failure }
  /** A rollout ended and its record is on its way to results.jsonl (`record.error` null when it was scored). */
  | { type: 'rollout'; record: RolloutRecord }
  /** The number of requests allowed in flight changed (rate limits). */
  | { type: 'pace'; limit: number }
  /** Something worth telling that changes nothing (a torn last line skipped, say). */
  | { type: 'warning'; message: string };

/** What a batch run (`bas eval --batch`, batch-run.ts) reports as it goes. */
export type BatchEvent =
  /** A request file was uploaded and a batch created over it; its ids are in run.json already. */
  | { type: 'batch-submitted'; batch: string; file: string; requests: number }
  /** A resume found batches sent earlier: it waits for them, and sends nothing again. */
  | { type: 'batch-attached'; dir: string; batches: string[] }
  /** What a poll said of one batch: the provider's status and request counts. */
  | {
      type: 'batch-status';
      batch: string;
      status: string;
      counts: { total: number; completed: number; failed: number };
      errors: string[];
    }
  /** A batch ended other than completed (failed, expired, cancelled): said with its errors. */
  | { type: 'batch-ended'; batch: string; status: string; errors: string[]; failedLines: number }
  | { type: 'warning'; message: string };

/** How a run ended, for the caller to act on (`bas eval` maps it to its exit code). */
export type EvalOutcome =
  /** Every pending rollout ran, with errored ones within the error budget. */
  | { kind: 'ok' }
  /** A resume found nothing left to run. */
  | { kind: 'nothing-to-do' }
  /**
   * The endpoint stopped the run: a refused key, an unknown model, the same refusal on every
   * first rollout. `restartable`: nothing was scored, so the folder may be started again
   * with corrected settings (a new run in the same folder) rather than resumed.
   */
  | { kind: 'endpoint-stopped'; failure: Failure; restartable: boolean }
  /** Every rollout ran, and none was scored (at least one errored). */
  | { kind: 'nothing-completed' }
  /** More rollouts errored than `max_error_rate` allows. */
  | { kind: 'over-error-budget'; errored: number; rollouts: number; max_error_rate: number }
  /**
   * The caller's signal stopped the run; `reason` is the signal's reason. `complete` is true
   * when every rollout was recorded all the same (the stop came after the last one): run.json
   * then says `complete`.
   */
  | { kind: 'interrupted'; reason: unknown; complete: boolean }
  /**
   * The next request did not fit in `--max-cost` / `--max-total-tokens`: the run stopped before
   * its last rollout (run.json's status `budget`). `message` says which budget, in one line.
   */
  | { kind: 'budget'; message: string }
  /**
   * A stopping rule was reached: `--precision` (status `precision`) or a verdict of `--against
   * RUN --until decided` (status `decided`); the run stopped there, within the error budget.
   */
  | { kind: 'precision' | 'decided'; sequential: SequentialRecord };

/** What `runPlan` returns. */
export interface EvalResult {
  dir: string;
  /** run.json as it was written last. */
  info: RunInfo;
  /** The summary of every rollout of the run (earlier sessions' included). */
  summary: Summary;
  outcome: EvalOutcome;
  /** Rollouts the run (or its shard) sets out to do: tasks × rollouts. */
  total: number;
  /** Rollouts this call set out to run (fewer than the run's on a resume; 0 with nothing to do). */
  ran_here: number;
  /** Rollouts this call recorded: fewer than `ran_here` when it stopped early. */
  recorded_here: number;
  /** Seconds this call spent running rollouts. */
  elapsed_s: number;
  /** The anytime-valid interval of a run with `--precision` or `--until decided`, as run.json's `sequential` holds it; else absent. */
  sequential?: SequentialRecord;
}
