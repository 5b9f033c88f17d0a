/**
 * The rollout index reads a long line in time linear in its length (issue 36, defect 8: a
 * 64 MB line took 27.6 s of CPU, each chunk copying and searching the whole line so far
 * again). Measured as work, not time: the bytes copied, allocated and searched for a newline
 * while a file holding one 16 MB line is indexed stay within a few times the line's length.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RolloutIndex } from '../../src/runfile/rollout-index.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

afterEach(() => vi.restoreAllMocks());

describe('a long line in the rollout index', () => {
  it('is copied, allocated and searched a bounded number of times', async () => {
    const big = JSON.stringify({ ...makeRecord(SMALL_CONFIG, 0, 0, 'm', 'oracle'), reply: 'x'.repeat(16 << 20) });
    const small = JSON.stringify(makeRecord(SMALL_CONFIG, 1, 0, 'm', 'oracle'));
    const file = join(tempDir('bas-index-long-'), 'results.jsonl');
    writeFileSync(file, `${small}\n${big}\n${small.replace('"index":1', '"index":2')}\n`);
    let work = 0;
    type Method = (this: Buffer, ...a: unknown[]) => number;
    const proto = Buffer.prototype as unknown as Record<'copy' | 'indexOf', Method>;
    const copy = proto.copy;
    vi.spyOn(proto, 'copy').mockImplementation(function (this: Buffer, ...a: unknown[]) {
      const n = copy.apply(this, a);
      work += n;
      return n;
    });
    const indexOf = proto.indexOf;
    vi.spyOn(proto, 'indexOf').mockImplementation(function (this: Buffer, ...a: unknown[]) {
      const at = indexOf.apply(this, a);
      work += (at < 0 ? this.length : at) - Number(a[1] ?? 0);
      return at;
    });
    const alloc = Buffer.allocUnsafe;
    vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((n: number) => {
      work += n;
      return alloc(n);
    });
    const index = new RolloutIndex(dirname(file), null);
    await index.refresh();
    vi.restoreAllMocks();
    expect(index.rollouts).toBe(3);
    expect(index.damaged).toBe(0);
    expect((await index.record(index.slotOf(0, 0))).reply).toHaveLength(16 << 20);
    // Linear: each byte copied, searched and allocated a few times; the quadratic read did it
    // some 64 / 2 times over (a 256 KB chunk at a time).
    expect(work).toBeLessThan(8 * big.length);
  });
});
