import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, basProcess, tempDir } from '../support/cli.js';
import { generateTask } from '../../src/task/generate.js';
import { runPolicy } from '../../src/task/policies.js';

describe('bas gen', () => {
  it('writes one task per line with the fields SPEC lists', async () => {
    const r = await bas(['gen', '-n', '3', '--seed', '5']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((t) => t.index)).toEqual([0, 1, 2]);
    expect(Object.keys(lines[0])).toEqual([
      'index',
      'generator',
      'prompt_version',
      'config',
      'ledger',
      'key',
      'injected',
      'prompt',
    ]);
    expect(Object.keys(lines[0].ledger.business)).toEqual(['name', 'abn', 'trade']);
    expect(lines[0].config).toEqual({ num_transactions: 24, fault_rate: 0.25, seed: 5 });
    expect(Object.keys(lines[0].ledger)).toEqual(['business', 'period', 'transactions']);
    expect(Object.keys(lines[0].key.bas)).toEqual(['G1', '1A', '1B', 'net']);
    expect(lines[0].ledger.transactions[0]).toHaveProperty('abn');
  });

  it('task 7 is the same whether a run asks for 8 tasks or 20', async () => {
    const a = (await bas(['gen', '-n', '8'])).stdout.trim().split('\n')[7];
    const b = (await bas(['gen', '-n', '20'])).stdout.trim().split('\n')[7];
    expect(a).toBe(b);
  });

  it('writes --out atomically, and the prompt, table and csv formats', async () => {
    const dir = tempDir();
    const out = join(dir, 'tasks.jsonl');
    expect((await bas(['gen', '-n', '2', '--out', out])).code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(['tasks.jsonl']);
    const prompt = (await bas(['gen', '-n', '1', '--format', 'prompt'])).stdout;
    expect(prompt).toContain('===== task 0 · system =====');
    expect(prompt).toContain('id,date,type,counterparty,category,amount,gst,invoice,abn');
    const table = (await bas(['gen', '-n', '1', '--format', 'table'])).stdout;
    expect(table).toMatch(/Corrected BAS: G1 \d+\.\d\d/);
    const csv = (await bas(['gen', '-n', '2', '--format', 'csv', '--num-transactions', '5'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('task,id,date,type,counterparty,description,category,amount,gst,invoice,abn,faults');
    expect(csv).toHaveLength(11);
  });

  it.each([
    [['gen', '--num-transactions', '3'], /--num-transactions must be an integer from 4 to 10000, got "3"/],
    [['gen', '--num-transactions', '10001'], /--num-transactions/],
    [['gen', '--fault-rate', '1.5'], /--fault-rate must be a number from 0 to 1, got "1.5"/],
    [['gen', '--fault-rate', 'lots'], /--fault-rate/],
    [['gen', '--seed', '-1'], /--seed must be an integer from 0 to 9007199254740991/],
    [['gen', '--num-transactions', '0x10'], /--num-transactions must be an integer from 4 to 10000, got "0x10"/],
    [['gen', '--seed', '1e3'], /--seed must be an integer/],
    [['gen', '--fault-rate', '0x1'], /--fault-rate must be a number/],
    [['gen', '--fault-rate', 'Infinity'], /--fault-rate must be a number/],
    [['gen', '--fault-rate', '2e0'], /--fault-rate must be a number from 0 to 1, got "2e0"/],
    [['gen', '--out', '/tmp'], /--out \/tmp is a folder/],
    [['gen', '--seed', '1.5'], /--seed/],
    [['gen', '-n', '0'], /-n must be an integer from 1/],
    [['gen', '--format', 'xml'], /--format must be one of jsonl, prompt, table, csv/],
    [['gen', '--wat'], /unknown option '--wat'/],
    [['frobnicate'], /unknown command/],
  ])('refuses %j with a one-line message and exit code 2', async (args, message) => {
    const r = await bas(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bas: /);
    expect(r.stdout).toBe('');
  });

  it('leaves no file behind when --out cannot be written', async () => {
    const r = await bas(['gen', '--out', '/nonexistent-dir/tasks.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bas: -o/--out /nonexistent-dir/tasks.jsonl: the folder /nonexistent-dir does not exist\n');
  });
});

describe('bas validate', () => {
  it('re-derives every key and reports N/N valid with a table by fault type', async () => {
    const r = await bas(['validate', '-n', '60']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^60\/60 valid/);
    for (const code of [
      'gst_on_gst_free',
      'gst_miscalculated',
      'duplicate_invoice',
      'outside_period',
      'missing_abn_over_threshold',
    ])
      expect(r.stdout).toContain(code);
  });

  it('reports a chance invoice collision as such, not as a failure', async () => {
    // With 10,000 rows per ledger a few chance collisions are expected.
    const r = await bas(['validate', '-n', '3', '--num-transactions', '10000', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.valid).toBe(3);
    expect(out.invalid).toEqual([]);
  });

  it('checks the keys a tasks file ships, and names each disagreement', async () => {
    const dir = tempDir();
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, (await bas(['gen', '-n', '4'])).stdout);
    expect((await bas(['validate', '--tasks', file])).stdout).toMatch(/^4\/4 valid/);

    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[1].key.bas.G1 = '0.01';
    lines[2].key.faults = {};
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await bas(['validate', '--tasks', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^2\/4 valid/);
    expect(r.stdout).toMatch(/task 1: INVALID against the shipped key\n {2}G1: expected 0\.01, re-derived \d+\.\d\d/);
    expect(r.stdout).toMatch(/task 2: INVALID against the shipped key\n {2}re-derived but not expected: T\d+:/);
  });

  it('also holds a tasks file to its own record of injected faults', async () => {
    const dir = tempDir();
    const file = join(dir, 'tasks.jsonl');
    const lines = (await bas(['gen', '-n', '3', '--fault-rate', '0.5'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[1].injected = {};
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await bas(['validate', '--tasks', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^2\/3 valid/);
    expect(r.stdout).toMatch(
      /task 1: INVALID against the record of injected faults\n {2}re-derived but not expected: T\d+:/,
    );
    const json = JSON.parse((await bas(['validate', '--tasks', file, '--json'])).stdout);
    expect(json.invalid).toEqual([expect.objectContaining({ index: 1, against: 'injected' })]);

    // A file that ships no injection record is held to its key alone.
    for (const l of lines) delete l.injected;
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const bare = await bas(['validate', '--tasks', file]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^3\/3 valid/);
  });

  it('names the line of a malformed task file', async () => {
    const dir = tempDir();
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, (await bas(['gen', '-n', '2'])).stdout + '{"index": 5\n');
    const r = await bas(['validate', '--tasks', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tasks\.jsonl:3: not valid JSON/);
    expect((await bas(['validate', '--tasks', join(dir, 'missing.jsonl')])).stderr).toMatch(/--tasks: no such file/);
  });
});

describe('bas score', () => {
  const setup = async () => {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, (await bas(['gen', '-n', '5'])).stdout);
    return { dir, tasks };
  };

  it('grades replies, prints the tables, and writes one line per reply in order', async () => {
    const { dir, tasks } = await setup();
    const { generateTask } = await import('../../src/task/generate.js');
    const { runPolicy } = await import('../../src/task/policies.js');
    const replies = join(dir, 'replies.jsonl');
    const order = [3, 0, 4, 1, 2];
    const policy = (i: number) => (i % 2 === 0 ? 'oracle' : 'raw-sums') as 'oracle' | 'raw-sums';
    writeFileSync(
      replies,
      order
        .map((i) =>
          JSON.stringify({
            index: i,
            reply: runPolicy(
              policy(i),
              generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 20260826 }, i).prompt,
            ),
          }),
        )
        .join('\n') + '\n',
    );
    const out = join(dir, 'scored');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--output', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/bas_correct/);
    const scored = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(scored.map((s) => s.index)).toEqual(order);
    for (const s of scored) {
      expect(s.reward).toBe(policy(s.index) === 'oracle' ? 1 : 0);
      expect(s).toHaveProperty('rewards.bas_correct');
      expect(s).toHaveProperty('metrics.parsed', 1);
    }
    const json = JSON.parse((await bas(['score', '--tasks', tasks, '--replies', replies, '--json'])).stdout);
    expect(json.counts.completed).toBe(5);
  });

  it.each([
    ['a reply for a task the file lacks', '{"index": 9, "reply": "x"}\n', /replies\.jsonl:1: reply for task 9/],
    ['a reply that is not a string', '{"index": 0, "reply": 5}\n', /replies\.jsonl:1: "reply" must be a string/],
    ['a torn line', '{"index": 0, "reply": "x"}\n{"index": 1, "re\n', /replies\.jsonl:2: not valid JSON/],
    ['no replies at all', '\n', /holds no replies/],
  ])('refuses %s with exit 2 and no output file', async (_name, content, message) => {
    const { dir, tasks } = await setup();
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(replies, content);
    const out = join(dir, 'scored');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['replies.jsonl', 'tasks.jsonl']);
  });
});

// SPEC.md: with --out, score writes one scored line per reply. --out names a file (as gen's),
// --output a run folder; both may be given, and the file holds exactly the folder's lines for
// the replies (the folder adds one per missing reply).
describe('bas score --out FILE', () => {
  async function scoreSetup(): Promise<{ dir: string; tasks: string; replies: string }> {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, (await bas(['gen', '-n', '5'])).stdout);
    const replies = join(dir, 'replies.jsonl');
    const task = (i: number) => generateTask({ num_transactions: 24, fault_rate: 0.25, seed: 20260826 }, i);
    // Tasks 2, 0 and 1 in that order (4 is missing): oracle, raw sums, then no answer at all.
    writeFileSync(
      replies,
      [
        { index: 2, reply: runPolicy('oracle', task(2).prompt) },
        { index: 0, reply: runPolicy('raw-sums', task(0).prompt) },
        { index: 1, reply: 'no answer' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    return { dir, tasks, replies };
  }

  it("writes one scored line per reply, in the replies' order, beside the run folder", async () => {
    const { dir, tasks, replies } = await scoreSetup();
    const out = join(dir, 'scored.jsonl');
    const folder = join(dir, 'run');
    const r = await bas([
      'score',
      '--tasks',
      tasks,
      '--replies',
      replies,
      '--out',
      out,
      '--output',
      folder,
      '--max-error-rate',
      '1',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/bas_correct/);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.index, l.rollout, l.reward, l.metrics.parsed])).toEqual([
      [2, 0, 1, 1],
      [0, 0, 0, 1],
      [1, 0, 0, 0],
    ]);
    for (const l of lines) {
      expect(l.error).toBeNull();
      expect(typeof l.reply).toBe('string');
      expect(l).toHaveProperty('rewards.fault_audit');
    }
    // The run folder holds the same lines first, then the missing replies as errored rollouts.
    const folderLines = readFileSync(join(folder, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(folderLines.slice(0, 3)).toEqual(lines);
    expect(folderLines.slice(3).map((l) => [l.index, l.error.type])).toEqual([
      [3, 'missing_reply'],
      [4, 'missing_reply'],
    ]);
    expect(readdirSync(dir).sort()).toEqual(['replies.jsonl', 'run', 'scored.jsonl', 'tasks.jsonl']);
  });

  it('--out - writes the lines to standard output and the tables to standard error', async () => {
    const { tasks, replies } = await scoreSetup();
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--out', '-', '--max-error-rate', '1']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.index)).toEqual([2, 0, 1]);
    expect(r.stderr).toMatch(/bas_correct/);
  });

  it('writes the file even when the error budget then exits 3, and nothing on bad input', async () => {
    const { dir, tasks, replies } = await scoreSetup();
    const out = join(dir, 'scored.jsonl');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--out', out]);
    expect(r.code).toBe(3);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
    writeFileSync(replies, '{"index": 0, "reply": "x"}\n{"index": 9, "reply": "x"}\n');
    const bad = join(dir, 'bad.jsonl');
    const refused = await bas(['score', '--tasks', tasks, '--replies', replies, '--out', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/replies\.jsonl:2: reply for task 9/);
    expect(existsSync(bad)).toBe(false);
  });

  it.each([
    ['the replies file', (d: string) => join(d, 'replies.jsonl'), /--out .*replies\.jsonl is the input/],
    ['a file inside --output', (d: string) => join(d, 'run', 'x.jsonl'), /--out .*inside/],
  ])('refuses --out over %s before reading anything', async (_name, target, message) => {
    const { dir, tasks, replies } = await scoreSetup();
    const before = readFileSync(replies, 'utf8');
    const r = await bas([
      'score',
      '--tasks',
      tasks,
      '--replies',
      replies,
      '--out',
      target(dir),
      '--output',
      join(dir, 'run'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(readFileSync(replies, 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });
});

describe('number flags', () => {
  it.each([
    ['5e-1', 0.5],
    ['+0.5', 0.5],
    ['1e0', 1],
    ['.25', 0.25],
  ])('--fault-rate %s is the number %d', async (text, value) => {
    const r = await bas(['gen', '-n', '1', '--fault-rate', text]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).config.fault_rate).toBe(value);
  });
});

describe('bas --version', () => {
  it.each([['--version'], ['-V']])(
    '%s prints the package version and exits 0 (the launcher answers it alone)',
    async (flag) => {
      const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version: string;
      };
      const r = await basProcess([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    },
  );
});
