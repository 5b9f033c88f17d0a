/**
 * The seeded ledger generator: one business, one BAS quarter, clean rows first, then faults
 * injected at `fault_rate`. It records what it injected; the key is derived separately by
 * `rules.ts` from the finished ledger.
 */
import { buildCleanRows } from './ledger-rows.js';
import { quarterDays } from './calendar.js';
import { randomAbn } from './abn.js';
import { Rng } from './random.js';
import { deriveKey } from './rules.js';
import { injectFaults } from './inject.js';
import { buildPrompt, PROMPT_VERSION } from './prompt.js';
import { BUSINESS_FIRST, TRADES } from './vocabulary.js';
import type { Ledger, Task, TaskConfig } from './types.js';

/**
 * The generator's version: raised whenever the same `(seed, num_transactions, fault_rate,
 * index)` would give a different task, so runs made before and after are never mixed. 1: up
 * to bas 0.1.0, whose first draw ignored the low words of seed and index; 2: since 0.2.0;
 * 3 (since 0.3.0): businesses with a trade that decides what they sell and buy, and new taxable
 * categories.
 */
export const GENERATOR_VERSION = 3;

/** Years the quarters are drawn from. */
const FIRST_YEAR = 2022;
const LAST_YEAR = 2026;

/** The ledger of task `index` and what was injected into it, without key or prompt. */
export function generateLedger(config: TaskConfig, index: number): { ledger: Ledger; injected: Task['injected'] } {
  const rng = Rng.forTask(config.seed, index);
  const trade = rng.pick(TRADES);
  const business = {
    name: `${rng.pick(BUSINESS_FIRST)} ${rng.pick(trade.suffixes)} Pty Ltd`,
    abn: randomAbn(rng),
    trade: trade.name,
  };
  const days = quarterDays(rng.int(FIRST_YEAR, LAST_YEAR), 3 * rng.int(0, 3));
  const rows = buildCleanRows(rng, config.num_transactions, days, trade);
  const injected = injectFaults(rng, rows, days, config.fault_rate);
  return { ledger: { business, period: days.period, rows }, injected };
}

/**
 * Task `index` of a configuration: deterministic in `(seed, num_transactions, fault_rate, index)`.
 * With `prompt: false` the messages are left empty, for callers that show only the ledger.
 */
export function generateTask(config: TaskConfig, index: number, { prompt = true } = {}): Task {
  const { ledger, injected } = generateLedger(config, index);
  return {
    index,
    generator: GENERATOR_VERSION,
    prompt_version: PROMPT_VERSION,
    config: { ...config },
    ledger,
    injected,
    key: deriveKey(ledger),
    prompt: prompt ? buildPrompt(ledger) : [],
  };
}
