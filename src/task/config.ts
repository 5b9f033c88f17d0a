/**
 * The values that identify tasks, their bounds, and the checks of those values as files
 * hold them (JSON numbers). Text from the command line is parsed in src/settings/.
 */
import { ConfigError } from '../errors.js';
import type { TaskConfig } from './types.js';

export const DEFAULT_TASK_CONFIG: Readonly<TaskConfig> = Object.freeze({
  num_transactions: 24,
  fault_rate: 0.25,
  seed: 20260826,
});

/** Rows per ledger: four is the least that leaves room for a fault of every kind to apply. */
export const MIN_TRANSACTIONS = 4;
/** A cap that keeps one prompt far below any context window and memory limit. */
export const MAX_TRANSACTIONS = 10_000;
/**
 * Largest `-n` of every command (gen, validate, eval, sweep) and of `n` in a run.json: one
 * cap, so a task file that gen can write is always one that a run can name.
 */
export const MAX_TASKS = 10_000_000;

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value);
}

/**
 * An integer in [min, max] read back from a file (a task, a record, a run.json): a JSON
 * number, never text. Flags and config keys are read by src/settings/numbers.ts.
 */
export function checkInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${show(value)}`);
  return value;
}

/** A finite number in [min, max] read back from a file; as `checkInteger`. */
export function checkNumber(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got ${show(value)}`);
  return value;
}

/**
 * Fills defaults and checks every value. `names` says how to refer to each value in an error
 * (a CLI flag by default; a config key or a file field where the value came from there).
 */
export function resolveTaskConfig(
  input: { num_transactions?: unknown; fault_rate?: unknown; seed?: unknown },
  names: { num_transactions?: string; fault_rate?: string; seed?: string } = {},
): TaskConfig {
  return {
    num_transactions:
      input.num_transactions === undefined
        ? DEFAULT_TASK_CONFIG.num_transactions
        : checkInteger(
            input.num_transactions,
            names.num_transactions ?? '--num-transactions',
            MIN_TRANSACTIONS,
            MAX_TRANSACTIONS,
          ),
    fault_rate:
      input.fault_rate === undefined
        ? DEFAULT_TASK_CONFIG.fault_rate
        : checkNumber(input.fault_rate, names.fault_rate ?? '--fault-rate', 0, 1),
    seed:
      input.seed === undefined
        ? DEFAULT_TASK_CONFIG.seed
        : checkInteger(input.seed, names.seed ?? '--seed', 0, Number.MAX_SAFE_INTEGER),
  };
}

/** Whether two configurations (either may be unknown) name the same tasks. */
export function sameTaskConfig(a: TaskConfig | null, b: TaskConfig | null): boolean {
  return !!a && !!b && a.num_transactions === b.num_transactions && a.fault_rate === b.fault_rate && a.seed === b.seed;
}
