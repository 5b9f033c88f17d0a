/**
 * `bas eval --batch` end to end against `bas serve`'s batch endpoints: graded as `bas score`
 * grades the same output, a kill while polling re-attached by --resume (one batch created,
 * never two), an expired batch resumed for its missing requests only, a split into several
 * batches, a budget refused before anything is sent, and the key in no file. Polls are
 * spaced by --batch-poll 0 (turns of the event loop), or 0.02 s where a kill must land
 * while the batch is held in progress.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allFiles, bas, readResults, serve, startBas, tempDir, type Served } from '../support/cli.js';

const KEY = 'sk-bas-batch-SECRET-5e0c';
const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function server(...args: string[]): Promise<Served> {
  const s = await serve(['--api-key', KEY, ...args]);
  servers.push(s);
  return s;
}

const env = { OPENAI_API_KEY: KEY };
const evalArgs = (url: string, dir: string, ...more: string[]) => [
  'eval',
  '--batch',
  '-m',
  'gpt-batch',
  '--base-url',
  url,
  '--output',
  dir,
  ...more,
  // Polls a turn of the event loop apart, unless the test spaces them itself.
  ...(more.includes('--batch-poll') ? [] : ['--batch-poll', '0']),
];

async function stats(url: string): Promise<{ batches: { created: number; uploads: number } }> {
  return (await (await fetch(`${url}/bas/stats`)).json()) as never;
}

const run = (dir: string) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
const byPair = (rs: Array<Record<string, any>>) => [...rs].sort((a, b) => a.index - b.index || a.rollout - b.rollout);

/** Polls `ready()` until it holds (a state of the run, not a duration); fails once `gone()` says the run ended first. */
async function until(ready: () => boolean, gone: () => boolean): Promise<void> {
  while (!ready()) {
    if (gone()) throw new Error('the run ended before the batch was recorded');
    await new Promise((r) => setTimeout(r, 5));
  }
}
const recorded = (dir: string) => () =>
  existsSync(join(dir, 'run.json')) && run(dir).batch?.batches?.[0]?.batch_id != null;

describe('bas eval --batch', () => {
  it('grades a complete batch as bas score grades its output file, into a run every report reads', async () => {
    const s = await server();
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, '-n', '4', '-r', '2'), { env });
    expect(r.stderr).toMatch(/batch \S+: completed, 8 of 8 done, 0 failed/);
    expect(r.code, r.stderr).toBe(0);
    expect(run(dir).status).toBe('complete');
    expect((await stats(s.url)).batches.created).toBe(1);
    // The same output file, scored by hand.
    const out = run(dir).batch.batches[0].output_file_id;
    const res = await fetch(`${s.url}/files/${out}/content`, { headers: { authorization: `Bearer ${KEY}` } });
    const tmp = tempDir();
    writeFileSync(join(tmp, 'out.jsonl'), await res.text());
    expect((await bas(['gen', '-n', '4', '-o', join(tmp, 'tasks.jsonl')])).code).toBe(0);
    const scored = join(tmp, 'scored');
    const sc = await bas([
      'score',
      '--tasks',
      join(tmp, 'tasks.jsonl'),
      '--replies',
      join(tmp, 'out.jsonl'),
      '--model',
      'gpt-batch',
      '--output',
      scored,
    ]);
    expect(sc.code, sc.stderr).toBe(0);
    expect(byPair(readResults(dir))).toEqual(byPair(readResults(scored)));
    expect((await bas(['report', dir])).code).toBe(0);
    const cmp = await bas(['compare', dir, scored]);
    expect(cmp.code, cmp.stderr).toBe(0);
  });

  it('kill -9 while polling, then --resume re-attaches: the server saw one batch created', async () => {
    const s = await server('--batch-fault', 'slow');
    const dir = join(tempDir(), 'run');
    const child = startBas(evalArgs(s.url, dir, '-n', '3', '--batch-poll', '0.02'), { env });
    const exited = new Promise((r) => child.on('exit', r));
    await until(recorded(dir), () => child.exitCode !== null);
    child.kill('SIGKILL');
    await exited;
    expect(run(dir).batch.batches[0].graded).toBe(false);
    const r = await bas(['eval', '--resume', dir, '--batch-poll', '0'], { env });
    expect(r.stderr).toMatch(/re-attaching to the batches/);
    expect(r.code, r.stderr).toBe(0);
    expect(readResults(dir)).toHaveLength(3);
    expect((await stats(s.url)).batches).toEqual({ created: 1, uploads: 1 });
    // Nothing is left: a second resume sends nothing.
    expect((await bas(['eval', '--resume', dir], { env })).code).toBe(0);
    expect((await stats(s.url)).batches.created).toBe(1);
  });

  it('Ctrl-C while polling leaves the batch running and prints the command that re-attaches', async () => {
    const s = await server('--batch-fault', 'slow');
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    let done = false;
    const pending = bas(evalArgs(s.url, dir, '-n', '2', '--batch-poll', '0.02'), { env, stop: stop.signal }).finally(
      () => (done = true),
    );
    await until(recorded(dir), () => done);
    stop.abort('SIGINT');
    const r = await pending;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/keep running at the provider/);
    expect(r.stderr).toContain(`bas eval --resume ${dir}`);
    expect(run(dir).status).toBe('interrupted');
  });

  it('an expired batch is said so; --resume sends only the requests with no reply', async () => {
    const s = await server('--batch-fault', 'expired');
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, '-n', '4'), { env });
    expect(r.stderr).toMatch(/ended expired: 2 of its lines came back errored/);
    expect(r.code).toBe(3);
    expect(
      readResults(dir)
        .filter((x) => x.error)
        .map((x) => x.error.message)[0],
    ).toMatch(/batch_expired/);
    const again = await bas(['eval', '--resume', dir, '--batch-poll', '0'], { env });
    expect(again.stderr, again.stderr).toMatch(/: 2 requests sent/);
    const batches = run(dir).batch.batches;
    expect(batches.map((b: { requests: number }) => b.requests)).toEqual([4, 2]);
    expect((await stats(s.url)).batches.created).toBe(2);
  });

  it('splits past --batch-max-requests into several batches, tracked together', async () => {
    const s = await server();
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, '-n', '4', '-r', '2', '--batch-max-requests', '3'), { env });
    expect(r.code, r.stderr).toBe(0);
    expect(run(dir).batch.batches.map((b: { requests: number }) => b.requests)).toEqual([3, 3, 2]);
    expect(readResults(dir)).toHaveLength(8);
    expect((await stats(s.url)).batches.created).toBe(3);
    // The header says who paced the requests: the provider's engine, not a pace of bas's.
    expect(r.stdout).toMatch(/8 rollouts .*· through the provider's batch engine \(3 batches\)/);
  });

  it('refuses a provider with no batch engine before anything is written, naming those that have one', async () => {
    const dir = join(tempDir(), 'run');
    const args = ['eval', '--batch', '-m', 'm', '--provider', 'openrouter', '-n', '2', '--output', dir];
    const r = await bas(args, { env: { OPENROUTER_API_KEY: 'sk-or-test' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--batch: provider openrouter runs no OpenAI-shaped batch jobs .*the providers that do: openai, groq/,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a budget the worst case does not fit before anything is sent (exit 4)', async () => {
    const s = await server();
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, '-n', '4', '--max-tokens', '500', '--max-total-tokens', '5000'), { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/nothing was sent: the worst case of 4 requests is [\d,]+ tokens/);
    const noMax = await bas(evalArgs(s.url, dir, '-n', '4', '--max-total-tokens', '5000'), { env });
    expect(noMax.code).toBe(2);
    expect(noMax.stderr).toMatch(/needs --max-tokens/);
    expect(existsSync(dir)).toBe(false);
    expect((await stats(s.url)).batches).toEqual({ created: 0, uploads: 0 });
  });

  it('keeps the key out of the run folder and out of the uploaded file name', async () => {
    const s = await server();
    const dir = join(tempDir(), 'run');
    expect((await bas(evalArgs(s.url, dir, '-n', '2'), { env })).code).toBe(0);
    for (const f of allFiles(dir)) expect(f.text).not.toContain(KEY);
    const id = run(dir).batch.batches[0].file_id;
    const file = (await (
      await fetch(`${s.url}/files/${id}`, { headers: { authorization: `Bearer ${KEY}` } })
    ).json()) as { filename: string };
    expect(file.filename).toMatch(/^bas-\w+-1of1\.jsonl$/);
  });

  it('a lost output file leaves the batch unread (exit 1); --resume reads it again and sends nothing twice', async () => {
    const s = await server('--batch-fault', 'lost-output');
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, '-n', '2'), { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/its files could not be read: downloading file \S+ failed \(HTTP 404\)/);
    expect(r.stderr).toContain(`bas eval --resume ${dir}`);
    expect(run(dir).status).toBe('failed');
    expect(run(dir).batch.batches[0].graded).toBe(false);
    const again = await bas(['eval', '--resume', dir, '--batch-poll', '0'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/re-attaching to the batches/);
    expect((await stats(s.url)).batches.created).toBe(1);
  });
});
