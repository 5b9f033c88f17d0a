/**
 * An endpoint that misbehaves on purpose, for tests: it answers each request with whatever
 * `respond` decides, and the canned behaviours below cover what issue 9 found (echoing the
 * key, terminal control sequences, bodies that never end, degenerate replies). It runs in the
 * test's own process, beside the CLI that `bas()` (tests/support/cli.ts) runs against it.
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
export function completion(content: string, model = 'hostile-model'): unknown {
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

/**
 * Every way an echo may split the key with something a reader does not see (issue 16 §1):
 * escape sequences (CSI, OSC, 8-bit CSI), C1 and C0 controls, and Unicode's invisible and
 * format characters. Named, for test titles.
 */
export const KEY_SPLITTERS: ReadonlyArray<readonly [string, string]> = [
  ['CSI', '\x1b[m'],
  ['CSI with parameters', '\x1b[1;31m'],
  ['OSC ended by BEL', '\x1b]0;title\x07'],
  ['OSC ended by ST', '\x1b]52;c;eA==\x1b\\'],
  ['8-bit CSI', '\u009b0m'],
  ['C1 control', '\u0085'],
  ['zero-width space', '\u200b'],
  ['zero-width joiner', '\u200d'],
  ['zero-width non-joiner', '\u200c'],
  ['byte-order mark', '\ufeff'],
  ['soft hyphen', '\u00ad'],
  ['right-to-left override', '\u202e'],
  ['left-to-right isolate', '\u2066'],
  ['right-to-left mark', '\u200f'],
  ['tag character', '\u{e0041}'],
  ['NUL', '\x00'],
  ['DEL', '\x7f'],
  ['backspace', '\b'],
  ['carriage return', '\r'],
];

/** `key` with `splitter` put in after its first `at` characters. */
export function splitKey(key: string, splitter: string, at: number): string {
  return `${key.slice(0, at)}${splitter}${key.slice(at)}`;
}

/** The ways `echoSplitKeys` quotes the key, in the order it cycles through them. */
const ECHO_FORMS = ['reply', 'error body', 'refusal', 'JSON that is not', 'plain text body'] as const;

/** Where bas cuts each form of provider text: the echo is padded so the cut falls inside the key. */
const CUT_AT: Record<(typeof ECHO_FORMS)[number], number> = {
  reply: 0,
  'error body': 300,
  refusal: 200,
  'JSON that is not': 80,
  'plain text body': 80,
};

/**
 * An endpoint that echoes the request's key split by a hidden character or sequence, padded so
 * that bas's cut of that kind of text falls at the split. Request by request it goes through
 * every form (a reply, a 400 error body, a refusal, a body that claims JSON and is not, a
 * plain text body), every splitter of KEY_SPLITTERS and every offset across the key:
 * `ECHO_FORMS.length × KEY_SPLITTERS.length × (key length − 1)` requests cover them all.
 */
export function echoSplitKeys(): Respond {
  let count = 0;
  return (req, res) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const v = count++;
    const form = ECHO_FORMS[v % ECHO_FORMS.length]!;
    const combo = Math.floor(v / ECHO_FORMS.length);
    const splitter = KEY_SPLITTERS[combo % KEY_SPLITTERS.length]![1];
    const at = 1 + (Math.floor(combo / KEY_SPLITTERS.length) % Math.max(1, key.length - 1));
    const echo = `${'p'.repeat(Math.max(0, CUT_AT[form] - at))}${splitKey(key, splitter, at)} and the rest`;
    if (form === 'reply') return sendJson(res, 200, completion(`your key: ${echo}`));
    if (form === 'error body')
      return sendJson(res, 400, { error: { message: echo, type: 'invalid_request_error', code: null } });
    if (form === 'refusal') {
      const body = completion('');
      (body as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]!.message = {
        role: 'assistant',
        content: null,
        refusal: echo,
      };
      return sendJson(res, 200, body);
    }
    res.writeHead(200, { 'content-type': form === 'plain text body' ? 'text/plain' : 'application/json' });
    res.end(echo);
  };
}

/**
 * One message with a copy of the key split by each splitter, then one more copy padded so that
 * a cut at `cut` characters of the shown text falls `at` characters into it (each redacted
 * copy shows as "[redacted]" and a space).
 */
export function allSplitsMessage(key: string, at: number, cut: number): string {
  const copies = KEY_SPLITTERS.map(([, s]) => splitKey(key, s, at));
  const shown = copies.length * '[redacted] '.length;
  return `${copies.join(' ')} ${'p'.repeat(Math.max(0, cut - shown - at))}${splitKey(key, '\u200b', at)} and the rest`;
}
