/**
 * The `bas view` server: one page (page.ts, its script and style inline) and a JSON API over
 * the runs under one folder (api.ts; the diff of two runs in diff-api.ts), on the bounded HTTP service the other servers use
 * (connections capped; no request body is ever read). It only answers GET and HEAD. Bound to
 * a host other than loopback it needs a bearer token on the API; on loopback it answers only
 * requests addressed to loopback (a page elsewhere cannot reach it by a DNS name that
 * resolves here).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { RequestError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import { authorized, listen, RequestGate, sendJson, SERVER_OPTIONS } from '../serve/http-service.js';
import { compareAnswer, progressAnswer, rolloutAnswer, rolloutsAnswer, runAnswer, runsAnswer } from './api.js';
import { Catalog } from './catalog.js';
import { sweepAnswer } from './sweep-view.js';
import { diffAnswer } from './diff-api.js';
import { leaderboardAnswer } from './leaderboard-api.js';
import { viewPage } from './page.js';

export interface ViewServerOptions {
  /** The folder whose runs are served. */
  root: string;
  port: number;
  host: string;
  /** Needed on the API when set (and the command refuses a host off loopback without one). */
  token: string | null;
  maxConnections: number;
  /** Read every run's index and report in the background from the start (default true). */
  warm?: boolean;
  /** A results file with more than this left to read is read in the background (catalog.ts has the default). */
  waitBytes?: number;
}

export interface RunningViewServer {
  url: string;
  port: number;
  catalog: Catalog;
  close(): Promise<void>;
}

/** Whether `host` names this machine only. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

const ROUTES: Record<string, (c: Catalog, q: URLSearchParams) => Promise<unknown>> = {
  '/api/runs': (c) => runsAnswer(c),
  '/api/run': runAnswer,
  '/api/progress': progressAnswer,
  '/api/rollouts': rolloutsAnswer,
  '/api/rollout': rolloutAnswer,
  '/api/compare': compareAnswer,
  '/api/sweep': sweepAnswer,
  '/api/diff': diffAnswer,
  '/api/leaderboard': (c) => leaderboardAnswer(c),
};

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message } }, { 'cache-control': 'no-store', ...headers });
}

const CSP = (nonce: string): string =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** The page, with a fresh nonce for its script and style. */
function sendPage(req: IncomingMessage, res: ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  const html = viewPage(nonce);
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    // Nothing from elsewhere, and no script but the page's own.
    'content-security-policy': CSP(nonce),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** Why a request is refused before it is routed (a status and a message), or null. */
function refusal(req: IncomingMessage, loopback: boolean): [number, string, Record<string, string>] | null {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return [405, 'this server only reads: use GET', { allow: 'GET, HEAD', connection: 'close' }];
  // A request with a body is not one this page makes; nothing of it is read.
  if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'])
    return [413, 'this server takes no request body', { connection: 'close' }];
  if (loopback && !isLoopback((req.headers.host ?? '').replace(/:\d+$/, '')))
    return [421, 'this server answers only requests addressed to loopback', {}];
  return null;
}

/** Answers one request: the page, or an API route over the catalog. */
function router(catalog: Catalog, gate: RequestGate, token: Buffer | null, loopback: boolean) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A connection takes a place under --max-connections only here, after the refusals and the
    // token check: one still sending its headers, or without the token, holds none.
    const refused = refusal(req, loopback);
    if (refused) return sendError(res, ...refused);
    const url = new URL(req.url ?? '/', 'http://view.invalid');
    if (url.pathname === '/' || url.pathname === '/index.html')
      return void (gate.admit(req, res) && sendPage(req, res));
    const handler = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname]! : null;
    if (handler === null) return sendError(res, 404, `no such page: ${terminalText(url.pathname.slice(0, 200))}`);
    if (!authorized(req, token))
      return sendError(res, 401, 'this server needs "Authorization: Bearer <token>" (open the page with ?token=…)', {
        'www-authenticate': 'Bearer',
      });
    if (!gate.admit(req, res)) return;
    try {
      const body = await handler(catalog, url.searchParams);
      sendJson(res, 200, body, { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    } catch (err) {
      if (err instanceof RequestError) return sendError(res, err.status, err.message);
      throw err;
    }
  };
}

const noop = (): void => {};

/** Starts the server; resolves once it listens. */
export async function startViewServer(o: ViewServerOptions): Promise<RunningViewServer> {
  const catalog = new Catalog(o.root, { waitBytes: o.waitBytes });
  const gate = new RequestGate(
    {
      maxBodyBytes: 0,
      bodyBudgetBytes: 0,
      maxConnections: o.maxConnections,
      flags: { maxBody: '(none)', bodyBudget: '(none)', maxConnections: '--max-connections' },
    },
    (message) => ({ error: { message } }),
    'request',
  );
  const route = router(catalog, gate, o.token === null ? null : Buffer.from(o.token), isLoopback(o.host));
  const server = createServer(SERVER_OPTIONS, (req, res) => {
    void route(req, res).catch(() => sendError(res, 500, 'internal error'));
  });
  server.keepAliveTimeout = 5_000;
  gate.watch(server);
  const at = await listen(server, o.port, o.host);
  let stopped = false;
  // Every run is read in the background, newest first, so the one a user opens is ready.
  if (o.warm !== false) void catalog.warm(() => stopped).catch(noop);
  return {
    url: `http://${at.host}:${at.port}/`,
    port: at.port,
    catalog,
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
