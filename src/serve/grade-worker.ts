/**
 * A grading thread of `bas reward-server --workers N`: regenerates keys from labels (its own
 * bounded cache; the pool sends each label to the same thread every time) and grades
 * responses with `scoreReply`, the grader of `bas score`. The main thread has already checked
 * every label, so an error here is a bug, reported back rather than thrown.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { scoreReply } from '../task/score.js';
import { TaskKeys } from './task-keys.js';

/** What the pool sends: one slice of a batch. */
interface Job {
  id: number;
  labels: string[];
  responses: string[];
}

const share = workerData as { keys: number; bytes: number };
const keys = new TaskKeys(share.keys, share.bytes);
parentPort!.on('message', (job: Job) => {
  try {
    const scores = job.labels.map((label, i) => {
      const { key, figures } = keys.keyFor(label);
      return scoreReply(job.responses[i]!, key, figures);
    });
    parentPort!.postMessage({ id: job.id, scores, cache: keys.stats() });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
  }
});
parentPort!.postMessage({ ready: true });
