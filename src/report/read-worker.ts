/**
 * A thread that reads run folders for `readRunsAhead` (read-ahead.ts). Each message names a
 * folder; the answer is what `readRun` gives for it, less the summary builder (its per-task
 * means instead, as columns whose buffers are moved, not copied), with the warnings reading
 * it gave; or `ok: false` when reading it failed, and the main thread then reads it itself,
 * so that the error is the one a reading on the main thread gives.
 */
import { parentPort } from 'node:worker_threads';
import { readRun } from './read.js';

async function answer(dir: string): Promise<void> {
  const warnings: string[] = [];
  try {
    const { builder, ...data } = await readRun(dir, (m) => warnings.push(m));
    const columns = builder.taskMeans();
    const buffers = [columns.index, columns.rollouts, columns.completed, columns.reward, columns.rewardZero];
    parentPort!.postMessage(
      { ok: true, data, columns, warnings },
      buffers.map((b) => b.buffer as ArrayBuffer),
    );
  } catch {
    parentPort!.postMessage({ ok: false });
  }
}

parentPort!.on('message', (dir: string) => void answer(dir));
