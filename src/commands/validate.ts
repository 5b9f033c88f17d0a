/**
 * `bas validate`: re-derives every answer key without a model and checks it, either against
 * the generator's own record of what it injected or against the key a task file ships.
 */
import { readJsonLines } from '../io/jsonl.js';
import { checkAgainstInjected, checkAgainstShipped, type KeyCheck, type Pair } from '../task/check.js';
import { generateLedger } from '../task/generate.js';
import { taskFromJson } from '../task/serialize.js';
import { FAULT_CODES, type FaultCode, type FaultMap } from '../task/types.js';
import { taskConfigFromFlags, taskCountFromFlags, type TaskFlags } from './task-flags.js';
import { ConfigError } from '../errors.js';

export interface ValidateFlags extends TaskFlags {
  tasks?: string;
  json?: boolean;
}

/** As many tasks as the original environment's model-free check. */
export const VALIDATE_DEFAULT_N = 60;

interface Tally {
  tasks: number;
  valid: number;
  rows: number;
  /** Per code: pairs in the keys, pairs injected (generated only), chance collisions. */
  codes: Record<FaultCode, { key: number; injected: number; accidental: number }>;
  problems: { index: number; check: KeyCheck }[];
  accidental: { index: number; pairs: Pair[] }[];
}

function newTally(): Tally {
  const codes = {} as Tally['codes'];
  for (const c of FAULT_CODES) codes[c] = { key: 0, injected: 0, accidental: 0 };
  return { tasks: 0, valid: 0, rows: 0, codes, problems: [], accidental: [] };
}

function count(tally: Tally, index: number, rows: number, check: KeyCheck, injected: FaultMap | null): void {
  tally.tasks++;
  tally.rows += rows;
  if (check.valid) tally.valid++;
  else tally.problems.push({ index, check });
  for (const list of Object.values(check.key.faults)) for (const c of list) tally.codes[c].key++;
  if (injected) for (const list of Object.values(injected)) for (const c of list) tally.codes[c].injected++;
  for (const p of check.accidental) tally.codes[p.code].accidental++;
  if (check.accidental.length > 0) tally.accidental.push({ index, pairs: check.accidental });
}

function describePairs(pairs: Pair[]): string {
  return pairs.map((p) => `${p.id}:${p.code}`).join(', ');
}

function render(tally: Tally, source: string, plainTable: typeof import('../report/tables.js').plainTable): string {
  const lines = [`${tally.valid}/${tally.tasks} valid (${source}; ${tally.rows} rows)`];
  const generated = source.startsWith('generated');
  const head = generated ? ['fault code', 'in keys', 'injected', 'chance collisions'] : ['fault code', 'in keys'];
  const table = plainTable(head);
  for (const c of FAULT_CODES) {
    const t = tally.codes[c];
    table.push(generated ? [c, String(t.key), String(t.injected), String(t.accidental)] : [c, String(t.key)]);
  }
  lines.push(table.toString());
  for (const { index, pairs } of tally.accidental) {
    lines.push(`task ${index}: chance invoice collision, a real duplicate nobody injected: ${describePairs(pairs)}`);
  }
  for (const { index, check } of tally.problems) {
    lines.push(`task ${index}: INVALID`);
    if (check.missing.length > 0) lines.push(`  expected but not re-derived: ${describePairs(check.missing)}`);
    if (check.extra.length > 0) lines.push(`  re-derived but not expected: ${describePairs(check.extra)}`);
    for (const b of check.bas) lines.push(`  ${b.label}: expected ${b.expected}, re-derived ${b.derived}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function validate(flags: ValidateFlags): Promise<void> {
  const tally = newTally();
  let source: string;
  if (flags.tasks !== undefined) {
    if (flags.num !== undefined || flags.numTransactions !== undefined || flags.faultRate !== undefined || flags.seed !== undefined) {
      throw new ConfigError('--tasks reads the tasks from the file: drop -n, --num-transactions, --fault-rate and --seed');
    }
    source = `from ${flags.tasks}`;
    await readJsonLines(flags.tasks, '--tasks', (value) => {
      const task = taskFromJson(value);
      count(tally, task.index, task.ledger.rows.length, checkAgainstShipped(task.ledger, task.key), null);
    });
    if (tally.tasks === 0) throw new ConfigError(`--tasks: ${flags.tasks} holds no tasks`);
  } else {
    const config = taskConfigFromFlags(flags);
    const n = taskCountFromFlags(flags, VALIDATE_DEFAULT_N);
    source = `generated: seed ${config.seed}, ${config.num_transactions} rows, fault rate ${config.fault_rate}`;
    for (let i = 0; i < n; i++) {
      const { ledger, injected } = generateLedger(config, i);
      count(tally, i, ledger.rows.length, checkAgainstInjected(ledger, injected), injected);
    }
  }
  if (flags.json) {
    const out = {
      tasks: tally.tasks,
      valid: tally.valid,
      rows: tally.rows,
      codes: tally.codes,
      chance_collisions: tally.accidental,
      invalid: tally.problems.map(({ index, check }) => ({ index, missing: check.missing, extra: check.extra, bas: check.bas })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const { plainTable } = await import('../report/tables.js');
    process.stdout.write(render(tally, source, plainTable));
  }
  if (tally.valid !== tally.tasks) process.exitCode = 1;
}
