/**
 * Why a run stopped before every pair ran. One reason per run: the first `Runner.stop(reason)`
 * wins, later ones are ignored. Whatever the reason, a stop starts no new request, aborts the
 * requests in flight (their rollouts are not recorded; a resume runs them again) and counts
 * them as abandoned (spend.ts), so the run's cost is shown as a lower bound with what they may
 * add. A rule that stops a run (a budget, a precision reached, a decision) calls `stop` with
 * its own kind; the kind decides the run's status in run.json (`statusOf`).
 */
import type { Failure } from '../endpoint/classify.js';

/**
 * - `interrupted`: the caller's signal (Ctrl-C, SIGTERM, a closed pipe);
 * - `fatal`: the endpoint stopped the run (a refused key, the first-contact rule); `failure` says why;
 * - `budget`: the next request did not fit in `--max-cost` / `--max-total-tokens`;
 * - `precision`, `decided`: a stopping rule found the answer it was asked for.
 */
export type StopKind = 'interrupted' | 'fatal' | 'budget' | 'precision' | 'decided';

export interface RunStop {
  kind: StopKind;
  /** One line saying why, for the stop message (no trailing period). */
  message: string;
  /** The endpoint's failure, for `fatal`. */
  failure?: Failure;
}

/** The status run.json gets when a run stopped for `stop` before its last pair. */
export function statusOf(stop: RunStop): 'failed' | 'interrupted' | 'budget' | 'precision' | 'decided' {
  switch (stop.kind) {
    case 'fatal':
      return 'failed';
    case 'budget':
      return 'budget';
    case 'interrupted':
      return 'interrupted';
    default:
      return stop.kind;
  }
}
