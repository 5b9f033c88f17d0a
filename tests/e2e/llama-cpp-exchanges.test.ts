/**
 * What a real llama.cpp server (llama-cpp-python 0.3.36, Gemma 3 270M, an 8,192-token context)
 * sent bas, replayed by a small server here: a prompt past its context window is a 400 naming
 * each prompt's own length, or, streamed, a 200 whose event stream closes before its first
 * piece. Either way the run stops after its first three rollouts with what to change, instead
 * of spending every task on it (tests/real/ runs the real server).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, tempDir } from '../support/cli.js';

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((done) => s.close(done)))));

/** Starts a server answering every chat request with `answer`; counts the requests. */
async function replay(answer: (body: Record<string, unknown>, res: ServerResponse) => void) {
  let requests = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      requests++;
      answer(JSON.parse(text) as Record<string, unknown>, res);
    });
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests: () => requests };
}

/** The 400 as llama-cpp-python words it, with a length that differs per prompt. */
function overflow(res: ServerResponse, length: number): void {
  const error = {
    message: `This model's maximum context length is 8192 tokens. However, you requested ${length + 16} tokens (${length} in the messages, 16 in the completion). Please reduce the length of the messages or completion.`,
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  };
  res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
}

const evalArgs = (url: string, dir: string, extra: string[]) => [
  'eval',
  ...['-m', 'gemma-3-270m', '--base-url', url, '--output', dir, '--no-progress'],
  ...['-n', '20', '-c', '4', '--max-tokens', '16', '--num-transactions', '400'],
  ...extra,
];

describe('a prompt past a llama.cpp server context window', () => {
  it('stops the run after three refusals that differ only in their numbers, saying what to change', async () => {
    let length = 22000;
    const s = await replay((_body, res) => overflow(res, (length += 97)));
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, []), { env: { OPENAI_API_KEY: 'local' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused every request: HTTP 400: This model's maximum context length is 8192 tokens/);
    expect(r.stderr).toMatch(/use fewer --num-transactions, or a server with a larger context/);
    expect(s.requests()).toBe(3);
    expect(readResults(dir).length).toBeLessThanOrEqual(3);
  });

  it('streamed, each stream closes empty: the run stops after three rollouts and points at the cause', async () => {
    const s = await replay((_body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).end();
    });
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['--stream', '--max-retries', '0']), {
      env: { OPENAI_API_KEY: 'local' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sent no usable reply: the stream ended before the reply finished \(0 chunks/);
    expect(r.stderr).toMatch(/run bas check without --stream to see its error/);
    expect(s.requests()).toBe(3);
  });

  it('a stream cut short with [DONE] and no finish reason is a cut reply, never graded as whole', async () => {
    // Recorded from llama-cpp-python with its default interrupt_requests: when a second request
    // came in, the stream being served ended at once with [DONE], no finish_reason.
    const s = await replay((body, res) => {
      const chunk = (delta: Record<string, string>) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(`: ping - now\n\n${chunk({ role: 'assistant' })}${chunk({ content: 'Business: ' })}data: [DONE]\n\n`);
    });
    const dir = join(tempDir(), 'run');
    const args = ['eval', '-m', 'gemma-3-270m', '--base-url', s.url, '--output', dir, '--no-progress'];
    const r = await bas([...args, '-n', '2', '-c', '1', '--stream', '--max-retries', '0'], {
      env: { OPENAI_API_KEY: 'local' },
    });
    expect(r.code).toBe(3);
    for (const x of readResults(dir)) {
      expect(x.reply).toBeNull();
      expect(x.error).toMatchObject({ type: 'network' });
      expect(x.error.message).toMatch(/ended with \[DONE\] before the reply said how it finished \(2 chunks/);
    }
  });
});
