// The three runners as commands over one tasks file, and a measurement of a whole process
// tree: wall time, CPU (GNU time's user + system, which counts every child the tool waited
// for: verifiers' per-rollout programs, uv), and peak resident memory summed over the tree
// (sampled from /proc, since GNU time's %M is the largest single process, not the tree).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, LAUNCH_FLAGS, ROOT } from '../measure.mjs';

const HERE = join(ROOT, 'bench', 'peers');
const MARK = 'BAS_PEERS_RUSAGE';

/** Every process whose parent chain reaches `root`, `root` included (read from /proc). */
function treeOf(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone between the listing and the read
    }
  }
  const out = [];
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop();
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Starts `cmd args` under GNU time in a process group of its own. Resolves to a handle:
 * {pid, done: Promise<{seconds, cpuSeconds, peakMb, code}>, kill()}; kill() sends SIGKILL to
 * every process of the tool's tree, those that started sessions of their own too.
 */
export function startMeasured(cmd, args, { cwd = ROOT, env = {} } = {}) {
  const child = spawn('/usr/bin/time', ['-f', `${MARK} %U %S`, cmd, ...args], {
    cwd,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const started = performance.now();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  let peakKb = 0;
  const sample = () =>
    (peakKb = Math.max(
      peakKb,
      treeOf(child.pid).reduce((s, p) => s + rssKb(p), 0),
    ));
  const timer = setInterval(sample, 200);
  const done = new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      const m = new RegExp(`${MARK} ([\\d.]+) ([\\d.]+)`).exec(stderr);
      const cpuSeconds = m ? Number(m[1]) + Number(m[2]) : Number.NaN;
      resolve({ seconds, cpuSeconds, peakMb: peakKb / 1024, code: code ?? signal, stderr });
    });
  });
  return {
    pid: child.pid,
    done,
    // GNU time itself is spared, so that it reaps the tool: a restart must not find the killed
    // tool still in the process table as a zombie (bas would take its run folder as in use).
    kill: () => {
      for (const pid of treeOf(child.pid).slice(1).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
}

/**
 * The command that runs `tool` over `tasks` (a `bas gen` JSONL file of `n` tasks with `rows`
 * rows) against `url` with `c` in flight, writing into `out`. `maxTokens` is sent when set.
 */
export function toolCommand(tool, bins, { url, tasks, n, rows, c, out, model, maxTokens }) {
  const env = { PEER_API_KEY: 'peers', PEER_BASE_URL: url };
  if (tool === 'bas') {
    const limit = maxTokens ? ['--max-tokens', String(maxTokens)] : [];
    const args = ['eval', '-m', model, '--base-url', url, '--api-key-var', 'PEER_API_KEY', '-n', String(n)];
    args.push('--num-transactions', String(rows), '-c', String(c), '--output', out, '--no-progress', '--json');
    return { cmd: process.execPath, args: [...LAUNCH_FLAGS, BIN, ...args, ...limit], env };
  }
  if (tool === 'inspect') {
    const limit = maxTokens ? ['--max-tokens', String(maxTokens)] : [];
    const args = ['eval', 'inspect_bas.py', '-T', `tasks=${tasks}`, '--model', `openai-api/peer/${model}`];
    args.push('-M', 'stream=false', '--max-connections', String(c), '--max-samples', String(c));
    args.push('--log-dir', out, '--display', 'none', ...limit);
    return { cmd: join(bins.inspect, 'inspect'), args, env, cwd: HERE };
  }
  const limit = maxTokens ? ['--sampling.max-tokens', String(maxTokens)] : [];
  const args = ['bas-peer-taskset', '--env.taskset.tasks', tasks, '--env.agent.harness.id', 'null'];
  args.push('--env.agent.runtime.type', 'subprocess', '-m', model, '--client.base-url', url);
  args.push('--client.api-key-var', 'PEER_API_KEY', '-c', String(c), '--no-rich', '--no-push');
  args.push('-o', out, '--run.name', 'run', ...limit);
  return { cmd: join(bins.verifiers, 'vf-eval'), args, env: verifiersEnv(bins, env) };
}

/** verifiers finds uv on PATH and the taskset module on PYTHONPATH. */
function verifiersEnv(bins, env = {}) {
  return { ...env, PATH: `${bins.verifiers}:${process.env.PATH}`, PYTHONPATH: HERE };
}

/** The restart each tool offers after a kill, as a command over the same output `out`. */
export function restartCommand(tool, bins, { out, inspectLog, url }) {
  const env = { PEER_API_KEY: 'peers', PEER_BASE_URL: url };
  if (tool === 'bas') {
    // bas takes a run folder's endpoint only when a flag names it again (where the key goes).
    const args = ['eval', '--resume', out, '--base-url', url, '--api-key-var', 'PEER_API_KEY', '--no-progress'];
    return { cmd: process.execPath, args: [...LAUNCH_FLAGS, BIN, ...args], env };
  }
  if (tool === 'inspect')
    return {
      cmd: join(bins.inspect, 'inspect'),
      args: ['eval-retry', inspectLog, '--log-dir', out, '--display', 'none'],
      env,
      cwd: HERE,
    };
  const config = join(out, 'run', 'configs', 'resolved', 'eval.json');
  return { cmd: join(bins.verifiers, 'vf-eval'), args: ['@', config, '--resume'], env: verifiersEnv(bins, env) };
}

/** What a tool's output holds: {done, reward, log}: rollouts finished without error, their mean reward. */
export function outcome(tool, bins, out) {
  if (tool === 'bas') {
    const file = join(out, 'results.jsonl');
    if (!existsSync(file)) return { done: 0, reward: null };
    const rows = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    // A resumed run appends its retries; a rollout counts once, when a line of it has no error.
    const ok = new Map(rows.filter((r) => r.error == null).map((r) => [`${r.index}/${r.rollout}`, r.reward]));
    return { done: ok.size, reward: mean([...ok.values()]) };
  }
  if (tool === 'inspect') {
    const r = spawnSync(join(bins.inspect, 'python'), [join(HERE, 'inspect_log.py'), out], { encoding: 'utf8' });
    if (r.status !== 0) return { done: 0, reward: null };
    return JSON.parse(r.stdout);
  }
  const file = join(out, 'run', 'traces.jsonl');
  if (!existsSync(file)) return { done: 0, reward: null };
  const eps = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
  const ok = eps.filter((e) => e.ok);
  return { done: ok.length, reward: mean(ok.map((e) => e.traces[0]?.rewards?.figures?.score ?? 0)) };
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
