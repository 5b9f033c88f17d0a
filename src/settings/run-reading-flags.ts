/**
 * The flags of the commands that read run folders: `bas merge`, `bas report`, `bas compare`,
 * `bas plan` and `bas leaderboard`.
 */
import {
  COMPARE_COLUMNS,
  LEADERBOARD_COLUMNS,
  RANK_MEASURES,
  type CompareColumn,
  type LeaderboardColumn,
} from './choices.js';
import type { Flag } from './flag.js';
import { bootstrapGroup, htmlFlag, reportPrices, svgFlag } from './flag-groups.js';
import { json, listOf, oneOf, text } from './flag-kinds.js';
import { integer, number } from './numbers.js';
import { parseSwitch } from './setting-parse.js';
import { ConfigError } from '../errors/index.js';

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

/** merge's, report's, compare's, plan's and leaderboard's flags, each in the order of its `--help`. */
export const RUN_READING_FLAGS = {
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
};
