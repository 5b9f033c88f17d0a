/**
 * Run configuration files (TOML). The keys are those declared in setting-table.ts: the eval
 * flags with underscores, with the task and sampling values in their own sections:
 *
 * ```toml
 * model = "openai/gpt-5-mini"   # -m
 * provider = "prime"            # --provider
 * n = 30                        # -n
 * request_timeout = 120         # --request-timeout, seconds
 * [task]
 * num_transactions = 60
 * [sampling]
 * temperature = 0
 * [sampling.extra]              # --sampling: extra request fields, sent as they are
 * top_p = 0.9
 * ```
 * An unknown key or a value of the wrong type is an error naming the key; ranges are checked
 * with the flags (settings.ts), so a bad value reads the same from either.
 */
import { readSmallFile } from '../io/jsonl.js';
import { parse, TomlError } from 'smol-toml';
import { ConfigError, fileError, FileTooLargeError } from '../errors/index.js';
import { SETTINGS, SETTING_KEYS } from './setting-table.js';
import type { Kind } from './setting-entry.js';

/** A parsed configuration file: TOML tables, each key checked against the declaration. */
export type FileConfig = Record<string, unknown>;

/** The schema of each TOML table ('' for the top level), derived from the declaration. */
function schemaOf(): Map<string, Map<string, Kind>> {
  const tables = new Map<string, Map<string, Kind>>([['', new Map()]]);
  for (const key of SETTING_KEYS) {
    const path = SETTINGS[key].toml;
    if (path === null) continue;
    const dot = path.indexOf('.');
    const section = dot < 0 ? '' : path.slice(0, dot);
    if (!tables.has(section)) {
      tables.set(section, new Map());
      tables.get('')!.set(section, 'table');
    }
    tables.get(section)!.set(dot < 0 ? path : path.slice(dot + 1), SETTINGS[key].kind);
  }
  return tables;
}

const SCHEMA = schemaOf();

/** The value at a dotted path of a parsed document (`task.seed`), or undefined. */
export function valueAt(doc: Record<string, unknown> | null | undefined, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function kindOf(v: unknown, toml: boolean): string {
  if (typeof v === 'bigint') return 'an integer';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  if (typeof v === 'object' && v !== null) return 'a table';
  // TOML integers arrive as bigints: a number here is a TOML float, `3.0` included.
  if (typeof v === 'number') return toml || !Number.isInteger(v) ? 'a float' : 'an integer';
  return `a ${typeof v}`;
}

function fits(kind: Kind, v: unknown, toml: boolean): boolean {
  switch (kind) {
    // TOML integers arrive as bigints (see loadConfigFile), so `3.0` and `2e0`, floats, do not fit.
    case 'integer':
      return typeof v === 'bigint' || (!toml && typeof v === 'number' && Number.isSafeInteger(v));
    // nan and inf are numbers too: the key's range check refuses them, naming the range.
    case 'number':
      return typeof v === 'bigint' || typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'table':
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
  }
}

function checkTable(
  file: string,
  table: Record<string, unknown>,
  schema: Map<string, Kind>,
  prefix: string,
  toml: boolean,
): void {
  for (const [key, value] of Object.entries(table)) {
    const name = `${prefix}${key}`;
    const kind = schema.get(key);
    if (kind === undefined) {
      throw new ConfigError(`${file}: unknown key "${name}" (allowed here: ${[...schema.keys()].join(', ')})`);
    }
    if (!fits(kind, value, toml)) {
      throw new ConfigError(
        `${file}: "${name}" must be ${kind === 'integer' ? 'an integer' : `a ${kind}`}, got ${kindOf(value, toml)}${toml && kind === 'integer' && typeof value === 'number' && Number.isInteger(value) ? ` (write ${value}, without a decimal point or exponent)` : ''}`,
      );
    }
    // A bigint becomes a number; one past 2^53 cannot, and is left for the range check to name.
    if (typeof value === 'bigint') table[key] = Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
    else if (kind === 'table' && !SCHEMA.has(key)) table[key] = plain(value, `${file}: "${name}"`);
  }
}

/** A free-form table (`[sampling.extra]`) with its TOML integers made numbers again. */
function plain(v: unknown, name: string): unknown {
  if (typeof v === 'bigint') {
    if (!Number.isSafeInteger(Number(v))) throw new ConfigError(`${name} holds the integer ${v}, too large to send`);
    return Number(v);
  }
  if (Array.isArray(v)) return v.map((x) => plain(x, name));
  if (typeof v === 'object' && v !== null && !(v instanceof Date))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x, name)]));
  return v;
}

/**
 * Checks a configuration against the schema; `file` names it in errors. `toml` says it was
 * read by loadConfigFile, whose integers are bigints, so a number for an integer key is a
 * TOML float; a configuration built in code (the library's runEval) has plain numbers.
 */
export function checkConfig(doc: Record<string, unknown>, file: string, toml = false): FileConfig {
  checkTable(file, doc, SCHEMA.get('')!, '', toml);
  for (const [section, schema] of SCHEMA) {
    if (section !== '' && doc[section] !== undefined)
      checkTable(file, doc[section] as Record<string, unknown>, schema, `${section}.`, toml);
  }
  return doc;
}

/** A run configuration is a screenful of settings; anything larger is not one. */
const MAX_CONFIG_BYTES = 1_000_000;

/**
 * A sweep's `models = ["a", "b"]`: taken out of the document before it is checked, and put
 * back once checked (a list of model ids). Other commands refuse the key with a pointer.
 */
function takeModels(doc: Record<string, unknown>, file: string, allowed: boolean): string[] | undefined {
  if (!Object.hasOwn(doc, 'models')) return undefined;
  const models = doc.models;
  delete doc.models;
  if (!allowed)
    throw new ConfigError(
      `${file}: "models" is read by bas sweep only (one curve per model); this command runs one model: use model = "..."`,
    );
  if (!Array.isArray(models) || models.length === 0 || !models.every((m) => typeof m === 'string' && m.trim() !== ''))
    throw new ConfigError(`${file}: "models" must be a non-empty array of model ids (strings), e.g. ["a", "b"]`);
  if (Object.hasOwn(doc, 'model')) throw new ConfigError(`${file}: give "model" or "models", not both`);
  return models as string[];
}

/** Reads and checks a TOML run configuration; `models: true` lets a sweep's `models` list through. */
export function loadConfigFile(file: string, opts: { models?: boolean } = {}): FileConfig {
  let text: string;
  try {
    text = readSmallFile(file, MAX_CONFIG_BYTES);
  } catch (err) {
    if (err instanceof FileTooLargeError)
      throw new ConfigError(`config file ${file} is larger than ${MAX_CONFIG_BYTES} bytes: not a run configuration`);
    throw fileError('read config file', file, err);
  }
  let doc: Record<string, unknown>;
  try {
    // Integers as bigints, so that an integer key can tell `3` from `3.0` (a float, refused).
    doc = parse(text, { integersAsBigInt: true }) as Record<string, unknown>;
  } catch (err) {
    const e = err as TomlError;
    const where = e instanceof TomlError ? ` (line ${e.line}, column ${e.column})` : '';
    const first = String(e.message ?? err).split('\n')[0];
    throw new ConfigError(`${file} is not valid TOML${where}: ${first}`);
  }
  const models = takeModels(doc, file, opts.models === true);
  const config = checkConfig(doc, file, true);
  return models === undefined ? config : { ...config, models };
}

/**
 * The config file named by `@FILE` words (also `@ FILE`, as the original's `eval @ x.toml`)
 * or by --config; `command` names the command in errors.
 */
export function configPathFrom(words: string[], config: string | undefined, command: string): string | undefined {
  if (words.length === 0) return config;
  const joined = words[0] === '@' ? `@${words[1] ?? ''}` : words[0]!;
  if (!joined.startsWith('@') || joined.length < 2 || words.length > (words[0] === '@' ? 2 : 1)) {
    throw new ConfigError(
      `unexpected argument ${JSON.stringify(words.join(' '))}: ${command} takes flags, or @FILE for a config file`,
    );
  }
  if (config) throw new ConfigError('give the config file once: either --config FILE or @FILE');
  return joined.slice(1);
}
