/**
 * A spent budget does not stop what the response cache answers for free: a cached rollout
 * sends nothing, so it takes no budget (and no request slot). Before, each cache hit was
 * charged its original usage against `--max-total-tokens`, and the run stopped at its budget
 * with the cache still holding the answers.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, serve, tempDir, type Served } from '../support/cli.js';

const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function requests(s: Served): Promise<number> {
  return ((await (await fetch(`${s.url}/bas/stats`)).json()) as { requests: number }).requests;
}

describe('--cache with a budget', () => {
  it('a re-run answered from the cache finishes under a budget that could not pay for one request', async () => {
    const s = await serve(['--policy', 'oracle']);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    const env = { env: { OPENAI_API_KEY: 'sk-test' } };
    const args = (dir: string, extra: string[] = [], n = 8) => [
      'eval',
      '-m',
      'm',
      '--base-url',
      s.url,
      '-n',
      String(n),
      '-c',
      '4',
      '--max-tokens',
      '500',
      '--output',
      dir,
      '--no-progress',
      '--cache',
      cache,
      ...extra,
    ];
    const first = await bas(args(join(tempDir(), 'first')), env);
    expect(first.code, first.stderr).toBe(0);
    expect(await requests(s)).toBe(8);

    const dir = join(tempDir(), 'again');
    const again = await bas(args(dir, ['--max-total-tokens', '100']), env);
    expect(again.code, again.stderr).toBe(0);
    expect(await requests(s)).toBe(8);
    const records = readResults(dir);
    expect(records).toHaveLength(8);
    for (const r of records) expect(r.cached).toBe(true);

    // a task the cache does not hold still meets the budget
    const more = await bas(args(join(tempDir(), 'more'), ['--max-total-tokens', '100'], 9), env);
    expect(more.code, more.stderr).toBe(4);
    expect(await requests(s)).toBe(8);
  });
});
