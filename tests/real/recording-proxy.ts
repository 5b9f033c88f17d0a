/**
 * A proxy between bas and the real server that keeps every exchange byte for byte: what the
 * server sent is then known independently of what bas recorded, so a test can hold bas's
 * records (reply text, token counts) against the server's own words.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request and the whole response to it. */
export interface Exchange {
  path: string;
  /** The request body, parsed (null for a request without one). */
  request: Record<string, any> | null;
  status: number;
  /** The response body as the server sent it. */
  body: string;
}

/** What a chat completion carried, read from a whole body or from its event stream. */
export interface ServerReply {
  content: string;
  finish: string | null;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

export interface RecordingProxy {
  url: string;
  exchanges: Exchange[];
  /** The chat completions among the exchanges, in the order their responses ended. */
  completions(): Exchange[];
  /** Resolves once every request received so far has been answered or dropped, and kept. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (a base URL such as `http://127.0.0.1:PORT/v1`). */
export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  let open = 0;
  const waiting: Array<() => void> = [];
  const server = createServer((req, res) => {
    open++;
    let closed = false;
    const settle = (): void => {
      if (closed) return;
      closed = true;
      if (--open === 0) for (const done of waiting.splice(0)) done();
    };
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(parts);
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          const got: Buffer[] = [];
          up.on('data', (c: Buffer) => {
            got.push(c);
            res.write(c);
          });
          // Kept once, when the server's answer ends or its connection closes: bas closes a
          // stream as soon as it has read [DONE], which may be before the server's last bytes.
          let kept = false;
          const keep = (): void => {
            if (kept) return;
            kept = true;
            exchanges.push({
              path: req.url ?? '',
              request: sent.length > 0 ? (JSON.parse(sent.toString('utf8')) as Record<string, any>) : null,
              status: up.statusCode ?? 0,
              body: Buffer.concat(got).toString('utf8'),
            });
            settle();
          };
          up.on('end', () => {
            keep();
            res.end();
          });
          up.on('close', keep);
        },
      );
      out.on('error', () => {
        res.destroy();
        settle();
      });
      // bas gave up on the request (a timeout): the server's work is dropped with it.
      res.on('close', () => out.destroy());
      out.end(sent);
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    exchanges,
    completions: () => exchanges.filter((e) => e.path.endsWith('/chat/completions') && e.status === 200),
    idle: () => (open === 0 ? Promise.resolve() : new Promise((done) => waiting.push(done))),
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** What the server's response said: one JSON body, or the data lines of an event stream. */
export function serverReply(e: Exchange): ServerReply {
  if (e.request?.stream !== true) {
    const body = JSON.parse(e.body) as Record<string, any>;
    const choice = body.choices[0];
    return { content: choice.message.content, finish: choice.finish_reason, usage: body.usage ?? null };
  }
  const reply: ServerReply = { content: '', finish: null, usage: null };
  for (const line of e.body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as Record<string, any>;
    if (chunk.usage) reply.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (typeof choice?.delta?.content === 'string') reply.content += choice.delta.content;
    if (choice?.finish_reason) reply.finish = choice.finish_reason;
  }
  return reply;
}
