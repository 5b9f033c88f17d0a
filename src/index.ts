/**
 * bas as a library: the public API, `import { … } from 'bas-eval'`. A small typed surface
 * over the same code the CLI runs: generate tasks, render a prompt, score a reply, run an
 * eval, read a run folder and its summary. Nothing here prints, exits or installs a process
 * handler. docs/api.md describes it with a worked example.
 *
 * Money in the typed objects (`Task.key`, `Ledger` rows) is in integer cents; `taskToJson`
 * gives the JSON lines form of `bas gen`, with two-decimal strings.
 */
import { ConfigError } from './errors/index.js';
import { readRun } from './report/read.js';
import type { RunFile } from './runfile/run-info.js';
import { timeOfRun, type RunTime } from './runfile/sessions.js';
import type { Summary } from './summary/summary.js';
import { MAX_TASKS, resolveTaskConfig } from './task/config.js';
import { generateTask as generate } from './task/generate.js';
import type { Task, TaskConfig } from './task/types.js';
import { scoreReply as score } from './task/score.js';
import { keyInCents, type AnswerKeyJson } from './task/serialize.js';
import type { AnswerKey, Scores } from './task/types.js';

export { runEval, type RunEvalOptions } from './engine/run-eval.js';
export type { EvalEvent, EvalOutcome, EvalResult } from './engine/events.js';
export { evalSettings, type EvalConfig } from './settings/eval-config.js';
export type { EvalSettings } from './settings/settings.js';
export { buildPrompt, PROMPT_VERSION } from './task/prompt.js';
export { parseAnswer, type ParseResult, type Answer } from './task/answer.js';
export { taskToJson } from './task/serialize.js';
export { GENERATOR_VERSION } from './task/generate.js';
export { DEFAULT_TASK_CONFIG } from './task/config.js';
export type { AnswerKey, ChatMessage, Ledger, Row, Scores, Task, TaskConfig } from './task/types.js';
export type { AnswerKeyJson } from './task/serialize.js';
export type { RolloutRecord } from './runfile/record.js';
export type { RunInfo, RunFile } from './runfile/run-info.js';
export type { PaceRecord, RunSession, RunTime } from './runfile/sessions.js';
export type { Summary } from './summary/summary.js';
export type { Failure } from './endpoint/classify.js';
export {
  BasError,
  ConfigError,
  ErrorRateError,
  FatalRunError,
  InterruptedError,
  type BasErrorCode,
} from './errors/index.js';

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
  return generate(checked, index);
}

/**
 * Grades `reply` against `key`: rewards, metrics and the per-label detail. The key may be
 * the typed one (`task.key`, integer cents) or a task file's (`"key"` of a `bas gen` line,
 * two-decimal strings). Throws a ConfigError naming the field when the key is neither, rather
 * than grading every figure as wrong.
 */
export function scoreReply(reply: string, key: AnswerKey | AnswerKeyJson): Scores {
  let checked: AnswerKey;
  try {
    checked = keyInCents(key);
  } catch (err) {
    throw new ConfigError(`scoreReply: ${(err as Error).message}`);
  }
  return score(reply, checked);
}

/** A run folder read back: what `bas report` starts from. */
export interface RunFolderData {
  dir: string;
  /** run.json, checked (null when the folder holds only results.jsonl); `status` is `interrupted` for a run whose writer died. */
  run: RunFile | null;
  /** Every rollout's winning record, summarised. */
  summary: Summary;
  /** Rollouts the run set out to do, when run.json says. */
  expected: number | null;
  /** The time the run took over all its sessions. */
  time: RunTime;
  /** Plain sentences about its state (in progress, interrupted, incomplete, mixed configurations). */
  notes: string[];
  /** What reading it skipped (a torn last line), in words. */
  warnings: string[];
}

/**
 * Reads a run folder (or a bare results.jsonl) and summarises it. Rejects with a ConfigError
 * when it is not a run, is damaged, or holds no rollout yet.
 */
export async function readRunFolder(path: string): Promise<RunFolderData> {
  const warnings: string[] = [];
  const data = await readRun(path, (message) => warnings.push(message));
  return {
    dir: data.dir,
    run: data.run,
    summary: data.summary,
    expected: data.expected,
    time: timeOfRun(data.run),
    notes: data.notes,
    warnings,
  };
}
