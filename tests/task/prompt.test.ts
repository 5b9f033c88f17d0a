import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTask } from '../../src/task/generate.js';
import { RULES_TEXT } from '../../src/task/prompt.js';
import { readLedgerFromPrompt } from '../../src/task/read-prompt.js';
import { taskFromJson, taskToJson } from '../../src/task/serialize.js';
import { CATEGORIES, FAULT_CODES } from '../../src/task/types.js';

describe('the prompt', () => {
  const task = generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 20260826 }, 0);
  const user = task.prompt.find((m) => m.role === 'user')!.content;

  it('states the period, every category, every code, the threshold, the formula and the format', () => {
    expect(user).toContain(`${task.ledger.period.start} to ${task.ledger.period.end}`);
    for (const c of CATEGORIES) expect(RULES_TEXT).toContain(c);
    for (const c of FAULT_CODES) expect(RULES_TEXT).toContain(`- ${c}:`);
    for (const label of ['G1', '1A', '1B', 'net']) expect(RULES_TEXT).toContain(`- ${label}:`);
    expect(RULES_TEXT).toContain('82.50');
    expect(RULES_TEXT).toContain('amount / 11');
    expect(RULES_TEXT).toMatch(/half a cent rounds up/);
    expect(RULES_TEXT).toMatch(/or none/);
    expect(RULES_TEXT).toContain('<answer>');
  });

  it('holds every row, and the ledger reads back from it exactly', () => {
    const back = readLedgerFromPrompt(task.prompt)!;
    expect(back.period).toEqual(task.ledger.period);
    expect(back.rows.map(({ description: _d, ...r }) => r)).toEqual(task.ledger.rows.map(({ description: _d, ...r }) => r));
  });

  it('does not leak the key or the injection record', () => {
    expect(user).not.toMatch(/injected/);
    for (const id of Object.keys(task.key.faults)) expect(user).not.toContain(`${id}: `);
  });

  it('a prompt without a ledger reads as none', () => {
    expect(readLedgerFromPrompt([{ role: 'user', content: 'hello' }])).toBeNull();
  });
});

describe('task files', () => {
  it('a task survives the trip to JSON and back', () => {
    const task = generateTask({ num_transactions: 30, fault_rate: 0.5, seed: 11 }, 4);
    const json = JSON.parse(JSON.stringify(taskToJson(task)));
    expect(Object.keys(json)).toEqual(['index', 'config', 'ledger', 'key', 'injected', 'prompt']);
    expect(json.ledger.transactions[0].amount).toMatch(/^\d+\.\d{2}$/);
    expect(taskFromJson(json)).toEqual(task);
  });

  it.each<[string, (j: any) => void, RegExp]>([
    ['a bad amount', (j) => (j.ledger.transactions[2].amount = '12.345'), /transactions\[2\]\.amount/],
    ['an unknown category', (j) => (j.ledger.transactions[0].category = 'snacks'), /category/],
    ['a missing key', (j) => delete j.key, /^key must be an object/],
    ['an unknown fault code', (j) => (j.key.faults = { T01: ['nope'] }), /unknown fault code/],
    ['a bad config', (j) => (j.config.num_transactions = 2), /config\.num_transactions/],
    ['an impossible date', (j) => (j.ledger.transactions[1].date = '2024-13-45'), /transactions\[1\]\.date must be a calendar date/],
    ['the 30th of February', (j) => (j.ledger.period.end = '2023-02-30'), /ledger\.period\.end/],
    ['a repeated id', (j) => (j.ledger.transactions[3].id = j.ledger.transactions[2].id), /transactions\[3\]\.id repeats/],
    ['a row count that is not the configured one', (j) => j.ledger.transactions.pop(), /holds 23 rows but config\.num_transactions is 24/],
  ])('names the field on %s', (_n, mutate, message) => {
    const json = JSON.parse(JSON.stringify(taskToJson(generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 1 }, 0))));
    mutate(json);
    expect(() => taskFromJson(json)).toThrow(message);
  });
});

describe('src/task stays pure', () => {
  it('imports no node modules, and uses no clock, Math.random or process', () => {
    const dir = join(__dirname, '../../src/task');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/from ['"](node:|fs|path|http|os|child_process)/);
      expect(text, file).not.toMatch(/Math\.random|Date\.now|new Date\(\)|process\./);
      expect(text, file).not.toMatch(/from ['"]\.\.\/(run|report|commands|io)\//);
    }
  });
});
