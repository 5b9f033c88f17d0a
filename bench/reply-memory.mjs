// The budget for replies in flight (issue 26): `bas eval -n 64 -c 64` against a local endpoint
// that answers every request with a reply of 30 MB, the budget set to its default of 512 MiB
// (`BAS_REPLY_BUDGET_MB=512`, so the figure does not depend on the machine's memory). Every
// request is in flight at once and every reply is as large as `--max-response-mb` allows
// (32 MiB), the worst a run of that size can meet. Target: peak RSS at most 700 MB; counted in
// bytes received, the budget let the same run reach 1.09 GiB. Every rollout must be recorded:
// a run that fails its replies holds less and would pass for the wrong reason.
// The endpoint is a plain node:http server in this process writing one prepared body, not
// `bas serve` (which has no flag for replies that large): it costs bas's figure nothing.
// Run directly: `node bench/reply-memory.mjs` (build first).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureBas, row } from './measure.mjs';

const N = 64;
const C = 64;
const REPLY_BYTES = 30_000_000;
const BUDGET_MB = 512;
const TARGET_MB = 700;

/** A chat completion whose content is `bytes` long in all, ready to be written as it is. */
function replyBody(bytes) {
  const shell = (content) =>
    JSON.stringify({
      id: 'bench',
      object: 'chat.completion',
      model: 'bench-model',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  return Buffer.from(shell('x'.repeat(bytes - shell('').length)));
}

/** An endpoint answering every chat request with `body`; resolves to {url, requests, close}. */
function startLargeReplies(body) {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/v1`,
        requests: () => state.requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export async function benchReplyMemory() {
  const body = replyBody(REPLY_BYTES);
  const endpoint = await startLargeReplies(body);
  const dir = join(mkdtempSync(join(tmpdir(), 'bas-bench-replies-')), 'run');
  try {
    const args = ['eval', '-m', 'bench-model', '--base-url', endpoint.url, '--api-key-var', 'BAS_BENCH_KEY'];
    args.push('-n', String(N), '-c', String(C), '--output', dir, '--no-progress');
    const env = { BAS_BENCH_KEY: 'bench-key', BAS_REPLY_BUDGET_MB: String(BUDGET_MB) };
    const m = await measureBas(args, { env });
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    const { completed, errored } = run.summary.counts;
    if (m.code !== 0 || completed !== N)
      throw new Error(`bas eval -n ${N} exited with ${m.code}: ${completed} completed, ${errored} errored`);
    const settings = `-n ${N} -c ${C}, ${REPLY_BYTES / 1e6} MB replies, BAS_REPLY_BUDGET_MB=${BUDGET_MB}`;
    return [
      row(`eval ${settings}: peak RSS`, m.rssMb, 'MiB', `<= ${TARGET_MB}`, m.rssMb <= TARGET_MB),
      row('  replies sent by the endpoint', endpoint.requests(), 'replies', `${N}`, endpoint.requests() === N),
      // The wall time follows the machine's load; the CPU time is bas's own.
      row('  wall time', m.seconds, 's'),
      row('  CPU time of bas eval', m.cpuSeconds, 's'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await endpoint.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchReplyMemory()) console.log(r.name, r.value.toFixed(1), r.unit, r.target);
}
