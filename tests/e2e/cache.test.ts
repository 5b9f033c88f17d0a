/**
 * `--cache DIR` end to end: the real CLI and SDK against `bas serve`, whose own request count
 * (GET /bas/stats) says what was sent. A second run with the same settings sends nothing and
 * scores the same; other sampling or another rollout is a miss; a damaged entry is a miss; two
 * runs sharing a cache both finish; the key is in no byte of the cache.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, serve, tempDir, type Served } from '../support/cli.js';

const KEY = 'sk-bas-cache-SECRET-7f3e91';
const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function requests(s: Served): Promise<number> {
  return ((await (await fetch(`${s.url}/bas/stats`)).json()) as { requests: number }).requests;
}

const run = (url: string, cache: string, extra: string[] = []) =>
  bas(
    [
      'eval',
      '-m',
      'cache-model',
      '--base-url',
      url,
      '--output',
      join(tempDir(), 'run'),
      '--no-progress',
      '--cache',
      cache,
      '--json',
      '--price-in',
      '2',
      '--price-out',
      '8',
      ...extra,
    ],
    { env: { OPENAI_API_KEY: KEY } },
  );

/** Every entry file of a cache folder. */
function entries(cache: string): string[] {
  return readdirSync(cache, { recursive: true, encoding: 'utf8' })
    .map((p) => join(cache, p))
    .filter((p) => p.endsWith('.json') && statSync(p).isFile());
}

function folderOf(stdout: string): Record<string, any> {
  return JSON.parse(stdout) as Record<string, any>;
}

describe('bas eval --cache against bas serve', () => {
  it('a second run with the same settings sends no request, scores the same, and pays nothing', async () => {
    const s = await serve(['--policy', 'raw-sums']);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    const first = await run(s.url, cache, ['-n', '5', '-r', '2', '--max-error-rate', '1']);
    expect(first.code, first.stderr).toBe(0);
    expect(await requests(s)).toBe(10);
    expect(entries(cache)).toHaveLength(10);

    const dirA = join(tempDir(), 'a');
    const dirB = join(tempDir(), 'b');
    const base = ['-n', '5', '-r', '2', '--max-error-rate', '1'];
    const a = await bas(
      ['eval', '-m', 'cache-model', '--base-url', s.url, '--output', dirA, '--no-progress', '--cache', cache, ...base],
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(a.code, a.stderr).toBe(0);
    // Nothing reached the server.
    expect(await requests(s)).toBe(10);
    const cached = readResults(dirA);
    expect(cached).toHaveLength(10);
    for (const r of cached) expect(r.cached).toBe(true);

    // The same replies, the same scores and the original usage, as a fresh run against the server.
    const b = await bas(
      ['eval', '-m', 'cache-model', '--base-url', s.url, '--output', dirB, '--no-progress', ...base],
      {
        env: { OPENAI_API_KEY: KEY },
      },
    );
    expect(b.code, b.stderr).toBe(0);
    expect(await requests(s)).toBe(20);
    const key = (r: Record<string, any>) => `${r.index}:${r.rollout}`;
    const fresh = new Map(readResults(dirB).map((r) => [key(r), r]));
    for (const r of cached) {
      const f = fresh.get(key(r))!;
      expect(f.cached).toBeUndefined();
      expect(r.reply).toBe(f.reply);
      expect(r.reward).toBe(f.reward);
      expect(r.usage).toEqual(f.usage);
    }
    // The summary says what came from the cache and pays nothing for it.
    const summary = JSON.parse(readFileSync(join(dirA, 'run.json'), 'utf8')).summary;
    expect(summary.tokens.total).toBe(0);
    expect(summary.tokens.from_cache.rollouts).toBe(10);
    expect(summary.tokens.from_cache.total).toBe(
      readResults(dirB).reduce((t, r) => t + (r.usage?.total_tokens ?? 0), 0),
    );
    expect(a.stdout).toMatch(/from the cache \(10 rollouts, not paid\)/);
  });

  it('with prices, the cost is zero and the cached replies are priced apart', async () => {
    const s = await serve([]);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    expect((await run(s.url, cache, ['-n', '3'])).code).toBe(0);
    const again = await run(s.url, cache, ['-n', '3']);
    expect(again.code, again.stderr).toBe(0);
    expect(await requests(s)).toBe(3);
    const out = folderOf(again.stdout);
    expect(out.cost.total_usd).toBe(0);
    const t = out.tokens.from_cache;
    expect(out.cost.from_cache_usd).toBeCloseTo((t.prompt / 1e6) * 2 + (t.completion / 1e6) * 8, 12);
    expect(out.cost.from_cache_usd).toBeGreaterThan(0);
  });

  it('other sampling, another rollout or a streamed request is a miss', async () => {
    const s = await serve([]);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    expect((await run(s.url, cache, ['-n', '4'])).code).toBe(0);
    expect(await requests(s)).toBe(4);
    // Another temperature: another request.
    expect((await run(s.url, cache, ['-n', '4', '--temperature', '0.5'])).code).toBe(0);
    expect(await requests(s)).toBe(8);
    // Another token limit too.
    expect((await run(s.url, cache, ['-n', '4', '--max-tokens', '900'])).code).toBe(0);
    expect(await requests(s)).toBe(12);
    // A second rollout per task: rollout 0 comes from the cache, rollout 1 is asked.
    const r2 = await run(s.url, cache, ['-n', '4', '-r', '2']);
    expect(r2.code).toBe(0);
    expect(await requests(s)).toBe(16);
    expect(folderOf(r2.stdout).tokens.from_cache.rollouts).toBe(4);
    // More tasks: only the new ones are asked.
    expect((await run(s.url, cache, ['-n', '6'])).code).toBe(0);
    expect(await requests(s)).toBe(18);
    // Streamed: another request body.
    expect((await run(s.url, cache, ['-n', '2', '--stream'])).code).toBe(0);
    expect(await requests(s)).toBe(20);
  });

  it('a damaged entry is a miss, never a crash, and is replaced by the new reply', async () => {
    const s = await serve([]);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    expect((await run(s.url, cache, ['-n', '6'])).code).toBe(0);
    const files = entries(cache).sort();
    expect(files).toHaveLength(6);
    const text = (p: string) => readFileSync(p, 'utf8');
    // Cut short; not JSON; another reply under a check that no longer matches; another key's entry;
    // a link in place of the file; a wrong format version.
    writeFileSync(files[0]!, text(files[0]!).slice(0, 40));
    writeFileSync(files[1]!, '\u0000\u0001garbage{');
    writeFileSync(files[2]!, text(files[2]!).replace(/"content":"/, '"content":"tampered '));
    writeFileSync(files[3]!, text(files[4]!));
    unlinkSync(files[5]!);
    symlinkSync(files[4]!, files[5]!);
    const e4 = JSON.parse(text(files[4]!));
    writeFileSync(files[4]!, JSON.stringify({ ...e4, version: 99 }));
    const again = await run(s.url, cache, ['-n', '6']);
    expect(again.code, again.stderr).toBe(0);
    expect(await requests(s)).toBe(12);
    const out = folderOf(again.stdout);
    expect(out.tokens.from_cache).toBeUndefined();
    expect(out.reward.mean).toBe(1);
    // The new replies replaced them: a third run sends nothing (the link is replaced by a file).
    expect((await run(s.url, cache, ['-n', '6'])).code).toBe(0);
    expect(await requests(s)).toBe(12);
  });

  it('two runs sharing a cache at once both finish with every rollout', async () => {
    const s = await serve(['--latency', '5']);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    const [x, y] = await Promise.all([
      run(s.url, cache, ['-n', '12', '-c', '4']),
      run(s.url, cache, ['-n', '12', '-c', '4']),
    ]);
    expect(x.code, x.stderr).toBe(0);
    expect(y.code, y.stderr).toBe(0);
    for (const r of [x, y]) expect(folderOf(r.stdout).counts.completed).toBe(12);
    expect(entries(cache)).toHaveLength(12);
    // Whatever they shared, a third run finds every entry whole.
    const before = await requests(s);
    expect((await run(s.url, cache, ['-n', '12'])).code).toBe(0);
    expect(await requests(s)).toBe(before);
  });

  it('the API key is in no byte of the cache, whole or streamed replies', async () => {
    const s = await serve([]);
    servers.push(s);
    const cache = join(tempDir(), 'cache');
    expect((await run(s.url, cache, ['-n', '3', '--stream'])).code).toBe(0);
    expect((await run(s.url, cache, ['-n', '3'])).code).toBe(0);
    const files = entries(cache);
    expect(files.length).toBe(6);
    for (const f of readdirSync(cache, { recursive: true, encoding: 'utf8' })) {
      const p = join(cache, f);
      if (!statSync(p).isFile()) continue;
      const bytes = readFileSync(p);
      expect(bytes.includes(Buffer.from(KEY))).toBe(false);
      expect(bytes.includes(Buffer.from(encodeURIComponent(KEY)))).toBe(false);
    }
  });

  it('a cache folder that is a link, a file or cannot be written is refused before any request (exit 2)', async () => {
    const s = await serve([]);
    servers.push(s);
    const real = join(tempDir(), 'real');
    mkdirSync(real);
    const link = join(tempDir(), 'link');
    symlinkSync(real, link);
    const viaLink = await run(s.url, link, ['-n', '2']);
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toMatch(/--cache .* is a symbolic link/);
    const file = join(tempDir(), 'file');
    writeFileSync(file, 'x');
    const onFile = await run(s.url, file, ['-n', '2']);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toMatch(/--cache .* is not a folder/);
    expect(await requests(s)).toBe(0);
  });
});
