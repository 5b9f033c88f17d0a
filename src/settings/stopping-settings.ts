/**
 * The settings that end a run before its last task or fail it: the error budget, the precision
 * rule (`--precision`), and the decision against another run (`--against`, `--until`,
 * `--margin`).
 */
import { number } from './numbers.js';
import { setting } from './setting-entry.js';
import { parseText, parseUntil } from './setting-parse.js';

/** The error budget and the stopping rules, in the order of `bas eval --help`. */
export const STOPPING_SETTINGS = {
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
};
