/**
 * The settings of what a run costs: the prices of prompt and completion tokens (kept in
 * run.json for the reports) and the budgets, in dollars and in tokens, it stops at.
 */
import { integer as count, number } from './numbers.js';
import { setting } from './setting-entry.js';

/** Prices and budgets, in the order of `bas eval --help`. */
export const COST_SETTINGS = {
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
