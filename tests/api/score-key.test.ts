/**
 * The public scoreReply grades against a key in either of the forms bas hands out: the typed
 * key of generateTask (integer cents) or the key of a task file line (two-decimal strings,
 * as `bas gen` and taskToJson write it). A key it cannot read is refused with its field
 * named, never graded as if every figure were wrong.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, generateTask, scoreReply, taskToJson } from '../../src/index.js';

const task = generateTask({ num_transactions: 12, seed: 7 }, 3);
const fileKey = taskToJson(task).key as { bas: Record<string, string>; faults: Record<string, string[]> };
const gold = `<answer>${JSON.stringify({ ...fileKey.bas, faults: fileKey.faults })}</answer>`;

describe('scoreReply and the key it is given', () => {
  it('scores the gold answer 1 against the typed key and against the task file key alike', () => {
    expect(scoreReply(gold, task.key).reward).toBe(1);
    const s = scoreReply(gold, fileKey);
    expect(s.reward).toBe(1);
    expect(s).toEqual(scoreReply(gold, task.key));
  });

  it('a wrong figure is wrong against either form', () => {
    const wrong = gold.replace(`"G1":"${fileKey.bas.G1}"`, '"G1":"0.01"');
    expect(wrong).not.toBe(gold);
    expect(scoreReply(wrong, fileKey).detail.labels).toEqual(scoreReply(wrong, task.key).detail.labels);
    expect(scoreReply(wrong, fileKey).detail.labels.G1).toBe(false);
  });

  it('refuses a key it cannot read, naming the field, instead of scoring every label wrong', () => {
    const bad = (key: unknown) => () => scoreReply(gold, key as never);
    expect(bad({ ...fileKey, bas: { ...fileKey.bas, G1: 937.5 } })).toThrow(ConfigError);
    expect(bad({ ...fileKey, bas: { ...fileKey.bas, G1: 937.5 } })).toThrow(/key\.bas\.G1/);
    expect(bad({ ...fileKey, bas: { ...fileKey.bas, net: '$1.00' } })).toThrow(/key\.bas\.net/);
    expect(bad({ bas: fileKey.bas })).toThrow(/key\.faults/);
    expect(bad({ ...fileKey, faults: { T01: ['made_up'] } })).toThrow(/key\.faults\.T01/);
    expect(bad(undefined)).toThrow(ConfigError);
  });
});
