/**
 * An endpoint that misbehaves on purpose, for tests: it answers each request with whatever
 * `respond` decides, and the canned behaviours below cover what issue 9 found (echoing the
 * key, terminal control sequences, bodies that never end, degenerate replies). It runs in the
 * test's own process, so drive the CLI against it with an asynchronous spawn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the endpoint saw it. */
interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Decides the answer to one request; may write to `res` at leisure. */
export type Respond = (req: SeenRequest, res: ServerResponse) => void;

export interface HostileServer {
  /** Base URL to give the client, ending in /v1. */
  url: string;
  /** Every request received so far. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Starts the endpoint on a free loopback port. */
export function hostileServer(respond: Respond): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      seen.push(r);
      respond(r, res);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        seen,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Sends `value` as JSON with `status`. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A chat completion whose one choice says `content`. */
function completion(content: string, model = 'hostile-model'): unknown {
  return {
    id: 'chatcmpl-hostile',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

/** Terminal control sequences an endpoint might slip into text: title, clear, clipboard. */
const CONTROL_SEQUENCES = '\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x1b\\\u009b31m\r';

/** Answers `status` with an error body that quotes the request's Authorization header. */
export function echoKeyError(status: number): Respond {
  return (req, res) => {
    const auth = String(req.headers.authorization ?? '');
    sendJson(
      res,
      status,
      {
        error: {
          message: `${CONTROL_SEQUENCES}you sent ${auth}; model unknown`,
          type: 'invalid_request_error',
          code: null,
        },
      },
      { 'x-echo': auth },
    );
  };
}

/** Answers 200 with a reply that quotes the Authorization header and control sequences. */
export function echoKeyReply(): Respond {
  return (req, res) =>
    sendJson(res, 200, completion(`${CONTROL_SEQUENCES}your key: ${String(req.headers.authorization ?? '')}`));
}

/** Answers 200 with a chunked body that never ends: `chunk` every `everyMs` until the client goes. */
export function endlessBody(chunk = 'x'.repeat(1 << 16), everyMs = 1): Respond {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => {
      if (res.destroyed || res.writableEnded) return clearInterval(timer);
      res.write(chunk);
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  };
}
