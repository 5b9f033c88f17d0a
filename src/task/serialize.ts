/**
 * Tasks as the JSON objects `bas gen --format jsonl` writes and `--tasks FILE` reads: money
 * as two-decimal strings, field names as SPEC.md lists them. Reading checks every field and
 * names the first one that is wrong; the caller adds the file and line.
 */
import { TaskShapeError } from '../errors/index.js';
import { formatCents, parseMoneyString } from './money.js';
import { resolveTaskConfig } from './config.js';
import {
  BAS_LABELS,
  CATEGORIES,
  FAULT_CODES,
  type AnswerKey,
  type Bas,
  type Category,
  type ChatMessage,
  type FaultCode,
  type FaultMap,
  type Row,
  type Task,
} from './types.js';

/** A task in its file form. */
export function taskToJson(task: Task): Record<string, unknown> {
  return {
    index: task.index,
    generator: task.generator,
    prompt_version: task.prompt_version,
    config: {
      num_transactions: task.config.num_transactions,
      fault_rate: task.config.fault_rate,
      seed: task.config.seed,
    },
    ledger: {
      business: { name: task.ledger.business.name, abn: task.ledger.business.abn, trade: task.ledger.business.trade },
      period: { start: task.ledger.period.start, end: task.ledger.period.end },
      transactions: task.ledger.rows.map(rowToJson),
    },
    key: { bas: basToJson(task.key.bas), faults: task.key.faults },
    injected: task.injected,
    prompt: task.prompt,
  };
}

function rowToJson(r: Row): Record<string, string> {
  return {
    id: r.id,
    date: r.date,
    type: r.type,
    counterparty: r.counterparty,
    description: r.description,
    category: r.category,
    amount: formatCents(r.amount),
    gst: formatCents(r.gst),
    invoice: r.invoice,
    abn: r.abn,
  };
}

function basToJson(bas: Bas): Record<string, string> {
  return {
    G1: formatCents(bas.G1),
    '1A': formatCents(bas['1A']),
    '1B': formatCents(bas['1B']),
    net: formatCents(bas.net),
  };
}

function fail(path: string, what: string): never {
  throw new TaskShapeError(`${path} ${what}`);
}

function obj(value: unknown, path: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

function str(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, 'must be a string');
  return value;
}

function money(value: unknown, path: string): number {
  const cents = parseMoneyString(str(value, path));
  if (cents === null) fail(path, `must be an amount with two decimals, got ${JSON.stringify(value)}`);
  return cents;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const CATEGORY_SET = new Set<string>(CATEGORIES);
const CODE_SET = new Set<string>(FAULT_CODES);

function isCalendarDate(s: string): boolean {
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return days !== undefined && d >= 1 && d <= days;
}

function date(value: unknown, path: string): string {
  const s = str(value, path);
  if (!ISO_DATE.test(s) || !isCalendarDate(s))
    fail(path, `must be a calendar date YYYY-MM-DD, got ${JSON.stringify(s)}`);
  return s;
}

function rowFromJson(value: unknown, path: string): Row {
  const o = obj(value, path);
  const type = str(o.type, `${path}.type`);
  if (type !== 'sale' && type !== 'purchase') fail(`${path}.type`, 'must be "sale" or "purchase"');
  const category = str(o.category, `${path}.category`);
  if (!CATEGORY_SET.has(category)) fail(`${path}.category`, `is not a known category: ${JSON.stringify(category)}`);
  return {
    id: str(o.id, `${path}.id`),
    date: date(o.date, `${path}.date`),
    type,
    counterparty: str(o.counterparty, `${path}.counterparty`),
    description: o.description === undefined ? '' : str(o.description, `${path}.description`),
    category: category as Category,
    amount: money(o.amount, `${path}.amount`),
    gst: money(o.gst, `${path}.gst`),
    invoice: str(o.invoice, `${path}.invoice`),
    abn: str(o.abn, `${path}.abn`),
  };
}

function faultsFromJson(value: unknown, path: string): FaultMap {
  const o = obj(value, path);
  const out: FaultMap = {};
  for (const [id, codes] of Object.entries(o)) {
    if (!Array.isArray(codes)) fail(`${path}.${id}`, 'must be a list of fault codes');
    for (const c of codes)
      if (typeof c !== 'string' || !CODE_SET.has(c))
        fail(`${path}.${id}`, `holds an unknown fault code ${JSON.stringify(c)}`);
    Object.defineProperty(out, id, {
      value: [...new Set(codes as FaultCode[])].sort(),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** An answer key as a task file holds it: money as two-decimal strings. */
export interface AnswerKeyJson {
  bas: Record<keyof Bas, string>;
  faults: Record<string, string[]>;
}

/**
 * An answer key in either form bas hands out, checked: the typed key (each figure integer
 * cents) or a task file's (two-decimal strings). Throws TaskShapeError naming the first bad field.
 */
export function keyInCents(value: unknown, path = 'key'): AnswerKey {
  return keyFromJson(value, path, true);
}

/** An answer key as a task file holds it, or with `cents`, as `keyInCents` takes it. */
function keyFromJson(value: unknown, path: string, cents = false): AnswerKey {
  const o = obj(value, path);
  const basObj = obj(o.bas, `${path}.bas`);
  const bas = {} as Bas;
  for (const label of BAS_LABELS) {
    const figure = basObj[label];
    if (cents && typeof figure === 'number') {
      if (!Number.isSafeInteger(figure))
        fail(`${path}.bas.${label}`, `must be whole cents or an amount with two decimals, got ${figure}`);
      bas[label] = figure;
    } else bas[label] = money(figure, `${path}.bas.${label}`);
  }
  return { bas, faults: faultsFromJson(o.faults, `${path}.faults`) };
}

function promptFromJson(value: unknown, path: string): ChatMessage[] {
  if (!Array.isArray(value)) fail(path, 'must be a list of messages');
  return value.map((m, i) => {
    const o = obj(m, `${path}[${i}]`);
    const role = str(o.role, `${path}[${i}].role`);
    if (role !== 'system' && role !== 'user' && role !== 'assistant')
      fail(`${path}[${i}].role`, 'must be system, user or assistant');
    return { role, content: str(o.content, `${path}[${i}].content`) };
  });
}

/** A version number from a task file: absent (files made before generator 3) reads as null. */
function version(value: unknown, path: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) fail(path, 'must be a positive integer');
  return value;
}

/** A task read back from its file form; throws TaskShapeError naming the first bad field. */
export function taskFromJson(value: unknown): Task {
  const o = obj(value, 'the task');
  const index = o.index;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)
    fail('index', 'must be a non-negative integer');
  const c = obj(o.config, 'config');
  let config;
  try {
    config = resolveTaskConfig(c, {
      num_transactions: 'config.num_transactions',
      fault_rate: 'config.fault_rate',
      seed: 'config.seed',
    });
  } catch (err) {
    throw new TaskShapeError((err as Error).message);
  }
  const ledger = obj(o.ledger, 'ledger');
  const business = obj(ledger.business, 'ledger.business');
  const period = obj(ledger.period, 'ledger.period');
  const transactions = ledger.transactions;
  if (!Array.isArray(transactions)) fail('ledger.transactions', 'must be a list');
  if (transactions.length !== config.num_transactions) {
    fail(
      'ledger.transactions',
      `holds ${transactions.length} rows but config.num_transactions is ${config.num_transactions}`,
    );
  }
  const rows = transactions.map((t, i) => rowFromJson(t, `ledger.transactions[${i}]`));
  const ids = new Set<string>();
  rows.forEach((r, i) => {
    if (ids.has(r.id)) fail(`ledger.transactions[${i}].id`, `repeats the id ${JSON.stringify(r.id)}`);
    ids.add(r.id);
  });
  return {
    index,
    generator: version(o.generator, 'generator'),
    prompt_version: version(o.prompt_version, 'prompt_version'),
    config,
    ledger: {
      business: {
        name: str(business.name, 'ledger.business.name'),
        abn: str(business.abn, 'ledger.business.abn'),
        trade: business.trade === undefined ? '' : str(business.trade, 'ledger.business.trade'),
      },
      period: { start: date(period.start, 'ledger.period.start'), end: date(period.end, 'ledger.period.end') },
      rows,
    },
    key: keyFromJson(o.key, 'key'),
    injected: o.injected === undefined ? {} : faultsFromJson(o.injected, 'injected'),
    prompt: o.prompt === undefined ? [] : promptFromJson(o.prompt, 'prompt'),
  };
}
