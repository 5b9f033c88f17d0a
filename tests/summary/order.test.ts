/**
 * The summary does not depend on the order records were written in: a resumed run (errored
 * rollouts re-run and appended last), a merge, or a results file rewritten in any order gives
 * the same figures, to the bit, as the run recorded in task order.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize } from '../support/summarize.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { bas, tempDir } from '../support/cli.js';
import { writeRun, type Chooser } from '../report/make-run.js';

const POLICIES = ['oracle', 'raw-sums', 'blanket', 'silent'] as const;

/** A model that is right some of the time, wrong in several ways, and errors now and then. */
const choose: Chooser = (i, r) => {
  const k = (i * 7 + r * 3) % 11;
  if (k === 4) return { error: 'timeout' };
  if (k === 9) return { error: i % 2 ? 'provider' : 'network' };
  return POLICIES[(i + 2 * r) % POLICIES.length]!;
};

/** `xs` in an order drawn from `seed` (a seeded Fisher-Yates shuffle). */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    const j = (s >>> 1) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Records with the messages of one error type differing in their numbers, as real ones do. */
function withMessages(records: RolloutRecord[]): RolloutRecord[] {
  return records.map((r, k) =>
    r.error ? { ...r, error: { ...r.error, message: `${r.error.type} after ${(k % 5) + 1} attempts` } } : r,
  );
}

describe('the summary and the order of records', () => {
  it('is the same, to the bit, for the same records in any order', () => {
    const dir = tempDir();
    const records = withMessages(writeRun(join(dir, 'a'), { n: 60, rollouts: 3, model: 'm', choose }));
    const want = JSON.stringify(summarize(records));
    for (const seed of [1, 2, 3, 4, 5]) expect(JSON.stringify(summarize(shuffled(records, seed)))).toBe(want);
    expect(JSON.stringify(summarize([...records].reverse()))).toBe(want);
  });

  it('bas report --json prints the same bytes for a results file written in another order', async () => {
    const root = tempDir();
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    const records = withMessages(writeRun(a, { n: 60, rollouts: 3, model: 'm', choose }));
    writeFileSync(join(a, 'results.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    mkdirSync(b);
    copyFileSync(join(a, 'run.json'), join(b, 'run.json'));
    writeFileSync(
      join(b, 'results.jsonl'),
      shuffled(records, 7)
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(''),
    );
    const [ra, rb] = [await bas(['report', a, '--json']), await bas(['report', b, '--json'])];
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(rb.stdout.replaceAll(b, 'DIR')).toBe(ra.stdout.replaceAll(a, 'DIR'));
    // Not the same file: the check above compares two orders.
    expect(readFileSync(join(b, 'results.jsonl'), 'utf8')).not.toBe(readFileSync(join(a, 'results.jsonl'), 'utf8'));
  });
});
