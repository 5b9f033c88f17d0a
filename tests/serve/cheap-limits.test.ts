/**
 * Limits that cost a client nothing to fill (issue 36, defect 9): connections that trickle
 * their headers took every place of `bas view` (counted before the token was checked); idle
 * connections declaring large bodies held the reward server's body budget for minutes; `bas
 * serve --api-key` reserved the budget before it checked the key. No test here waits for a
 * length of time: the body's idle bound runs on fake timers, the rest on the servers' answers.
 */
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BODY_IDLE_MS, HEADERS_TIMEOUT_MS, RequestGate, SERVER_OPTIONS } from '../../src/serve/http-service.js';
import { startServer } from '../../src/serve/serve.js';
import { startViewServer } from '../../src/view/server.js';
import { writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';
import { QUIET_SERVE } from '../support/serve-options.js';

const closers: Array<() => Promise<void>> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(closers.splice(0).map((c) => c()));
});

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

/** A connection that sends `head` and then nothing, open once connected. */
async function opened(port: number, head: string): Promise<Socket> {
  const s = connect(port, '127.0.0.1');
  sockets.push(s);
  s.on('error', () => undefined);
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(head);
  return s;
}

describe('bas view: a place under --max-connections is taken after the token check', () => {
  it('connections still sending headers, or without the token, leave honest requests served', async () => {
    const root = tempDir('bas-view-cheap-');
    writeRun(join(root, 'a'), { n: 3, model: 'm', choose: () => 'oracle' });
    const token = 'view-token-0123456789';
    const server = await startViewServer({
      root,
      port: 0,
      host: '127.0.0.1',
      token,
      maxConnections: 2,
      warm: false,
    });
    closers.push(() => server.close());
    const port = Number(new URL(server.url).port);
    // Four connections that send the start of a request and never its end.
    for (let i = 0; i < 4; i++) await opened(port, 'GET /api/runs HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
    // Three that ask without the token, on connections kept open.
    for (let i = 0; i < 3; i++) await opened(port, 'GET /api/runs HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await turns(20);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.url}api/runs`, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { runs: unknown[] }).runs).toHaveLength(1);
    }
  });

  it('bounds the time to send headers, checked each second', () => {
    expect(HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
    expect(SERVER_OPTIONS).toEqual({ headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 });
  });
});

describe('bas serve --api-key', () => {
  it('refuses a request without the key before reserving any of the body budget', async () => {
    const s = await startServer({ ...QUIET_SERVE, apiKey: 'right-key-0123456789', bodyBudgetBytes: 1 << 20 });
    closers.push(() => s.close());
    const socket = await opened(
      s.port,
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${1 << 20}\r\n\r\n{`,
    );
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    await new Promise<void>((r) => socket.on('close', () => r()));
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(s.load().bodyBytes).toBe(0);
    expect(s.stats.unauthorized).toBe(1);
  });
});

describe('a body that stops coming', () => {
  it('is answered 408 and gives its share of the budget back after BODY_IDLE_MS', async () => {
    vi.useFakeTimers();
    const limits = { maxBodyBytes: 64 << 20, bodyBudgetBytes: 128 << 20, maxConnections: 8 };
    const gate = new RequestGate({ ...limits, flags: { maxBody: '', bodyBudget: '', maxConnections: '' } }, (m) => ({
      m,
    }));
    const socket = Object.assign(new EventEmitter(), { destroy: () => undefined });
    const req = Object.assign(new EventEmitter(), {
      headers: { 'content-length': String(64 << 20) },
      socket,
      complete: false,
      destroy: () => undefined,
    });
    let status = 0;
    const res = Object.assign(new EventEmitter(), {
      headersSent: false,
      destroyed: false,
      writeHead: (code: number) => void (status = code),
      end: () => res.emit('finish'),
    });
    const body = gate.readBody(req as never, res as never);
    expect(gate.load().bodyBytes).toBe(64 << 20);
    vi.advanceTimersByTime(BODY_IDLE_MS - 1);
    req.emit('data', Buffer.from('{'));
    vi.advanceTimersByTime(BODY_IDLE_MS - 1);
    expect(gate.load().bodyBytes).toBe(64 << 20);
    vi.advanceTimersByTime(1);
    expect(await body).toBeNull();
    expect(status).toBe(408);
    expect(gate.load().bodyBytes).toBe(0);
  });
});
