/**
 * One memory budget for every reply in flight (issue 16 §3): readers past it pause their
 * connection until others finish, the oldest reader always goes on, and a cap on one reply that
 * cannot be honoured is refused.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { makeNodeFetch } from '../../src/endpoint/http-fetch.js';
import { defaultBudgetBytes, ReplyBudget, replyBudget, waitedOnBudget } from '../../src/endpoint/reply-budget.js';
import { totalmem } from 'node:os';
import { hostileServer, type HostileServer } from '../support/hostile-server.js';
import { bas } from '../support/cli.js';

let server: HostileServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const KIB = 1024;

describe('the budget', () => {
  it('counts a byte received at what it costs held (buffers, string, parsed body, record): five times', () => {
    // 64 replies of 30 MB at -c 64 peaked at 1.14 GiB when the 512 MiB counted bytes received.
    expect(replyBudget.limit).toBe(Math.floor(defaultBudgetBytes() / 5));
  });

  it('is 512 MiB or a quarter of the memory, whichever is less, unless BAS_REPLY_BUDGET_MB says', () => {
    const auto = defaultBudgetBytes({});
    expect(auto).toBeLessThanOrEqual(Math.min(512 * KIB * KIB, Math.max(32 * KIB * KIB, Math.floor(totalmem() / 4))));
    expect(auto).toBeGreaterThanOrEqual(32 * KIB * KIB);
    expect(defaultBudgetBytes({ BAS_REPLY_BUDGET_MB: '64' })).toBe(64 * KIB * KIB);
    expect(defaultBudgetBytes({ BAS_REPLY_BUDGET_MB: 'lots' })).toBe(defaultBudgetBytes({}));
  });

  it('lets readers take bytes while there is room, pauses the rest, and wakes them as room comes back', () => {
    const b = new ReplyBudget(100);
    const first = b.claim();
    const second = b.claim();
    expect(first.add(80)).toBe(true);
    expect(second.add(40)).toBe(false); // 120 > 100, and the second is not the oldest
    let woken = 0;
    second.pauseUntil(() => woken++);
    expect(woken).toBe(0);
    expect(first.add(500)).toBe(true); // the oldest never waits
    first.release();
    expect(woken).toBe(1);
    expect(b.held).toBe(40);
    second.release();
    expect(b.held).toBe(0);
    expect(b.peak).toBe(620);
  });

  it('wakes the oldest paused reader even when the budget stays full, so it can never deadlock', () => {
    const b = new ReplyBudget(10);
    const [a, c, d] = [b.claim(), b.claim(), b.claim()];
    expect(c.add(20)).toBe(false);
    expect(d.add(20)).toBe(false);
    const woken: string[] = [];
    c.pauseUntil(() => woken.push('c'));
    d.pauseUntil(() => woken.push('d'));
    a.release(); // c is the oldest now: it goes on although 40 bytes are held
    expect(woken).toEqual(['c']);
  });
});

describe('holds on replies already read', () => {
  it('count until released, and never stop the oldest reader still reading', () => {
    const b = new ReplyBudget(100);
    const hold = b.hold(90); // a reply waiting to be scored and recorded
    const [r1, r2] = [b.claim(), b.claim()];
    expect(r1.add(20)).toBe(true); // over the budget, but the oldest reader goes on
    expect(r2.add(20)).toBe(false);
    let woken = 0;
    r2.pauseUntil(() => woken++);
    r1.release(); // 110 held, over the budget, but r2 is now the oldest reader: it goes on
    expect(woken).toBe(1);
    expect(b.held).toBe(110);
    hold.release();
    r2.release();
    expect(b.held).toBe(0);
  });
});

describe('replies in flight share it', () => {
  /** Sends `size` bytes in two halves; the second half waits until `requests` requests have arrived. */
  function twoHalves(size: number, requests: number): (req: unknown, res: ServerResponse) => void {
    const held: Array<() => void> = [];
    return (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a'.repeat(size / 2));
      held.push(() => res.end('b'.repeat(size / 2)));
      if (held.length === requests) for (const go of held) go();
    };
  }

  it('holds at most the budget plus the oldest reply: the later reply pauses, then completes', async () => {
    const budget = new ReplyBudget(1024 * KIB);
    server = await hostileServer(twoHalves(1200 * KIB, 2));
    const f = makeNodeFetch({ maxResponseBytes: 2048 * KIB, budget });
    const bodies = await Promise.all([f(`${server.url}/a`), f(`${server.url}/b`)].map(async (r) => (await r).text()));
    expect(bodies.map((t) => t.length)).toEqual([1200 * KIB, 1200 * KIB]);
    expect(budget.waits).toBeGreaterThan(0);
    expect(budget.peak).toBeLessThanOrEqual(1024 * KIB + 1200 * KIB + 2 * 64 * KIB);
    expect(budget.held).toBe(0);
  });

  it('a request aborted while its reply waits for room says so', async () => {
    const budget = new ReplyBudget(64 * KIB);
    server = await hostileServer(twoHalves(512 * KIB, 3)); // never all three: both stay open
    const f = makeNodeFetch({ budget });
    const first = f(`${server.url}/a`);
    const controller = new AbortController();
    const second = f(`${server.url}/b`, { signal: controller.signal });
    while (budget.waits === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    await expect(second).rejects.toThrow();
    expect(waitedOnBudget(controller.signal)).toBe(true);
    await server.close();
    server = null;
    await first.catch(() => {});
    expect(budget.held).toBe(0);
  });
});

describe('--max-response-mb', () => {
  it('refuses a cap no reply can be held under (a body becomes one string, and V8 cannot make one of 512 MB)', async () => {
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '1', '--max-response-mb', '600', '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-response-mb .*500/);
  });
});
