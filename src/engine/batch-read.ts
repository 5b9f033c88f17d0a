/**
 * Reading ended batches into the run folder: each output and error line graded into the
 * record `bas score` makes of it (batch-grade.ts), a batch that failed, expired or was
 * cancelled said so with its errors, and, once every batch is read, an errored record for each
 * rollout of the run that got no line at all (a failed batch's), so the run's errors show them
 * and `--resume` sends them again.
 */
import { erroredRecord, pairKey } from '../runfile/record.js';
import { taskDigest } from '../runfile/task-digest.js';
import { batchRecord } from './batch-grade.js';
import { downloadResults } from './batch-poll.js';
import type OpenAI from 'openai';
import type { BatchState } from '../runfile/batch-state.js';
import type { PairKey } from '../runfile/record.js';
import type { RunFolder } from '../runfile/run-folder.js';
import type { EndpointTarget } from '../settings/plan.js';
import type { Task } from '../task/types.js';
import type { BatchEvent } from './events.js';
import type { RunPlan } from './run-eval.js';
import type { Recorded } from './session.js';

/** What one batch eval works on, handed from step to step. */
export interface BatchSession {
  plan: RunPlan;
  target: EndpointTarget;
  dir: string;
  folder: RunFolder;
  state: BatchState;
  recorded: Recorded;
  client: OpenAI;
  emit: (e: BatchEvent) => void;
  task: (index: number) => Task;
  /** Pairs this session recorded (a line named twice counts once). */
  written: Set<PairKey>;
}

/** What the batches that ended badly said, for the records of the rollouts they never answered. */
function endedBadly(s: BatchSession): string | null {
  const bad = s.state.batches.filter((e) => e.status !== 'completed');
  if (bad.length === 0) return null;
  return bad
    .map((e) => `batch ${e.batch_id ?? e.file_id} ${e.status}${e.errors.length > 0 ? ` (${e.errors.join('; ')})` : ''}`)
    .join(', ');
}

/**
 * Downloads and grades every ended batch not yet read, marking each read in run.json. A file
 * that cannot be downloaded leaves its batch unread (a resume tries again): the reason, or null.
 */
export async function gradeEnded(s: BatchSession, save: () => void): Promise<string | null> {
  const { n, rollouts } = s.plan.tasks;
  const seen = s.written;
  let unread: string | null = null;
  for (const e of s.state.batches) {
    if (e.graded || e.batch_id === null) continue;
    let results;
    try {
      results = await downloadResults(s.client, e, (message) => s.emit({ type: 'warning', message }));
    } catch (err) {
      unread = `batch ${e.batch_id} ended ${e.status}, but its files could not be read: ${(err as Error).message}`;
      continue;
    }
    let failed = 0;
    for (const r of results) {
      const key = pairKey(r.index, r.rollout);
      if (r.index >= n || r.rollout >= rollouts || seen.has(key)) continue;
      seen.add(key);
      const record = batchRecord(r, s.task(r.index), s.target.model);
      if (record.error) failed++;
      s.folder.append(record);
      s.recorded.add(record);
    }
    if (e.status !== 'completed')
      s.emit({ type: 'batch-ended', batch: e.batch_id, status: e.status, errors: e.errors, failedLines: failed });
    e.graded = true;
    save();
  }
  return unread;
}

/**
 * An errored record for each rollout of the run with no record at all once every batch is
 * read: a batch that failed, expired or was cancelled before answering it.
 */
export function unrepliedRecords(s: BatchSession): void {
  const why = endedBadly(s);
  const seen = s.written;
  const { n, rollouts } = s.plan.tasks;
  for (let index = 0; index < n; index++) {
    for (let rollout = 0; rollout < rollouts; rollout++) {
      const key = pairKey(index, rollout);
      if (seen.has(key) || s.recorded.finished.has(key) || s.recorded.errored.has(key)) continue;
      const t = s.task(index);
      const base = { index, rollout, config: t.config, task_digest: taskDigest(t), model: s.target.model };
      const message = why === null ? 'no line of any batch answered this request' : `no reply: ${why}`;
      const record = erroredRecord(base, { type: 'provider', message });
      s.folder.append(record);
      s.recorded.add(record);
    }
  }
}
