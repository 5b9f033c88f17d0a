/**
 * What a client can make the two servers hold or do is bounded (issue 26): one budget for the
 * bodies of every unanswered request, a connection limit, the reward server's key cache in
 * bytes, its ledger rows per request and at once, and grading that takes every request's
 * pieces in turn. Each refusal is a status with a JSON error naming its flag. No test here
 * waits for a length of time: each waits for the server's own counts.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { GradeQueue, RowBudget, type Lane } from '../../src/serve/grade-queue.js';
import * as rewardDefaults from '../../src/serve/reward-server.js';
import { startRewardServer, type RewardServerOptions } from '../../src/serve/reward-server.js';
import * as serveDefaults from '../../src/serve/serve.js';
import { startServer, type RunningServer } from '../../src/serve/serve.js';
import { COMMAND_FLAGS } from '../../src/settings/command-flags.js';
import type { Scores } from '../../src/task/types.js';
import { DIST } from '../support/cli.js';
import { QUIET_SERVE } from '../support/serve-options.js';

const closers: Array<() => Promise<void>> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(closers.splice(0).map((c) => c()));
});

const turn = () => new Promise<void>((r) => setImmediate(r));
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await turn();
}

/** A connection that sends the head of a POST declaring `declared` bytes, then `sent` of them. */
function slowBody(url: string, path: string, declared: number | null, sent: number) {
  const { hostname, port } = new URL(url);
  const s = connect(Number(port), hostname);
  sockets.push(s);
  let answer = '';
  s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  s.on('error', () => undefined);
  const closed = new Promise<void>((r) => s.on('close', () => r()));
  const length = declared === null ? 'transfer-encoding: chunked' : `content-length: ${declared}`;
  s.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${length}\r\n\r\n`);
  const body = 'x'.repeat(sent);
  s.write(declared === null ? `${sent.toString(16)}\r\n${body}\r\n` : body);
  return { socket: s, answer: () => answer, closed };
}

const status = (raw: string) => Number(/^HTTP\/1\.1 (\d+)/.exec(raw)?.[1] ?? 0);
const errorOf = (raw: string) =>
  (JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { error: { message: string } }).error;

async function serveWith(o: Partial<typeof QUIET_SERVE>): Promise<RunningServer> {
  const s = await startServer({ ...QUIET_SERVE, ...o });
  closers.push(() => s.close());
  return s;
}

const chat = (url: string, messages: unknown) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages }),
  });

describe('bas serve: unfinished bodies share one budget', () => {
  it('a body that would pass the budget gets 503 at once, and the budget comes back when its holders leave', async () => {
    const s = await serveWith({ maxRequestBytes: 1 << 20, bodyBudgetBytes: 2.5 * (1 << 20) });
    const path = '/v1/chat/completions';
    const a = slowBody(s.url, path, 1 << 20, 1000);
    const b = slowBody(s.url, path, 1 << 20, 1000);
    await until(() => s.load().bodyBytes === 2 << 20);
    const c = slowBody(s.url, path, 1 << 20, 10);
    await c.closed;
    expect(status(c.answer())).toBe(503);
    expect(errorOf(c.answer()).message).toMatch(/limit being 2\.5 MiB \(--body-budget-mb\): try again shortly/);
    expect(c.answer()).toMatch(/retry-after: 1/i);
    // A body of unknown length counts as it arrives, and is refused once it would pass.
    const d = slowBody(s.url, path, null, 600_000);
    await d.closed;
    expect(status(d.answer())).toBe(503);
    expect(s.stats.rejected).toBe(2);
    a.socket.destroy();
    b.socket.destroy();
    await until(() => s.load().bodyBytes === 0);
    expect((await chat(s.url, [{ role: 'user', content: 'hi' }])).status).toBe(200);
  });

  it('a connection past --max-connections gets a 503 with a JSON error, and the next one after a close is served', async () => {
    const s = await serveWith({ maxConnections: 2 });
    const idle = [connect(s.port, '127.0.0.1'), connect(s.port, '127.0.0.1')];
    sockets.push(...idle);
    await until(() => s.load().connections === 2);
    const third = slowBody(s.url, '/v1/chat/completions', 2, 2);
    await third.closed;
    expect(status(third.answer())).toBe(503);
    expect(errorOf(third.answer()).message).toContain('2 connections open, its limit (--max-connections)');
    idle[0]!.destroy();
    await until(() => s.load().connections === 1);
    expect((await chat(s.url, [{ role: 'user', content: 'hi' }])).status).toBe(200);
  });

  it('a user message whose content is null is a 400, as OpenAI answers; an assistant turn may have none', async () => {
    const s = await serveWith({});
    const bad = await chat(s.url, [{ role: 'user', content: null }]);
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('messages[0].content must be a string or a list of parts for a user message');
    const ok = await chat(s.url, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null },
      { role: 'user', content: 'again' },
    ]);
    expect(ok.status).toBe(200);
  });
});

const reward: RewardServerOptions = {
  port: 0,
  host: '127.0.0.1',
  token: null,
  maxBodyBytes: 64 << 20,
  maxBatch: 4096,
  cacheSize: 20_000,
  graceMs: 10_000,
  workers: 0,
};
const big = (k: number) => `bas:g3:p2:n10000:f1:s7:i${k}`;
const score = (url: string, labels: string[]) =>
  fetch(`${url}/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(labels.map((label) => ({ label, completion: 'x' }))),
  });

describe('bas reward-server: the work a request can ask for', () => {
  it('the key cache counts bytes: 10,000-row keys past --cache-mb are not all kept', async () => {
    // A 10,000-row key with its row figures is estimated at about 2.9 MB: two fit in 6 MiB, not four.
    const s = await startRewardServer({ ...reward, cacheBytes: 6 << 20 });
    closers.push(() => s.close());
    expect((await score(s.url, [big(0), big(1), big(2), big(3)])).status).toBe(200);
    const c = s.cache();
    expect(c.misses).toBe(4);
    expect(c.size).toBe(2);
    expect(c.bytes).toBeLessThanOrEqual(6 << 20);
    expect(c.bytes).toBeGreaterThan(5 << 20);
  });

  it('a batch asking for more ledger rows than --max-rows is a 413 naming the limit, before any grading', async () => {
    const s = await startRewardServer({ ...reward, maxRows: 25_000 });
    closers.push(() => s.close());
    // Repeats of one label count once: three different 10,000-row ledgers are 30,000 rows.
    const res = await score(s.url, [big(0), big(0), big(1), big(2)]);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'the batch needs 30000 ledger rows generated (the rows of its different labels added up), more than the 25000 a request may ask for (--max-rows): split it',
    );
    expect(s.cache().misses).toBe(0);
    expect((await score(s.url, [big(0), big(0), big(1)])).status).toBe(200);
  });

  it('all requests under way may take four times --max-rows; past it a request gets 503', () => {
    const rows = new RowBudget(100);
    for (let k = 0; k < 4; k++) rows.take(100);
    expect(() => rows.take(1)).toThrow(/already generating 400 ledger rows .* at most 400 at once \(4 x --max-rows\)/);
    rows.give(100);
    rows.take(1);
    expect(rows.inUse).toBe(301);
    expect(() => rows.take(101)).toThrow(/more than the 100 a request may ask for/);
  });
});

describe('grading takes every request in turn', () => {
  /** A lane that grades only when the test says, and remembers what it was given. */
  function heldLane() {
    const given: string[][] = [];
    const waiting: Array<() => void> = [];
    const lane: Lane = (labels) =>
      new Promise<Scores[]>((resolve) => {
        given.push(labels);
        waiting.push(() => resolve(labels.map(() => ({ reward: labels.length }) as unknown as Scores)));
      });
    return { lane, given, next: () => waiting.shift()!() };
  }

  it("a small request's piece runs after the large one's piece under way, not after the whole large batch", async () => {
    const { lane, given, next } = heldLane();
    const queue = new GradeQueue([lane]);
    let smallDone = false;
    let bigDone = false;
    const large = queue.grade(
      Array.from({ length: 6 }, (_, k) => big(k)),
      Array.from({ length: 6 }, () => 'x'),
    );
    void large.then(() => (bigDone = true));
    const small = queue.grade(['bas:g3:p2:n24:f0.25:s1:i0'], ['x']);
    void small.then(() => (smallDone = true));
    await turn();
    // One 10,000-row label a piece: the large batch is six pieces, the small one is one.
    expect(given).toEqual([[big(0)]]);
    next();
    await until(() => given.length === 2);
    expect(given[1]).toEqual(['bas:g3:p2:n24:f0.25:s1:i0']);
    next();
    await small;
    expect(smallDone && !bigDone).toBe(true);
    for (let k = 2; k < 7; k++) {
      await until(() => given.length === k + 1);
      next();
    }
    expect((await large).map((s) => s.reward)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('with grading threads, an honest request sent beside a batch of 10,000-row ledgers is answered first', async () => {
    // The compiled server, whose grading threads are beside it in dist/.
    const built = (await import(pathToFileURL(join(DIST, 'serve', 'reward-server.js')).href)) as {
      startRewardServer: typeof startRewardServer;
    };
    const s = await built.startRewardServer({ ...reward, workers: 1 });
    closers.push(() => s.close());
    const order: string[] = [];
    const hostile = score(
      s.url,
      Array.from({ length: 16 }, (_, k) => big(k)),
    ).then((r) => order.push(`hostile ${r.status}`));
    await until(() => s.stats.requests === 1);
    const honest = await score(s.url, ['bas:g3:p2:n24:f0.25:s1:i0']);
    order.push(`honest ${honest.status}`);
    await hostile;
    expect(order).toEqual(['honest 200', 'hostile 200']);
  });
});

describe('the flags that set the bounds', () => {
  it("default to the servers' own defaults (settings do not import serve)", () => {
    const MIB = 1024 * 1024;
    const serve = COMMAND_FLAGS.serve;
    expect(serve.bodyBudgetMb.default * MIB).toBe(serveDefaults.DEFAULT_BODY_BUDGET_BYTES);
    expect(serve.maxConnections.default).toBe(serveDefaults.DEFAULT_MAX_CONNECTIONS);
    const r = COMMAND_FLAGS['reward-server'];
    expect(r.bodyBudgetMb.default * MIB).toBe(rewardDefaults.DEFAULT_BODY_BUDGET_BYTES);
    expect(r.maxConnections.default).toBe(rewardDefaults.DEFAULT_MAX_CONNECTIONS);
    expect(r.cacheMb.default * MIB).toBe(rewardDefaults.DEFAULT_CACHE_BYTES);
    expect(r.maxRows.default).toBe(rewardDefaults.DEFAULT_MAX_ROWS);
  });
});

describe('a connection past --max-connections that sends nothing', () => {
  it('is closed after a short silence, not held until Node’s header timeout', async () => {
    const { EventEmitter } = await import('node:events');
    const { RequestGate, OVER_LIMIT_IDLE_MS } = await import('../../src/serve/http-service.js');
    const limits = {
      maxBodyBytes: 1,
      bodyBudgetBytes: 1,
      maxConnections: 1,
      flags: { maxBody: '', bodyBudget: '', maxConnections: '' },
    };
    const gate = new RequestGate(limits, (message) => ({ message }));
    const server = new EventEmitter();
    gate.watch(server as never);
    /** A socket that records the idle timeout set on it and whether it was destroyed. */
    const socket = () => {
      const s = Object.assign(new EventEmitter(), {
        timeout: null as null | { ms: number; fire: () => void },
        destroyed: false,
        setTimeout(ms: number, fire: () => void) {
          s.timeout = { ms, fire };
        },
        destroy() {
          s.destroyed = true;
          s.emit('close');
        },
      });
      return s;
    };
    const within = socket();
    const past = socket();
    server.emit('connection', within);
    server.emit('connection', past);
    expect(gate.load().connections).toBe(2);
    // The one within the limit keeps Node's own timeouts; the one past it gets a short one.
    expect(within.timeout).toBeNull();
    expect(past.timeout?.ms).toBe(OVER_LIMIT_IDLE_MS);
    expect(OVER_LIMIT_IDLE_MS).toBeLessThanOrEqual(5000);
    past.timeout!.fire();
    expect(past.destroyed).toBe(true);
    expect(gate.load().connections).toBe(1);
  });
});
