/**
 * The run folder's files, re-exported in one place for callers that use several: results.jsonl
 * (results.ts), run.json (run-info.ts) and the lock (lock.ts).
 */
export { RESULTS_FILE, ResultStore, repairTail } from './results.js';
export { RUN_FILE, readRunInfo, readSavedRun, readInputRun, writeRunInfo, type RunFile, type RunInfo, type RunStatus } from './run-info.js';
export { LOCK_FILE, FolderLock, folderLockState } from './lock.js';
