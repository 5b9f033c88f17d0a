/**
 * Run configuration files (TOML). The schema is the eval flags with underscores, plus two
 * sections for the values that belong together:
 *
 * ```toml
 * model = "openai/gpt-5-mini"   # -m
 * n = 30                        # -n
 * rollouts = 1                  # -r
 * concurrency = 8               # -c
 * base_url = "https://…/v1"     # --base-url
 * api_key_var = "OPENAI_API_KEY"
 * timeout = 480                 # seconds per episode, retries included
 * request_timeout = 120         # seconds per request
 * max_retries = 5
 * output = "runs/mine"
 * progress = true
 * shard = "2/4"                 # --shard: the second of four slices of the tasks
 * price_in = 0.25              # USD per million prompt tokens, kept in run.json for reports
 * price_out = 2.0               # USD per million completion tokens
 * [task]
 * num_transactions = 60
 * fault_rate = 0.35
 * seed = 20260826
 * [sampling]
 * temperature = 0
 * max_tokens = 4096
 * reasoning_effort = "low"
 * [sampling.extra]              # extra request fields, sent as they are
 * top_p = 0.9
 * ```
 * An unknown key or a value of the wrong type is an error naming the key.
 */
import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import { ConfigError } from '../errors.js';

type Kind = 'integer' | 'number' | 'string' | 'boolean' | 'table';

const TOP: Record<string, Kind> = {
  model: 'string',
  n: 'integer',
  rollouts: 'integer',
  concurrency: 'integer',
  base_url: 'string',
  api_key_var: 'string',
  timeout: 'number',
  request_timeout: 'number',
  max_retries: 'integer',
  output: 'string',
  progress: 'boolean',
  shard: 'string',
  price_in: 'number',
  price_out: 'number',
  task: 'table',
  sampling: 'table',
};
const TASK: Record<string, Kind> = { num_transactions: 'integer', fault_rate: 'number', seed: 'integer' };
const SAMPLING: Record<string, Kind> = { temperature: 'number', max_tokens: 'integer', reasoning_effort: 'string', extra: 'table' };

/** A configuration file's values, each still to be range-checked with the flags. */
export interface FileConfig {
  model?: string;
  n?: number;
  rollouts?: number;
  concurrency?: number;
  base_url?: string;
  api_key_var?: string;
  timeout?: number;
  request_timeout?: number;
  max_retries?: number;
  output?: string;
  progress?: boolean;
  shard?: string;
  price_in?: number;
  price_out?: number;
  task?: { num_transactions?: number; fault_rate?: number; seed?: number };
  sampling?: { temperature?: number; max_tokens?: number; reasoning_effort?: string; extra?: Record<string, unknown> };
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  if (typeof v === 'object' && v !== null) return 'a table';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  return `a ${typeof v}`;
}

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'table':
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
  }
}

function checkTable(file: string, table: Record<string, unknown>, schema: Record<string, Kind>, prefix: string): void {
  for (const [key, value] of Object.entries(table)) {
    const name = `${prefix}${key}`;
    const kind = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (kind === undefined) {
      throw new ConfigError(`${file}: unknown key "${name}" (allowed here: ${Object.keys(schema).join(', ')})`);
    }
    if (!fits(kind, value)) {
      throw new ConfigError(`${file}: "${name}" must be ${kind === 'integer' ? 'an integer' : `a ${kind}`}, got ${kindOf(value)}`);
    }
  }
}

/** Checks a parsed TOML document against the schema; `file` names it in errors. */
export function checkConfig(doc: Record<string, unknown>, file: string): FileConfig {
  checkTable(file, doc, TOP, '');
  if (doc.task) checkTable(file, doc.task as Record<string, unknown>, TASK, 'task.');
  if (doc.sampling) checkTable(file, doc.sampling as Record<string, unknown>, SAMPLING, 'sampling.');
  return doc as FileConfig;
}

/** Reads and checks a TOML run configuration. */
export function loadConfigFile(file: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ConfigError(`cannot read config file ${file}${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    const e = err as TomlError;
    const where = e instanceof TomlError ? ` (line ${e.line}, column ${e.column})` : '';
    const first = String(e.message ?? err).split('\n')[0];
    throw new ConfigError(`${file} is not valid TOML${where}: ${first}`);
  }
  return checkConfig(doc, file);
}
