/**
 * The reward server's grading threads (the compiled worker in dist/, which the global setup
 * builds): the same scores as grading on the main thread, in the batch's order, and a
 * thread that dies is replaced, its requests failed rather than left hanging.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GradePool } from '../../src/serve/grade-pool.js';
import { GradeQueue } from '../../src/serve/grade-queue.js';
import { datasetRow } from '../../src/task/dataset.js';
import { generateTask } from '../../src/task/generate.js';
import { scoreReply } from '../../src/task/score.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { repliesFor } from '../support/replies.js';

const WORKER = new URL('../../dist/serve/grade-worker.js', import.meta.url);
const tasks = Array.from({ length: 40 }, (_, i) => generateTask(DEFAULT_TASK_CONFIG, i));
const items = tasks.flatMap((t) => repliesFor(t).map((reply) => ({ task: t, reply })));
const labels = items.map((it) => datasetRow(it.task).label);
const replies = items.map((it) => it.reply);

let pool: GradePool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('GradePool', () => {
  it('grades as the main thread does, in order, and each label stays on one thread', async () => {
    pool = new GradePool(3, { keys: 1000, bytes: 64 << 20 }, WORKER);
    const queue = new GradeQueue(pool.lanes());
    const got = await queue.grade(labels, replies);
    expect(got.map((s) => JSON.stringify(s))).toEqual(
      items.map((it) => JSON.stringify(scoreReply(it.reply, it.task.key, it.task.ledger))),
    );
    // 40 tasks, 7 replies each: one regeneration per task, however the labels are spread.
    await queue.grade(labels, replies);
    expect(pool.cache()).toMatchObject({ misses: 40, hits: 2 * items.length - 40 });
  });

  it('replaces a thread that dies, and fails the requests it held', async () => {
    pool = new GradePool(1, { keys: 10, bytes: 64 << 20 }, WORKER);
    const queue = new GradeQueue(pool.lanes());
    await pool.ready();
    const slots = (pool as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> }).slots;
    // Far more work than the time between sending it and stopping the thread, however busy the machine.
    const many = Array.from({ length: 40 }, () => labels).flat();
    const held = queue.grade(many, Array.from({ length: 40 }, () => replies).flat());
    await slots[0]!.worker.terminate();
    await expect(held).rejects.toThrow(/a grading thread exited/);
    const again = await queue.grade(labels.slice(0, 3), replies.slice(0, 3));
    expect(again.map((s) => s.reward)).toEqual(items.slice(0, 3).map((it) => scoreReply(it.reply, it.task.key).reward));
  });
});
