/**
 * The run folder's files, re-exported in one place for callers that use both: results.jsonl
 * (results.ts) and run.json (run-info.ts). The lock's callers import lock.ts directly.
 */
export { ResultStore, repairTail } from './results.js';
export { writeRunInfo, type RunInfo } from './run-info.js';
