/**
 * What a record of `bas score` says about the task it was graded against: a digest of that
 * task's ledger and answer key (`task_digest`). A run of `bas eval` generated its tasks, so the
 * generator rebuilds them from the configuration and index; a scored run's tasks came from a
 * file, which may hold a task the generator never made (a hand-made ledger). The drill-down
 * rebuilds a task and shows it only when its digest is the record's (docs/formats.md).
 */
import { createHash } from 'node:crypto';
import { canon } from '../io/canon.js';
import { taskToJson } from '../task/serialize.js';
import type { Task } from '../task/types.js';

/** 16 hex digits of SHA-256 over the task's ledger and key, in their file form with sorted keys. */
export function taskDigest(task: Task): string {
  const { ledger, key } = taskToJson(task);
  // Through JSON first, so an absent field and an undefined one digest alike.
  const text = canon(JSON.parse(JSON.stringify({ ledger, key })));
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
