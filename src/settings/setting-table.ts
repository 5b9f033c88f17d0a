/**
 * Every setting of `bas eval`, declared once: its flag, its TOML key, its run.json key, its
 * type, range and default, and whether changing it changes what a run measures. The CLI
 * options, the TOML schema, run.json, the --resume checks and docs/flags.md are
 * all derived from this table (see settings.ts, config.ts, session.ts, scripts/docs-flags.mjs).
 *
 * Everything else is derived from it, types included: `SettingValues` (the resolved settings'
 * shape, from each entry's `parse` and `default`) and `TomlConfig` (the library's typed
 * configuration, from the TOML paths and kinds), so adding an entry here is the one edit a new
 * setting needs. It imports nothing heavy: `bas --help` builds its options from it.
 */
import { resolve } from 'node:path';
import { MAX_TRANSACTIONS, MIN_TRANSACTIONS } from '../task/config.js';
import { parseShard, readShard, shardLabel } from './shard.js';
import { type Flag } from './flag.js';
import { integer as count, number } from './numbers.js';
import {
  MAX_N,
  MAX_RESPONSE_MB,
  parseBaseURL,
  parseEffort,
  parseExtra,
  parseModel,
  parseProviderName,
  parseSwitch,
  parseText,
  parseUntil,
  parseVarName,
  REASONING_EFFORTS,
  RESERVED_FIELDS,
  SECONDS,
} from './setting-parse.js';
import type { TaskConfig } from '../task/types.js';

export { parseBaseURL, parseProviderName, parseVarName } from './setting-parse.js';

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
function setting<V, const T extends string | null, const K extends Kind>(s: Setting<V, T, K>): Setting<V, T, K> {
  return s;
}

/** The declaration. Its order is the order of `bas eval --help` and of eval's table in docs/flags.md. */
export const SETTINGS = {
  model: setting({
    flags: '-m, --model <MODEL>',
    help: 'model id sent to the endpoint, or builtin:oracle|raw-sums|blanket|silent',
    doc: 'Model id, sent unchanged (`openai/gpt-5-mini` stays as it is). `builtin:oracle`, `builtin:raw-sums`, `builtin:blanket`, `builtin:silent`, `builtin:slips` run a reference policy in-process through the same pipeline: no key, no network.',
    defaultText: 'required',
    default: null,
    toml: 'model',
    kind: 'string',
    runJson: 'model',
    measured: true,
    parse: parseModel,
  }),
  num: setting({
    flags: '-n, --num <N>',
    errorName: '-n',
    help: `number of tasks (indices 0..N-1), 1..${MAX_N}`,
    doc: `Tasks 0..N-1 (1 to ${MAX_N.toLocaleString('en-US')}, the same cap as \`bas gen\` and \`bas validate\`).`,
    defaultText: '10',
    default: 10,
    toml: 'n',
    kind: 'integer',
    runJson: 'n',
    measured: true,
    parse: count(1, MAX_N),
  }),
  rollouts: setting({
    flags: '-r, --rollouts <K>',
    help: 'samples per task, 1..1000',
    doc: 'Samples per task (1..1000). With more than one, the summary shows pass@k.',
    defaultText: '1',
    default: 1,
    toml: 'rollouts',
    kind: 'integer',
    runJson: 'rollouts',
    measured: true,
    parse: count(1, 1000),
  }),
  concurrency: setting({
    flags: '-c, --concurrency <C>',
    help: 'requests in flight at most, 1..4096',
    doc: 'Requests in flight at most (1..4096). Rate limits lower the number in flight below this, and replies raise it back (see Rate limits).',
    defaultText: '8',
    default: 8,
    toml: 'concurrency',
    kind: 'integer',
    runJson: 'concurrency',
    measured: false,
    parse: count(1, 4096),
  }),
  numTransactions: setting({
    flags: '--num-transactions <K>',
    help: `rows per ledger, ${MIN_TRANSACTIONS}..${MAX_TRANSACTIONS}`,
    doc: `Rows per ledger (${MIN_TRANSACTIONS}..${MAX_TRANSACTIONS}); see \`bas gen\`.`,
    defaultText: '24',
    default: 24,
    toml: 'task.num_transactions',
    kind: 'integer',
    runJson: 'task.num_transactions',
    measured: true,
    parse: count(MIN_TRANSACTIONS, MAX_TRANSACTIONS),
  }),
  faultRate: setting({
    flags: '--fault-rate <R>',
    help: 'chance that a row carries a fault, 0..1',
    doc: 'Chance that a row carries a fault (0..1).',
    defaultText: '0.25',
    default: 0.25,
    toml: 'task.fault_rate',
    kind: 'number',
    runJson: 'task.fault_rate',
    measured: true,
    parse: number(0, 1),
  }),
  seed: setting({
    flags: '--seed <S>',
    help: 'generator seed, a non-negative integer',
    doc: 'Generator seed: the same seed and index give the same task.',
    defaultText: '20260826',
    default: 20260826,
    toml: 'task.seed',
    kind: 'integer',
    runJson: 'task.seed',
    measured: true,
    parse: count(0, Number.MAX_SAFE_INTEGER),
  }),
  temperature: setting({
    flags: '--temperature <T>',
    help: 'sampling temperature, 0..2',
    doc: '0..2. Left out of the request when not given.',
    defaultText: "endpoint's",
    default: null,
    toml: 'sampling.temperature',
    kind: 'number',
    runJson: 'sampling.temperature',
    measured: true,
    parse: number(0, 2),
  }),
  maxTokens: setting({
    flags: '--max-tokens <M>',
    help: 'completion token limit (sent as max_tokens; max_completion_tokens to api.openai.com)',
    doc: 'Completion token limit. Sent as `max_tokens`, except to `api.openai.com`, which gets `max_completion_tokens` (why: [docs/design.md](docs/design.md#running-a-model)).',
    defaultText: "endpoint's",
    default: null,
    toml: 'sampling.max_tokens',
    kind: 'integer',
    runJson: 'sampling.max_tokens',
    measured: true,
    parse: count(1, 10_000_000),
  }),
  reasoningEffort: setting({
    flags: '--reasoning-effort <E>',
    help: REASONING_EFFORTS.join(', '),
    doc: `${REASONING_EFFORTS.map((e) => `\`${e}\``).join(', ')}; sent as \`reasoning_effort\`.`,
    defaultText: "endpoint's",
    default: null,
    toml: 'sampling.reasoning_effort',
    kind: 'string',
    runJson: 'sampling.reasoning_effort',
    measured: true,
    parse: parseEffort,
  }),
  sampling: setting({
    flags: '--sampling <JSON>',
    help: 'extra request fields as a JSON object, e.g. \'{"top_p": 0.9}\'',
    doc: `Extra request fields, merged into the body last, e.g. \`'{"top_p": 0.9}'\` or \`'{"reasoning": {"effort": "low"}}'\` for OpenRouter. It may not set ${RESERVED_FIELDS.map((f) => `\`${f}\``).join(', ')}, nor hold a \`__proto__\` key at any depth (it would be recorded in run.json but never sent).`,
    defaultText: '`{}`',
    default: {},
    toml: 'sampling.extra',
    kind: 'table',
    runJson: 'sampling.extra',
    measured: true,
    parse: parseExtra,
  }),
  provider: setting({
    flags: '--provider <NAME>',
    help: 'endpoint and key variable from the provider registry (openai, openrouter, prime, vllm, ollama ...)',
    doc: "Take the base URL and key variable from the provider registry (see [Providers](docs/commands.md#providers)). `--base-url` and `--api-key-var` still win, but the provider's key goes only to its host: a `--base-url` on another host needs `--api-key-var`.",
    defaultText: 'none',
    default: null,
    toml: 'provider',
    kind: 'string',
    runJson: 'provider',
    measured: false,
    parse: parseProviderName,
  }),
  providers: setting({
    flags: '--providers <FILE>',
    help: 'your own provider registry (TOML), over the shipped one',
    doc: 'A TOML file of your own providers, adding to or overriding the shipped registry.',
    defaultText: '`$BAS_PROVIDERS`',
    default: null,
    toml: 'providers',
    kind: 'string',
    runJson: null,
    measured: false,
    parse: parseText,
  }),
  baseUrl: setting({
    flags: '--base-url <URL>',
    help: 'OpenAI-compatible endpoint',
    doc: 'Any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp server, `bas serve`).',
    defaultText: "the provider's, else `$OPENAI_BASE_URL`, else `https://api.openai.com/v1`",
    default: null,
    toml: 'base_url',
    kind: 'string',
    runJson: 'base_url',
    measured: false,
    parse: parseBaseURL,
  }),
  apiKeyVar: setting({
    flags: '--api-key-var <VAR>',
    help: 'environment variable holding the API key',
    doc: 'The NAME of the environment variable holding the key. A missing key for a non-built-in model is an error before any work starts, except for a local provider (see Providers).',
    defaultText: "the provider's, else `OPENAI_API_KEY`",
    default: null,
    toml: 'api_key_var',
    kind: 'string',
    runJson: 'api_key_var',
    measured: false,
    parse: parseVarName,
  }),
  timeout: setting({
    flags: '--timeout <SECONDS>',
    help: 'bound on one episode, retries included',
    doc: 'Seconds one episode may take, every attempt and every wait included.',
    defaultText: '600',
    default: 600,
    toml: 'timeout',
    kind: 'number',
    runJson: 'timeout_s',
    measured: false,
    parse: (v, name) => SECONDS(name, v),
  }),
  requestTimeout: setting({
    flags: '--request-timeout <SECONDS>',
    help: 'bound on one request',
    doc: 'Seconds one request may take (headers and body).',
    defaultText: '300',
    default: 300,
    toml: 'request_timeout',
    kind: 'number',
    runJson: 'request_timeout_s',
    measured: false,
    parse: (v, name) => SECONDS(name, v),
  }),
  stream: setting({
    flags: '--stream',
    help: 'ask for the reply as a stream of events (stream: true), for long generations',
    doc: 'Ask for each reply as server-sent events (`stream: true`, with `stream_options.include_usage`) and assemble it; records the time to first token (`ttft_ms`). Same bounds as a whole reply, plus `--stream-idle-timeout` (see [docs/providers-and-pacing.md](docs/providers-and-pacing.md#streaming)).',
    defaultText: 'off',
    default: false,
    toml: 'stream',
    kind: 'boolean',
    runJson: 'stream',
    measured: false,
    parse: parseSwitch,
  }),
  streamIdleTimeout: setting({
    flags: '--stream-idle-timeout <SECONDS>',
    help: 'with --stream: longest silence between two events once the reply has begun',
    doc: 'With `--stream`: seconds of silence allowed between two pieces of a reply once its first token has come; longer fails the attempt as `timeout` (retried). The wait for the first token is bounded by `--request-timeout` only.',
    defaultText: '60',
    default: 60,
    toml: 'stream_idle_timeout',
    kind: 'number',
    runJson: 'stream_idle_timeout_s',
    measured: false,
    parse: (v, name) => SECONDS(name, v),
  }),
  maxRetries: setting({
    flags: '--max-retries <K>',
    help: 'retries of 5xx, connection failures and timeouts, 0..100; 429s wait until --timeout instead',
    doc: 'Retries of failures (5xx, connection failures, timeouts) after the first attempt (0..100). A 429 is a waiting turn, not a failure: it is retried until `--timeout` and not counted here.',
    defaultText: '5',
    default: 5,
    toml: 'max_retries',
    kind: 'integer',
    runJson: 'max_retries',
    measured: false,
    parse: count(0, 100),
  }),
  maxErrorRate: setting({
    flags: '--max-error-rate <R>',
    help: 'share of errored rollouts, 0..1, above which eval exits 3',
    doc: 'Share of errored rollouts (0..1) above which a finished run exits 3 (see Exit codes).',
    defaultText: '0.1',
    default: 0.1,
    toml: 'max_error_rate',
    kind: 'number',
    runJson: 'max_error_rate',
    measured: false,
    parse: number(0, 1),
  }),
  precision: setting({
    flags: '--precision <W>',
    help: 'stop once the anytime-valid 95% interval of the mean reward is within ±W, 0.001..0.5',
    doc: 'Stop as soon as the 95% confidence sequence of the mean reward (tasks in index order, rollouts averaged, errored rollouts as 0) has a half-width of at most W (0.001..0.5); the run ends with status `precision`. The interval stays valid however often it is looked at (see [docs/statistics.md](docs/statistics.md#anytime-valid-intervals-stopping-when-the-answer-is-known)). A resume with a smaller W continues.',
    defaultText: 'off',
    default: null,
    toml: 'precision',
    kind: 'number',
    runJson: 'precision',
    measured: false,
    parse: number(0.001, 0.5),
  }),
  against: setting({
    flags: '--against <RUN>',
    help: "with --until decided: run RUN's tasks in its order and compare this run with it, task by task",
    doc: "A run folder to compare with, task by task: this run takes RUN's task settings (a different `--num-transactions`, `--fault-rate` or `--seed` is refused; `-n` defaults to RUN's and may be smaller) and needs `--until decided`. RUN must be a whole `bas eval` run (not a shard, not `bas score`'s) with every task below `-n` recorded. See [docs/statistics.md](docs/statistics.md#deciding-against-another-run).",
    defaultText: 'none',
    default: null,
    toml: 'against',
    kind: 'string',
    runJson: 'against',
    measured: false,
    parse: parseText,
  }),
  until: setting({
    flags: '--until <RULE>',
    help: 'with --against RUN: decided stops once this run is better, worse or equivalent',
    doc: 'With `--against RUN`: `decided` stops as soon as the 95% confidence sequence of the paired difference (this run minus RUN, tasks in index order) excludes 0 (`better`, `worse`) or lies within ±`--margin` (`equivalent`), else at `-n` (`undecided`). A run stopped on a verdict ends with status `decided` (exit 0).',
    defaultText: 'off',
    default: null,
    toml: 'until',
    kind: 'string',
    runJson: 'until',
    measured: false,
    parse: parseUntil,
  }),
  margin: setting({
    flags: '--margin <M>',
    help: 'with --until decided: differences within ±M count as equivalent, 0..0.5',
    doc: 'With `--until decided`: the smallest difference that matters (0..0.5). An interval within ±M ends the run `equivalent`; 0 never does. The fixed design a decision is compared with is planned for M (0.05 when M is 0).',
    defaultText: '0',
    default: 0,
    toml: 'margin',
    kind: 'number',
    runJson: 'margin',
    measured: false,
    parse: number(0, 0.5),
  }),
  maxResponseMb: setting({
    flags: '--max-response-mb <MB>',
    help: `largest response body accepted, in MB, 0.001..${MAX_RESPONSE_MB}`,
    doc: `Largest response body accepted, in megabytes (0.001..${MAX_RESPONSE_MB}: a body becomes one string, and no string can reach 512 MB); a longer one fails its attempt as \`response_too_large\`. All replies in flight share one memory budget besides (see [docs/hostile-input.md](docs/hostile-input.md)).`,
    defaultText: '32',
    default: 32,
    toml: 'max_response_mb',
    kind: 'number',
    runJson: 'max_response_mb',
    measured: false,
    parse: number(0.001, MAX_RESPONSE_MB),
  }),
  adapt: setting({
    flags: '--no-adapt',
    help: 'keep -c requests in flight even when rate-limited (concurrency adapts by default)',
    doc: 'Keep the number of requests in flight at `-c`; by default it falls on rate limits and climbs back, never above `-c`.',
    defaultText: 'adapt',
    default: true,
    toml: 'adapt',
    kind: 'boolean',
    runJson: 'adapt',
    measured: false,
    parse: parseSwitch,
  }),
  check: setting({
    flags: '--check',
    help: 'run bas check first and stop if it fails',
    doc: 'Run `bas check` with these settings first, and stop (exit 1) if it fails.',
    defaultText: 'off',
    default: false,
    toml: 'check',
    kind: 'boolean',
    runJson: null,
    measured: false,
    parse: parseSwitch,
  }),
  output: setting({
    flags: '--output <DIR>',
    help: 'run folder',
    doc: 'The run folder; `/`, `:` and other unsafe characters of the model become `_`. A folder that already holds a run is refused (use `--resume`).',
    defaultText: '`runs/<UTC time>-<model>/`',
    default: null,
    toml: 'output',
    kind: 'string',
    runJson: null,
    measured: false,
    parse: parseText,
  }),
  cache: setting({
    flags: '--cache <DIR>',
    help: 'reuse replies already received (same endpoint, model, request and rollout) from DIR, and keep new ones there',
    doc: 'A folder of replies already received: a request with the same endpoint, model, body and rollout number is answered from it, costs nothing and is marked `cached` in its record; new replies are added. Successful replies only; the key is never stored. Off by default (see [docs/cost.md](docs/cost.md#response-cache)).',
    defaultText: 'off',
    default: null,
    toml: 'cache',
    kind: 'string',
    // Kept (as an absolute path) so a resume answers from the same folder: it used to drop it and
    // pay again for every reply the cache held (issue 36).
    runJson: 'cache',
    measured: false,
    parse: parseText,
    save: (v: string | null) => (v === null ? null : resolve(v)),
  }),
  progress: setting({
    flags: '--no-progress',
    help: 'no progress display',
    doc: 'No progress display.',
    defaultText: 'shown',
    default: true,
    toml: 'progress',
    kind: 'boolean',
    runJson: null,
    measured: false,
    parse: parseSwitch,
  }),
  shard: setting({
    flags: '--shard <I/N>',
    help: 'run only the I-th of N disjoint slices of the tasks (join the shards with bas merge); auto: from a Slurm or Kubernetes job array',
    doc: 'Run only the I-th of N disjoint slices of the tasks; `auto` reads I and N from a Slurm array job or a Kubernetes indexed job (see [Run at scale](docs/commands.md#run-at-scale-shards-and-batch-files)).',
    defaultText: 'all tasks',
    default: null,
    toml: 'shard',
    kind: 'string',
    runJson: 'shard',
    measured: true,
    parse: parseShard,
    load: (v) => readShard(v),
    show: (v) => v && shardLabel(v),
  }),
  priceIn: setting({
    flags: '--price-in <USD>',
    help: 'price of prompt tokens per million, kept in run.json for bas report',
    doc: 'Price per million prompt tokens, kept in run.json so `bas report` can show the cost.',
    defaultText: 'none',
    default: null,
    toml: 'price_in',
    kind: 'number',
    runJson: 'prices.in',
    measured: false,
    parse: number(0, 1e6),
  }),
  priceOut: setting({
    flags: '--price-out <USD>',
    help: 'price of completion tokens per million, kept in run.json for bas report',
    doc: 'Price per million completion tokens, as `--price-in`.',
    defaultText: 'none',
    default: null,
    toml: 'price_out',
    kind: 'number',
    runJson: 'prices.out',
    measured: false,
    parse: number(0, 1e6),
  }),
  maxCost: setting({
    flags: '--max-cost <USD>',
    help: 'stop before a request could take the run past USD (needs --price-in and --price-out); exit 4',
    doc: "A budget in US dollars for the whole run, every session and retry included: no request starts that could take it past, each request in flight counted at its worst case (see [docs/cost.md](docs/cost.md#budgets)). Needs `--price-in` and `--price-out` (or the saved run's prices). When the next request does not fit, the run stops with status `budget` and exit 4; `--resume` with a larger budget continues.",
    defaultText: 'none',
    default: null,
    toml: 'max_cost',
    kind: 'number',
    runJson: 'budget.max_cost_usd',
    measured: false,
    parse: number(0, 1e9),
  }),
  maxTotalTokens: setting({
    flags: '--max-total-tokens <N>',
    help: 'stop before a request could take the run past N prompt and completion tokens; exit 4',
    doc: 'A budget in tokens (prompt and completion together) for the whole run, as `--max-cost`.',
    defaultText: 'none',
    default: null,
    toml: 'max_total_tokens',
    kind: 'integer',
    runJson: 'budget.max_total_tokens',
    measured: false,
    parse: count(1, Number.MAX_SAFE_INTEGER),
  }),
};

export type SettingTable = typeof SETTINGS;
export type SettingKey = keyof SettingTable;

/** One value per setting, checked; null where "not given" means "leave it to someone else". */
export type SettingValues = { [K in SettingKey]: SettingTable[K] extends Setting<infer V, any, any> ? V : never };

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

export { flagName, isNegatable } from './flag.js';

/** The run.json keys of the measured settings: what --resume keeps and merged runs must share. */
export const MEASURED_RUN_JSON_KEYS: readonly string[] = SETTING_KEYS.flatMap((k) =>
  SETTINGS[k].measured && SETTINGS[k].runJson ? [SETTINGS[k].runJson] : [],
);

// --- Derived forms: computed from the values when a consumer needs another shape, never stored. ---

/** The generator's configuration (run.json's `task`). */
export function taskConfigOf(v: Pick<SettingValues, 'numTransactions' | 'faultRate' | 'seed'>): TaskConfig {
  return { num_transactions: v.numTransactions, fault_rate: v.faultRate, seed: v.seed };
}

/** Sampling settings sent with every request (run.json's `sampling`). */
export interface Sampling {
  temperature: number | null;
  max_tokens: number | null;
  reasoning_effort: string | null;
  /** Extra request fields, merged in last (`--sampling`). */
  extra: Record<string, unknown>;
}

/** The sampling fields of each request (run.json's `sampling`): `--sampling` is its `extra`. */
export function samplingOf(
  v: Pick<SettingValues, 'temperature' | 'maxTokens' | 'reasoningEffort' | 'sampling'>,
): Sampling {
  return {
    temperature: v.temperature,
    max_tokens: v.maxTokens,
    reasoning_effort: v.reasoningEffort,
    extra: v.sampling,
  };
}

/** `--max-response-mb` in bytes, the HTTP client's cap on one response body. */
export function maxResponseBytesOf(v: Pick<SettingValues, 'maxResponseMb'>): number {
  return Math.round(v.maxResponseMb * 1024 * 1024);
}

/** USD per million tokens (run.json's `prices`), as the cost of a summary takes them. */
export function pricesOf(v: Pick<SettingValues, 'priceIn' | 'priceOut'>): { in: number | null; out: number | null } {
  return { in: v.priceIn, out: v.priceOut };
}

// --- The typed configuration, derived from the TOML paths and kinds of the declaration. ---

/** What a TOML key takes, by its declared kind. */
interface KindValue {
  integer: number;
  number: number;
  string: string;
  boolean: boolean;
  table: Record<string, unknown>;
}
type TomlPath<K extends SettingKey> = SettingTable[K]['toml'];
type TomlValue<K extends SettingKey> = KindValue[SettingTable[K]['kind']];
type SectionOf<P> = P extends `${infer S}.${string}` ? S : never;
type Plain<T> = { [K in keyof T]: T[K] };

/**
 * A run configuration by its TOML keys, every one optional, with `task` and `sampling` as
 * sections: `{ model: 'm', n: 30, task: { seed: 7 } }`. A setting declared with a TOML path
 * appears here with no other edit.
 */
export type TomlConfig = Plain<
  {
    [K in SettingKey as TomlPath<K> extends `${string}.${string}` | null ? never : TomlPath<K> & string]?: TomlValue<K>;
  } & {
    [S in SectionOf<TomlPath<SettingKey>>]?: {
      [K in SettingKey as TomlPath<K> extends `${S}.${infer Rest}` ? Rest : never]?: TomlValue<K>;
    };
  }
>;
