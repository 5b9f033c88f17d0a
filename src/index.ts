/**
 * bas as a library: the public API, `import { … } from 'bas-eval'`. A small typed surface
 * over the same code the CLI runs: generate tasks, render a prompt, score a reply, run an
 * eval, read a run folder and its summary. Nothing here prints, exits or installs a process
 * handler. docs/api.md describes it with a worked example. The functions live in src/api,
 * which the commands call too; this file only re-exports.
 *
 * Money in the typed objects (`Task.key`, `Ledger` rows) is in integer cents; `taskToJson`
 * gives the JSON lines form of `bas gen`, with two-decimal strings.
 */
export { runEval, type RunEvalOptions } from './api/eval.js';
export {
  runSweep,
  type RunSweepOptions,
  type SweepEvent,
  type SweepPointInfo,
  type SweepRunResult,
} from './api/sweep.js';
export {
  compareRuns,
  leaderboard,
  readRunFolder,
  readSweep,
  type CompareOptions,
  type LeaderboardOptions,
  type RunFolderData,
} from './api/reports.js';
export { generateTask, scoreReply } from './api/tasks.js';
export type { EvalEvent, EvalOutcome, EvalResult } from './engine/events.js';
export type { EvalConfig } from './settings/eval-config.js';
export type { SweepConfig } from './settings/sweep-config.js';
export { buildPrompt, PROMPT_VERSION } from './task/prompt.js';
export { parseAnswer, type ParseResult, type Answer } from './task/answer.js';
export { taskToJson } from './task/serialize.js';
export { GENERATOR_VERSION } from './task/generate.js';
export { DEFAULT_TASK_CONFIG } from './task/config.js';
export type {
  AnswerKey,
  ChatMessage,
  Consistency,
  Ledger,
  Row,
  Scores,
  Task,
  TaskConfig,
  WrongBasCause,
} from './task/types.js';
export type { AnswerKeyJson } from './task/serialize.js';
export type { RolloutRecord } from './runfile/record.js';
export type { RunInfo, RunFile } from './runfile/run-info.js';
export type { PaceRecord, RunSession, RunTime, SessionSpend } from './runfile/sessions.js';
export type { RunStop, StopKind } from './engine/stop.js';
export type { Summary } from './summary/summary.js';
export type { ComparisonView, LeaderboardView, SweepView } from './report/views.js';
export type { Comparison, Pairing } from './report/compare.js';
export type { Leaderboard, LeaderboardGroup, LeaderboardRun } from './report/leaderboard.js';
export type { SweepResult, SweepPoint } from './report/sweep.js';
export type { CompareColumn, LeaderboardColumn, RankMeasure } from './settings/choices.js';
export type { Estimate, PairedBootstrap } from './summary/stats.js';
export type { Failure } from './endpoint/classify.js';
export {
  BasError,
  BudgetError,
  ConfigError,
  ErrorRateError,
  FatalRunError,
  InterruptedError,
  type BasErrorCode,
} from './errors/index.js';
