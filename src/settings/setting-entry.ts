/**
 * How one setting of `bas eval` is declared (setting-table.ts gathers them): a flag, plus its
 * places in TOML and run.json, whether a change measures something else, and how its value is
 * kept and read back.
 */
import type { Flag } from './flag.js';

/** The TOML type a key must have. */
export type Kind = 'integer' | 'number' | 'string' | 'boolean' | 'table';

/**
 * How one setting is spelled, checked and kept: a flag, plus its places in TOML and run.json.
 * `T` and `K` keep the TOML path and kind as literal types, so the typed configuration of
 * the library (`TomlConfig`) is derived from them.
 */
export interface Setting<V, T extends string | null = string | null, K extends Kind = Kind> extends Flag<V> {
  /** The docs' "Meaning" cell. */
  doc: string;
  /** The docs' "Default" cell (and the help text's). */
  defaultText: string;
  /** Dotted TOML path (`task.seed`); null when the setting is a flag only. */
  toml: T;
  kind: K;
  /** Dotted run.json path; null when the run folder does not keep it. */
  runJson: string | null;
  /** True when a different value measures something else: --resume refuses a change, merge requires agreement. */
  measured: boolean;
  /** The run.json form (default: the value itself). */
  save?(value: V): unknown;
  /** Reads the run.json form back; undefined when unreadable (default: `parse`). */
  load?(value: unknown, name: string): V | undefined;
  /** How a --resume clash shows the value (default: JSON). */
  show?(value: V): unknown;
}

/**
 * One entry of the declaration. It only pins the types: the value type `V` is inferred from
 * `parse` and `default` (a null default makes it nullable), the TOML path and kind stay literal.
 */
export function setting<V, const T extends string | null, const K extends Kind>(s: Setting<V, T, K>): Setting<V, T, K> {
  return s;
}
