// Reference clients for the latency-bound eval benchmark: what this machine allows before
// any runner is involved. Each sends the same requests `bas eval` would (the same tasks'
// prompts), N of them with C in flight, to the given endpoint, and prints the seconds from
// the first request to the last reply as JSON. Everything is prepared before the clock
// starts, so these are floors, not runners: no task generation, no scoring, no results file.
//
//   node bench/floor-client.mjs http URL N C   bare node:http with keep-alive, bodies serialized
//   node bench/floor-client.mjs sdk URL N C    the openai SDK (with bas's fetch), messages built
//   node bench/floor-client.mjs sdk-own URL N C  the openai SDK with its own fetch (Node's, undici)
//
// Optional KEY=VALUE arguments after C: rows=K (rows per ledger, default 24), model=NAME (the
// model named in each request, default floor), max_tokens=M (sent when given), as a real model
// needs (bench/peers.mjs), first=alone (the first request goes alone and the others wait for its
// reply, as bas's slow start does: the floor for a runner that keeps that promise).
import { request, Agent } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './measure.mjs';

const [mode, baseURL, nText, cText, ...options] = process.argv.slice(2);
const n = Number(nText);
const c = Number(cText);
const opt = Object.fromEntries(options.map((o) => o.split('=')));
if (!['http', 'sdk', 'sdk-own'].includes(mode) || !baseURL || !(n > 0) || !(c > 0)) {
  console.error(
    'usage: node bench/floor-client.mjs http|sdk|sdk-own URL N C [rows=K] [model=NAME] [max_tokens=M] [first=alone]',
  );
  process.exit(2);
}
const model = opt.model ?? 'floor';
const limit = opt.max_tokens ? { max_tokens: Number(opt.max_tokens) } : {};
const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const { DEFAULT_TASK_CONFIG } = await load('task/config.js');
const { generateTask } = await load('task/generate.js');
const config = { ...DEFAULT_TASK_CONFIG, num_transactions: Number(opt.rows ?? DEFAULT_TASK_CONFIG.num_transactions) };
const prompts = Array.from({ length: n }, (_, i) => generateTask(config, i).prompt);

let send;
if (mode === 'http') {
  const url = new URL(`${baseURL}/chat/completions`);
  const agent = new Agent({ keepAlive: true });
  const bodies = prompts.map((messages) => JSON.stringify({ model, messages, ...limit }));
  send = (i) =>
    new Promise((resolve, reject) => {
      const body = bodies[i];
      const req = request(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: 'Bearer floor',
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (d) => chunks.push(d));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
} else {
  const { default: OpenAI } = await import('openai');
  const own = mode === 'sdk-own' ? {} : { fetch: (await load('endpoint/http-fetch.js')).nodeFetch };
  const sdk = new OpenAI({ apiKey: 'floor', baseURL, maxRetries: 0, ...own });
  send = (i) => sdk.chat.completions.create({ model, messages: prompts[i], ...limit });
}

let next = 0;
async function lane() {
  while (next < n) await send(next++);
}
const started = performance.now();
if (opt.first === 'alone') await send(next++);
await Promise.all(Array.from({ length: Math.min(c, n) }, lane));
console.log(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
process.exit(0);
