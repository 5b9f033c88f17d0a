/**
 * `bas gen --format dataset` and `--split`: lines a trainer's JSON loader reads (one schema,
 * no answer key), labels that name their task, and train and test sets that share no task.
 */
import { describe, expect, it } from 'vitest';
import { parseLabel } from '../../src/task/label.js';
import { bas } from '../support/cli.js';

interface Row {
  prompt: Array<{ role: string; content: string }>;
  prompt_text: string;
  label: string;
}

const rows = async (args: string[]): Promise<Row[]> => {
  const r = await bas(['gen', '--format', 'dataset', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
};

describe('bas gen --format dataset', () => {
  it('writes one line per task in one schema: messages, text and label, no key', async () => {
    const got = await rows(['-n', '5', '--num-transactions', '12', '--fault-rate', '0.5', '--seed', '9']);
    expect(got).toHaveLength(5);
    got.forEach((row, i) => {
      expect(Object.keys(row)).toEqual(['prompt', 'prompt_text', 'label']);
      expect(row.prompt.map((m) => m.role)).toEqual(['system', 'user']);
      expect(row.prompt_text).toBe(row.prompt.map((m) => m.content).join('\n\n'));
      expect(row.label).toBe(`bas:g3:p2:n12:f0.5:s9:i${i}`);
      expect(parseLabel(row.label).ok).toBe(true);
    });
    const jsonl = (await bas(['gen', '-n', '5', '--num-transactions', '12', '--fault-rate', '0.5', '--seed', '9']))
      .stdout;
    const tasks = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { prompt: unknown });
    expect(got.map((r) => r.prompt)).toEqual(tasks.map((t) => t.prompt));
  });

  it('--split test is the tasks bas eval runs; --split train shares no task and no prompt with it', async () => {
    const test = await rows(['-n', '400', '--split', 'test']);
    expect(test).toEqual(await rows(['-n', '400']));
    const train = await rows(['-n', '400', '--split', 'train']);
    const seeds = new Set(
      train.map((r) => (parseLabel(r.label) as { ok: true; label: { config: { seed: number } } }).label.config.seed),
    );
    expect([...seeds]).toHaveLength(1);
    expect(seeds.has(20260826)).toBe(false);
    const testLabels = new Set(test.map((r) => r.label));
    const testPrompts = new Set(test.map((r) => r.prompt_text));
    expect(train.filter((r) => testLabels.has(r.label) || testPrompts.has(r.prompt_text))).toEqual([]);
    // Another seed has other splits: the train split of seed 1 is not seed 1's tasks or seed 20260826's train split.
    const other = await rows(['-n', '3', '--split', 'train', '--seed', '1']);
    expect(other[0]!.label).not.toBe(train[0]!.label);
    expect(other[0]!.label).not.toMatch(/:s1:/);
  });

  it('--split applies to the task file too, so a train split can be scored with its keys', async () => {
    const r = await bas(['gen', '-n', '1', '--split', 'train']);
    const seed = (JSON.parse(r.stdout) as { config: { seed: number } }).config.seed;
    expect((await rows(['-n', '1', '--split', 'train']))[0]!.label).toBe(`bas:g3:p2:n24:f0.25:s${seed}:i0`);
  });

  it.each([
    [['--split', 'validation'], 'bas: --split must be one of train, test, got "validation"\n'],
    [
      ['--format', 'datasets'],
      'bas: --format must be one of jsonl, prompt, table, csv, batch, dataset, got "datasets"\n',
    ],
    [
      ['--format', 'dataset', '-m', 'x'],
      'bas: --model, --rollouts and the sampling flags apply only to --format batch\n',
    ],
  ])('%j is one line and exit 2', async (args, message) => {
    const r = await bas(['gen', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message);
    expect(r.stdout).toBe('');
  });
});
