// bas beside inspect_ai and verifiers on the same work: the same `bas gen` prompts, one
// completion each, the same endpoints (bas serve at 0 and 200 ms, and a real model when one
// is installed), the same concurrency and number of rollouts. Each tool is one measured
// process tree; the floor is bench/floor-client.mjs (bare node:http, keep-alive) sending the
// same requests. Then each is killed mid-run (SIGKILL) and restarted the way it offers.
// The peers' environments are made outside the repository by bench/peers/setup.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, row, startServe } from './measure.mjs';
import { ensurePeers, PeerSetupError } from './peers/setup.mjs';
import { outcome, restartCommand, startMeasured, toolCommand } from './peers/tools.mjs';

const TOOLS = [
  ['bas', 'bas eval'],
  ['inspect', 'inspect_ai'],
  ['verifiers', 'verifiers'],
];
// verifiers runs each rollout as a Python program of its own (about 2 CPU seconds each on
// this machine), so 128 rollouts keep the section to minutes on 2 cores.
const SERVE = { n: 128, rows: 24, c: 32, model: 'bench-model' };
const REAL = { n: 4, rows: 8, c: 1, model: 'gemma-3-270m', maxTokens: 16 };
const KILL = { n: 48, rows: 24, c: 4, model: 'bench-model', killAfter: 20 };

function gen(dir, n, rows) {
  const file = join(dir, `tasks-${n}x${rows}.jsonl`);
  const r = spawnSync(process.execPath, [BIN, 'gen', '-n', String(n), '--num-transactions', String(rows), '-o', file]);
  if (r.status !== 0) throw new Error(`bas gen failed: ${r.stderr}`);
  return file;
}

/** bench/floor-client.mjs over the same requests; resolves to its seconds. */
function floor(url, { n, c, rows, maxTokens, model }) {
  const extra = [`rows=${rows}`, `model=${model}`, ...(maxTokens ? [`max_tokens=${maxTokens}`] : [])];
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [join(ROOT, 'bench', 'floor-client.mjs'), 'http', url, String(n), String(c), ...extra],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(out).seconds) : reject(new Error(`floor client exited with ${code}`)),
    );
  });
}

const served = async (url) => (await (await fetch(`${url}/bas/stats`)).json()).requests;

/** One measured run of `tool`; {seconds, cpuSeconds, peakMb, done, reward, requests}. */
async function runTool(tool, bins, url, tasks, opts, count) {
  const out = mkdtempSync(join(tmpdir(), `bas-peers-${tool}-`));
  try {
    const before = count ? await served(url) : 0;
    const { cmd, args, env, cwd } = toolCommand(tool, bins, { url, tasks, out, ...opts });
    const m = await startMeasured(cmd, args, { env, cwd }).done;
    const requests = count ? (await served(url)) - before : Number.NaN;
    const got = outcome(tool, bins, out);
    if (m.code !== 0) console.error(`peers: ${tool} exited with ${m.code}: ${m.stderr.slice(-600)}`);
    return { ...m, ...got, requests };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Floor, then each tool once, over `opts` against `url`: rows of ratios and rates. */
async function sideBySide(label, bins, url, tasks, opts, count) {
  const floorSeconds = await floor(url, opts);
  const rows = [row(`${label}: floor (bare node:http loop), wall`, floorSeconds, 's')];
  for (const [tool, name] of TOOLS) {
    const r = await runTool(tool, bins, url, tasks, opts, count);
    const reqs = count ? `, ${r.requests} requests` : '';
    rows.push(row(`  ${name}: wall / floor`, r.seconds / floorSeconds, 'x', `${r.done}/${opts.n} done${reqs}`));
    rows.push(row(`  ${name}: rollouts/s (whole process)`, opts.n / r.seconds, '/s'));
    rows.push(row(`  ${name}: CPU s per rollout (process tree)`, r.cpuSeconds / opts.n, 's'));
    rows.push(row(`  ${name}: peak RSS (process tree)`, r.peakMb, 'MiB', `reward ${r.reward?.toFixed(2)}`));
  }
  return rows;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Kills `tool` with SIGKILL once the 200 ms server has had `killAfter` of its requests, then
 * restarts it the way it offers and counts: requests before the kill, requests of the
 * restart, and the rollouts the final output holds.
 */
async function killAndRestart(tool, bins, url, tasks) {
  const out = mkdtempSync(join(tmpdir(), `bas-peers-kill-${tool}-`));
  try {
    const start = await served(url);
    const first = toolCommand(tool, bins, { url, tasks, out, ...KILL });
    const run = startMeasured(first.cmd, first.args, { env: first.env, cwd: first.cwd });
    let finished = false;
    run.done.then(() => (finished = true));
    while (!finished && (await served(url)) - start < KILL.killAfter) await sleep(20);
    run.kill();
    await run.done;
    const atKill = (await served(url)) - start;
    const kept = outcome(tool, bins, out);
    if (tool === 'inspect' && !kept.log) return `killed after ${atKill} requests; no log was written, nothing to retry`;
    const again = restartCommand(tool, bins, { out, url, inspectLog: kept.log });
    const second = await startMeasured(again.cmd, again.args, { env: again.env, cwd: again.cwd }).done;
    const restart = (await served(url)) - start - atKill;
    const final = outcome(tool, bins, out);
    const note = second.code === 0 ? '' : ` (restart exited ${second.code}: ${second.stderr.trim().split('\n').pop()})`;
    return `killed after ${atKill} requests with ${kept.done} saved; restart sent ${restart}; ${final.done}/${KILL.n} in the output${note}`;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The real model (docs/real-model.md), served on a free port; null when it is not installed. */
async function startRealModel() {
  const script = [join(ROOT, 'scripts', 'real-model.sh'), process.env.BAS_REAL_MODEL_SCRIPT].find(
    (p) => p && existsSync(p),
  );
  if (!script || spawnSync('bash', [script, 'model-path'], { stdio: 'ignore' }).status !== 0) return null;
  const port = await freePort();
  const proc = spawn('bash', [script, 'serve', String(port)], { stdio: 'ignore', detached: true });
  const url = `http://127.0.0.1:${port}/v1`;
  for (let i = 0; i < 240; i++) {
    if (proc.exitCode !== null) return null;
    if (
      await fetch(`${url}/models`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(500);
  }
  const stop = () =>
    new Promise((done) => {
      proc.once('exit', done);
      process.kill(-proc.pid, 'SIGTERM');
    });
  return { url, stop };
}

/** The peers section of `npm run bench`. */
export async function benchPeers() {
  let bins;
  try {
    bins = ensurePeers();
  } catch (e) {
    if (!(e instanceof PeerSetupError)) throw e;
    console.error(`peers: ${e.message}`);
    return [row('inspect_ai and verifiers installed', 'no', '', 'yes', false)];
  }
  if (!existsSync('/usr/bin/time')) {
    console.error(
      'peers: GNU time (/usr/bin/time) is needed to count CPU over a process tree (Debian: apt-get install time)',
    );
    return [row('GNU time installed', 'no', '', 'yes', false)];
  }
  const dir = mkdtempSync(join(tmpdir(), 'bas-peers-'));
  const rows = [];
  try {
    const tasks = gen(dir, SERVE.n, SERVE.rows);
    const fast = await startServe([]);
    try {
      await floor(fast.url, { ...SERVE, n: 200 }); // warm the server
      rows.push(
        ...(await sideBySide(
          `bas serve, 0 ms, ${SERVE.n} rollouts, -c ${SERVE.c}`,
          bins,
          fast.url,
          tasks,
          SERVE,
          true,
        )),
      );
    } finally {
      await fast.stop();
    }
    const slow = await startServe(['--latency', '200']);
    try {
      rows.push(
        ...(await sideBySide(
          `bas serve, 200 ms, ${SERVE.n} rollouts, -c ${SERVE.c}`,
          bins,
          slow.url,
          tasks,
          SERVE,
          true,
        )),
      );
      const killTasks = gen(dir, KILL.n, KILL.rows);
      for (const [tool, name] of TOOLS)
        rows.push(
          row(
            `kill -9 mid-run (200 ms, ${KILL.n} rollouts, -c ${KILL.c}), ${name}`,
            await killAndRestart(tool, bins, slow.url, killTasks),
            '',
          ),
        );
    } finally {
      await slow.stop();
    }
    const real = await startRealModel();
    if (!real) {
      console.error('peers: the real model is not installed (scripts/real-model.sh install): its rows are left out');
    } else {
      try {
        const realTasks = gen(dir, REAL.n, REAL.rows);
        await floor(real.url, { ...REAL, n: 1 }); // the first request loads the model
        rows.push(
          ...(await sideBySide(
            `real model, ${REAL.n} tasks x ${REAL.rows} rows, max_tokens ${REAL.maxTokens}, -c 1`,
            bins,
            real.url,
            realTasks,
            REAL,
            false,
          )),
        );
      } finally {
        await real.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
