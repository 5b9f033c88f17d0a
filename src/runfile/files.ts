/**
 * The names of the files a run folder (and a sweep folder) holds, in one place: every reader
 * and writer takes them from here, so no module spells a file name of its own.
 */

/** One line per finished rollout, appended (results.ts writes it, winners.ts reads it back). */
export const RESULTS_FILE = 'results.jsonl';

/** The run's configuration, status and summary (run-info.ts). */
export const RUN_FILE = 'run.json';

/** Present while a process writes the folder (lock.ts). */
export const LOCK_FILE = '.bas.lock';

/** A sweep folder's plan: its points and the eval flags they run with (sweep-file.ts). */
export const SWEEP_FILE = 'sweep.json';
