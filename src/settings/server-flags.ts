/**
 * The flags of the commands that serve: `bas serve` (the local scripted endpoint and its
 * faults), `bas view` (the web app over run folders) and `bas reward-server`, with the bounds
 * every server takes.
 */
import { isPolicyName, POLICY_LIST } from '../task/policy-names.js';
import { BATCH_FAULTS } from './choices.js';
import type { Flag } from './flag.js';
import { oneOf, removedFlag, text } from './flag-kinds.js';
import { integer, number } from './numbers.js';
import { parseHost, parseSwitch, parseVarName } from './setting-parse.js';
import { ConfigError } from '../errors/index.js';

/** Why bas view's index flags are refused: what replaced them. */
const VIEW_INDEX_GONE =
  'bas view keeps no index on disk any more: it reads each run when it is first opened (a run of 100,000 rollouts in well under 2 s) and keeps what it read in memory; drop the flag';

/** serve's, view's and reward-server's flags, each in the order of its `--help`. */
export const SERVER_FLAGS = {
  serve: {
    batchFault: {
      flags: '--batch-fault <F>',
      help: `how every batch of the batch endpoints goes wrong: ${BATCH_FAULTS.join(', ')}`,
      defaultText: 'none',
      default: 'none',
      parse: oneOf(BATCH_FAULTS),
    } satisfies Flag<string>,
    port: port(8089),
    host: host('interface to listen on'),
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
      "instead of serving, write DIR's runs with every rollout (a run past 20,000: its report's selection), and the app, into one HTML file that opens without a server (docs/view.md)",
    ),
    port: port(8095),
    host: host('interface to listen on; one other than loopback needs --token-var'),
    tokenVar: tokenVar(
      'require "Authorization: Bearer <token>" on the API, the token read from environment variable NAME (open the page with ?token=…)',
    ),
    maxConnections: maxConnections(64),
    // Taken away in 0.5 (issue 37): the viewer keeps no index on disk, so neither flag has a meaning.
    indexDir: removedFlag('--index-dir <DIR>', VIEW_INDEX_GONE),
    indexMaxMb: removedFlag('--index-max-mb <MB>', VIEW_INDEX_GONE),
  },
  'reward-server': {
    port: port(8090),
    host: host('interface to listen on'),
    tokenVar: tokenVar('require "Authorization: Bearer <token>", the token read from environment variable NAME'),
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
};

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

/** The port a server listens on; 0 picks a free one. */
function port(n: number): Flag<number> {
  return {
    flags: '--port <P>',
    help: 'port, 0..65535; 0 picks a free one',
    defaultText: String(n),
    default: n,
    parse: integer(0, 65535),
  };
}

/** The interface a server listens on, loopback unless told otherwise. */
function host(help: string): Flag<string> {
  return { ...text('--host <HOST>', help), defaultText: '127.0.0.1', default: '127.0.0.1', parse: parseHost };
}

/** The environment variable holding the bearer token a server requires of its clients. */
function tokenVar(help: string): Flag<string | null> {
  return { flags: '--token-var <NAME>', help, defaultText: 'no token', default: null, parse: parseVarName };
}
