/**
 * Checking the four values that identify tasks. Bad values fail before any work starts,
 * with a message naming the flag, the value given and the range allowed.
 */
import { ConfigError } from '../errors/index.js';
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
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Plain decimal text, for counts: digits, a point, a leading minus; no hex, no exponent (`1.0` reads as 1, `1e3` is refused). */
const DECIMAL_TEXT = /^-?(\d+(\.\d*)?|\.\d+)$/;
/** Decimal text for a quantity: as above, plus a leading plus and an exponent (`5e-1`); never hex, `Infinity` or blank. */
const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function toNumber(value: unknown, text: RegExp): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && text.test(value.trim())) return Number(value.trim());
  return null;
}

/** An integer in [min, max], from a flag's text or a config value; throws a ConfigError naming `name`. */
export function parseCount(value: unknown, name: string, min: number, max: number): number {
  const n = toNumber(value, DECIMAL_TEXT);
  if (n === null || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = `an integer from ${min} to ${max}`;
    throw new ConfigError(`${name} must be ${range}, got ${show(value)}`);
  }
  return n;
}

/** A finite number in [min, max]; throws a ConfigError naming `name`. */
export function parseNumberInRange(value: unknown, name: string, min: number, max: number): number {
  const n = toNumber(value, NUMBER_TEXT);
  if (n === null || !Number.isFinite(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got ${show(value)}`);
  }
  return n;
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
        : parseCount(
            input.num_transactions,
            names.num_transactions ?? '--num-transactions',
            MIN_TRANSACTIONS,
            MAX_TRANSACTIONS,
          ),
    fault_rate:
      input.fault_rate === undefined
        ? DEFAULT_TASK_CONFIG.fault_rate
        : parseNumberInRange(input.fault_rate, names.fault_rate ?? '--fault-rate', 0, 1),
    seed:
      input.seed === undefined
        ? DEFAULT_TASK_CONFIG.seed
        : parseCount(input.seed, names.seed ?? '--seed', 0, Number.MAX_SAFE_INTEGER),
  };
}

/** Whether two configurations (either may be unknown) name the same tasks. */
export function sameTaskConfig(a: TaskConfig | null, b: TaskConfig | null): boolean {
  return !!a && !!b && a.num_transactions === b.num_transactions && a.fault_rate === b.fault_rate && a.seed === b.seed;
}
