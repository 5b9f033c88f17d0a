/**
 * bas against a real model behind a real server: Gemma 3 270M (GGUF) served by llama.cpp
 * through llama-cpp-python (tests/real/server.ts starts it), with a recording proxy between
 * the two. Only what can be known for certain is asserted: the reply bas recorded is the one
 * the server sent, the tokens bas counts are the ones the server reported, grading equals an
 * independent re-grade by `bas score`, and the run's mechanics (resume, timeouts, budgets)
 * hold. Never the model's score: a 270M base model is not asked to be right.
 */
import { readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bas, readResults, startBas, tempDir } from '../support/cli.js';
import { recordingProxy, serverReply, type Exchange, type RecordingProxy } from './recording-proxy.js';

const MODEL = 'gemma-3-270m';
/** No key is needed by the local server; bas sends whatever the variable holds. */
const ENV = { env: { OPENAI_API_KEY: 'local' } };
/** Small ledgers and short replies: each request costs the server about 1,100 prompt tokens. */
const TASK = ['--num-transactions', '8', '--temperature', '0'];
/**
 * The server answers one request at a time, slowly on a busy machine: bounds for a hang only,
 * so that no test here sees a timeout but the one that asks for it.
 */
const PATIENT = ['--timeout', '1800', '--request-timeout', '1800'];

let proxy: RecordingProxy;
let work: string;
/** The user message of each task of the runs here, to its index. */
const taskOf = new Map<string, number>();

beforeAll(async () => {
  proxy = await recordingProxy(inject('realModelUrl'));
  work = tempDir('bas-real-');
  const tasks = join(work, 'tasks.jsonl');
  const gen = await bas(['gen', '-n', '6', ...TASK.slice(0, 2), '--format', 'jsonl', '-o', tasks]);
  expect(gen.code).toBe(0);
  for (const line of readFileSync(tasks, 'utf8').trim().split('\n')) {
    const t = JSON.parse(line) as { index: number; prompt: Array<{ role: string; content: string }> };
    taskOf.set(t.prompt.at(-1)!.content, t.index);
  }
});
afterAll(() => proxy.close());

const evalArgs = (dir: string, extra: string[]) => [
  'eval',
  ...['-m', MODEL, '--base-url', proxy.url, '--output', dir, '--no-progress'],
  ...TASK,
  ...extra,
];

/** The task a request was for, read from its prompt. */
function indexOf(e: Exchange): number {
  const index = taskOf.get(e.request!.messages.at(-1).content as string);
  expect(index).toBeDefined();
  return index!;
}

/**
 * The chat completions since `from` (an earlier length of proxy.exchanges), once the proxy has
 * kept every one: bas may be done with a stream before the proxy has seen its connection close.
 */
async function since(from: number): Promise<Exchange[]> {
  await proxy.idle();
  return proxy.exchanges.slice(from).filter((e) => e.path.endsWith('/chat/completions'));
}

/** Where the next test's exchanges start, once the last test's are all kept. */
async function mark(): Promise<number> {
  await proxy.idle();
  return proxy.exchanges.length;
}

/** Re-grades the server's own replies with `bas score`; its reward per task. */
async function regrade(replies: Map<number, string>, n: number): Promise<Map<number, number>> {
  const dir = tempDir('bas-real-score-');
  const tasks = join(dir, 'tasks.jsonl');
  expect((await bas(['gen', '-n', String(n), ...TASK.slice(0, 2), '--format', 'jsonl', '-o', tasks])).code).toBe(0);
  const file = join(dir, 'replies.jsonl');
  writeFileSync(file, [...replies].map(([index, reply]) => JSON.stringify({ index, reply })).join('\n') + '\n');
  const out = join(dir, 'scored.jsonl');
  const r = await bas(['score', '--tasks', tasks, '--replies', file, '--out', out]);
  expect([0, 3]).toContain(r.code);
  const rewards = new Map<number, number>();
  for (const line of readFileSync(out, 'utf8').trim().split('\n')) {
    const x = JSON.parse(line) as { index: number; reward: number };
    rewards.set(x.index, x.reward);
  }
  return rewards;
}

describe('bas against llama.cpp serving Gemma 3 270M', () => {
  it('bas check reaches it and reports the tokens the server reported', async () => {
    const from = await mark();
    const r = await bas(['check', ...evalArgs(work, ['--max-tokens', '24', ...PATIENT]).slice(1), '--json'], ENV);
    const report = JSON.parse(r.stdout) as Record<string, any>;
    expect(report).toMatchObject({ reachable: true, status: 200, keyAccepted: true, modelKnown: true });
    const [sent] = await since(from);
    const server = serverReply(sent!);
    expect(report.graded.promptTokens).toBe(server.usage!.prompt_tokens);
    expect(report.graded.completionTokens).toBe(server.usage!.completion_tokens);
    expect(report.graded.finishReason).toBe(server.finish);
  });

  it.each([
    ['whole replies', []],
    ['streamed replies', ['--stream']],
  ])('bas eval with %s records what the server sent, and grades it as bas score does', async (_name, extra) => {
    const from = await mark();
    const dir = join(work, `eval-${extra.length}`);
    const r = await bas(evalArgs(dir, ['-n', '3', '-c', '2', '--max-tokens', '24', ...PATIENT, ...extra]), ENV);
    // Exit 3 when the model's own reply was empty (an errored rollout, not a score).
    expect([0, 3]).toContain(r.code);
    const records = readResults(dir);
    expect(records.map((x) => x.index).sort()).toEqual([0, 1, 2]);
    const sent = new Map((await since(from)).map((e) => [indexOf(e), serverReply(e)]));
    expect(sent.size).toBe(3);
    for (const x of records) {
      const server = sent.get(x.index)!;
      expect(x.finish_reason).toBe(server.finish);
      // llama-cpp-python sends no usage in a stream, even when asked: bas records none then.
      expect(x.usage).toEqual(server.usage);
      if (x.error === null) expect(x.reply).toBe(server.content);
      // A reply the server sent empty is recorded as an error, never scored.
      else expect([x.error.type, server.content]).toEqual(['malformed', '']);
    }
    // Replies the server sent no usage for are charged at their worst case, and every total
    // built on them says it is a lower bound.
    const unreported = records.filter((x) => x.usage === null).length;
    const report = await bas(['report', dir]);
    expect(report.stdout.includes('total tokens, at least')).toBe(unreported > 0);
    const json = JSON.parse((await bas(['report', dir, '--json'])).stdout) as Record<string, any>;
    expect(json.summary.tokens.unreported?.requests ?? 0).toBe(unreported);
    const scored = records.filter((x) => x.error === null);
    const regraded = await regrade(new Map(scored.map((x) => [x.index, sent.get(x.index)!.content])), 3);
    for (const x of scored) expect(x.reward).toBe(regraded.get(x.index));
  });

  it('a run killed mid-way resumes without asking again for what it has', async () => {
    const dir = join(work, 'killed');
    const from = await mark();
    const child = startBas(evalArgs(dir, ['-n', '4', '-c', '1', '--max-tokens', '16', ...PATIENT]), ENV);
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    // Killed as soon as the first rollout is on disk: the rest are in flight or not yet sent.
    await until(work, () => readLines(join(dir, 'results.jsonl')) >= 1);
    child.kill('SIGKILL');
    await exited;
    const before = readResults(dir).map((x) => x.index);
    const resumed = await bas(['eval', '--resume', dir, '--base-url', proxy.url, '--no-progress'], ENV);
    expect(resumed.code).toBe(0);
    const records = readResults(dir);
    expect(records.map((x) => x.index).sort()).toEqual([0, 1, 2, 3]);
    // The resumed session asked only for what was missing.
    const asked = (await since(from)).map(indexOf);
    for (const index of before) expect(asked.filter((i) => i === index)).toHaveLength(1);
  });

  it('an episode timeout shorter than the model needs is recorded as a timeout, and the run goes on', async () => {
    const dir = join(work, 'timeout');
    // Streamed: llama-cpp-python stops a stream whose client left, while a whole reply is
    // generated to its end after bas gave up on it, holding the server from the next test.
    const args = ['-n', '2', '-c', '1', '--max-tokens', '400', '--timeout', '1', '--stream'];
    const r = await bas(evalArgs(dir, args), ENV);
    // Every rollout errored: more than --max-error-rate, so exit 3, with both recorded.
    expect(r.code).toBe(3);
    const records = readResults(dir);
    expect(records).toHaveLength(2);
    for (const x of records) expect(x.error?.type).toBe('timeout');
  });

  it('--max-total-tokens stops the run, with every token the server reported counted exactly', async () => {
    const dir = join(work, 'budget');
    const from = await mark();
    // The first request is held to its prompt's size in bytes until a reply tells tokens from
    // bytes (docs/cost.md): 6,000 lets a few of these 1,100-token requests go, not all six.
    const budget = 6000;
    const r = await bas(
      evalArgs(dir, [
        '-n',
        '6',
        '-c',
        '1',
        '--max-tokens',
        '16',
        '--max-total-tokens',
        `${budget}`,
        ...PATIENT,
        '--json',
      ]),
      ENV,
    );
    expect(r.code).toBe(4);
    const billed = (await since(from)).reduce((sum, e) => sum + serverReply(e).usage!.total_tokens, 0);
    const summary = JSON.parse(r.stdout) as Record<string, any>;
    expect(summary.tokens.total).toBe(billed);
    expect(billed).toBeLessThanOrEqual(budget);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('budget');
    expect(readResults(dir).length).toBeGreaterThan(0);
    expect(readResults(dir).length).toBeLessThan(6);
  });
});

function readLines(file: string): number {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

/** Resolves once `ready()` holds, checked at each change the file system reports under `dir`. */
function until(dir: string, ready: () => boolean): Promise<void> {
  return new Promise((done) => {
    const watcher = watch(dir, { recursive: true }, () => check());
    const check = (): void => {
      if (!ready()) return;
      watcher.close();
      done();
    };
    check();
  });
}
