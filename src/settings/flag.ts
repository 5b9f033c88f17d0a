/**
 * What every flag of every command is declared with, and what is derived from it: its
 * commander option (help line with its default, the refusal of a repeated single-valued
 * flag), its parsed value, and the name errors use. The eval settings (setting-table.ts)
 * extend it with their TOML and run.json keys; command-flags.ts gathers every command's set.
 */
import { ConfigError } from '../errors/index.js';

/** One flag of one command. */
export interface Flag<V> {
  /** Commander's flag text, e.g. `-c, --concurrency <C>`; `--no-x` for a default-on switch. */
  flags: string;
  /** How errors name the flag when its short form is the usual one (`-n`); else derived. */
  errorName?: string;
  /** One line for `--help`, without the default (added from `defaultText`). */
  help: string;
  /** The longer text of docs/flags.md (default: `help`). */
  doc?: string;
  /** The default as shown in help and docs; null when there is nothing to show (a switch, a required flag). */
  defaultText: string | null;
  default: V;
  /** Checks a flag's text (or a config value); `name` says where it came from. */
  parse(value: unknown, name: string): V;
  /** Given several times, the values are kept in order (`parse` gets the list); otherwise a repeat is refused. */
  repeatable?: boolean;
  /** Commander refuses the command without it. */
  required?: boolean;
  /** Left out of `--help` and the docs (a flag kept only to be refused with a pointer). */
  hidden?: boolean;
  /**
   * Taken and checked, but this command does not use it: `bas check` takes eval's whole
   * command line and sends one request, so `-c` or `--output` change nothing there. Named
   * in one line after the help's list (`unusedNote`), not in it.
   */
  unused?: boolean;
}

/** A command's flags, keyed by commander's attribute name (`--max-tokens` → `maxTokens`). */
export type FlagSet = Record<string, Flag<any>>;

/** The parsed values of a flag set. */
export type FlagValues<T extends FlagSet> = { [K in keyof T]: T[K] extends Flag<infer V> ? V : never };

/** How errors name a flag: `-c/--concurrency`, `--seed`, or the declared `errorName`. */
export function flagName(f: Flag<unknown>): string {
  if (f.errorName) return f.errorName;
  return f.flags
    .replace(/\s*<[^>]*>/, '')
    .split(/,\s*/)
    .join('/');
}

/** True for a `--no-x` switch, whose flag counts only when given (commander fills in `true`). */
export function isNegatable(f: Flag<unknown>): boolean {
  return f.flags.startsWith('--no-');
}

/** True for a flag that takes a value (`<X>`), as opposed to a switch. */
export function takesValue(f: Flag<unknown>): boolean {
  return /<[^>]+>/.test(f.flags);
}

/**
 * The note after a command's help (and its table in docs/flags.md, with `code` quoting) naming
 * the flags it takes but does not use; null when there are none.
 */
export function unusedNote(set: FlagSet, code = (s: string): string => s): string | null {
  const names = Object.values(set)
    .filter((f) => f.unused && !f.hidden)
    .map((f) => code(flagName(f)));
  if (names.length === 0) return null;
  // Wrapped as commander wraps the list above it.
  const lines = [`Taken but not used here, so that ${code('bas eval')}'s command line runs as it is:`];
  for (const [i, name] of names.entries()) {
    const word = `${name}${i < names.length - 1 ? ',' : '.'}`;
    if (lines.at(-1)!.length + word.length + 1 > 80) lines.push(`  ${word}`);
    else lines[lines.length - 1] += ` ${word}`;
  }
  return lines.join('\n');
}

/** The `--help` line: the help text and, once, `(default: X)`. */
export function helpLine(f: Flag<unknown>): string {
  const dflt = f.defaultText?.replace(/`/g, '');
  if (f.required) return `${f.help} (required)`;
  if (dflt === 'required') return `${f.help} (required, here or in the config file)`;
  return dflt && takesValue(f) ? `${f.help} (default: ${dflt})` : f.help;
}

/**
 * Commander's argument parser for a flag: a repeatable flag collects its values, a
 * single-valued one refuses a second (`-m A -m B` is a mistake, not "the last one wins").
 */
export function collectOnce(f: Flag<unknown>): (value: string, previous: unknown) => unknown {
  return (value, previous) => {
    if (f.repeatable) return [...((previous as string[] | undefined) ?? []), value];
    if (previous !== undefined)
      throw new ConfigError(
        `${flagName(f)} is given twice (${JSON.stringify(String(previous).slice(0, 40))} and ${JSON.stringify(value.slice(0, 40))}): give it once`,
      );
    return value;
  };
}

/** Every flag of `set`, parsed from commander's options, or its default when not given. */
export function readFlags<T extends FlagSet>(set: T, given: Record<string, unknown>): FlagValues<T> {
  const out: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(set)) {
    const raw = given[key];
    out[key] = raw === undefined || (isNegatable(f) && raw === true) ? f.default : f.parse(raw, flagName(f));
  }
  return out as FlagValues<T>;
}

/**
 * The bearer token a server needs, read from the environment variable `--token-var` names
 * (never from the command line, where `ps` shows it); null when no variable is named.
 */
export function tokenFromVar(
  tokenVar: string | null,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (tokenVar === null) return null;
  const value = env[tokenVar];
  if (value === undefined || value.trim() === '')
    throw new ConfigError(`--token-var ${tokenVar}: the variable is not set, or is empty`);
  return value.trim();
}
