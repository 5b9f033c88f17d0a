/**
 * The groups of flags several commands share: the task group (which tasks), the sampling
 * group as gen writes it and as score is told it, the bootstrap group (the paired comparisons
 * of compare and leaderboard), the price group as report takes it, and the output flags
 * (`--html`, `--svg`; `--json` is a kind of flag, flag-kinds.ts).
 */
import type { Flag } from './flag.js';
import { text } from './flag-kinds.js';
import { integer } from './numbers.js';
import { SETTINGS } from './setting-table.js';

/** The task group: which tasks. `-n`'s default is the command's own. */
export function taskGroup(n: number) {
  return {
    num: { ...SETTINGS.num, default: n, defaultText: String(n) },
    numTransactions: SETTINGS.numTransactions,
    faultRate: SETTINGS.faultRate,
    seed: SETTINGS.seed,
  };
}

/** The sampling group, as `bas gen --format batch` writes it into each request. */
export const batchOnly = <V>(f: Flag<V>): Flag<V> => ({ ...f, help: `${f.help} (--format batch)`, doc: undefined });
/** A sampling setting `bas score` is told (the replies were made elsewhere): recorded, never sent. */
export const toldSampling = <V>(f: Flag<V>): Flag<V> => ({
  ...f,
  help: `${f.help}: what the replies were sampled with, recorded in the run folder`,
  doc: 'What the replies were sampled with, recorded in the run folder\'s run.json; a sampling flag left out then reads "not sent". With no sampling flag at all, the sampling is recorded as unknown.',
  defaultText: 'unknown',
});

/** The bootstrap group: the paired comparisons of compare and leaderboard. */
export const bootstrapGroup = {
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
export const reportPrices = {
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

export const htmlFlag = (what: string) => text('--html <FILE>', `also write a self-contained HTML ${what} to FILE`);
export const svgFlag = (what: string) =>
  text('--svg <FILE>', `also write ${what} to FILE as a standalone SVG figure (for a paper; docs/reports.md)`);
