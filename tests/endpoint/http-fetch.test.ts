/**
 * The fetch the SDK is given (src/endpoint/http-fetch.ts): what it hands back for each kind of
 * response, how it stops, and the cap on bodies. Against real sockets on loopback.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError } from '../../src/endpoint/classify.js';
import { makeNodeFetch, nodeFetch } from '../../src/endpoint/http-fetch.js';
import { ResponseTooLargeError } from '../../src/errors/index.js';
import { endlessBody, hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';

let server: HostileServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('responses', () => {
  it('hands back status, headers and body', async () => {
    server = await hostileServer((_req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      sendJson(res, 201, { ok: true }, { 'X-Request-Id': 'r1' });
    });
    const r = await nodeFetch(`${server.url}/x?q=1`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    });
    expect(r.status).toBe(201);
    expect(r.ok).toBe(true);
    expect(r.headers.get('x-request-id')).toBe('r1');
    expect(r.headers.get('Set-Cookie')).toBe('a=1, b=2');
    expect(await r.json()).toEqual({ ok: true });
    expect(server.seen[0]).toMatchObject({ method: 'POST', path: '/v1/x?q=1', body: '{"a":1}' });
    expect(server.seen[0]!.headers.authorization).toBe('Bearer k');
  });
  it('hands back error bodies as they came', async () => {
    server = await hostileServer((_req, res) =>
      sendJson(res, 503, { error: { message: 'overloaded' } }, { 'retry-after': '2' }),
    );
    const r = await nodeFetch(`${server.url}/x`);
    expect(r.ok).toBe(false);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(await r.text()).toBe('{"error":{"message":"overloaded"}}');
  });
  it('gives no body for 204', async () => {
    server = await hostileServer((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const r = await nodeFetch(`${server.url}/x`);
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
  });
  it('lets the SDK read an error status as an APIError', async () => {
    server = await hostileServer((_req, res) =>
      sendJson(res, 400, { error: { message: 'Unsupported value: temperature', code: 'unsupported_value' } }),
    );
    const sdk = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0, fetch: nodeFetch });
    const err = await sdk.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(classifyError(err, false)).toMatchObject({ type: 'provider', status: 400 });
  });
});

describe('stopping', () => {
  it('rejects at once when the signal is already aborted', async () => {
    server = await hostileServer(() => undefined);
    const ac = new AbortController();
    ac.abort();
    await expect(nodeFetch(`${server.url}/x`, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.seen).toHaveLength(0);
  });
  it('rejects when aborted while waiting, and closes the connection', async () => {
    let closed!: Promise<void>;
    server = await hostileServer((_req, res) => {
      closed = new Promise((done) => res.on('close', () => done()));
    });
    const ac = new AbortController();
    const pending = nodeFetch(`${server.url}/x`, { signal: ac.signal });
    while (server.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await closed;
  });
  it('rejects when the connection drops mid-body', async () => {
    server = await hostileServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 10);
    });
    await expect(nodeFetch(`${server.url}/x`)).rejects.toBeInstanceOf(Error);
  });
});

describe('the cap on response bodies', () => {
  it('fails a body that never ends, naming the cap, and closes the connection', async () => {
    let closed!: Promise<void>;
    const endless = endlessBody();
    server = await hostileServer((req, res) => {
      closed = new Promise((done) => res.on('close', () => done()));
      endless(req, res);
    });
    const err = await makeNodeFetch({ maxResponseBytes: 1 << 20 })(`${server.url}/x`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toContain('1 MiB cap');
    await closed;
  });
  it('fails a declared length past the cap before reading it', async () => {
    server = await hostileServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 << 20) });
      res.write('x');
    });
    await expect(makeNodeFetch({ maxResponseBytes: 1 << 20 })(`${server.url}/x`)).rejects.toBeInstanceOf(
      ResponseTooLargeError,
    );
  });
  it('accepts a body of exactly the cap', async () => {
    server = await hostileServer((_req, res) => {
      res.writeHead(200);
      res.end('y'.repeat(4096));
    });
    expect(await (await makeNodeFetch({ maxResponseBytes: 4096 })(`${server.url}/x`)).text()).toHaveLength(4096);
  });
  it('is classified as its own type, which is not retried', async () => {
    server = await hostileServer(endlessBody());
    const sdk = new OpenAI({
      apiKey: 'k',
      baseURL: server.url,
      maxRetries: 0,
      fetch: makeNodeFetch({ maxResponseBytes: 1 << 16 }),
    });
    const err = await sdk.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    const f = classifyError(err, false);
    expect(f.type).toBe('response_too_large');
    expect(f.message).toContain('64 KiB cap');
  });
  it('refuses a cap that is not a positive whole number', () => {
    expect(() => makeNodeFetch({ maxResponseBytes: 0 })).toThrow(RangeError);
  });
});

// HTTPS needs a certificate the client trusts; Node reads extra CAs only at start-up, so the
// fetch runs in a child process (using dist/, built by `npm run build`) that trusts ours.
const ROOT = resolve(import.meta.dirname, '../..');
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const hasDist = existsSync(join(ROOT, 'dist/endpoint/http-fetch.js'));
if (!hasOpenssl || !hasDist)
  console.warn(
    `http-fetch HTTPS tests skipped: ${!hasOpenssl ? 'openssl is not installed' : 'dist/ is not built (npm run build)'}`,
  );

describe.skipIf(!hasOpenssl || !hasDist)('HTTPS', () => {
  it('talks TLS to a server whose certificate is trusted, and refuses one that is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bas-tls-'));
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ]);
    expect(made.status).toBe(0);
    const tls = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ secure: (req.socket as { encrypted?: boolean }).encrypted === true }));
      },
    );
    await new Promise<void>((done) => tls.listen(0, '127.0.0.1', () => done()));
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/v1/x`;
    const script = `import(${JSON.stringify(join(ROOT, 'dist/endpoint/http-fetch.js'))}).then(async (m) => { try { const r = await m.nodeFetch(process.argv[1]); console.log(await r.text()); } catch (e) { console.log('refused: ' + (e.code ?? e.message)); } })`;
    const run = (env: NodeJS.ProcessEnv) =>
      new Promise<string>((done) => {
        const child = spawn(process.execPath, ['-e', script, url], { env: { ...process.env, ...env } });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => done(out.trim()));
      });
    try {
      expect(await run({ NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') })).toBe('{"secure":true}');
      expect(await run({ NODE_EXTRA_CA_CERTS: '' })).toMatch(/^refused: /);
    } finally {
      tls.close();
    }
  });
});
