/**
 * `bas serve` survives its clients (issue 16 §2): a request of any shape or size gets an
 * answer of its own (400, 413), never takes the process down, and never touches another
 * client's request in flight. Runs the real `bas serve` process.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { serveProcess as serve, type Served } from '../support/cli.js';
import { generateTask } from '../../src/task/generate.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';

let served: Served | null = null;
afterEach(async () => {
  await served?.stop();
  served = null;
});

interface Answer {
  status: number;
  body: string;
}

/** POSTs `body` to the chat route; `headers` may declare a length the body does not have. */
function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const good = JSON.stringify({ model: 'm', messages: generateTask(DEFAULT_TASK_CONFIG, 0).prompt });

function alive(s: Served): boolean {
  return !s.ended();
}

describe('bas serve survives its clients', () => {
  it.each([
    ['"messages": [null]', { model: 'm', messages: [null] }, 'messages[0] must be an object'],
    ['messages not a list', { model: 'm', messages: 'hi' }, '"messages"'],
    ['no messages', { model: 'm', messages: [] }, '"messages"'],
    ['no model', { messages: [{ role: 'user', content: 'x' }] }, '"model"'],
    ['role not a string', { model: 'm', messages: [{ role: 7, content: 'x' }] }, 'messages[0].role'],
    ['content a number', { model: 'm', messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    ['a part that is null', { model: 'm', messages: [{ role: 'user', content: [null] }] }, 'messages[0].content[0]'],
    ['stream not a boolean', { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, '"stream"'],
    [
      'stream_options a list',
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stream_options: [] },
      '"stream_options"',
    ],
    ['the body null', null, 'JSON object'],
    ['the body a list', [1, 2], 'JSON object'],
  ])('%s gets a 400 naming what is wrong, and the server keeps answering', async (_name, body, words) => {
    served = await serve([]);
    const bad = await post(served.url, JSON.stringify(body));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toContain(words);
    const ok = await post(served.url, good);
    expect(ok.status).toBe(200);
    expect(alive(served)).toBe(true);
  });

  it('a body past the cap gets 413, whether its length is declared or not, and the server keeps answering', async () => {
    served = await serve(['--max-request-mb', '0.01']);
    const big = Buffer.alloc(20_000, 'a');
    const declared = await post(served.url, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.message).toContain('larger than the 10486 bytes');
    const chunked = await post(served.url, big, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
    // A declared 600 MB body is refused before any of it is read.
    const huge = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${served!.url}/chat/completions`,
        { method: 'POST', headers: { 'content-length': String(600 * 1024 * 1024) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
      req.write(Buffer.alloc(1024));
    });
    expect(huge).toBe(413);
    expect((await post(served.url, good)).status).toBe(200);
    expect(alive(served)).toBe(true);
  });

  it('a bad request never touches another in flight, nor a client that hangs up mid-body', async () => {
    served = await serve(['--latency', '300']);
    const inFlight = post(served.url, good);
    // A client that sends half a body and goes away.
    await new Promise<void>((resolve) => {
      const req = request(`${served!.url}/chat/completions`, { method: 'POST', headers: { 'content-length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"model": "m", "mess', () => {
        req.destroy();
        resolve();
      });
    });
    const bad = await Promise.all([
      post(served.url, '{"model": "m", "messages": [null]}'),
      post(served.url, 'not json'),
      post(served.url, '{"model": "m", "messages": [{"role": "user", "content": {"a": 1}}]}'),
    ]);
    expect(bad.map((b) => b.status)).toEqual([400, 400, 400]);
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).choices[0].message.content).toContain('<answer>');
    expect(alive(served)).toBe(true);
  });

  it('a client that hangs up before its answer is sent does not stop the server', async () => {
    served = await serve(['--latency', '100']);
    await new Promise<void>((resolve) => {
      const req = request(`${served!.url}/chat/completions`, { method: 'POST' });
      req.on('error', () => resolve());
      req.end(good, () => setImmediate(() => (req.destroy(), resolve())));
    });
    await new Promise<void>((resolve) => {
      const req = request(`${served!.url}/chat/completions`, { method: 'POST' });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ model: 'm', messages: JSON.parse(good).messages, stream: true }), () =>
        setImmediate(() => (req.destroy(), resolve())),
      );
    });
    const ok = await post(served.url, good);
    expect(ok.status).toBe(200);
    expect(alive(served)).toBe(true);
  });
});
