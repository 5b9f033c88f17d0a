// The reward service (issue 19): batches of 256 default-size tasks graded in process and by
// `bas reward-server` over loopback HTTP (a real child process, as a trainer would reach it),
// with the same batches, the same cold cache, the same grader. Two shapes of batch: a
// trainer's (32 prompts x 8 samples, so each key is regenerated once and hit 7 times) and the
// worst case (256 different tasks, every key regenerated). Run directly: `node bench/reward.mjs`.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, median, startServer } from './measure.mjs';

const BATCH = 256;
const BATCHES = 60;
const WARMUP = 8;

const load = (p) => import(pathToFileURL(join(ROOT, 'dist', p)).href);

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** The OpenRLHF bodies: batch b holds tasks from `first(b)`, `perTask` samples each. */
async function makeBodies(samplesPerTask) {
  const [{ generateTask }, { datasetRow }, { runPolicy, POLICY_NAMES }] = await Promise.all([
    load('task/generate.js'),
    load('task/dataset.js'),
    load('task/policies.js'),
  ]);
  const perBatch = BATCH / samplesPerTask;
  const config = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };
  const bodies = [];
  for (let b = 0; b < BATCHES + WARMUP; b++) {
    const query = [];
    const prompts = [];
    const labels = [];
    for (let t = 0; t < perBatch; t++) {
      // A fresh range of tasks per batch and per shape: every batch starts with its keys cold.
      const task = generateTask(config, 100_000 * samplesPerTask + b * perBatch + t);
      const row = datasetRow(task);
      const prompt = `<|im_start|>system\n${row.prompt[0].content}<|im_end|>\n<|im_start|>user\n${row.prompt[1].content}<|im_end|>\n<|im_start|>assistant\n`;
      for (let k = 0; k < samplesPerTask; k++) {
        query.push(`${prompt}${runPolicy(POLICY_NAMES[k % POLICY_NAMES.length], task.prompt)}<|im_end|>`);
        prompts.push(prompt);
        labels.push(row.label);
      }
    }
    bodies.push({ query, prompts, labels });
  }
  return bodies;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs a JSON body on a kept-alive connection; resolves to the status and the parsed answer. */
function postJson(url, body, via = agent) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/get_reward`,
      { method: 'POST', agent: via, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, answer: JSON.parse(Buffer.concat(chunks).toString()) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Each batch twice, in turn: in process (the server's own code path less HTTP and JSON:
 * labels, keys, responses, grading) and over HTTP (request to parsed answer), so both see the
 * same machine from minute to minute. Each side has its own cold cache.
 */
async function run(url, pid, bodies) {
  const [{ TaskKeys }, { readRewardRequest, mainThreadLane, rewardAnswer }, { GradeQueue }] = await Promise.all([
    load('serve/task-keys.js'),
    load('serve/reward-grade.js'),
    load('serve/grade-queue.js'),
  ]);
  const queue = new GradeQueue([mainThreadLane(new TaskKeys(20_000, 64 * 1024 * 1024))]);
  const local = [];
  const remote = [];
  let localCpu = 0;
  let serverCpu = 0;
  for (const [b, body] of bodies.entries()) {
    const cpu = process.cpuUsage();
    let t = process.hrtime.bigint();
    const batch = readRewardRequest(body, 4096);
    rewardAnswer(await queue.grade(batch.labels, batch.responses), batch.sources);
    local.push(Number(process.hrtime.bigint() - t) / 1e6);
    const used = process.cpuUsage(cpu);
    if (b >= WARMUP) localCpu += (used.user + used.system) / 1000;
    const before = cpuMs(pid);
    const text = Buffer.from(JSON.stringify(body));
    t = process.hrtime.bigint();
    const { status, answer } = await postJson(url, text);
    if (status !== 200 || answer.rewards.length !== BATCH) throw new Error(`bad answer: ${status}`);
    remote.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (b >= WARMUP) serverCpu += cpuMs(pid) - before;
  }
  return { local: local.slice(WARMUP), remote: remote.slice(WARMUP), cpuRatio: serverCpu / localCpu };
}

/**
 * OpenRLHF from 0.9.1 posts every sample on its own, many at once: the same batches as
 * one-item requests, all sent together (64 connections), timed from first send to last answer.
 */
async function oneAtATime(url, bodies) {
  const many = new Agent({ keepAlive: true, maxSockets: 64 });
  const rates = [];
  try {
    for (const body of bodies) {
      const singles = body.query.map((q, i) =>
        Buffer.from(JSON.stringify({ query: [q], prompts: [body.prompts[i]], labels: [body.labels[i]] })),
      );
      const t = process.hrtime.bigint();
      await Promise.all(singles.map((b) => postJson(url, b, many)));
      rates.push(singles.length / (Number(process.hrtime.bigint() - t) / 1e9));
    }
  } finally {
    many.destroy();
  }
  return rates.slice(WARMUP);
}

/**
 * CPU time a process has used, all its threads, in ms (from /proc; NaN elsewhere). Ticks are
 * 10 ms, so only sums over many batches mean anything.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

export async function benchReward() {
  const rows = [];
  const server = await startServer('reward-server');
  try {
    for (const [samples, title] of [
      [8, '32 prompts x 8 samples'],
      [1, '256 different tasks'],
    ]) {
      const bodies = await makeBodies(samples);
      const { local, remote, cpuRatio } = await run(server.url, server.pid, bodies);
      const singles = samples === 8 ? await oneAtATime(server.url, (await makeBodies(16)).slice(0, 24)) : null;
      // Medians: one batch that waited for a core another process held says nothing of either side.
      const rate = BATCH / (median(remote) / 1000);
      const ratio = median(remote) / median(local);
      const gate = samples === 8;
      rows.push({
        name: `reward-server, batches of ${title}: rewards/s (median batch)`,
        value: rate,
        unit: '/s',
        target: gate ? '>= 5,000' : '',
        pass: gate ? rate >= 5000 : null,
      });
      rows.push({
        name: '  same: server time / in-process time',
        value: ratio,
        unit: 'x',
        target: gate ? '<= 1.5' : '',
        pass: gate ? ratio <= 1.5 : null,
      });
      // CPU time holds still when other processes take the cores: the server's whole cost
      // (threads included) against grading in process, for the same batches.
      rows.push({
        name: '  same: server CPU time / in-process CPU time',
        value: cpuRatio,
        unit: 'x',
        target: '',
        pass: null,
      });
      rows.push({
        name: '  same: in process, rewards/s',
        value: BATCH / (median(local) / 1000),
        unit: '/s',
        target: '',
        pass: null,
      });
      rows.push({
        name: '  same: latency per batch, p50',
        value: quantile(remote, 0.5),
        unit: 'ms',
        target: '',
        pass: null,
      });
      rows.push({
        name: '  same: latency per batch, p99',
        value: quantile(remote, 0.99),
        unit: 'ms',
        target: '',
        pass: null,
      });
      if (singles)
        rows.push({
          name: '  same batches, one sample a request, 256 at once: rewards/s',
          value: median(singles),
          unit: '/s',
          target: '',
          pass: null,
        });
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchReward()) console.log(r);
}
