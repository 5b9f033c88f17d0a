/**
 * Every command's flags, declared once, from shared groups (task, sampling, bootstrap, price,
 * output) and the eval settings (setting-table.ts). `src/cli.ts` builds each command's options
 * from here, the commands parse what commander hands over with `readFlags`, and
 * docs/flags.md is rendered from it (setting-docs.ts, `npm run docs:flags`).
 *
 * The key of each entry is commander's attribute name for the flag; a test checks it.
 */
import { isPolicyName, POLICY_LIST } from '../task/policy-names.js';
import { SPLITS } from '../task/dataset.js';
import {
  COMPARE_COLUMNS,
  GEN_FORMATS,
  LEADERBOARD_COLUMNS,
  RANK_MEASURES,
  type CompareColumn,
  type LeaderboardColumn,
} from './choices.js';
import type { Flag, FlagSet } from './flag.js';
export { collectOnce, helpLine, takesValue, unusedNote } from './flag.js';
import { integer, number } from './numbers.js';
import { parseHost, parseModel, parseSwitch, parseText, parseVarName } from './setting-parse.js';
import { SETTINGS, SETTING_KEYS, type SettingKey, type SettingTable } from './setting-table.js';
import { ConfigError } from '../errors/index.js';
import type { CommandName } from './command-names.js';
import { BATCH_FAULTS } from './choices.js';

/** Why bas view's index flags are refused: what replaced them. */
const VIEW_INDEX_GONE =
  'bas view keeps no index on disk any more: it reads each run when it is first opened (a run of 100,000 rollouts in well under 2 s) and keeps what it read in memory; drop the flag';

/** A flag taken away: refused, whatever its value, with `why` (what replaced it); left out of --help and the docs. */
function removedFlag(flags: string, why: string): Flag<null> {
  return {
    flags,
    help: why,
    defaultText: null,
    default: null,
    hidden: true,
    parse: (_value, name) => {
      throw new ConfigError(`${name} is no longer taken: ${why}`);
    },
  };
}

/** One of a closed list of words. */
function oneOf<T extends string>(choices: readonly T[]): (value: unknown, name: string) => T {
  return (value, name) => {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    throw new ConfigError(
      `${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(String(value).slice(0, 80))}`,
    );
  };
}

/** Most points of a sweep, and so the longest list a sweep flag takes. */
export const MAX_LIST = 100;

/**
 * A comma-separated list of values, each read by `item` (the flag's own single-value parser,
 * so `12.0` is refused in a list as it is alone); no value twice.
 */
export function listOf<V>(item: (value: unknown, name: string) => V): (value: unknown, name: string) => V[] {
  return (value, name) => {
    const text = String(value);
    const items = text.split(',').map((s) => s.trim());
    if (items.length > MAX_LIST || items.some((s) => s === ''))
      throw new ConfigError(
        `${name} takes a comma-separated list of up to ${MAX_LIST} values, e.g. 12,24,60, got ${JSON.stringify(text.slice(0, 80))}`,
      );
    const values = items.map((s) => item(s, name));
    if (new Set(values).size !== values.length)
      throw new ConfigError(`${name} lists a value twice: ${JSON.stringify(text.slice(0, 80))}`);
    return values;
  };
}

const text = (flags: string, help: string, extra: Partial<Flag<string | null>> = {}): Flag<string | null> => ({
  flags,
  help,
  defaultText: null,
  default: null,
  parse: parseText,
  ...extra,
});

const json = (help: string): Flag<boolean> => ({
  flags: '--json',
  help,
  defaultText: null,
  default: false,
  parse: parseSwitch,
});

// --- the shared groups ---

/** The task group: which tasks. `-n`'s default is the command's own. */
function taskGroup(n: number) {
  return {
    num: { ...SETTINGS.num, default: n, defaultText: String(n) },
    numTransactions: SETTINGS.numTransactions,
    faultRate: SETTINGS.faultRate,
    seed: SETTINGS.seed,
  };
}

/** The sampling group, as `bas gen --format batch` writes it into each request. */
const batchOnly = <V>(f: Flag<V>): Flag<V> => ({ ...f, help: `${f.help} (--format batch)`, doc: undefined });
/** A sampling setting `bas score` is told (the replies were made elsewhere): recorded, never sent. */
const toldSampling = <V>(f: Flag<V>): Flag<V> => ({
  ...f,
  help: `${f.help}: what the replies were sampled with, recorded in the run folder`,
  doc: 'What the replies were sampled with, recorded in the run folder\'s run.json; a sampling flag left out then reads "not sent". With no sampling flag at all, the sampling is recorded as unknown.',
  defaultText: 'unknown',
});

/** The bootstrap group: the paired comparisons of compare and leaderboard. */
const bootstrapGroup = {
  seed: {
    flags: '--seed <S>',
    help: 'seed of the paired bootstrap, 0..4294967295',
    defaultText: '1',
    default: 1,
    parse: integer(0, 2 ** 32 - 1),
  } satisfies Flag<number>,
  resamples: {
    flags: '--resamples <B>',
    help: 'bootstrap resamples, 100..1000000',
    defaultText: '10000',
    default: 10_000,
    parse: integer(100, 1_000_000),
  } satisfies Flag<number>,
};

/** The price group, as `bas report` takes it: over the prices the run recorded. */
const reportPrices = {
  priceIn: {
    ...SETTINGS.priceIn,
    help: 'price of prompt tokens, US dollars per million, 0..1000000',
    defaultText: "the run's",
  },
  priceOut: {
    ...SETTINGS.priceOut,
    help: 'price of completion tokens, US dollars per million, 0..1000000',
    defaultText: "the run's",
  },
};

/** At most this many rollouts by name in one `bas report` (each is embedded whole). */
const MAX_ROLLOUTS_ASKED = 1000;

/** `--rollout` values: "17:0", "17" (rollout 0), or lists "3:0,17:2", from every time the flag is given. */
function parseRollouts(values: unknown, name: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const v of values as string[])
    for (const part of v.split(',')) {
      const m = /^\s*(\d{1,9})(?::(\d{1,3}))?\s*$/.exec(part);
      if (!m)
        throw new ConfigError(
          `${name} must be INDEX:ROLLOUT (such as 17:0), or INDEX for rollout 0, got ${JSON.stringify(part.slice(0, 80))}`,
        );
      out.push([Number(m[1]), Number(m[2] ?? 0)]);
    }
  if (out.length > MAX_ROLLOUTS_ASKED)
    throw new ConfigError(`${name} names ${out.length} rollouts; at most ${MAX_ROLLOUTS_ASKED}`);
  return out;
}

const htmlFlag = (what: string) => text('--html <FILE>', `also write a self-contained HTML ${what} to FILE`);
const svgFlag = (what: string) =>
  text('--svg <FILE>', `also write ${what} to FILE as a standalone SVG figure (for a paper; docs/reports.md)`);

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

/** Every command's flags, in the order of its `--help`. */
export const COMMAND_FLAGS = {
  gen: {
    ...taskGroup(10),
    format: {
      flags: '--format <F>',
      help: `what to write: ${GEN_FORMATS.join(', ')}`,
      defaultText: 'jsonl when written to a file or a pipe, table on a terminal',
      default: null,
      parse: oneOf(GEN_FORMATS),
    } satisfies Flag<string | null>,
    split: {
      flags: '--split <SPLIT>',
      help: `${SPLITS.join(' or ')}: disjoint task sets of one seed (test = the tasks bas eval runs)`,
      defaultText: null,
      default: null,
      parse: oneOf(SPLITS),
    } satisfies Flag<string | null>,
    out: text('-o, --out <FILE>', 'write to FILE instead of standard output'),
    model: batchOnly({ ...SETTINGS.model, help: 'model named in each request', defaultText: null }),
    temperature: batchOnly(SETTINGS.temperature),
    maxTokens: batchOnly(SETTINGS.maxTokens),
    reasoningEffort: batchOnly(SETTINGS.reasoningEffort),
    sampling: batchOnly(SETTINGS.sampling),
    rollouts: batchOnly({ ...SETTINGS.rollouts, help: 'requests per task, 1..1000' }),
  },
  validate: {
    ...taskGroup(60),
    tasks: text('--tasks <FILE>', 'check the keys shipped in a tasks JSONL file instead of generating'),
    json: json('print the result as JSON'),
  },
  score: {
    tasks: text('--tasks <FILE>', 'tasks JSONL written by bas gen', { required: true }),
    replies: text('--replies <FILE>', 'replies JSONL: {"index", "reply"} lines, or a batch output file', {
      required: true,
    }),
    output: text('--output <DIR>', 'write a run folder (results.jsonl, run.json) that bas report and bas compare read'),
    // SPEC.md: `--out` writes one scored line per reply. As for gen, `--out` names a file and
    // `--output` a folder; both may be given.
    out: text(
      '--out <FILE>',
      "write one scored line per reply (JSONL, in the replies' order, results.jsonl's line shape); - for standard output",
    ),
    model: { ...text('-m, --model <MODEL>', 'model name recorded in the run folder'), parse: parseModel },
    requests: text(
      '--requests <FILE>',
      'the batch request file the replies answer (bas gen --format batch): its sampling is recorded in the run folder',
    ),
    temperature: toldSampling(SETTINGS.temperature),
    maxTokens: toldSampling(SETTINGS.maxTokens),
    reasoningEffort: toldSampling(SETTINGS.reasoningEffort),
    sampling: toldSampling({ ...SETTINGS.sampling, default: null as Record<string, unknown> | null }),
    // eval's error budget: missing replies and failed batch requests are errored rollouts.
    maxErrorRate: {
      ...SETTINGS.maxErrorRate,
      help: 'share of errored rollouts (missing replies included), 0..1, above which score exits 3',
      doc: 'Share of errored rollouts (0..1), missing replies and failed batch requests included, above which score exits 3 after printing and writing what it scored; recorded in the run folder.',
    },
    json: json('print the summary as JSON'),
  },
  merge: {
    output: text('--output <DIR>', 'the merged run folder (must not exist, or be empty)', { required: true }),
    json: json('print the merged summary as JSON'),
  },
  report: {
    json: json('print the report as JSON'),
    html: htmlFlag('report'),
    ...reportPrices,
    rollout: {
      flags: '--rollout <I:R>',
      help: 'show rollout R of task I (or I alone: rollout 0; a comma list; repeatable); with --html, embed it in the page',
      defaultText: null,
      default: [],
      repeatable: true,
      parse: parseRollouts,
    } satisfies Flag<Array<[number, number]>>,
  },
  compare: {
    json: json('print the comparison as JSON'),
    html: htmlFlag('comparison'),
    columns: {
      flags: '--columns <LIST>',
      help: `one table of these columns, in this order, for the runs, in the text and the HTML page (JSON keeps everything): ${COMPARE_COLUMNS.join(', ')}`,
      defaultText: 'the usual tables',
      default: null,
      parse: listOf(oneOf(COMPARE_COLUMNS)),
    } satisfies Flag<CompareColumn[] | null>,
    ...bootstrapGroup,
  },
  plan: {
    difference: {
      flags: '--difference <D>',
      help: 'the difference in mean reward to detect, 0.001..1',
      defaultText: 'two runs: the one they show; one run: required',
      default: null,
      parse: number(0.001, 1),
    } satisfies Flag<number | null>,
    rollouts: {
      flags: '-r, --rollouts <K>',
      help: 'rollouts per task of the planned run(s), 1..1000',
      defaultText: "the pilot's",
      default: null,
      parse: integer(1, 1000),
    } satisfies Flag<number | null>,
    simulations: {
      flags: '--simulations <S>',
      help: 'simulated runs of the sequential rule, 100..100000',
      defaultText: '2000',
      default: 2000,
      parse: integer(100, 100_000),
    } satisfies Flag<number>,
    seed: { ...bootstrapGroup.seed, help: 'seed of the simulation, 0..4294967295' },
    maxTasks: {
      flags: '--max-tasks <N>',
      help: 'tasks at which a simulated sequential run stops undecided, 10..10000000',
      defaultText: '4 × the fixed design, at least 100',
      default: null,
      parse: integer(10, 10_000_000),
    } satisfies Flag<number | null>,
    json: json('print the plan as JSON'),
    ...reportPrices,
  },
  leaderboard: {
    by: {
      flags: '--by <MEASURE>',
      help: `rank by ${RANK_MEASURES.join(', ')}`,
      defaultText: RANK_MEASURES[0],
      default: RANK_MEASURES[0],
      parse: oneOf(RANK_MEASURES),
    } satisfies Flag<string>,
    includeIncomplete: {
      flags: '--include-incomplete',
      help: 'also rank runs that did not finish within their error budget (marked *)',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    json: json('print the leaderboard as JSON'),
    markdown: {
      flags: '--markdown',
      help: 'print Markdown tables, for a README or a paper',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    csv: {
      flags: '--csv',
      help: 'print one CSV row per run, every number at full precision',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    latex: {
      flags: '--latex',
      help: 'print LaTeX tables (booktabs), for a paper',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    html: htmlFlag('leaderboard'),
    svg: svgFlag('each group as a dot-and-interval plot'),
    columns: {
      flags: '--columns <LIST>',
      help: `the results table's columns, in this order, in every format but JSON (${LEADERBOARD_COLUMNS.join(', ')}); with --latex, a compact table for one column of a two-column paper`,
      defaultText: 'all',
      default: null,
      parse: listOf(oneOf(LEADERBOARD_COLUMNS)),
    } satisfies Flag<LeaderboardColumn[] | null>,
    ...bootstrapGroup,
  },
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
  serve: {
    batchFault: {
      flags: '--batch-fault <F>',
      help: `how every batch of the batch endpoints goes wrong: ${BATCH_FAULTS.join(', ')}`,
      defaultText: 'none',
      default: 'none',
      parse: oneOf(BATCH_FAULTS),
    } satisfies Flag<string>,
    port: {
      flags: '--port <P>',
      help: 'port, 0..65535; 0 picks a free one',
      defaultText: '8089',
      default: 8089,
      parse: integer(0, 65535),
    } satisfies Flag<number>,
    host: {
      ...text('--host <HOST>', 'interface to listen on'),
      defaultText: '127.0.0.1',
      default: '127.0.0.1',
      parse: parseHost,
    },
    policy: {
      flags: '--policy <NAME>',
      help: `the built-in policy that answers: ${POLICY_LIST}`,
      defaultText: 'oracle',
      default: 'oracle',
      parse: (value: unknown, name: string) => {
        if (typeof value === 'string' && isPolicyName(value)) return value;
        throw new ConfigError(
          `${name} must be one of ${POLICY_LIST}, got ${JSON.stringify(String(value).slice(0, 80))}`,
        );
      },
    } satisfies Flag<string>,
    latency: {
      flags: '--latency <MS>',
      help: 'delay before each answer, in milliseconds, 0..3600000',
      defaultText: '0',
      default: 0,
      parse: number(0, 3_600_000),
    } satisfies Flag<number>,
    errorRate: rate('--error-rate <P>', 'share of requests answered with HTTP 500'),
    rateLimitRate: rate('--rate-limit-rate <P>', 'share answered with HTTP 429 and Retry-After'),
    retryAfter: {
      flags: '--retry-after <SECONDS>',
      help: 'the Retry-After sent with a 429 or 500, 0..3600',
      defaultText: '1',
      default: 1,
      parse: number(0, 3600),
    } satisfies Flag<number>,
    hangRate: rate('--hang-rate <P>', 'share of requests never answered'),
    malformedRate: rate('--malformed-rate <P>', 'share answered 200 with a malformed body'),
    rateLimit: {
      flags: '--rate-limit <RPS>',
      help: 'admit at most RPS requests a second (a token bucket), 0..1000000; the rest get 429 with Retry-After',
      defaultText: 'no limit',
      default: 0,
      parse: number(0, 1_000_000),
    } satisfies Flag<number>,
    wholeSecondRetryAfter: {
      flags: '--whole-second-retry-after',
      help: 'with --rate-limit: send only Retry-After in whole seconds, no retry-after-ms',
      defaultText: null,
      default: false,
      parse: parseSwitch,
    } satisfies Flag<boolean>,
    cutRate: rate('--cut-rate <P>', 'share of replies cut mid-way, the connection closed'),
    stallRate: rate('--stall-rate <P>', 'share of replies that stop mid-way, the connection left open'),
    // The same as serve's DEFAULT_MAX_REQUEST_BYTES (a test holds them equal): settings do not import serve.
    maxRequestMb: {
      flags: '--max-request-mb <MB>',
      help: 'largest request body accepted, in MiB, 0.001..1024; larger ones get 413',
      defaultText: '8',
      default: 8,
      parse: number(0.001, 1024),
    } satisfies Flag<number>,
    // The same as serve's DEFAULT_BODY_BUDGET_BYTES and DEFAULT_MAX_CONNECTIONS (tests/serve/bounds.test.ts holds them equal).
    bodyBudgetMb: bodyBudget(64),
    maxConnections: maxConnections(4096),
    seed: {
      flags: '--seed <S>',
      help: 'seed of the fault draws, 0..4294967295',
      defaultText: '1',
      default: 1,
      parse: integer(0, 2 ** 32 - 1),
    } satisfies Flag<number>,
    reasoningTokens: {
      flags: '--reasoning-tokens <N>',
      help: 'act as a reasoning model that reasons N tokens before answering (at reasoning_effort medium or none sent; none 0, minimal N/4, low N/2, high 2N, xhigh 4N), 0..10000000; a max_tokens at or below that gets empty content cut by the limit',
      defaultText: '0',
      default: 0,
      parse: integer(0, 10_000_000),
    } satisfies Flag<number>,
    maxCompletionTokens: {
      flags: '--max-completion-tokens <N>',
      help: "the model's own cap on completion tokens (reasoning included) whatever the request asks, 0..10000000; 0: none. With --reasoning-tokens above it, every reply is empty content cut by the limit, as a reasoning model out of budget",
      defaultText: '0',
      default: 0,
      parse: integer(0, 10_000_000),
    } satisfies Flag<number>,
    apiKey: text('--api-key <KEY>', 'require this bearer key', { defaultText: 'accept any' }),
    models: {
      flags: '--models <IDS>',
      help: 'comma-separated model ids served; others get 404 model_not_found',
      defaultText: 'any',
      default: null,
      parse: (v: unknown, name: string) => {
        const ids = String(v)
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean);
        if (ids.length === 0) throw new ConfigError(`${name} must name at least one model id`);
        return ids;
      },
    } satisfies Flag<string[] | null>,
  },
  view: {
    bundle: text(
      '--bundle <FILE>',
      "instead of serving, write DIR's runs with every rollout, and the app, into one HTML file that opens without a server (docs/view.md)",
    ),
    port: {
      flags: '--port <P>',
      help: 'port, 0..65535; 0 picks a free one',
      defaultText: '8095',
      default: 8095,
      parse: integer(0, 65535),
    } satisfies Flag<number>,
    host: {
      ...text('--host <HOST>', 'interface to listen on; one other than loopback needs --token-var'),
      defaultText: '127.0.0.1',
      default: '127.0.0.1',
      parse: parseHost,
    },
    tokenVar: {
      flags: '--token-var <NAME>',
      help: 'require "Authorization: Bearer <token>" on the API, the token read from environment variable NAME (open the page with ?token=…)',
      defaultText: 'no token',
      default: null,
      parse: parseVarName,
    } satisfies Flag<string | null>,
    maxConnections: maxConnections(64),
    // Taken away in 0.5 (issue 37): the viewer keeps no index on disk, so neither flag has a meaning.
    indexDir: removedFlag('--index-dir <DIR>', VIEW_INDEX_GONE),
    indexMaxMb: removedFlag('--index-max-mb <MB>', VIEW_INDEX_GONE),
  },
  'reward-server': {
    port: {
      flags: '--port <P>',
      help: 'port, 0..65535; 0 picks a free one',
      defaultText: '8090',
      default: 8090,
      parse: integer(0, 65535),
    } satisfies Flag<number>,
    host: {
      ...text('--host <HOST>', 'interface to listen on'),
      defaultText: '127.0.0.1',
      default: '127.0.0.1',
      parse: parseHost,
    },
    tokenVar: {
      flags: '--token-var <NAME>',
      help: 'require "Authorization: Bearer <token>", the token read from environment variable NAME',
      defaultText: 'no token',
      default: null,
      parse: parseVarName,
    } satisfies Flag<string | null>,
    // A rollout batch of OpenRLHF is 128 prompts × 8 samples at most in its examples; room to spare.
    maxBatch: {
      flags: '--max-batch <N>',
      help: 'most items in one request, 1..1000000',
      defaultText: '4096',
      default: 4096,
      parse: integer(1, 1_000_000),
    } satisfies Flag<number>,
    maxBodyMb: {
      flags: '--max-body-mb <MB>',
      help: 'largest request body, in MiB, 0.001..1024',
      defaultText: '64',
      default: 64,
      parse: number(0.001, 1024),
    } satisfies Flag<number>,
    // The same as the reward server's defaults, as are --cache-mb and --max-rows (tests/serve/bounds.test.ts).
    bodyBudgetMb: bodyBudget(128),
    maxConnections: maxConnections(1024),
    // A default task's key is about 1 KB (20,000 keys, some 20 MB); a 10,000-row one about 3 MB.
    cacheSize: {
      flags: '--cache-size <N>',
      help: 'answer keys kept in memory, least recently used out first, 0..10000000',
      defaultText: '20000',
      default: 20_000,
      parse: integer(0, 10_000_000),
    } satisfies Flag<number>,
    cacheMb: {
      flags: '--cache-mb <MB>',
      help: 'MiB the kept answer keys may take together, 0..65536; the least recently used go first',
      defaultText: '64',
      default: 64,
      parse: number(0, 65_536),
    } satisfies Flag<number>,
    // A trainer's batch of 4,096 different 240-row tasks asks for 983,040 rows.
    maxRows: {
      flags: '--max-rows <N>',
      help: "ledger rows one request may need generated (its different labels' rows added up), 1..100000000; more get 413, and four times this in all requests at once gets 503",
      defaultText: '1000000',
      default: 1_000_000,
      parse: integer(1, 100_000_000),
    } satisfies Flag<number>,
    workers: {
      flags: '--workers <N>',
      help: 'grading threads, 0..64; 0 grades on the main thread',
      defaultText: 'one per core (none on one core)',
      default: null,
      parse: integer(0, 64),
    } satisfies Flag<number | null>,
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
} satisfies Record<CommandName, FlagSet>;

/** The servers' budget for the bodies of all requests not yet answered, in MiB. */
function bodyBudget(mb: number): Flag<number> {
  return {
    flags: '--body-budget-mb <MB>',
    help: 'MiB the bodies of all requests not yet answered may hold together, 0.001..65536; past it a request gets 503 with Retry-After',
    defaultText: String(mb),
    default: mb,
    parse: number(0.001, 65_536),
  };
}

/** The servers' limit on connections open at once. */
function maxConnections(n: number): Flag<number> {
  return {
    flags: '--max-connections <N>',
    help: 'connections open at once, 1..1000000; a request on one past it gets 503 and the connection closes',
    defaultText: String(n),
    default: n,
    parse: integer(1, 1_000_000),
  };
}

function rate(flags: string, help: string): Flag<number> {
  return { flags, help: `${help}, 0..1`, defaultText: '0', default: 0, parse: number(0, 1) };
}

export { COMMAND_NAMES, type CommandName } from './command-names.js';
