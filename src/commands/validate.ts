/**
 * `bas validate`: re-derives every answer key without a model and checks it against the
 * generator's record of what it injected; for a task file, also against the key it ships.
 */
import { readJsonLines } from '../io/jsonl.js';
import { checkAgainstInjected, checkAgainstShipped, type KeyCheck, type Pair } from '../task/check.js';
import { generateLedger } from '../task/generate.js';
import { taskFromJson } from '../task/serialize.js';
import { FAULT_CODES, type FaultCode, type FaultMap } from '../task/types.js';
import { ConfigError } from '../errors/index.js';

import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { taskConfigOf } from '../settings/setting-table.js';
import { readFlags } from '../settings/flag.js';
import * as std from '../io/std.js';

interface Tally {
  tasks: number;
  valid: number;
  rows: number;
  /** Per code: pairs in the keys, pairs injected, chance collisions. */
  codes: Record<FaultCode, { key: number; injected: number; accidental: number }>;
  /** Failed checks; `against` says which reference the re-derived key was held to. */
  problems: { index: number; against: 'injected' | 'shipped key'; check: KeyCheck }[];
  accidental: { index: number; pairs: Pair[] }[];
}

function newTally(): Tally {
  const codes = {} as Tally['codes'];
  for (const c of FAULT_CODES) codes[c] = { key: 0, injected: 0, accidental: 0 };
  return { tasks: 0, valid: 0, rows: 0, codes, problems: [], accidental: [] };
}

/**
 * Tallies one task: `injected` is the check against the injection record (null for a task
 * file that ships none), `shipped` the check against the key a task file ships (null for
 * generated tasks); the task is valid when every check made passes.
 */
function count(
  tally: Tally,
  index: number,
  rows: number,
  record: FaultMap,
  injected: KeyCheck | null,
  shipped: KeyCheck | null,
): void {
  tally.tasks++;
  tally.rows += rows;
  if ((injected?.valid ?? true) && (shipped?.valid ?? true)) tally.valid++;
  if (injected && !injected.valid) tally.problems.push({ index, against: 'injected', check: injected });
  if (shipped && !shipped.valid) tally.problems.push({ index, against: 'shipped key', check: shipped });
  const key = (injected ?? shipped)!.key;
  for (const list of Object.values(key.faults)) for (const c of list) tally.codes[c].key++;
  for (const list of Object.values(record)) for (const c of list) tally.codes[c].injected++;
  const accidental = injected?.accidental ?? [];
  for (const p of accidental) tally.codes[p.code].accidental++;
  if (accidental.length > 0) tally.accidental.push({ index, pairs: accidental });
}

function describePairs(pairs: Pair[]): string {
  return pairs.map((p) => `${p.id}:${p.code}`).join(', ');
}

function render(tally: Tally, source: string, plainTable: typeof import('../report/tables.js').plainTable): string {
  const lines = [`${tally.valid}/${tally.tasks} valid (${source}; ${tally.rows} rows)`];
  const table = plainTable(['fault code', 'in keys', 'injected', 'chance collisions']);
  for (const c of FAULT_CODES) {
    const t = tally.codes[c];
    table.push([c, String(t.key), String(t.injected), String(t.accidental)]);
  }
  lines.push(table.toString());
  for (const { index, pairs } of tally.accidental) {
    lines.push(`task ${index}: chance invoice collision, a real duplicate nobody injected: ${describePairs(pairs)}`);
  }
  for (const { index, against, check } of tally.problems) {
    lines.push(
      `task ${index}: INVALID against the ${against === 'injected' ? 'record of injected faults' : 'shipped key'}`,
    );
    if (check.missing.length > 0) lines.push(`  expected but not re-derived: ${describePairs(check.missing)}`);
    if (check.extra.length > 0) lines.push(`  re-derived but not expected: ${describePairs(check.extra)}`);
    for (const b of check.bas) lines.push(`  ${b.label}: expected ${b.expected}, re-derived ${b.derived}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `bas validate`; its exit code is 1 when any answer key failed its check, else 0. */
export async function validate(given: Record<string, unknown>): Promise<number> {
  const flags = readFlags(COMMAND_FLAGS.validate, given);
  const tally = newTally();
  let source: string;
  if (flags.tasks !== null) {
    if (['num', 'numTransactions', 'faultRate', 'seed'].some((k) => given[k] !== undefined)) {
      throw new ConfigError(
        '--tasks reads the tasks from the file: drop -n, --num-transactions, --fault-rate and --seed',
      );
    }
    source = `from ${flags.tasks}`;
    await readJsonLines(flags.tasks, '--tasks', (value) => {
      const task = taskFromJson(value);
      const { ledger, injected } = task;
      // A file written by other tools may leave the injection record out; then only the key is checked.
      const shipsRecord = Object.hasOwn(value as object, 'injected');
      const injectedCheck = shipsRecord ? checkAgainstInjected(ledger, injected) : null;
      count(tally, task.index, ledger.rows.length, injected, injectedCheck, checkAgainstShipped(ledger, task.key));
    });
    if (tally.tasks === 0) throw new ConfigError(`--tasks: ${flags.tasks} holds no tasks`);
  } else {
    const config = taskConfigOf(flags);
    const n = flags.num;
    source = `generated: seed ${config.seed}, ${config.num_transactions} rows, fault rate ${config.fault_rate}`;
    for (let i = 0; i < n; i++) {
      const { ledger, injected } = generateLedger(config, i);
      count(tally, i, ledger.rows.length, injected, checkAgainstInjected(ledger, injected), null);
    }
  }
  if (flags.json) {
    const out = {
      tasks: tally.tasks,
      valid: tally.valid,
      rows: tally.rows,
      codes: tally.codes,
      chance_collisions: tally.accidental,
      invalid: tally.problems.map(({ index, against, check }) => ({
        index,
        against,
        missing: check.missing,
        extra: check.extra,
        bas: check.bas,
      })),
    };
    std.stdout().write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const { plainTable } = await import('../report/tables.js');
    std.stdout().write(render(tally, source, plainTable));
  }
  return tally.valid === tally.tasks ? 0 : 1;
}
