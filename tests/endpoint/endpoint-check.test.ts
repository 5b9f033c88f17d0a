import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listModels, probe, renderProbe } from '../../src/endpoint/endpoint-check.js';

const NO_SAMPLING = { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} };

describe('probe', () => {
  let url = '';
  let status = 400;
  let body: unknown = {};
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  beforeAll(
    () =>
      new Promise<void>((done) =>
        server.listen(0, '127.0.0.1', () => {
          url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
          done();
        }),
      ),
  );
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  const ep = () => ({ baseURL: url, apiKey: 'k', requestTimeoutMs: 10_000 });

  it('names a refused field from the message when the body names no param', async () => {
    status = 400;
    body = { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model." } };
    const r = await probe(ep(), 'm', { ...NO_SAMPLING, max_tokens: 50 });
    expect(r).toMatchObject({
      ok: false,
      reachable: true,
      status: 400,
      keyAccepted: true,
      paramsAccepted: false,
      refusedParam: 'max_tokens',
    });
    expect(renderProbe(r, 'h')).toMatch(/parameters +refused: max_tokens \(sent max_tokens=50\)/);
  });

  it('a 422 that names nothing it was sent still reports the parameters refused, with the message', async () => {
    status = 422;
    body = { error: { message: 'bad request' } };
    const r = await probe(ep(), 'm', NO_SAMPLING);
    expect(r).toMatchObject({ paramsAccepted: false, refusedParam: null, message: 'bad request' });
  });

  it('a 500 is neither a refused key nor a refused parameter', async () => {
    status = 500;
    body = { error: { message: 'overloaded' } };
    const r = await probe(ep(), 'm', NO_SAMPLING);
    expect(r).toMatchObject({
      ok: false,
      reachable: true,
      keyAccepted: true,
      paramsAccepted: null,
      message: 'overloaded',
    });
  });

  it('an empty reply passes, with a note', async () => {
    status = 200;
    body = {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'length' }],
    };
    const r = await probe(ep(), 'm', NO_SAMPLING);
    expect(r.ok).toBe(true);
    expect(renderProbe(r, 'h')).toMatch(/note +the reply was empty/);
  });

  it.each([{}, '<html>sign in</html>', { data: 'none' }, { error: null }])(
    'a 200 that is not a model list (%j) is an error, not "0 models"',
    async (sent) => {
      status = 200;
      body = sent;
      await expect(listModels(ep())).rejects.toThrow(/not a model list/);
    },
  );

  it('a model list is read, ids sorted', async () => {
    status = 200;
    body = { object: 'list', data: [{ id: 'b' }, { id: 'a', owned_by: 'me' }, { nothing: 1 }] };
    expect(await listModels(ep())).toEqual([
      { id: 'a', owned_by: 'me' },
      { id: 'b', owned_by: null },
    ]);
  });
});
