/**
 * The task flags shared by gen, validate and eval, checked before any work starts.
 */
import { MAX_TASKS, parseCount, resolveTaskConfig } from '../task/config.js';
import type { TaskConfig } from '../task/types.js';

export interface TaskFlags {
  num?: string;
  numTransactions?: string;
  faultRate?: string;
  seed?: string;
}

/** The task configuration the flags ask for. */
export function taskConfigFromFlags(flags: TaskFlags): TaskConfig {
  return resolveTaskConfig({ num_transactions: flags.numTransactions, fault_rate: flags.faultRate, seed: flags.seed });
}

/** The -n flag, or `fallback` when it is absent. */
export function taskCountFromFlags(flags: TaskFlags, fallback: number): number {
  return flags.num === undefined ? fallback : parseCount(flags.num, '-n', 1, MAX_TASKS);
}
