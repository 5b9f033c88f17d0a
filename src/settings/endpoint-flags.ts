/**
 * The flags of the commands that talk to a model's endpoint: `bas eval` (the settings of
 * setting-table.ts, and the flags of the invocation and of the batch engine), `bas check`,
 * `bas models` and `bas sweep`.
 */
import type { Flag } from './flag.js';
import { htmlFlag, svgFlag } from './flag-groups.js';
import { json, listOf, text } from './flag-kinds.js';
import { integer, number } from './numbers.js';
import { parseSwitch } from './setting-parse.js';
import { SETTINGS, SETTING_KEYS, type SettingKey, type SettingTable } from './setting-table.js';

/**
 * `bas eval --batch`: the provider's batch engine instead of live requests. OpenAI's
 * documented limits bound a batch: 50,000 requests and 200 MB per input file.
 */
export const BATCH_FLAGS = {
  batch: {
    flags: '--batch',
    help: "send the requests through the provider's batch engine: upload, create, poll, grade",
    doc: "Run through the provider's batch engine (OpenAI's Batch API and endpoints shaped like it): the requests are uploaded as files, the batches polled and their output graded into an ordinary run folder (see [Batch runs](commands.md#batch-runs)).",
    defaultText: null,
    default: false,
    parse: parseSwitch,
  } satisfies Flag<boolean>,
  batchPoll: {
    flags: '--batch-poll <SECONDS>',
    help: 'with --batch: first wait between polls, 0..3600; each unchanged poll waits half as long again, up to 20 times it',
    defaultText: '30',
    default: 30,
    parse: number(0, 3600),
  } satisfies Flag<number>,
  batchMaxRequests: {
    flags: '--batch-max-requests <N>',
    help: "with --batch: requests per batch, 1..50000 (OpenAI's limit); more are split into several batches",
    defaultText: '50000',
    default: 50_000,
    parse: integer(1, 50_000),
  } satisfies Flag<number>,
  batchMaxMb: {
    flags: '--batch-max-mb <MB>',
    help: "with --batch: size of one request file in MB, 0.001..200 (OpenAI's limit); larger is split",
    defaultText: '200',
    default: 200,
    parse: number(0.001, 200),
  } satisfies Flag<number>,
};

/** eval's flags that are about the invocation, not settings of the run (no TOML key, no run.json key). */
const evalInvocation = {
  resume: text('--resume <DIR>', 'continue a run: only missing or errored rollouts, with its saved configuration', {
    doc: 'Continue the run in DIR (see [Stopping and resuming](commands.md#stopping-and-resuming)).',
  }),
  config: text('--config <FILE>', 'TOML run configuration; flags override it', {
    doc: 'A TOML run configuration (also `@FILE` or `@ FILE`). Flags override it.',
  }),
  json: json('print the summary as JSON instead of tables'),
  ...BATCH_FLAGS,
};

function settingsExcept<K extends SettingKey>(...left: K[]): Omit<SettingTable, K> {
  return Object.fromEntries(SETTING_KEYS.filter((k) => !left.includes(k as K)).map((k) => [k, SETTINGS[k]])) as Omit<
    SettingTable,
    K
  >;
}

/**
 * eval's settings that `bas check` takes but does not use: it sends one request, so how many,
 * how parallel, how long a whole run may take, where it is written and what it costs change
 * nothing there. It takes them so that an eval command line runs with `check` in its place,
 * and its help names them in one note instead of its list. Every other setting (the model,
 * the task it sends, the sampling fields, the endpoint and the bounds of one reply) is used,
 * so a new setting shows as used unless it is named here (a test holds this list to what
 * `runCheck` reads). `--shard` is check's own entry below; `--check` it does not take.
 */
const CHECK_IGNORES: readonly SettingKey[] = [
  'num',
  'rollouts',
  'concurrency',
  'timeout',
  'maxRetries',
  'maxErrorRate',
  'precision',
  'against',
  'until',
  'margin',
  'adapt',
  'output',
  'progress',
  'priceIn',
  'priceOut',
  'maxCost',
  'maxTotalTokens',
];

function checkSettings(): Omit<SettingTable, 'check'> {
  const all = settingsExcept('check');
  return Object.fromEntries(
    Object.entries(all).map(([k, f]) => [k, CHECK_IGNORES.includes(k as SettingKey) ? { ...f, unused: true } : f]),
  ) as typeof all;
}

const evalFlags = { ...SETTINGS, ...evalInvocation };

/** eval's, check's, models' and sweep's flags, each in the order of its `--help`. */
export const ENDPOINT_FLAGS = {
  eval: evalFlags,
  check: {
    ...checkSettings(),
    shard: {
      ...SETTINGS.shard,
      help: 'send the first task of the I-th of N slices, as bas eval --shard I/N would (auto: from a Slurm or Kubernetes job array)',
      doc: 'Send the first task of the I-th of N slices of the tasks, the one `bas eval --shard I/N` would send first.',
      defaultText: 'task 0',
    },
    config: evalInvocation.config,
    json: json('print the result as JSON'),
  },
  models: {
    provider: SETTINGS.provider,
    providers: SETTINGS.providers,
    baseUrl: SETTINGS.baseUrl,
    apiKeyVar: SETTINGS.apiKeyVar,
    json: json('print the models as JSON'),
  },
  sweep: {
    numTransactions: {
      flags: '--num-transactions <LIST>',
      help: `rows per ledger, one point each, ${SETTINGS.numTransactions.help.replace(/^rows per ledger, /, 'each ')}, e.g. 12,24,60,120,240`,
      defaultText: 'required',
      default: null,
      parse: listOf(SETTINGS.numTransactions.parse),
    } satisfies Flag<number[] | null>,
    faultRate: {
      flags: '--fault-rate <LIST>',
      help: 'fault rates, one point each with every row count, each 0..1',
      defaultText: "eval's",
      default: null,
      parse: listOf(SETTINGS.faultRate.parse),
    } satisfies Flag<number[] | null>,
    output: text('--output <DIR>', 'sweep folder', { defaultText: '`runs/<UTC time>-sweep-<model>`' }),
    resume: text('--resume <DIR>', 'continue a sweep: every point, with its saved settings'),
    html: htmlFlag('page with the curve'),
    svg: svgFlag('the curves'),
    json: json('print the sweep as JSON'),
    csv: {
      flags: '--csv',
      help: 'print the sweep as CSV, one line per model and point',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    verbose: {
      flags: '--verbose',
      help: "also print each run's own summary tables on standard error",
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    config: evalInvocation.config,
    // A point's tasks are its own: no run of a sweep is compared with another run task by task.
    ...settingsExcept('numTransactions', 'faultRate', 'output', 'shard', 'against', 'until', 'margin'),
    // The reasoning budget as the axis: several values make one point each (docs/sweep.md).
    maxTokens: {
      ...SETTINGS.maxTokens,
      flags: '--max-tokens <LIST>',
      default: null,
      help: `${SETTINGS.maxTokens.help}; several, e.g. 1000,4000,16000, make the sweep's axis, one point each`,
      parse: listOf((v, name) => SETTINGS.maxTokens.parse(v, name)!),
    } satisfies Flag<number[] | null>,
    reasoningEffort: {
      ...SETTINGS.reasoningEffort,
      flags: '--reasoning-effort <LIST>',
      default: null,
      help: `${SETTINGS.reasoningEffort.help}; several, e.g. low,medium,high, make the sweep's axis, one point each`,
      parse: listOf((v, name) => SETTINGS.reasoningEffort.parse(v, name)!),
    } satisfies Flag<string[] | null>,
    // The one repeatable -m: a curve per model (docs/sweep.md); every other command takes one.
    model: {
      ...SETTINGS.model,
      help: 'model id; repeat -m for several models, one curve each (or models = [...] in the config)',
      repeatable: true,
      default: [] as string[],
      parse: (v: unknown, name: string) => (Array.isArray(v) ? v : [v]).map((m) => SETTINGS.model.parse(m, name)!),
    } satisfies Flag<string[]>,
  },
};
