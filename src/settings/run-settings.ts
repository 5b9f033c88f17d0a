/**
 * The settings of how a run is carried out and kept: the largest reply it accepts, whether
 * concurrency adapts to rate limits, a `bas check` first, the run folder, the response cache,
 * the progress display, and the shard it runs.
 */
import { resolve } from 'node:path';
import { parseShard, readShard, shardLabel } from './shard.js';
import { number } from './numbers.js';
import { setting } from './setting-entry.js';
import { MAX_RESPONSE_MB, parseSwitch, parseText } from './setting-parse.js';

/** How the run is carried out and kept, in the order of `bas eval --help`. */
export const RUN_SETTINGS = {
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
};
