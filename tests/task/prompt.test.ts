import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPrompt, PROMPT_COLUMNS, PROMPT_VERSION } from '../../src/task/prompt.js';
import { formatCents } from '../../src/task/money.js';
import fc from 'fast-check';
import { readLedgerFromPrompt, runPolicy } from '../../src/task/policies.js';
import { scoreReply } from '../../src/task/score.js';
import { taskFromJson, taskToJson } from '../../src/task/serialize.js';
import { GENERATOR_VERSION, generateTask } from '../../src/task/generate.js';
import {
  CATEGORIES,
  FAULT_CODES,
  GST_FREE_CATEGORIES,
  INPUT_TAXED_CATEGORIES,
  TAXABLE_CATEGORIES,
  type TaskConfig,
} from '../../src/task/types.js';

/** The user message of a task: what these tests read, and nothing else of the task. */
function userText(config: TaskConfig, index = 0): string {
  return generateTask(config, index).prompt.find((m) => m.role === 'user')!.content;
}

/** The fixed part of a prompt (every message, minus the ledger's data rows), and the data rows. */
function split(config: TaskConfig, index: number): { fixed: number; rows: string[] } {
  const t = generateTask(config, index);
  const all = t.prompt.map((m) => m.content).join('\n');
  const header = `\n${PROMPT_COLUMNS.join(',')}\n`;
  const at = all.indexOf(header) + header.length;
  return { fixed: at, rows: all.slice(at).split('\n') };
}

/** The fixed part and the mean row of prompt 1 (generator 2), in characters, measured before the rewrite. */
const PROMPT_1_FIXED_CHARS = 2043;
const PROMPT_1_ROW_CHARS_AT_60 = 84.2;

describe('the prompt', () => {
  const task = generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 20260826 }, 0);
  const user = task.prompt.find((m) => m.role === 'user')!.content;

  it('states the period, every category, every code, the threshold, the formula and the format', () => {
    expect(user).toContain(`${task.ledger.period.start} to ${task.ledger.period.end}`);
    for (const c of CATEGORIES) expect(user).toContain(c);
    for (const c of FAULT_CODES) expect(user).toContain(`- ${c}:`);
    for (const label of ['G1', '1A', '1B', 'net']) expect(user).toContain(`- ${label}:`);
    expect(user).toContain('amount / 11');
    expect(user).toMatch(/half a cent rounds up/);
    expect(user).toMatch(/any number of faults, or none/);
    expect(user).toContain('<answer>');
  });

  it('lists each category under its class', () => {
    const listed = (cls: string) => new RegExp(`^- ${cls}: (.*)$`, 'm').exec(user)![1]!.split(', ');
    expect(listed('taxable')).toEqual([...TAXABLE_CATEGORIES]);
    expect(listed('GST-free')).toEqual([...GST_FREE_CATEGORIES]);
    expect(listed('input-taxed')).toEqual([...INPUT_TAXED_CATEGORIES]);
  });

  // Each rule the key applies, as the prompt must state it (SPEC.md, "The prompt").
  it.each<[string, RegExp]>([
    ['posting order', /Rows are in posting order; "earlier" means higher in the list\./],
    ['what a duplicate is', /invoice number already appears on an earlier row \(sale or purchase\)/],
    [
      'the original of a duplicate, even when left out',
      /never the first: it is the original even if dated outside the quarter/,
    ],
    ['the negative form', /write a negative figure as "-176\.89"/],
    ['ids exactly as in the ledger', /each faulty row id, exactly as in the ledger,/],
    ['categories as given', /Each category is correct as given and is never a fault\./],
    ['the rules as written', /Apply these rules exactly as written, even where ATO practice differs/],
    ['GST per row', /GST per row, not from totals/],
    ['invoice numbers across the ledger', /invoice number is unique across the whole ledger, whoever issued it/],
    [
      'the threshold on the GST-inclusive price for every category',
      /the 82\.50 test is on the GST-inclusive amount, for every category/,
    ],
    ['the threshold itself', /purchase with amount over 82\.50 \(82\.50 itself is not over\) and a blank abn/],
    ['out-of-quarter rows dropped', /rows outside the quarter are dropped, not carried forward/],
    ['cents', /figures in cents, not whole dollars/],
    ['the exclusions', /Leave out every row flagged outside_period or duplicate_invoice\./],
    ['no credit without an ABN', /except those flagged missing_abn_over_threshold/],
    ['GST from the rules, not the column', /Always use correct GST, never the gst column\./],
  ])('states %s', (_name, rule) => {
    expect(user).toMatch(rule);
  });

  it.each([
    [4, 'T1'],
    [24, 'T01'],
    [100, 'T001'],
    [1000, 'T0001'],
  ])("with %i rows, the answer template uses the ledger's own id form (%s)", (n, id) => {
    const text = userText({ num_transactions: n, fault_rate: 0.25, seed: 3 });
    expect(text).toContain(`"faults": {"${id}": [`);
    expect(text).toContain(`\n${id},`);
  });

  it('the fixed part grows by at most a quarter, and a row costs no more than before', () => {
    let fixed = 0;
    let chars = 0;
    let rows = 0;
    for (let i = 0; i < 50; i++) {
      const s = split({ num_transactions: 60, fault_rate: 0.35, seed: 20260826 }, i);
      fixed = Math.max(fixed, s.fixed);
      for (const r of s.rows) chars += r.length + 1;
      rows += s.rows.length;
    }
    expect(fixed).toBeLessThanOrEqual(PROMPT_1_FIXED_CHARS * 1.25);
    expect(chars / rows).toBeLessThanOrEqual(PROMPT_1_ROW_CHARS_AT_60);
  });

  it('holds every row, and the ledger reads back from it exactly', () => {
    const back = readLedgerFromPrompt(task.prompt)!;
    expect(back.period).toEqual(task.ledger.period);
    expect(back.rows.map(({ description: _d, ...r }) => r)).toEqual(
      task.ledger.rows.map(({ description: _d, ...r }) => r),
    );
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
    expect(Object.keys(json)).toEqual([
      'index',
      'generator',
      'prompt_version',
      'config',
      'ledger',
      'key',
      'injected',
      'prompt',
    ]);
    expect(json).toMatchObject({ generator: GENERATOR_VERSION, prompt_version: PROMPT_VERSION });
    expect(json.ledger.business.trade).toBe(task.ledger.business.trade);
    expect(json.ledger.transactions[0].amount).toMatch(/^\d+\.\d{2}$/);
    expect(taskFromJson(json)).toEqual(task);
  });

  it('a task file made before generator 3 (no versions, no trade) still reads', () => {
    const json = JSON.parse(
      JSON.stringify(taskToJson(generateTask({ num_transactions: 8, fault_rate: 0.5, seed: 2 }, 1))),
    );
    delete json.generator;
    delete json.prompt_version;
    delete json.ledger.business.trade;
    const back = taskFromJson(json);
    expect(back).toMatchObject({ generator: null, prompt_version: null, ledger: { business: { trade: '' } } });
  });

  it.each<[string, (j: any) => void, RegExp]>([
    ['a bad generator version', (j) => (j.generator = 'three'), /^generator must be a positive integer/],
    ['a bad amount', (j) => (j.ledger.transactions[2].amount = '12.345'), /transactions\[2\]\.amount/],
    ['an unknown category', (j) => (j.ledger.transactions[0].category = 'snacks'), /category/],
    ['a missing key', (j) => delete j.key, /^key must be an object/],
    ['an unknown fault code', (j) => (j.key.faults = { T01: ['nope'] }), /unknown fault code/],
    // Whole cents are the typed key's form (keyInCents), not a task file's.
    ['a figure in cents', (j) => (j.key.bas.G1 = 100), /^key\.bas\.G1 must be a string$/],
    ['a bad config', (j) => (j.config.num_transactions = 2), /config\.num_transactions/],
    [
      'an impossible date',
      (j) => (j.ledger.transactions[1].date = '2024-13-45'),
      /transactions\[1\]\.date must be a calendar date/,
    ],
    ['the 30th of February', (j) => (j.ledger.period.end = '2023-02-30'), /ledger\.period\.end/],
    [
      'a repeated id',
      (j) => (j.ledger.transactions[3].id = j.ledger.transactions[2].id),
      /transactions\[3\]\.id repeats/,
    ],
    [
      'a row count that is not the configured one',
      (j) => j.ledger.transactions.pop(),
      /holds 23 rows but config\.num_transactions is 24/,
    ],
  ])('names the field on %s', (_n, mutate, message) => {
    const json = JSON.parse(
      JSON.stringify(taskToJson(generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 1 }, 0))),
    );
    mutate(json);
    expect(() => taskFromJson(json)).toThrow(message);
  });
});

describe('src/task stays pure', () => {
  it('imports no node modules, and uses no clock, Math.random or process', () => {
    const dir = join(__dirname, '../../src/task');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/from ['"](node:|fs|path|http|os|child_process)/);
      expect(text, file).not.toMatch(/Math\.random|Date\.now|new Date\(\)|process\./);
      expect(text, file).not.toMatch(/from ['"]\.\.\/(run|report|commands|io)\//);
    }
  });
});

describe('prompts and the reference policies stay byte for byte what they were', () => {
  it('every id form, ledger size and policy reply hashes as before the allocation work', () => {
    // Taken from the code before the prompt was built and read back with less garbage: any
    // change to a prompt's text or to a policy's reply changes this digest.
    const h = createHash('sha256');
    for (const n of [4, 9, 24, 60, 150]) {
      for (let i = 0; i < 40; i++) {
        const t = generateTask({ num_transactions: n, fault_rate: 0.35, seed: 20260826 }, i);
        h.update(JSON.stringify(t.prompt));
        for (const p of ['oracle', 'raw-sums', 'blanket', 'silent'] as const) h.update(runPolicy(p, t.prompt));
      }
    }
    expect(h.digest('hex')).toBe('6325d1af5d2b1ca2bb05ef432b4701ee3e324d6037104ebb54aa67b2d4919a68');
  });
});

describe('scores stay byte for byte what they were', () => {
  it('the scores of every policy, a messy reply and no answer hash as before the allocation work', () => {
    const h = createHash('sha256');
    for (const n of [4, 9, 24, 60]) {
      for (let i = 0; i < 40; i++) {
        const t = generateTask({ num_transactions: n, fault_rate: 0.35, seed: 20260826 }, i);
        const ids = t.ledger.rows.map((r) => r.id);
        const replies = (['oracle', 'raw-sums', 'blanket', 'silent'] as const).map((p) => runPolicy(p, t.prompt));
        replies.push(
          `<answer>{"G1": "1.00", "1A": 2, "1B": "$3.00", "net": "-1", "faults": {"${ids[i % ids.length]}": ["gst_miscalculated", "made_up", "outside_period"], " ${ids[0]} ": "duplicate_invoice"}}</answer>`,
        );
        replies.push('no answer');
        for (const r of replies) h.update(JSON.stringify(scoreReply(r, t.key)));
      }
    }
    expect(h.digest('hex')).toBe('b689bf2190be53dd1fa22662462bba805fdcbe84187e58eb80b5c6beaf381a57');
  });
});

describe('reading a ledger back from prompt text', () => {
  const head = `Business: Acme, ABN 12345678901\nBAS quarter: 2023-01-01 to 2023-03-31, both days included.\n\nLedger (CSV):\n${PROMPT_COLUMNS.join(',')}\n`;
  const row = 'T1,2023-01-02,sale,Café Ünï,goods,110.00,10.00,INV-1,';
  const read = (text: string) => readLedgerFromPrompt([{ role: 'user', content: text }]);

  it('reads a row, stops at a blank or whitespace-only line, and keeps text outside ASCII', () => {
    const ledger = read(`${head}${row}\n \t\r\nT2,bad`)!;
    expect(ledger.rows).toEqual([
      {
        id: 'T1',
        date: '2023-01-02',
        type: 'sale',
        counterparty: 'Café Ünï',
        description: '',
        category: 'goods',
        amount: 11000,
        gst: 1000,
        invoice: 'INV-1',
        abn: '',
      },
    ]);
    expect(read(`${head}${row}`)!.rows).toHaveLength(1);
    expect(read(`${head}${row}\n`)!.rows).toHaveLength(1);
    expect(read(`${head}-7,d,purchase,x,export,-0.5,0,i,a`)!.rows[0]).toMatchObject({ id: '-7', amount: -50, gst: 0 });
  });

  it('refuses a row with a field too many or too few, an unknown type or category, or a bad figure', () => {
    for (const bad of [
      `${row},`,
      'T1,2023-01-02,sale,x,goods,110.00,10.00,INV-1',
      'T1,2023-01-02,sales,x,goods,110.00,10.00,INV-1,',
      'T1,2023-01-02,sale,x,good,110.00,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goodss,110.00,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goods,110.000,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goods,1e3,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goods,110.,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goods, 110.00,10.00,INV-1,',
      'T1,2023-01-02,sale,x,goods,99999999999999999,10.00,INV-1,',
    ]) {
      expect(read(`${head}${row}\n${bad}`), bad).toBeNull();
    }
  });
});

describe('the prompt written in a scratch buffer', () => {
  // The way the prompt was written before: rules, header, then a template literal per row.
  const reference = (t: ReturnType<typeof generateTask>['ledger'], rules: string): string =>
    [
      `Business: ${t.business.name}, ABN ${t.business.abn}`,
      `BAS quarter: ${t.period.start} to ${t.period.end}, both days included.`,
      '',
      rules,
      '',
      'Ledger (CSV):',
      PROMPT_COLUMNS.join(','),
      ...t.rows.map(
        (r) =>
          `${r.id},${r.date},${r.type},${r.counterparty},${r.category},${formatCents(r.amount)},${formatCents(r.gst)},${r.invoice},${r.abn}`,
      ),
    ].join('\n');

  it('is the same text for any names, amounts and ids, Latin-1 or not, lone surrogates included', () => {
    const base = generateTask({ num_transactions: 6, fault_rate: 0.5, seed: 3 }, 0);
    const user = (l: typeof base.ledger) => buildPrompt(l).find((m) => m.role === 'user')!.content;
    const rulesOf = (l: typeof base.ledger) => {
      const text = user(l);
      // The rules follow the quarter's line: a business name may itself hold a blank line.
      const start = text.indexOf('\n\n', text.indexOf('\nBAS quarter: ')) + 2;
      return text.slice(start, text.indexOf('\n\nLedger (CSV):'));
    };
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('Café Ünï', 'ÿ', '東京', '\ud800', 'a\udc00b', ''),
    );
    const money = fc.oneof(
      fc.integer({ min: -1e13, max: 1e13 }),
      fc.constantFrom(0, -0, 1, -1, 9, 10, 99, 100, -100, 105),
    );
    fc.assert(
      fc.property(text, text, text, money, money, fc.nat(5), (name, who, abn, amount, gst, at) => {
        const rows = base.ledger.rows.map((r, i) => (i === at ? { ...r, counterparty: who, abn, amount, gst } : r));
        const ledger = { ...base.ledger, business: { ...base.ledger.business, name }, rows };
        expect(user(ledger)).toBe(reference(ledger, rulesOf(ledger)));
      }),
      // A business name holding a blank line once fooled the test's own search for the rules.
      { numRuns: 500, examples: [['\n\n', '', '', 0, 0, 0]] },
    );
  });
});
