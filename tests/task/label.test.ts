/**
 * Task labels: every label `formatLabel` writes reads back to the same task, and every other
 * spelling is refused with a reason, so one task has exactly one label.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLabel, parseLabel, MAX_LABEL_LENGTH, type TaskLabel } from '../../src/task/label.js';
import { datasetRow, splitSeed } from '../../src/task/dataset.js';
import { generateTask } from '../../src/task/generate.js';
import { DEFAULT_TASK_CONFIG, MAX_TASKS } from '../../src/task/config.js';

const label = (t: Partial<TaskLabel['config']> & { index?: number; g?: number; p?: number } = {}) =>
  formatLabel({
    generator: t.g ?? 3,
    prompt_version: t.p ?? 2,
    config: { num_transactions: t.num_transactions ?? 24, fault_rate: t.fault_rate ?? 0.25, seed: t.seed ?? 7 },
    index: t.index ?? 12,
  });

describe('formatLabel and parseLabel', () => {
  it('writes the documented form', () => {
    expect(label()).toBe('bas:g3:p2:n24:f0.25:s7:i12');
    expect(label({ fault_rate: 0 })).toBe('bas:g3:p2:n24:f0:s7:i12');
    expect(label({ fault_rate: 1e-7 })).toBe('bas:g3:p2:n24:f1e-7:s7:i12');
  });

  it('reads back every label it writes, to the same task', () => {
    const arb = fc.record({
      generator: fc.integer({ min: 1, max: 1000 }),
      prompt_version: fc.integer({ min: 1, max: 1000 }),
      config: fc.record({
        num_transactions: fc.integer({ min: 4, max: 10_000 }),
        fault_rate: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
        seed: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      }),
      index: fc.integer({ min: 0, max: MAX_TASKS - 1 }),
    });
    fc.assert(
      fc.property(arb, (t) => {
        const text = formatLabel(t);
        expect(text.length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
        expect(parseLabel(text)).toEqual({ ok: true, label: t });
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    [42, /must be a string/],
    ['', /is empty/],
    ['x'.repeat(MAX_LABEL_LENGTH + 1), /at most 100 characters/],
    ['bas:g3:p2:n24:f0.25:s7', /has the form bas:g<G>/],
    ['bas:g3:p2:n24:f0.25:s7:i12:x', /has the form/],
    ['BAS:g3:p2:n24:f0.25:s7:i12', /has the form/],
    ['bas:p2:g3:n24:f0.25:s7:i12', /part 2 of a label is the generator version/],
    ['bas:g03:p2:n24:f0.25:s7:i12', /generator version must be a positive whole number, got "03"/],
    ['bas:g0:p2:n24:f0.25:s7:i12', /generator version/],
    ['bas:g3:p:n24:f0.25:s7:i12', /prompt version/],
    ['bas:g3:p2:n3:f0.25:s7:i12', /rows per ledger must be a whole number from 4 to 10000, got "3"/],
    ['bas:g3:p2:n10001:f0.25:s7:i12', /rows per ledger/],
    ['bas:g3:p2:n+24:f0.25:s7:i12', /rows per ledger/],
    ['bas:g3:p2:n24:f.25:s7:i12', /fault rate must be a number from 0 to 1 written as in the dataset/],
    ['bas:g3:p2:n24:f0.250:s7:i12', /fault rate/],
    ['bas:g3:p2:n24:f1.5:s7:i12', /fault rate/],
    ['bas:g3:p2:n24:f-0:s7:i12', /fault rate/],
    ['bas:g3:p2:n24:fNaN:s7:i12', /fault rate/],
    ['bas:g3:p2:n24:f2.5e-1:s7:i12', /fault rate/],
    ['bas:g3:p2:n24:f0.25:s-1:i12', /seed must be a whole number/],
    ['bas:g3:p2:n24:f0.25:s9007199254740992:i12', /seed/],
    ['bas:g3:p2:n24:f0.25:s7:i1e3', /task index/],
    ['bas:g3:p2:n24:f0.25:s7:i10000000', /task index must be a whole number from 0 to 9999999/],
    ['bas:g3:p2:n24:f0.25:s7:i 12', /task index/],
    [' bas:g3:p2:n24:f0.25:s7:i12', /has the form/],
  ])('refuses %j', (text, reason) => {
    const r = parseLabel(text);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(reason);
  });
});

describe('dataset rows', () => {
  it('carry the prompt twice and the label, never the key or the ledger', () => {
    const task = generateTask(DEFAULT_TASK_CONFIG, 5);
    const row = datasetRow(task);
    expect(Object.keys(row)).toEqual(['prompt', 'prompt_text', 'label']);
    expect(row.prompt).toEqual(task.prompt);
    expect(row.prompt_text).toBe(`${task.prompt[0]!.content}\n\n${task.prompt[1]!.content}`);
    expect(row.label).toBe('bas:g3:p2:n24:f0.25:s20260826:i5');
    expect(JSON.stringify(row)).not.toContain('"key"');
  });

  it('the test split keeps the seed; the train split is another seed, always, and a valid one', () => {
    expect(splitSeed(20260826, 'test')).toBe(20260826);
    expect(splitSeed(20260826, 'train')).toBe(5783384164699066);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (seed) => {
        const train = splitSeed(seed, 'train');
        expect(train).not.toBe(seed);
        expect(Number.isSafeInteger(train) && train >= 0).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
