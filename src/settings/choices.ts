/** The closed lists some flags choose from, apart so that the modules using them need not load every declaration. */

/** The measures a leaderboard can rank by (`bas leaderboard --by`); the first is the default. */
export const RANK_MEASURES = ['reward_errors_as_zero', 'reward', 'bas_correct', 'fault_audit'] as const;
export type RankMeasure = (typeof RANK_MEASURES)[number];

/** What `bas gen --format` writes. */
export const GEN_FORMATS = ['jsonl', 'prompt', 'table', 'csv', 'batch', 'dataset'] as const;
export type GenFormat = (typeof GEN_FORMATS)[number];

/**
 * The columns `bas leaderboard --columns` chooses from, in their default order (the report
 * layer declares what each shows: src/report/leaderboard-table.ts).
 */
export const LEADERBOARD_COLUMNS = [
  'rank',
  'tier',
  'run',
  'date',
  'size',
  'completed',
  'bas_correct',
  'fault_audit',
  'reward',
  'reward_errors_as_zero',
  'bas_label_accuracy',
  'fault_precision',
  'fault_recall',
  'num_flagged',
  'parsed',
  'bas_consistent',
  'causes',
  'vs_best',
] as const;
export type LeaderboardColumn = (typeof LEADERBOARD_COLUMNS)[number];

/** The measures `bas compare` shows per run, in their order (src/report/compare.ts). */
export const COMPARE_MEASURES = [
  'bas_correct',
  'fault_audit',
  'reward',
  'reward_errors_as_zero',
  'fault_precision',
  'fault_recall',
  'num_flagged',
  'parsed',
] as const;

/**
 * The columns `bas compare --columns` chooses from, in their default order (declared in
 * src/report/compare-columns.ts): the run, its counts, its measures, and its paired
 * difference against the baseline A.
 */
export const COMPARE_COLUMNS = [
  'run',
  'name',
  'folder',
  'tasks',
  'rollouts',
  'completed',
  'errors',
  ...COMPARE_MEASURES,
  'vs_a',
  'vs_a_errors_as_zero',
] as const;
export type CompareColumn = (typeof COMPARE_COLUMNS)[number];

/** How every batch of `bas serve`'s batch endpoints goes wrong (`none`: it completes). */
export const BATCH_FAULTS = ['none', 'failed', 'expired', 'partial', 'lost-output', 'slow'] as const;
export type BatchFault = (typeof BATCH_FAULTS)[number];
