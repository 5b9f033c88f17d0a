// The two servers under what a hostile client can send (issue 26): many connections that each
// declare a body under the cap and send most of it without finishing, and (reward server) a
// batch whose labels ask for the largest ledgers, with an honest one-item request sent beside
// it. Each server is a real child process started as a user starts it; its memory is read
// from /proc (peak: VmHWM, now: VmRSS), so this section needs Linux.
// Targets: a peak at most the body budget plus 64 MB over the baseline; `bas serve` at most
// 100 MB over its baseline once the clients left, not growing from wave to wave; under 10,000-row
// ledgers, at most 300 MB and no honest request slower than a second.
// Run directly: `node bench/servers.mjs`.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { startServer } from './measure.mjs';

const MB = 1e6;

/** Resident memory of a process from /proc: the peak so far and now, in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

/** POSTs a body; resolves to {status, ms}. */
async function post(url, body) {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t };
}

/**
 * Opens `n` connections that each declare `declared` bytes and send `sent` of them, never the
 * rest. Resolves once every connection has sent its share or been answered or closed by the
 * server; returns the sockets (to be destroyed later) and the statuses the server answered with.
 */
async function slowBodies(url, path, n, declared, sent) {
  const { hostname, port } = new URL(url);
  const piece = Buffer.alloc(256 * 1024, 0x20);
  const statuses = [];
  const sockets = [];
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve) => {
          const s = connect(Number(port), hostname);
          sockets.push(s);
          let left = sent;
          let done = false;
          const finish = () => {
            if (!done) ((done = true), resolve());
          };
          s.on('data', (d) => {
            statuses.push(Number(/^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1'))?.[1] ?? 0));
            finish();
          });
          s.on('error', finish);
          s.on('close', finish);
          const pump = () => {
            while (left > 0 && !done) {
              const chunk = left >= piece.length ? piece : piece.subarray(0, left);
              left -= chunk.length;
              if (!s.write(chunk)) return void s.once('drain', pump);
            }
            finish();
          };
          s.write(
            `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
          );
          pump();
        }),
    ),
  );
  return { sockets, statuses };
}

const settle = () => new Promise((r) => setTimeout(r, Number(process.env.BAS_BENCH_SETTLE_MS ?? 1500)));

/** Unfinished bodies against one server: peak above the baseline, and what is left once the clients go. */
async function bodiesRows(name, command, path, n, declared, sent, budgetMb, warm) {
  const server = await startServer(command);
  try {
    await warm(server.url);
    const base = memory(server.pid).now;
    const { sockets, statuses } = await slowBodies(server.url, path, n, declared, sent);
    for (const s of sockets) s.destroy();
    await settle();
    await warm(server.url);
    const { peak, now: after } = memory(server.pid);
    const refused = statuses.filter((s) => s >= 400).length;
    return [
      { name: `${name}: ${n} bodies of ${sent / MB} MB left unfinished: baseline`, value: base, unit: 'MiB' },
      {
        name: '  same: peak resident memory over the baseline',
        value: peak - base,
        unit: 'MiB',
        target: `<= ${Math.round(budgetMb + 64)}`,
        pass: peak - base <= budgetMb + 64,
      },
      { name: '  same: after the clients left', value: after, unit: 'MiB' },
      { name: '  same: connections refused with a status', value: refused, unit: `of ${n}` },
    ];
  } finally {
    await server.stop();
  }
}

/**
 * `bas serve` after hostile clients leave (issue 26): `waves` rounds of `n` connections that
 * each declare `declared` bytes and send `sent` without finishing, the clients gone between
 * rounds. Resident memory once each round's clients left, against the baseline: what the server
 * keeps must not grow from round to round.
 */
async function serveAfterRows(n, declared, sent, waves, warm) {
  const server = await startServer('serve');
  try {
    await warm(server.url);
    const base = memory(server.pid).now;
    const after = [];
    let refused = 0;
    for (let w = 0; w < waves; w++) {
      const { sockets, statuses } = await slowBodies(server.url, '/v1/chat/completions', n, declared, sent);
      for (const s of sockets) s.destroy();
      refused += statuses.filter((x) => x >= 400).length;
      await settle();
      await warm(server.url);
      after.push(memory(server.pid).now);
    }
    const { peak } = memory(server.pid);
    const kept = Math.max(...after) - base;
    const grew = after[after.length - 1] - after[0];
    return [
      {
        name: `bas serve: ${waves} waves of ${n} bodies declaring ${declared / MB} MB, ${sent / MB} MB sent: baseline`,
        value: base,
        unit: 'MiB',
      },
      { name: '  same: peak resident memory over the baseline', value: peak - base, unit: 'MiB' },
      {
        name: `  same: after each wave's clients left (${after.map((a) => a.toFixed(0)).join(', ')})`,
        value: kept,
        unit: 'MiB over',
        target: '<= 100',
        pass: kept <= 100,
      },
      {
        name: '  same: growth from the first wave to the last',
        value: grew,
        unit: 'MiB',
        target: '<= 20',
        pass: grew <= 20,
      },
      { name: '  same: connections refused with a status', value: refused, unit: `of ${n * waves}` },
    ];
  } finally {
    await server.stop();
  }
}

const label = (n, k) => `bas:g3:p2:n${n}:f1:s7:i${k}`;

/**
 * `requests` /score batches of `items` 10,000-row labels each, sent at once, with honest
 * one-item requests sent one after another while they are under way.
 */
async function ledgerRows(requests, items) {
  const server = await startServer('reward-server');
  try {
    const honest = JSON.stringify([{ label: 'bas:g3:p2:n24:f0.25:s20260826:i0', completion: 'x' }]);
    await post(`${server.url}/score`, honest);
    const base = memory(server.pid).now;
    const hostile = Array.from({ length: requests }, (_, r) =>
      post(
        `${server.url}/score`,
        JSON.stringify(
          Array.from({ length: items }, (_, k) => ({ label: label(10_000, r * items + k), completion: 'x' })),
        ),
      ),
    );
    let left = requests;
    for (const h of hostile) void h.then(() => left--);
    // Let the server start on the hostile batches, then time honest requests beside them.
    await new Promise((r) => setTimeout(r, 300));
    const delays = [];
    do delays.push((await post(`${server.url}/score`, honest)).ms);
    while (left > 0);
    const answered = await Promise.all(hostile);
    const peak = memory(server.pid).peak;
    const statuses = [...new Set(answered.map((a) => a.status))].join('/');
    const slowest = Math.max(...answered.map((a) => a.ms));
    return [
      { name: `reward-server: ${requests} x /score of ${items} 10,000-row labels: baseline`, value: base, unit: 'MiB' },
      { name: `  same: statuses (${statuses}), the last answered after`, value: slowest, unit: 'ms' },
      { name: '  same: peak resident memory', value: peak, unit: 'MiB', target: '<= 300', pass: peak <= 300 },
      {
        name: `  same: slowest of ${delays.length} honest one-item requests beside them`,
        value: Math.max(...delays),
        unit: 'ms',
        target: '<= 1,000',
        pass: Math.max(...delays) <= 1000,
      },
      { name: '  same: median of those', value: delays.sort((a, b) => a - b)[delays.length >> 1], unit: 'ms' },
    ];
  } finally {
    await server.stop();
  }
}

export async function benchServers(only = process.env.BAS_BENCH_SERVERS ?? 'bodies,after,ledgers') {
  const warmReward = (url) => post(`${url}/score`, JSON.stringify([{ label: label(24, 0), completion: 'x' }]));
  const warmServe = (url) =>
    post(`${url}/v1/chat/completions`, JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
  const rows = [];
  if (only.includes('bodies')) {
    rows.push(
      ...(await bodiesRows(
        'reward-server',
        'reward-server',
        '/score',
        24,
        63 * MB,
        60 * MB,
        128 * 1.048576,
        warmReward,
      )),
    );
    rows.push(
      ...(await bodiesRows(
        'bas serve',
        'serve',
        '/v1/chat/completions',
        60,
        8 * MB,
        7.9 * MB,
        64 * 1.048576,
        warmServe,
      )),
    );
  }
  if (only.includes('after')) {
    // The load: bodies declared under the 64 MiB cap of 0.4.0 (now over serve's 8 MiB:
    // refused unread), then bodies under today's cap.
    rows.push(...(await serveAfterRows(60, 63 * MB, 60 * MB, 3, warmServe)));
    rows.push(...(await serveAfterRows(60, 8 * MB, 7.9 * MB, 5, warmServe)));
  }
  if (only.includes('ledgers')) {
    rows.push(...(await ledgerRows(1, 512)));
    rows.push(...(await ledgerRows(5, 100)));
  }
  return rows.map((r) => ({ target: '', pass: null, ...r }));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchServers()) console.log(r);
}
