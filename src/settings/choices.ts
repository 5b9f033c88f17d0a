/** The closed lists some flags choose from, apart so that the modules using them need not load every declaration. */

/** The measures a leaderboard can rank by (`bas leaderboard --by`); the first is the default. */
export const RANK_MEASURES = ['reward_errors_as_zero', 'reward', 'bas_correct', 'fault_audit'] as const;
export type RankMeasure = (typeof RANK_MEASURES)[number];

/** What `bas gen --format` writes. */
export const GEN_FORMATS = ['jsonl', 'prompt', 'table', 'csv', 'batch', 'dataset'] as const;
export type GenFormat = (typeof GEN_FORMATS)[number];
