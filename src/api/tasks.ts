/**
 * The benchmark's two front doors for a program: a task by its configuration and index, and a
 * reply's grade. They check what src/task takes as given (a configuration in range, a key in
 * either form) and say what was wrong as a ConfigError.
 */
import { ConfigError } from '../errors/index.js';
import { MAX_TASKS, resolveTaskConfig } from '../task/config.js';
import * as generator from '../task/generate.js';
import * as scorer from '../task/score.js';
import { keyInCents, type AnswerKeyJson } from '../task/serialize.js';
import type { AnswerKey, Ledger, Scores, Task, TaskConfig } from '../task/types.js';

/**
 * Task `index` (0, 1, 2 …) of a task configuration; missing values take the defaults (24
 * rows, fault rate 0.25, seed 20260826). The same configuration and index always give the
 * same task. Throws a ConfigError for a value out of range.
 */
export function generateTask(config: Partial<TaskConfig>, index: number): Task {
  const checked = resolveTaskConfig(config, {
    num_transactions: 'num_transactions',
    fault_rate: 'fault_rate',
    seed: 'seed',
  });
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_TASKS)
    throw new ConfigError(`index must be an integer from 0 to ${MAX_TASKS - 1}, got ${String(index)}`);
  return generator.generateTask(checked, index);
}

/**
 * Grades `reply` against `key`: rewards, metrics and the per-label detail. The key may be
 * the typed one (`task.key`, integer cents) or a task file's (`"key"` of a `bas gen` line,
 * two-decimal strings). Throws a ConfigError naming the field when the key is neither, rather
 * than grading every figure as wrong. Given the task's `ledger` (`task.ledger`), the detail of
 * a parsed reply also says whether its BAS is the one its own faults imply, and why a wrong
 * one is wrong (`detail.consistency`, docs/benchmark.md).
 */
export function scoreReply(reply: string, key: AnswerKey | AnswerKeyJson, ledger?: Ledger): Scores {
  let checked: AnswerKey;
  try {
    checked = keyInCents(key);
  } catch (err) {
    throw new ConfigError(`scoreReply: ${(err as Error).message}`);
  }
  return scorer.scoreReply(reply, checked, ledger);
}
