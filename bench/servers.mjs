// The two servers under what a hostile client can send (issue 26): many connections that each
// declare a body under the cap and send most of it without finishing, and (reward server) a
// batch whose labels ask for the largest ledgers, with an honest one-item request sent beside
// it. Each server is a real child process started as a user starts it; its memory is read
// from /proc (peak: VmHWM, now: VmRSS), so this section needs Linux.
// Run directly: `node bench/servers.mjs`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { BIN } from './measure.mjs';

const MB = 1e6;

/** Resident memory of a process from /proc: the peak so far and now, in MB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { peak: kb('VmHWM') / 1024, now: kb('VmRSS') / 1024 };
}

/** Starts `bas <command> --port 0 ...args`; resolves to {url, pid, stop}. */
function start(command, args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s/]+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          pid: proc.pid,
          stop: () =>
            new Promise((done) => {
              proc.once('exit', done);
              proc.kill('SIGTERM');
            }),
        });
    });
    proc.once('exit', (code) => reject(new Error(`bas ${command} exited with ${code}`)));
  });
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

const settle = () => new Promise((r) => setTimeout(r, 1500));

/** Unfinished bodies against one server: peak above the baseline, and what is left once the clients go. */
async function bodiesRows(name, command, path, n, declared, sent, warm) {
  const server = await start(command);
  try {
    await warm(server.url);
    const base = memory(server.pid).now;
    const { sockets, statuses } = await slowBodies(server.url, path, n, declared, sent);
    const peak = memory(server.pid).peak;
    for (const s of sockets) s.destroy();
    await settle();
    await warm(server.url);
    const after = memory(server.pid).now;
    const refused = statuses.filter((s) => s >= 400).length;
    return [
      { name: `${name}: ${n} bodies of ${sent / MB} MB left unfinished: baseline`, value: base, unit: 'MB' },
      { name: '  same: peak resident memory', value: peak, unit: 'MB' },
      { name: '  same: after the clients left', value: after, unit: 'MB' },
      { name: '  same: connections refused with a status', value: refused, unit: `of ${n}` },
    ];
  } finally {
    await server.stop();
  }
}

const label = (n, k) => `bas:g3:p2:n${n}:f1:s7:i${k}`;

/** A /score batch of 10,000-row ledgers, with an honest one-item request sent while it is under way. */
async function ledgerRows(items) {
  const server = await start('reward-server');
  try {
    const honest = JSON.stringify([{ label: 'bas:g3:p2:n24:f0.25:s20260826:i0', completion: 'x' }]);
    await post(`${server.url}/score`, honest);
    const base = memory(server.pid).now;
    const hostile = JSON.stringify(
      Array.from({ length: items }, (_, k) => ({ label: label(10_000, k), completion: 'x' })),
    );
    const big = post(`${server.url}/score`, hostile);
    // Let the server start on the hostile batch, then time honest requests beside it.
    await new Promise((r) => setTimeout(r, 300));
    const delays = [];
    for (let k = 0; k < 5; k++) delays.push((await post(`${server.url}/score`, honest)).ms);
    const answered = await big;
    const peak = memory(server.pid).peak;
    return [
      { name: `reward-server: /score of ${items} 10,000-row labels: baseline`, value: base, unit: 'MB' },
      {
        name: '  same: its status, and the time it took',
        value: answered.status,
        unit: `${Math.round(answered.ms)} ms`,
      },
      { name: '  same: peak resident memory', value: peak, unit: 'MB' },
      { name: '  same: slowest of 5 honest one-item requests beside it', value: Math.max(...delays), unit: 'ms' },
    ];
  } finally {
    await server.stop();
  }
}

export async function benchServers() {
  const warmReward = (url) => post(`${url}/score`, JSON.stringify([{ label: label(24, 0), completion: 'x' }]));
  const warmServe = (url) =>
    post(`${url}/v1/chat/completions`, JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
  return [
    ...(await bodiesRows('reward-server', 'reward-server', '/score', 24, 63 * MB, 60 * MB, warmReward)),
    ...(await bodiesRows('bas serve', 'serve', '/v1/chat/completions', 60, 8 * MB, 7.9 * MB, warmServe)),
    ...(await ledgerRows(512)),
  ].map((r) => ({ target: '', pass: null, ...r }));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchServers()) console.log(r);
}
